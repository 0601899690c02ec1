//! `notifications keep` on `callback-destinations` (issue 39): the notification's embedded
//! request (the platform's headers and the event's, through the redaction policy, and the body)
//! kept as a sample with its callback and sending destination, as pulsar's keep does.
use serde_json::json;

use super::HeadlessError;
use super::output::{self, Output};
use super::samples::KeepArgs;
use crate::api::Client;
use crate::api::callback_gen as cg;
use crate::api::model::CallbackNotification;
use crate::api::samples::{FORMAT, Library, Named, Sample, valid_name};
use crate::text::line;

/// Keeps notification `args.id` (found under any callback) as `args.name`.
///
/// # Errors
/// Usage (bad name, `--attempt`, nothing embedded, an existing name), the API's.
pub async fn keep(
    client: &Client,
    out: &Output,
    args: KeepArgs,
    library: &Library,
) -> Result<(), HeadlessError> {
    if !valid_name(&args.name) {
        return Err(HeadlessError::Usage(format!(
            "a sample's name is 1 to 64 of A-Z a-z 0-9 . _ -, not {:?}",
            line(&args.name)
        )));
    }
    if args.attempt.is_some() {
        return Err(HeadlessError::Usage(
            "notifications keep on callback-destinations: --attempt does not apply; a notification keeps one request.".into(),
        ));
    }
    crate::api::request::check_segment(&args.id)?;
    let Some(found) = cg::find_notification(client, &args.id, None).await? else {
        return Err(HeadlessError::Outcome {
            code: 3,
            message: format!(
                "no callback has notification {} (every callback looked through)",
                line(&args.id)
            ),
        });
    };
    let n: CallbackNotification =
        serde_json::from_value(found.notification.clone()).map_err(|e| {
            crate::api::Error::Decode {
                status: 200,
                detail: e.to_string(),
            }
        })?;
    let Some((body, headers)) = cg::replay_request(&n) else {
        return Err(HeadlessError::Usage(format!(
            "notification {} has no embedded request to keep",
            line(&n.id)
        )));
    };
    // The names are a nicety: what cannot be read is kept by id.
    let sender = cg::sender(client, &found.callback_id, &n)
        .await
        .ok()
        .flatten();
    let callback_name = found
        .notification
        .pointer("/callback/name")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string);
    let sample = Sample {
        format: FORMAT,
        name: args.name.clone(),
        kept_at: chrono::Utc::now(),
        notification_id: n.id.clone(),
        attempt: i64::from(n.attempt_count.max(1)),
        event_type: n.event.as_ref().and_then(|e| e.kind.clone()),
        callback: Some(Named {
            id: found.callback_id.clone(),
            name: callback_name,
        }),
        destination: sender.map(|d| Named {
            id: d.id,
            name: Some(d.name),
        }),
        request_headers: crate::api::replay::masked_headers(&headers),
        body,
        // This generation keeps no receiver's answer.
        answer: None,
    };
    let path = library
        .save(&sample, args.force)
        .map_err(|e| HeadlessError::Usage(line(&e.to_string()).into_owned()))?;
    if out.table() {
        let text = format!(
            "KEPT  {} ({} under {}) in {}",
            line(&sample.name),
            line(&sample.notification_id),
            line(&found.callback_id),
            line(&path.display().to_string())
        );
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        out.document(&format!(
            "{:#}",
            json!({
                "object": "switchboard.sample",
                "name": sample.name,
                "notification_id": sample.notification_id,
                "event_type": sample.event_type,
                "callback": sample.callback,
                "destination": sample.destination,
                "path": path.display().to_string(),
            })
        ))
    }
}
