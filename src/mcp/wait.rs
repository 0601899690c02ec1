//! `wait_for_notifications`: looks at a selection (`api::selection`, newest first) every half
//! second until it holds `count` notifications in `status`, or until `timeout_s` has passed.
//! Each look keeps only the notifications it waits for (at most `count`) and reads at most
//! [`LOOK_PAGES`] pages; the whole wait ends by its deadline, a look in progress included.
use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use super::envelope::Answer;
use super::tools::{Args, ToolError, usage};
use crate::api::model::{Notification, NotificationStatus};
use crate::api::selection::Selection;
use crate::api::{Client, Error};

/// Between two looks.
pub const INTERVAL: Duration = Duration::from_millis(500);
/// The longest wait a call may ask for, in seconds.
pub const MAX_TIMEOUT_S: f64 = 300.0;
/// The wait when none is given, in seconds.
pub const DEFAULT_TIMEOUT_S: f64 = 30.0;
/// The most notifications a call may wait for.
pub const MAX_COUNT: u64 = 100;
/// Pages one look reads at most (100 notifications each), newest first.
pub const LOOK_PAGES: usize = 200;

/// A status as the schema names it.
fn status(s: &str) -> Result<NotificationStatus, ToolError> {
    match NotificationStatus::from(s.trim()) {
        NotificationStatus::Other(_) => Err(usage(format!(
            "{:?} is not a status: succeeded, failed, retrying or pending",
            crate::text::line(s)
        ))),
        known => Ok(known),
    }
}

/// What a call asks: the selection, how many, and until when.
fn request(a: &Args) -> Result<(Selection, usize, Duration), ToolError> {
    let wanted = a
        .status
        .as_deref()
        .map_or(Ok(NotificationStatus::Succeeded), status)?;
    let count = a.count.unwrap_or(1);
    if !(1..=MAX_COUNT).contains(&count) {
        return Err(usage(format!("count is 1–{MAX_COUNT}")));
    }
    let timeout = a.timeout_s.unwrap_or(DEFAULT_TIMEOUT_S);
    if !(0.0..=MAX_TIMEOUT_S).contains(&timeout) {
        return Err(usage(format!("timeout_s is 0–{MAX_TIMEOUT_S}")));
    }
    let selection = Selection {
        callbacks: a.callback_ids.clone(),
        destinations: a.destination_ids.clone(),
        statuses: vec![wanted],
        ..Selection::default()
    };
    let count = usize::try_from(count).unwrap_or(1);
    Ok((selection, count, Duration::from_secs_f64(timeout)))
}

/// One look: the newest `count` selected notifications (fewer when there are not as many in
/// the first [`LOOK_PAGES`] pages), and how many notifications were read.
async fn look(
    client: &Client,
    selection: &Selection,
    count: usize,
) -> Result<(Vec<Notification>, usize), Error> {
    let mut walk = selection.walk(client);
    let mut found = Vec::new();
    while let Some(batch) = walk.next_page().await? {
        let room = count.saturating_sub(found.len());
        found.extend(batch.into_iter().take(room));
        if found.len() >= count || walk.stats().pages >= LOOK_PAGES {
            break;
        }
    }
    Ok((found, walk.stats().seen))
}

/// `wait_for_notifications`.
///
/// # Errors
/// Bad arguments, or the API's error during a look.
pub async fn wait_for_notifications(client: &Client, a: &Args) -> Result<Answer, ToolError> {
    let (selection, count, timeout) = request(a)?;
    let started = Instant::now();
    let deadline = started + timeout;
    let mut last: (Vec<Notification>, usize) = (Vec::new(), 0);
    loop {
        match tokio::time::timeout_at(deadline, look(client, &selection, count)).await {
            Err(_) => break,
            Ok(found) => last = found?,
        }
        if last.0.len() >= count || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep_until((Instant::now() + INTERVAL).min(deadline)).await;
    }
    let (found, examined) = last;
    let reached = found.len() >= count;
    let own = json!({
        "reached": reached,
        "timed_out": !reached,
        "status": selection.statuses.first().map(NotificationStatus::as_str),
        "count": count,
        "found": found.len(),
        "examined": examined,
        "waited_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    let platform = json!({ "notifications": found });
    Ok(Answer::with_own(own, platform))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: serde_json::Value) -> Args {
        serde_json::from_value(v).expect("args")
    }

    #[test]
    fn a_wait_is_bounded_and_its_arguments_checked() {
        let (sel, count, timeout) = request(&args(json!({}))).expect("defaults");
        assert_eq!(sel.statuses, [NotificationStatus::Succeeded]);
        assert_eq!((count, timeout), (1, Duration::from_secs(30)));
        for bad in [
            json!({"timeout_s": 301}),
            json!({"timeout_s": -1}),
            json!({"count": 0}),
            json!({"count": 101}),
            json!({"status": "done"}),
        ] {
            assert!(request(&args(bad.clone())).is_err(), "{bad}");
        }
    }
}
