//! A sample sent signed as the deployment's generation signs (issue 39): pulsar's
//! `i=…,t=…,v1=…` with its destination's secret (api.md §5), the newer generations' `t=…,v1=…`
//! over `t.body` (generations.md §6; §7 adds `metorial-timestamp`). Headless `samples send` and
//! the console's Samples room share it, so both sign alike.
use super::generation::Generation;
use super::model::{CallbackDestination, EventDestination, ResourceStatus};
use super::replay::{DestinationRef, ReplayError, ReplayPlan, Signing};
use super::samples::Sample;
use super::{ApiRequest, Client, Error, Secret};
use crate::text::redact::{HeaderOrigin, header_hidden};

/// Headers made afresh per send, never copied from the recorded request.
const FRESH: [&str; 4] = [
    "metorial-signature",
    "metorial-timestamp",
    "content-length",
    "host",
];

/// The secret a sample is signed with, or why there is none.
#[derive(Debug)]
pub enum Key {
    /// The destination's secret.
    Secret(Secret),
    /// Sent unsigned, and said why (the destination is gone, or the platform gives no secret).
    Unsigned(String),
    /// The destination exists but the platform never shows its secret again: the operator gives
    /// it (`--secret-env`), or sends unsigned on purpose.
    Needed(String),
}

/// The generation the client's deployment serves (pulsar when nothing was learnt).
pub async fn generation_of(client: &Client) -> Generation {
    client
        .served()
        .await
        .and_then(|c| c.generation)
        .unwrap_or(Generation::Pulsar)
}

/// The secret of the sample's destination on `generation`.
///
/// # Errors
/// The API's (a 404 is "gone", not an error).
pub async fn key_for(client: &Client, generation: Generation, s: &Sample) -> Result<Key, Error> {
    let Some(d) = &s.destination else {
        return Ok(Key::Unsigned(
            "the sample names no destination whose secret could sign".into(),
        ));
    };
    let gone = || {
        Key::Unsigned(format!(
            "destination {} no longer exists",
            crate::text::line(&d.id)
        ))
    };
    crate::api::request::check_segment(&d.id)?;
    let req = match generation {
        Generation::Pulsar => {
            return Ok(match super::samples::signing_for(client, s).await? {
                (Some(signing), _) => Key::Secret(signing.secret),
                (None, why) => Key::Unsigned(why.unwrap_or_default()),
            });
        }
        Generation::EventDestinations => ApiRequest::get_event_destination(&d.id),
        Generation::CallbackDestinations => ApiRequest::get_callback_destination(&d.id),
    };
    let raw = client.send(&req).await?;
    if raw.status == 404 {
        return Ok(gone());
    }
    Ok(match generation {
        Generation::EventDestinations => {
            let e: EventDestination = super::client::decode(raw.status, &raw.body)?;
            match (e.status, e.webhook.and_then(|w| w.signing_secret)) {
                (ResourceStatus::Archived | ResourceStatus::Deleted, _) => gone(),
                (_, Some(secret)) => Key::Secret(secret),
                (_, None) => Key::Needed(
                    "an event destination's secret is shown only on create and rotate: give it with --secret-env VAR, or send --unsigned".into(),
                ),
            }
        }
        _ => {
            let c: CallbackDestination = super::client::decode(raw.status, &raw.body)?;
            match (c.status, c.signing_secret) {
                (ResourceStatus::Archived | ResourceStatus::Deleted, _) => gone(),
                (_, Some(secret)) => Key::Secret(secret),
                (_, None) => {
                    Key::Unsigned("the platform gave no signing secret for this destination".into())
                }
            }
        }
    })
}

/// What sending `s` to `target` sends on `generation`, signed now with `secret` (unsigned on
/// `None`); `host` is pulsar's `i=` part.
///
/// # Errors
/// A kept header that cannot be sent again.
pub fn plan_for(
    generation: Generation,
    s: &Sample,
    target: url::Url,
    secret: Option<&Secret>,
    host: &str,
) -> Result<ReplayPlan, ReplayError> {
    if generation == Generation::Pulsar {
        let signing = secret.map(|secret| Signing {
            secret: secret.clone(),
            host: host.to_string(),
        });
        return s.plan(target, signing);
    }
    // The recorded headers the redaction kept whole, without those made per send.
    let mut headers: Vec<(String, String)> = s
        .request_headers
        .iter()
        .filter(|(k, _)| {
            !header_hidden(HeaderOrigin::Elsewhere, k)
                && !FRESH.contains(&k.to_ascii_lowercase().as_str())
        })
        .cloned()
        .collect();
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.insert(0, ("content-type".into(), "application/json".into()));
    }
    for (k, v) in &headers {
        if reqwest::header::HeaderValue::from_str(v).is_err() {
            return Err(ReplayError::BadHeader(k.clone()));
        }
    }
    if let Some(secret) = secret {
        let t = chrono::Utc::now().timestamp();
        if generation == Generation::EventDestinations {
            headers.push(("metorial-timestamp".into(), t.to_string()));
        }
        headers.push((
            "metorial-signature".into(),
            super::signature::signature_newer(secret.expose(), t, &s.body),
        ));
    }
    Ok(ReplayPlan {
        notification_id: s.notification_id.clone(),
        attempt_index: s.attempt.saturating_sub(1),
        target,
        method: "POST",
        body: s.body.clone(),
        headers,
        // Signed above, the newer generations' way (`Signing` makes pulsar's `i=` form).
        signing: None,
        destination: s.destination.as_ref().map(|d| DestinationRef {
            id: d.id.clone(),
            name: d.name.clone().unwrap_or_default(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::samples::{FORMAT, Named};

    fn sample() -> Sample {
        Sample {
            format: FORMAT,
            name: "s".into(),
            kept_at: chrono::Utc::now(),
            notification_id: "evdi_1".into(),
            attempt: 2,
            event_type: Some("build.failed".into()),
            callback: None,
            destination: Some(Named {
                id: "evtd_1".into(),
                name: Some("Receiver".into()),
            }),
            request_headers: vec![
                ("metorial-signature".into(), "t=1,v1=old".into()),
                ("metorial-timestamp".into(), "1".into()),
                ("authorization".into(), crate::text::redact::MASKED.into()),
                ("metorial-event-id".into(), "ev_1".into()),
            ],
            body: r#"{"a":1}"#.into(),
            answer: None,
        }
    }

    #[test]
    fn the_newer_generations_sign_t_v1_and_drop_what_is_made_per_send() {
        let secret = Secret::new("whsec_x");
        let target = url::Url::parse("http://127.0.0.1:1/in").expect("url");
        for g in [
            Generation::EventDestinations,
            Generation::CallbackDestinations,
        ] {
            let plan = plan_for(g, &sample(), target.clone(), Some(&secret), "h").expect("plan");
            let get = |k: &str| {
                plan.headers
                    .iter()
                    .filter(|(h, _)| h == k)
                    .map(|(_, v)| v.clone())
                    .collect::<Vec<_>>()
            };
            let sig = get("metorial-signature");
            assert_eq!(sig.len(), 1, "{g}: {:?}", plan.headers);
            assert!(!sig[0].contains("i=") && sig[0] != "t=1,v1=old", "{sig:?}");
            assert_eq!(
                crate::api::signature::verify("whsec_x", Some(&sig[0]), Some(&plan.body)),
                Ok(())
            );
            assert_eq!(
                get("metorial-timestamp").len(),
                usize::from(g == Generation::EventDestinations)
            );
            assert!(get("authorization").is_empty());
            assert_eq!(get("metorial-event-id"), vec!["ev_1".to_string()]);
            assert_eq!(get("content-type"), vec!["application/json".to_string()]);
        }
        let bare =
            plan_for(Generation::EventDestinations, &sample(), target, None, "h").expect("plan");
        assert!(bare.headers.iter().all(|(k, _)| k != "metorial-signature"));
    }
}
