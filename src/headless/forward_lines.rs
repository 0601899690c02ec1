//! What `notifications forward` prints on event-destinations and callback-destinations (the
//! follow loop is [`crate::api::follow`]'s): one JSON event a line when piped (`ready`,
//! `forwarded`, `failed`, `skipped`, `reconnecting`, `caught_up`), lines on a terminal.
use std::io::Write;

use chrono::Utc;
use serde_json::{Value, json};

use super::HeadlessError;
use crate::api::follow::{Said, Sink};
use crate::api::journal::Outcome;
use crate::text::sanitize::line;

fn now() -> String {
    Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Which generation's events: they name the item and the start differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Items {
    /// Event-destinations' deliveries (`delivery`, `after`, `retry_in_ms`).
    Deliveries,
    /// Callback-destinations' notifications (`notification_id`, `callbacks`).
    Notifications,
}

/// Standard output: one JSON event a line when piped, lines on a terminal.
pub(super) struct Lines {
    /// One JSON event a line.
    pub json_out: bool,
    /// The receiver, as said in `ready`.
    pub target: String,
    /// Whether forwards are signed, as said in `ready`.
    pub signed: bool,
    /// Whose events.
    pub items: Items,
}

impl Lines {
    fn id_key(&self) -> &'static str {
        match self.items {
            Items::Deliveries => "delivery",
            Items::Notifications => "notification_id",
        }
    }

    fn write(&self, v: &Value, json_out: bool) -> Result<(), HeadlessError> {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let r = if json_out {
            writeln!(out, "{v}")
        } else {
            writeln!(
                out,
                "{}",
                line(&format!(
                    "{}  {}  {}  {}",
                    v["event"].as_str().unwrap_or_default(),
                    v[self.id_key()].as_str().unwrap_or_default(),
                    v["status"],
                    v["error"].as_str().unwrap_or_default()
                ))
            )
        };
        r.and_then(|()| out.flush())
            .map_err(super::output::output_error)
    }

    /// An event naming one item: `{"event": …, "at": …, <id key>: id}` and `rest`.
    fn of_item(&self, event: &str, id: &str, rest: Value) -> Value {
        let mut v = json!({"event": event, "at": now()});
        v[self.id_key()] = Value::String(id.to_string());
        if let (Some(v), Value::Object(rest)) = (v.as_object_mut(), rest) {
            v.extend(rest);
        }
        v
    }
}

impl Sink for Lines {
    type Error = HeadlessError;

    fn say(&mut self, s: Said) -> Result<(), HeadlessError> {
        let deliveries = self.items == Items::Deliveries;
        let v = match s {
            Said::Ready { callbacks, after } => {
                let mut v = json!({
                    "event": "ready", "at": now(), "target": self.target, "signed": self.signed,
                });
                if deliveries {
                    v["after"] = after.map_or(Value::Null, Value::String);
                } else {
                    v["callbacks"] = json!(callbacks);
                }
                v
            }
            Said::Reconnecting(reason) => {
                json!({"event": "reconnecting", "at": now(), "reason": reason})
            }
            Said::InDoubt(id) => self.of_item("failed", &id, json!({"status": null,
                "error": "in doubt: a forward was stopped while sending it; not sent again (notifications replay sends it)"})),
            Said::Skipped { id, why } => {
                let v = self.of_item("skipped", &id, json!({"status": null, "error": why}));
                // Event-destinations' has always been one JSON line, on a terminal too.
                return self.write(&v, self.json_out || deliveries);
            }
            Said::NotAttempted { id, status } => self.of_item(
                "skipped",
                &id,
                json!({"status": null,
                    "error": format!("no attempt recorded ({status}): nothing to forward")}),
            ),
            Said::Sent {
                id,
                event_type,
                attempt_index,
                signed,
                result: r,
                outcome,
                retry_in,
            } => {
                let ok = outcome == Outcome::Succeeded;
                let millis = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
                let mut v = self.of_item(
                    if ok { "forwarded" } else { "failed" },
                    &id,
                    json!({
                        "event_type": event_type,
                        "attempt": attempt_index.saturating_add(1),
                        "signed": signed,
                        "status": r.status,
                        "duration_ms": millis(r.duration),
                        "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
                    }),
                );
                if deliveries {
                    v["retry_in_ms"] = json!((!ok).then(|| millis(retry_in)));
                }
                v
            }
            Said::CaughtUp(forwarded) => {
                json!({"event": "caught_up", "at": now(), "forwarded": forwarded})
            }
            Said::Unsigned(name) => {
                eprintln!(
                    "{}",
                    line(&crate::api::callback_forward::unsigned_sentence(&name))
                );
                return Ok(());
            }
        };
        self.write(&v, self.json_out)
    }

    fn usage(msg: String) -> HeadlessError {
        HeadlessError::Usage(line(&msg).into_owned())
    }

    fn io(msg: String) -> HeadlessError {
        HeadlessError::Io(std::io::Error::other(line(&msg).into_owned()))
    }
}
