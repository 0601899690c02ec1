//! Alerts on destinations (issue 38): rules in the config ([`rule`]), judged in one pass over
//! the API's lists ([`evaluate`]), an alert fired only when a rule's state changes (failing,
//! then recovered) and remembered across restarts ([`state`]), sent to standard output, a
//! command or a webhook ([`sink`]). `switchboard alerts check|watch` is `crate::headless`'s.
pub mod evaluate;
pub mod newer;
pub mod rule;
pub mod sink;
pub mod state;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

pub use evaluate::{Finding, Subject, evaluate};
pub use rule::{Kind, Rule, RuleError, Sink, Target, parse_rules};
pub use state::{Failing, Memory, StateError, StateFile};

/// A rule's state for one subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// The rule holds.
    Failing,
    /// It held and no longer does.
    Recovered,
    /// It does not hold (`alerts check` only).
    Ok,
}

impl State {
    /// The word in the JSON.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            State::Failing => "failing",
            State::Recovered => "recovered",
            State::Ok => "ok",
        }
    }
}

/// The JSON of a finding in `state`: `{"alert", "state", "rule", "destination", "since",
/// "notifications", "last_answer", …}`, masked by the one redaction policy (the answer's
/// headers, secret-named fields). `since` is when the state began.
#[must_use]
pub fn alert_json(f: &Finding, state: State, since: Option<DateTime<Utc>>) -> Value {
    let (destination, import) = match &f.subject {
        Subject::Destination(id) => (Some(id.as_str()), None),
        Subject::Import(id) => (None, Some(id.as_str())),
    };
    let mut v = json!({
        "alert": f.rule,
        "state": state.word(),
        "rule": f.kind,
        "destination": destination,
        "since": since,
        "notifications": f.notifications,
        "last_answer": f.last_answer,
        "value": f.value,
    });
    if let (Some(id), Value::Object(o)) = (import, &mut v) {
        o.insert("import".into(), json!(id));
    }
    crate::text::redact::masked(&v)
}

/// An alert to send: which rule (an index into the rules) and what to remember once it is sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The rule's index.
    pub rule: usize,
    /// The subject's id.
    pub subject: String,
    /// The alert.
    pub alert: Value,
    /// What to remember after sending: `Some` a failure, `None` forget it.
    pub remember: Option<Failing>,
}

/// What changed since `memory`: a failing alert for each finding failing that was not, a
/// recovered one for each remembered failure whose finding no longer fails or whose subject is
/// gone (a deleted destination, an import no longer listed). Memory of rules no longer in the
/// config is dropped here (there is nowhere to send their recovery).
pub fn changes(
    rules: &[Rule],
    findings: &[Finding],
    memory: &mut Memory,
    now: DateTime<Utc>,
) -> Vec<Change> {
    memory
        .failing
        .retain(|name, _| rules.iter().any(|r| r.name == *name));
    let mut out = Vec::new();
    for f in findings {
        let Some(rule) = rules.iter().position(|r| r.name == f.rule) else {
            continue;
        };
        let subject = f.subject.id();
        match (f.failing, memory.get(&f.rule, subject)) {
            (true, None) => {
                let since = f.since.unwrap_or(now);
                out.push(Change {
                    rule,
                    subject: subject.to_string(),
                    alert: alert_json(f, State::Failing, Some(since)),
                    remember: Some(Failing {
                        since,
                        alerted_at: now,
                    }),
                });
            }
            (false, Some(was)) => {
                let mut alert = alert_json(f, State::Recovered, Some(now));
                if let Value::Object(o) = &mut alert {
                    o.insert("failing_since".into(), json!(was.since));
                }
                out.push(Change {
                    rule,
                    subject: subject.to_string(),
                    alert,
                    remember: None,
                });
            }
            _ => {}
        }
    }
    for (i, rule) in rules.iter().enumerate() {
        let Some(remembered) = memory.failing.get(&rule.name) else {
            continue;
        };
        for (subject, was) in remembered {
            if findings
                .iter()
                .any(|f| f.rule == rule.name && f.subject.id() == subject)
            {
                continue;
            }
            let subject_of = match rule.target {
                Target::Imports(_) => Subject::Import(subject.clone()),
                _ => Subject::Destination(subject.clone()),
            };
            let gone = Finding {
                rule: rule.name.clone(),
                kind: rule.kind.word(),
                subject: subject_of,
                failing: false,
                since: None,
                notifications: Vec::new(),
                last_answer: None,
                value: json!({"gone": true}),
            };
            let mut alert = alert_json(&gone, State::Recovered, Some(now));
            if let Value::Object(o) = &mut alert {
                o.insert("failing_since".into(), json!(was.since));
            }
            out.push(Change {
                rule: i,
                subject: subject.clone(),
                alert,
                remember: None,
            });
        }
    }
    out
}

/// Remembers what a sent alert changed.
pub fn apply(memory: &mut Memory, rules: &[Rule], c: &Change) {
    let Some(rule) = rules.get(c.rule) else {
        return;
    };
    match c.remember.clone() {
        Some(f) => memory.set(&rule.name, &c.subject, f),
        None => memory.remove(&rule.name, &c.subject),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(name: &str) -> Rule {
        Rule {
            name: name.into(),
            target: Target::AllDestinations,
            kind: Kind::ConsecutiveFailures { count: 2 },
            sink: Sink::Ndjson,
        }
    }

    fn finding(rule: &str, dest: &str, failing: bool) -> Finding {
        Finding {
            rule: rule.into(),
            kind: "consecutive_failures",
            subject: Subject::Destination(dest.into()),
            failing,
            since: None,
            notifications: if failing { vec!["cbn_1".into()] } else { Vec::new() },
            last_answer: failing.then(|| {
                json!({"status": 500, "headers": {"set-cookie": "s=SECRET", "content-type": "text/plain"}})
            }),
            value: json!({}),
        }
    }

    fn run(rules: &[Rule], findings: &[Finding], m: &mut Memory) -> Vec<(String, String)> {
        let now = Utc::now();
        let cs = changes(rules, findings, m, now);
        for c in &cs {
            apply(m, rules, c);
        }
        cs.iter()
            .map(|c| {
                (
                    c.alert["state"].as_str().unwrap_or_default().to_string(),
                    c.subject.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn fires_only_on_a_change_and_forgets_gone_subjects() {
        let rules = [rule("r")];
        let mut m = Memory::default();
        let s = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert_eq!(run(&rules, &[finding("r", "cld_a", false)], &mut m), s(&[]));
        assert_eq!(
            run(
                &rules,
                &[finding("r", "cld_a", true), finding("r", "cld_b", true)],
                &mut m
            ),
            s(&[("failing", "cld_a"), ("failing", "cld_b")])
        );
        assert_eq!(
            run(
                &rules,
                &[finding("r", "cld_a", true), finding("r", "cld_b", true)],
                &mut m
            ),
            s(&[])
        );
        // cld_b deleted: its failure is over.
        assert_eq!(
            run(&rules, &[finding("r", "cld_a", false)], &mut m),
            s(&[("recovered", "cld_a"), ("recovered", "cld_b")])
        );
        assert!(m.failing.is_empty());
        // A rule taken out of the config takes its memory with it.
        run(&rules, &[finding("r", "cld_a", true)], &mut m);
        assert_eq!(run(&[rule("other")], &[], &mut m), s(&[]));
        assert!(m.failing.is_empty());
    }

    #[test]
    fn an_alert_is_masked() {
        let a = alert_json(&finding("r", "cld_a", true), State::Failing, None);
        assert_eq!(
            a["last_answer"]["headers"]["set-cookie"],
            crate::text::redact::MASKED
        );
        assert_eq!(a["last_answer"]["headers"]["content-type"], "text/plain");
        assert_eq!(a["alert"], "r");
        assert_eq!(a["destination"], "cld_a");
        assert_eq!(a["notifications"], json!(["cbn_1"]));
    }
}
