//! Following `event-destinations`' deliveries to a receiver on this machine (issue 34), for
//! `notifications forward`: one stream, the platform's `after` cursor (oldest first;
//! destinations and exact event types narrow on the server, `prefix*` here), each delivery's
//! latest recorded request sent freshly signed as the platform signs (with the destination's
//! secret the user gives, or unsigned). A delivery not attempted yet holds the ones after it
//! (order) for [`PENDING_GRACE`]. The loop, the journal and the cursor file are
//! [`super::follow`]'s, shared with callback-destinations.
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::delivery_replay::{self, RecordedError};
use super::follow::{Config, Planned, Sink, Source, Start};
use super::newer_requests::DeliveryFilter;
use super::replay::SendOptions;
use super::{ApiRequest, Client, ListQuery, Secret};

/// How long a delivery not yet attempted holds the ones after it.
pub const PENDING_GRACE: Duration = Duration::from_secs(30);

/// What to follow, where to, and where the cursor and journal are kept.
#[derive(Debug, Clone)]
pub struct DeliveryFollow {
    /// The receiver.
    pub target: url::Url,
    /// Only deliveries of these event destinations; empty: all.
    pub destinations: Vec<String>,
    /// Only these event types (`prefix*` allowed); empty: all.
    pub event_types: Vec<String>,
    /// The destination's signing secret; `None`: unsigned.
    pub secret: Option<Secret>,
    /// The pause between polls when there is nothing new.
    pub interval: Duration,
    /// The send's timeout.
    pub send: SendOptions,
    /// Where the run starts.
    pub start: Start,
    /// The profile (its cursor and journal).
    pub profile: String,
    /// The data directory.
    pub data_dir: PathBuf,
}

/// Event-destinations' side of the follow loop.
struct Deliveries<'a> {
    client: &'a Client,
    target: url::Url,
    filter: DeliveryFilter,
    secret: Option<Secret>,
}

/// Follows until `stop` resolves.
///
/// # Errors
/// A busy cursor, nothing to resume, a cursor or journal that cannot be written, an API error
/// that waiting does not fix, or the sink's.
pub async fn run<S: Sink>(
    client: &Client,
    f: &DeliveryFollow,
    sink: &mut S,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), S::Error> {
    let prefixes = f.event_types.iter().any(|t| t.ends_with('*'));
    let mut src = Deliveries {
        client,
        target: f.target.clone(),
        filter: DeliveryFilter {
            event_destination_ids: f.destinations.clone(),
            event_types: if prefixes {
                Vec::new()
            } else {
                f.event_types.clone()
            },
            ..DeliveryFilter::default()
        },
        secret: f.secret.clone(),
    };
    let cfg = Config {
        target: &f.target,
        event_types: &f.event_types,
        interval: f.interval,
        send: f.send,
        start: f.start,
        profile: &f.profile,
        data_dir: &f.data_dir,
    };
    super::follow::run(client, &mut src, &cfg, sink, stop).await
}

impl<S: Sink> Source<S> for Deliveries<'_> {
    const PENDING_GRACE: Duration = PENDING_GRACE;

    fn cursor_name(&self, profile: &str, _: &str) -> String {
        // Its own cursor: a pulsar forward of the same profile and target keeps another.
        format!("{profile}@event-destinations")
    }

    async fn streams(&mut self) -> Result<Vec<String>, S::Error> {
        Ok(vec![String::new()])
    }

    fn list(&self, _: &str, q: &ListQuery) -> ApiRequest {
        ApiRequest::list_deliveries(q, &self.filter)
    }

    fn event_type<'v>(&self, d: &'v Value) -> &'v str {
        d.get("event_type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    fn unattempted(&self, d: &Value) -> Option<(bool, String)> {
        if d.get("attempt_count").and_then(Value::as_u64).unwrap_or(0) > 0 {
            return None;
        }
        let status = d.get("status").and_then(Value::as_str).unwrap_or_default();
        Some((matches!(status, "pending" | "retrying"), status.to_string()))
    }

    async fn plan(
        &mut self,
        _: &str,
        id: &str,
        listed: Option<&Value>,
        _: &mut S,
    ) -> Result<Option<Result<Planned, String>>, S::Error> {
        let rec = match delivery_replay::recorded(self.client, id, None).await {
            Ok(r) => r,
            Err(RecordedError::Api(e)) => return Err(e.into()),
            Err(RecordedError::Missing(why)) => return Ok(Some(Err(why))),
        };
        Ok(Some(Ok(Planned {
            plan: delivery_replay::plan_now(&rec, self.target.clone(), self.secret.as_ref()),
            // As the page listed it; a send again names none.
            event_type: listed.and_then(|d| d.get("event_type")).cloned(),
            signed: self.secret.is_some(),
        })))
    }
}
