//! A selection of notifications (issue 26, shared by `recover`, `wait` and `forward`): the API's
//! filters (destinations, callbacks, event ids) plus what only the client can check (event types,
//! statuses, "needed more than one attempt", a time window).
//!
//! A selection is walked newest first in pages of 100 (`order=desc`, `after=<last id>`). Ids are
//! time-ordered, so the first notification older than the window's start ends the walk: the cost
//! follows the window, never the whole history.
//!
//! Durations and times as users type them: [`parse_duration`] (`500ms`, `2s`, `5m`, `2h`, `1d`,
//! `1h30m`) and [`parse_time`] (a duration ago, or an ISO 8601 time).
use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::model::{Notification, NotificationStatus};
use super::{ApiRequest, Client, Error, ListQuery, NotificationFilter, Order, Page};

/// Items per page of a walk (the contract's maximum).
pub const PAGE: u32 = 100;

/// Why a duration or a time does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectionError {
    /// Not `<number><unit>…` with units `ms`, `s`, `m`, `h`, `d`.
    #[error("{0:?} is not a duration (500ms, 2s, 5m, 2h, 1d, 1h30m)")]
    Duration(String),
    /// Neither a duration nor an ISO 8601 time.
    #[error("{0:?} is neither a duration ago (30m, 2h, 1d) nor a time (2026-01-31T12:00:00Z)")]
    Time(String),
    /// The window ends before it starts.
    #[error("the window ends ({until}) before it starts ({since})")]
    EmptyWindow {
        /// `--since`.
        since: String,
        /// `--until`.
        until: String,
    },
}

/// Parses a duration as users type it: one or more `<number><unit>` with units `ms`, `s`, `m`,
/// `h`, `d` (`500ms`, `2s`, `5m`, `2h`, `1d`, `1h30m`). A bare number is refused (seconds or
/// milliseconds would be a guess).
///
/// # Errors
/// [`SelectionError::Duration`] for anything else, or a total past `u64` milliseconds.
pub fn parse_duration(text: &str) -> Result<Duration, SelectionError> {
    let s = text.trim();
    let bad = || SelectionError::Duration(text.to_string());
    if s.is_empty() {
        return Err(bad());
    }
    let mut total_ms: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad());
        }
        let n: u64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit_ms: u64 = match &rest[..unit_len] {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total_ms = n
            .checked_mul(unit_ms)
            .and_then(|v| total_ms.checked_add(v))
            .ok_or_else(bad)?;
    }
    Ok(Duration::from_millis(total_ms))
}

/// Parses a point in time as users type it for a window: a duration ago (`2h` is two hours
/// before `now`) or an ISO 8601 time (`2026-01-31T12:00:00Z`, `2026-01-31`).
///
/// # Errors
/// [`SelectionError::Time`] for anything else.
pub fn parse_time(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, SelectionError> {
    if let Ok(d) = parse_duration(text) {
        return chrono::Duration::from_std(d)
            .ok()
            .and_then(|d| now.checked_sub_signed(d))
            .ok_or_else(|| SelectionError::Time(text.to_string()));
    }
    super::model::time::parse(text.trim()).ok_or_else(|| SelectionError::Time(text.to_string()))
}

/// Which notifications: every field narrows (AND); several values of one field widen (OR). Empty
/// fields select everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Only to these destinations (`cld_…`; the API filters).
    pub destinations: Vec<String>,
    /// Only for these callbacks (`clb_…`; the API filters).
    pub callbacks: Vec<String>,
    /// Only for these events (`cbe_…`; the API filters).
    pub events: Vec<String>,
    /// Only of these event types (the delivered body's `type`); a trailing `*` matches a prefix.
    pub event_types: Vec<String>,
    /// Only in these states.
    pub statuses: Vec<NotificationStatus>,
    /// Only those that needed more than one attempt.
    pub retried: bool,
    /// Created at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Created at or before this time.
    pub until: Option<DateTime<Utc>>,
    /// Only these notifications (`cbn_…`, e.g. rows marked in the console): each is read by id
    /// instead of walking the list, and the API's filters above are not asked.
    pub notifications: Vec<String>,
}

impl Selection {
    /// The part the API filters.
    #[must_use]
    pub fn filter(&self) -> NotificationFilter {
        NotificationFilter {
            callback_ids: self.callbacks.clone(),
            event_ids: self.events.clone(),
            destination_ids: self.destinations.clone(),
            ..NotificationFilter::default()
        }
    }

    /// Checks the window.
    ///
    /// # Errors
    /// [`SelectionError::EmptyWindow`] when `until` is before `since`.
    pub fn validate(&self) -> Result<(), SelectionError> {
        match (self.since, self.until) {
            (Some(s), Some(u)) if u < s => Err(SelectionError::EmptyWindow {
                since: super::model::time::format(&s),
                until: super::model::time::format(&u),
            }),
            _ => Ok(()),
        }
    }

    /// Whether `n` is older than the window: every later item of a newest-first walk is too.
    #[must_use]
    pub fn before_window(&self, n: &Notification) -> bool {
        self.since.is_some_and(|s| n.created_at < s)
    }

    /// Whether `n` is selected by everything the API does not filter (window, statuses, retried,
    /// event types). The API's filters are assumed applied.
    #[must_use]
    pub fn matches(&self, n: &Notification) -> bool {
        if self.before_window(n) || self.until.is_some_and(|u| n.created_at > u) {
            return false;
        }
        if !self.statuses.is_empty() && !self.statuses.contains(&n.status) {
            return false;
        }
        if self.retried && n.attempts.len() < 2 {
            return false;
        }
        if !self.event_types.is_empty() {
            let Some(t) = n.event_type() else {
                return false;
            };
            return self
                .event_types
                .iter()
                .any(|want| match want.strip_suffix('*') {
                    Some(prefix) => t.starts_with(prefix),
                    None => *want == t,
                });
        }
        true
    }

    /// A newest-first walk of this selection.
    #[must_use]
    pub fn walk<'a>(&'a self, client: &'a Client) -> Walk<'a> {
        // Ids are time-ordered: newest first, as a list walk goes.
        let mut ids = self.notifications.clone();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.dedup();
        Walk {
            client,
            selection: self,
            filter: self.filter(),
            ids,
            after: None,
            cursors: HashSet::new(),
            done: false,
            stats: WalkStats::default(),
            meter: client.budget().meter(),
        }
    }

    /// Every selected notification, newest first.
    ///
    /// # Errors
    /// The first failing page's error.
    pub async fn collect(&self, client: &Client) -> Result<Vec<Notification>, Error> {
        let mut walk = self.walk(client);
        let mut out = Vec::new();
        while let Some(batch) = walk.next_page().await? {
            out.extend(batch);
        }
        Ok(out)
    }
}

/// What a walk read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Pages fetched.
    pub pages: usize,
    /// Notifications read (selected or not).
    pub seen: usize,
    /// Notifications selected.
    pub selected: usize,
}

/// A newest-first walk of a [`Selection`], page by page ([`Selection::walk`]).
#[derive(Debug)]
pub struct Walk<'a> {
    client: &'a Client,
    selection: &'a Selection,
    filter: NotificationFilter,
    // The ids still to read, newest first, when the selection names its notifications.
    ids: Vec<String>,
    after: Option<String>,
    // Every cursor followed: a server cycling through pages (A, B, A, …) must not make us loop.
    cursors: HashSet<String>,
    done: bool,
    stats: WalkStats,
    // The client's walk budget (`api::budget`), counted page by page.
    meter: super::budget::Meter,
}

impl Walk<'_> {
    /// The selected notifications of the next page, newest first (possibly none when a page held
    /// only unselected ones); `None` once the list or the window has ended.
    ///
    /// # Errors
    /// The page's error (network, HTTP status or an undecodable item); the walk can be retried.
    pub async fn next_page(&mut self) -> Result<Option<Vec<Notification>>, Error> {
        if self.done {
            return Ok(None);
        }
        if !self.selection.notifications.is_empty() {
            return self.next_by_id().await.map(Some);
        }
        let q = ListQuery {
            limit: Some(PAGE),
            after: self.after.clone(),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = self
            .client
            .send(&ApiRequest::list_notifications(&q, &self.filter))
            .await?;
        let page: Page<Notification> = super::client::decode(raw.status, &raw.body)?;
        self.meter.count(page.items.len(), raw.body.len());
        drop(raw);
        self.stats.pages += 1;
        self.stats.seen += page.items.len();
        let last = page.items.last().map(|n| n.id.clone());
        let mut out = Vec::with_capacity(page.items.len());
        for n in page.items {
            if self.selection.before_window(&n) {
                // Ids, hence pages, are in time order: nothing after this is in the window.
                self.done = true;
                break;
            }
            if self.selection.matches(&n) {
                out.push(n);
            }
        }
        self.stats.selected += out.len();
        match last {
            Some(id)
                if !self.done
                    && page.pagination.has_more_after
                    && self.cursors.insert(id.clone()) =>
            {
                // The budget of every list walk (`lookup::walk`): a server that never stops paging
                // must neither keep us reading forever nor pass a partial selection off as whole.
                if let Err(e) = self.meter.next(Some(&id)) {
                    self.done = true;
                    return Err(e);
                }
                self.after = Some(id);
            }
            _ => self.done = true,
        }
        Ok(Some(out))
    }

    /// Up to a page of the named notifications, read one by one; the window, statuses and the
    /// rest still apply.
    async fn next_by_id(&mut self) -> Result<Vec<Notification>, Error> {
        let take = self.ids.len().min(PAGE as usize);
        let batch: Vec<String> = self.ids.drain(..take).collect();
        self.done = self.ids.is_empty();
        self.stats.pages += 1;
        let mut out = Vec::with_capacity(batch.len());
        for id in batch {
            let n = self.client.get_notification(&id).await?;
            self.stats.seen += 1;
            if self.selection.matches(&n) {
                out.push(n);
            }
        }
        self.stats.selected += out.len();
        Ok(out)
    }

    /// What the walk read so far.
    #[must_use]
    pub fn stats(&self) -> WalkStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_typed() {
        let ms = |s: &str| parse_duration(s).map(|d| d.as_millis());
        assert_eq!(ms("500ms"), Ok(500));
        assert_eq!(ms("2s"), Ok(2_000));
        assert_eq!(ms(" 5m "), Ok(300_000));
        assert_eq!(ms("2h"), Ok(7_200_000));
        assert_eq!(ms("1d"), Ok(86_400_000));
        assert_eq!(ms("1h30m"), Ok(5_400_000));
        assert_eq!(ms("0s"), Ok(0));
        for bad in [
            "",
            "5",
            "m",
            "5x",
            "-5s",
            "1.5h",
            "5 m",
            "99999999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn times_are_a_duration_ago_or_iso() {
        let now = super::super::model::time::parse("2026-01-31T12:00:00Z").expect("now");
        let t = |s: &str| parse_time(s, now).map(|t| super::super::model::time::format(&t));
        assert_eq!(t("2h").as_deref(), Ok("2026-01-31T10:00:00.000Z"));
        assert_eq!(t("90s").as_deref(), Ok("2026-01-31T11:58:30.000Z"));
        assert_eq!(
            t("2026-01-30T08:00:00Z").as_deref(),
            Ok("2026-01-30T08:00:00.000Z")
        );
        assert_eq!(t("2026-01-30").as_deref(), Ok("2026-01-30T00:00:00.000Z"));
        assert!(parse_time("yesterday", now).is_err());
    }

    fn n(status: &str, created: &str, attempts: usize, kind: &str) -> Notification {
        let body = format!(r#"{{"type":"{kind}"}}"#);
        let attempts: Vec<_> = (0..attempts)
            .map(|i| {
                serde_json::json!({"id": format!("cbna_{i}"), "status": "failed", "index": i,
                    "created_at": created,
                    "webhook_request": {"id": "r", "url": "http://r/in", "request_method": "POST",
                        "request_body": body, "request_headers": {}, "response_status": 500,
                        "duration": 1, "created_at": created}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "id": "cbn_1", "type": "webhook_http", "status": status, "url": "http://r/in",
            "created_at": created, "attempts": attempts,
        }))
        .expect("notification")
    }

    #[test]
    fn client_side_filters_narrow() {
        let at = |s: &str| super::super::model::time::parse(s).expect("time");
        let sel = Selection {
            statuses: vec![NotificationStatus::Failed, NotificationStatus::Retrying],
            event_types: vec!["build.*".into(), "deploy.done".into()],
            retried: true,
            since: Some(at("2026-01-01T00:00:00Z")),
            until: Some(at("2026-01-02T00:00:00Z")),
            ..Selection::default()
        };
        let inside = "2026-01-01T12:00:00Z";
        assert!(sel.matches(&n("failed", inside, 2, "build.failed")));
        assert!(sel.matches(&n("retrying", inside, 3, "deploy.done")));
        assert!(!sel.matches(&n("succeeded", inside, 2, "build.failed")));
        assert!(!sel.matches(&n("failed", inside, 1, "build.failed")));
        assert!(!sel.matches(&n("failed", inside, 2, "deploy.started")));
        assert!(!sel.matches(&n("failed", "2026-01-03T00:00:00Z", 2, "build.x")));
        let old = n("failed", "2025-12-31T00:00:00Z", 2, "build.x");
        assert!(!sel.matches(&old) && sel.before_window(&old));
        assert!(Selection::default().matches(&n("pending", inside, 0, "x")));
    }

    #[test]
    fn a_window_that_ends_before_it_starts_is_refused() {
        let at = |s: &str| super::super::model::time::parse(s).expect("time");
        let sel = Selection {
            since: Some(at("2026-01-02T00:00:00Z")),
            until: Some(at("2026-01-01T00:00:00Z")),
            ..Selection::default()
        };
        assert!(matches!(
            sel.validate(),
            Err(SelectionError::EmptyWindow { .. })
        ));
        assert!(Selection::default().validate().is_ok());
    }
}
