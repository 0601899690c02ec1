//! Following one `event-destinations` delivery until its first attempt finished (a ping's, as
//! headless `destinations ping` waits for it): polled within a bound, since the platform offers
//! no way to be told. The console's ping (`t`) waits on the worker with it.
use std::time::Duration;

use super::model::{DeliveryAttempt, EventDelivery};
use super::{ApiRequest, Client, Error};

/// What became of the delivery followed.
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// Its first attempt finished (or the delivery did): the delivery as it then was.
    Done(Box<EventDelivery>),
    /// Nothing finished within the bound: the delivery as last read.
    StillPending {
        /// The delivery.
        delivery: Box<EventDelivery>,
        /// The bound waited.
        waited: Duration,
    },
}

/// Whether the delivery has an attempt that finished, or finished itself.
fn settled(d: &EventDelivery) -> bool {
    d.status.is_finished() || d.attempt_count > 0 || !d.attempts.is_empty()
}

/// The attempt an outcome speaks of: the first one.
fn first_attempt(d: &EventDelivery) -> Option<&DeliveryAttempt> {
    d.attempts.iter().min_by_key(|a| a.attempt_number)
}

/// Reads delivery `id` every `every` until its first attempt finished or `within` passed.
///
/// # Errors
/// The API's, on any read (a follow that cannot read says so rather than waiting blind).
pub async fn first_outcome(
    client: &Client,
    id: &str,
    within: Duration,
    every: Duration,
) -> Result<Followed, Error> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let raw = client.send(&ApiRequest::get_delivery(id)).await?;
        let d: EventDelivery = super::client::decode(raw.status, &raw.body)?;
        if settled(&d) {
            return Ok(Followed::Done(Box::new(d)));
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Ok(Followed::StillPending {
                delivery: Box::new(d),
                waited: within,
            });
        }
        tokio::time::sleep(every.min(deadline - now)).await;
    }
}

impl Followed {
    /// One sentence for `what` (`ping`): `ping delivered 200 in 84 ms`, `ping failed: …`,
    /// `ping still pending after 30 s`. Server text in it is not yet sanitised.
    #[must_use]
    pub fn sentence(&self, what: &str) -> String {
        match self {
            Followed::StillPending { waited, .. } => {
                format!("{what} still pending after {} s", waited.as_secs())
            }
            Followed::Done(d) => {
                let a = first_attempt(d);
                let http = a
                    .and_then(|a| a.response.as_ref())
                    .and_then(|r| r.status_code);
                let took = a
                    .and_then(|a| a.duration_ms)
                    .map(|ms| format!(" in {ms} ms"))
                    .unwrap_or_default();
                if self.succeeded() {
                    let code = http.map(|c| format!(" {c}")).unwrap_or_default();
                    return format!("{what} delivered{code}{took}");
                }
                let why = a
                    .and_then(|a| a.error.as_ref())
                    .or(d.error.as_ref())
                    .and_then(|e| e.message.clone().or_else(|| e.code.clone()));
                let mut s = format!("{what} failed:");
                match (http, why) {
                    (Some(c), Some(w)) => s.push_str(&format!(" HTTP {c}, {w}")),
                    (Some(c), None) => s.push_str(&format!(" HTTP {c}")),
                    (None, Some(w)) => s.push_str(&format!(" {w}")),
                    (None, None) => s.push_str(&format!(" {}", d.status.as_str())),
                }
                s.push_str(&took);
                s.push_str(&format!(" (delivery {})", d.status.as_str()));
                s
            }
        }
    }

    /// Whether its first attempt succeeded (a delivery with none: whether it was delivered).
    #[must_use]
    pub fn succeeded(&self) -> bool {
        match self {
            Followed::StillPending { .. } => false,
            Followed::Done(d) => first_attempt(d).map_or(d.status.as_str() == "delivered", |a| {
                a.status.as_str() == "succeeded"
            }),
        }
    }

    /// The delivery as last read.
    #[must_use]
    pub fn delivery(&self) -> &EventDelivery {
        match self {
            Followed::Done(d) | Followed::StillPending { delivery: d, .. } => d,
        }
    }
}
