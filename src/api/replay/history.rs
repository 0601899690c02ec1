//! One profile's replays in this session: the last [`HISTORY_LEN`] results (fix the receiver,
//! replay, compare), the target last used, and the hosts beyond this machine already confirmed.
use std::collections::{BTreeSet, VecDeque};

use super::{ReplayPlan, ReplayResult, is_loopback};

/// Replays kept per profile.
pub const HISTORY_LEN: usize = 20;

/// One replay: what was replayed, where, and what came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    /// `cbn_…`.
    pub notification_id: String,
    /// The recorded attempt replayed.
    pub attempt_index: i64,
    /// Where it was sent.
    pub target: url::Url,
    /// The answer.
    pub result: ReplayResult,
    /// The body sent when it was edited (`E`, `--edit`), else `None` (the recorded body).
    pub edited_body: Option<String>,
}

/// A profile's replay memory for the session (not saved: it holds receivers' answers).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayHistory {
    entries: VecDeque<HistoryEntry>,
    last_target: Option<String>,
    confirmed: BTreeSet<String>,
}

impl ReplayHistory {
    /// Whether sending to `target` first needs a typed confirmation: a host that is not this
    /// machine and has not been confirmed in this session.
    #[must_use]
    pub fn needs_confirmation(&self, target: &url::Url) -> bool {
        !is_loopback(target) && !self.confirmed.contains(&host_key(target))
    }

    /// Remembers that the operator confirmed `target`'s host.
    pub fn confirm(&mut self, target: &url::Url) {
        self.confirmed.insert(host_key(target));
    }

    /// The target last replayed to, to prefill the next prompt.
    #[must_use]
    pub fn last_target(&self) -> Option<&str> {
        self.last_target.as_deref()
    }

    /// Records a replay, dropping the oldest beyond [`HISTORY_LEN`].
    pub fn record(&mut self, plan: &ReplayPlan, result: ReplayResult) {
        self.record_body(plan, result, None);
    }

    /// [`ReplayHistory::record`], keeping the edited body sent.
    pub fn record_body(
        &mut self,
        plan: &ReplayPlan,
        result: ReplayResult,
        edited_body: Option<String>,
    ) {
        self.last_target = Some(plan.target.to_string());
        if self.entries.len() >= HISTORY_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back(HistoryEntry {
            notification_id: plan.notification_id.clone(),
            attempt_index: plan.attempt_index,
            target: plan.target.clone(),
            result,
            edited_body,
        });
    }

    /// The replays, newest first.
    pub fn newest_first(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.entries.iter().rev()
    }

    /// The replays of one notification, newest first.
    pub fn of<'a>(&'a self, notification_id: &'a str) -> impl Iterator<Item = &'a HistoryEntry> {
        self.newest_first()
            .filter(move |e| e.notification_id == notification_id)
    }

    /// How many replays are kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// `host:port` (the port the scheme implies when none is written): what a confirmation covers.
fn host_key(u: &url::Url) -> String {
    format!(
        "{}:{}",
        u.host_str().unwrap_or_default().to_ascii_lowercase(),
        u.port_or_known_default().unwrap_or(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::replay::ReplayPlan;
    use std::time::Duration;

    fn plan(target: &str, n: usize) -> ReplayPlan {
        ReplayPlan {
            notification_id: format!("cbn_{n}"),
            attempt_index: 0,
            target: url::Url::parse(target).expect("url"),
            method: "POST",
            body: "{}".into(),
            headers: Vec::new(),
            signing: None,
            destination: None,
        }
    }

    fn answer() -> ReplayResult {
        ReplayResult {
            sent_at: chrono::Utc::now(),
            sent_headers: Vec::new(),
            status: Some(200),
            headers: crate::api::replay::AnswerHeaders::default(),
            headers_truncated: false,
            body: None,
            body_truncated: false,
            duration: Duration::ZERO,
            error: None,
        }
    }

    #[test]
    fn keeps_the_last_twenty_newest_first() {
        let mut h = ReplayHistory::default();
        for n in 0..25 {
            h.record(&plan("http://localhost:3000/in", n), answer());
        }
        assert_eq!(h.len(), HISTORY_LEN);
        let ids: Vec<&str> = h
            .newest_first()
            .map(|e| e.notification_id.as_str())
            .collect();
        assert_eq!(ids.first(), Some(&"cbn_24"));
        assert_eq!(ids.last(), Some(&"cbn_5"));
        assert_eq!(h.of("cbn_7").count(), 1);
        assert_eq!(h.last_target(), Some("http://localhost:3000/in"));
    }

    #[test]
    fn remote_hosts_are_confirmed_once_per_host_and_port() {
        let mut h = ReplayHistory::default();
        let local = url::Url::parse("http://127.0.0.1:9/x").expect("url");
        let remote = url::Url::parse("https://hooks.example/a").expect("url");
        assert!(!h.needs_confirmation(&local));
        assert!(h.needs_confirmation(&remote));
        h.confirm(&remote);
        let same = url::Url::parse("https://HOOKS.example:443/b").expect("url");
        assert!(!h.needs_confirmation(&same));
        let other_port = url::Url::parse("https://hooks.example:8443/a").expect("url");
        assert!(h.needs_confirmation(&other_port));
    }
}
