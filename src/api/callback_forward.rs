//! Following `callback-destinations`' notifications to a receiver on this machine
//! (`generations.md` §6), shared by `notifications forward` and the console's forward room:
//! there is no global notification list, so each callback's notifications are followed with a
//! cursor of its own (the platform's `after`, oldest first; the named callbacks, else every
//! callback, read again each round so a new one is followed too), and each new notification's
//! embedded request is sent, signed `t=…,v1=…` with its destination's secret (unsigned, and
//! said so once, where the platform omits it).
//!
//! Exactly once: each notification is claimed in the service's journal before it is sent and its
//! outcome written after, and the callback's cursor file ([`CursorFile`], 0600, atomic, locked)
//! is saved after each one, so neither a resume nor a kill between sending and saving sends
//! anything twice; one killed while sending is in doubt and said so, not sent again. A send the
//! receiver did not take is sent again while the run lives (0.5 s doubling to 30 s) and kept
//! open in the cursor file for a resume. What it does is reported to a [`Sink`]. The loop is
//! [`super::follow`]'s, shared with event-destinations; this is how a callback's notifications
//! are listed, read whole and signed.
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use chrono::Utc;
use serde_json::Value;

use super::callback_gen as cg;
use super::follow::{Config, Planned, Source};
pub use super::follow::{FIRST_BACKOFF, Said, Sink, Start};
use super::model::CallbackNotification;
use super::newer_requests::CallbackNotificationFilter;
use super::replay::{DestinationRef, ReplayPlan, SendOptions};
use super::{ApiRequest, Client, ListQuery, Secret};
use crate::text::sanitize::line;

/// The one sentence said when destination `name`'s notifications go unsigned (the platform gave
/// no secret), by headless forward and the console's forward room alike.
#[must_use]
pub fn unsigned_sentence(name: &str) -> String {
    format!(
        "The platform gave no signing secret for destination {name}, so its notifications are forwarded unsigned."
    )
}

/// What to follow, where to, and where the cursors and journal are kept.
#[derive(Debug, Clone)]
pub struct Follow {
    /// The receiver.
    pub target: url::Url,
    /// These callbacks; empty: every callback.
    pub callbacks: Vec<String>,
    /// Only notifications to these destinations; empty: all.
    pub destinations: Vec<String>,
    /// Only these event types (`prefix*` allowed); empty: all.
    pub event_types: Vec<String>,
    /// Send without a signature.
    pub unsigned: bool,
    /// The pause between polls when there is nothing new.
    pub interval: Duration,
    /// The send's timeout.
    pub send: SendOptions,
    /// Where the run starts.
    pub start: Start,
    /// The profile (its cursors and journal).
    pub profile: String,
    /// The data directory.
    pub data_dir: PathBuf,
}

/// Callback-destinations' side of the follow loop: a stream per callback.
struct Callbacks<'a> {
    client: &'a Client,
    target: url::Url,
    named: Vec<String>,
    filter: CallbackNotificationFilter,
    unsigned: bool,
    /// Destination preview id → its secret (`None`: the platform gave none, or none matched).
    secrets: HashMap<String, Option<Secret>>,
    /// The destinations already said to be sent unsigned.
    said_unsigned: Vec<String>,
}

/// Follows until `stop` resolves.
///
/// # Errors
/// A busy cursor, nothing to resume, a cursor or journal that cannot be written, an API error
/// that waiting does not fix, or the sink's.
pub async fn run<S: Sink>(
    client: &Client,
    f: &Follow,
    sink: &mut S,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), S::Error> {
    let start = match f.start {
        // `t` was read on this machine's clock; `created_at` is the server's.
        Start::Since(t) => Start::Since(t + client.clock_offset().await),
        other => other,
    };
    let cfg = Config {
        target: &f.target,
        event_types: &f.event_types,
        interval: f.interval,
        send: f.send,
        start,
        profile: &f.profile,
        data_dir: &f.data_dir,
    };
    let mut src = Callbacks {
        client,
        target: f.target.clone(),
        named: f.callbacks.clone(),
        filter: CallbackNotificationFilter {
            destination_ids: f.destinations.clone(),
            statuses: Vec::new(),
        },
        unsigned: f.unsigned,
        secrets: HashMap::new(),
        said_unsigned: Vec::new(),
    };
    super::follow::run(client, &mut src, &cfg, sink, stop).await
}

impl<S: Sink> Source<S> for Callbacks<'_> {
    fn cursor_name(&self, profile: &str, cb: &str) -> String {
        // Each callback's cursor is its own file: a pulsar or event-destinations forward of the
        // same profile and target keeps another.
        format!("{profile}@callback-destinations@{cb}")
    }

    /// The named callbacks, or every callback within the walk's budget.
    async fn streams(&mut self) -> Result<Vec<String>, S::Error> {
        if self.named.is_empty() {
            Ok(cg::callback_ids(self.client).await?)
        } else {
            Ok(self.named.clone())
        }
    }

    fn list(&self, cb: &str, q: &ListQuery) -> ApiRequest {
        ApiRequest::list_callback_notifications(q, cb, &self.filter)
    }

    fn event_type<'v>(&self, n: &'v Value) -> &'v str {
        n.pointer("/event/type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    async fn plan(
        &mut self,
        cb: &str,
        id: &str,
        _listed: Option<&Value>,
        sink: &mut S,
    ) -> Result<Option<Result<Planned, String>>, S::Error> {
        let Some(found) = cg::find_notification(self.client, id, Some(cb)).await? else {
            return Ok(None);
        };
        let n: CallbackNotification =
            serde_json::from_value(found.notification).map_err(|e| super::Error::Decode {
                status: 200,
                detail: e.to_string(),
            })?;
        let plan = match self.plan_of(cb, &n, sink).await? {
            Ok(p) => p,
            Err(why) => return Ok(Some(Err(why))),
        };
        let signed = plan
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("Metorial-Signature"));
        let event_type = n
            .event
            .as_ref()
            .and_then(|e| e.kind.as_deref())
            .map(|k| Value::String(line(k).into_owned()));
        Ok(Some(Ok(Planned {
            plan,
            event_type,
            signed,
        })))
    }
}

impl Callbacks<'_> {
    /// The request to send for notification `n` (read whole under `cb`), signed now unless
    /// unsigned; `Err` says why there is nothing to send.
    async fn plan_of<S: Sink>(
        &mut self,
        cb: &str,
        n: &CallbackNotification,
        sink: &mut S,
    ) -> Result<Result<ReplayPlan, String>, S::Error> {
        let Some((body, mut headers)) = cg::replay_request(n) else {
            return Ok(Err("the platform embedded no request to send".to_string()));
        };
        let preview = n
            .destination
            .as_ref()
            .map(|d| d.id.clone())
            .unwrap_or_default();
        let mut destination = None;
        if !self.unsigned {
            if !self.secrets.contains_key(&preview) {
                let d = match cg::sender(self.client, cb, n).await {
                    Ok(d) => d,
                    Err(e) => return Ok(Err(format!("could not read its destination: {e}"))),
                };
                destination = d.as_ref().map(|d| DestinationRef {
                    id: d.id.clone(),
                    name: d.name.clone(),
                });
                self.secrets
                    .insert(preview.clone(), d.and_then(|d| d.signing_secret));
            }
            match self.secrets.get(&preview).and_then(Option::as_ref) {
                Some(secret) => cg::sign(&mut headers, secret, Utc::now().timestamp(), &body),
                None if !self.said_unsigned.contains(&preview) => {
                    self.said_unsigned.push(preview.clone());
                    let name = n
                        .destination
                        .as_ref()
                        .and_then(|d| d.name.clone())
                        .unwrap_or_else(|| preview.clone());
                    sink.say(Said::Unsigned(line(&name).into_owned()))?;
                }
                None => {}
            }
        }
        Ok(Ok(ReplayPlan {
            notification_id: n.id.clone(),
            attempt_index: i64::from(n.attempt_count.saturating_sub(1)),
            target: self.target.clone(),
            method: "POST",
            body,
            headers,
            signing: None,
            destination,
        }))
    }
}
