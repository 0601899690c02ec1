//! The webhook verbs of a deployment serving `callback-destinations` (`generations.md` §6):
//! callbacks on provider deployments (create, update with the destinations' set, delete that
//! archives, their events), callback destinations with an editable URL, and notifications under
//! each callback (merged across callbacks when none is named). A verb the generation cannot
//! serve says so in one sentence (exit 2) before anything is asked.
use chrono::Utc;
use serde_json::json;

use super::HeadlessError;
use super::args::*;
use super::current::{Columns, ask, list, one, pick, send, table};
use super::output::{Output, OutputFormat, clean};
use crate::api::callback_gen as cg;
use crate::api::model::{
    CallbackNotification, CreateCallbackDestination, CreateDeploymentCallback, TriggerInput,
    UpdateCallbackDestination, UpdateDeploymentCallback,
};
use crate::api::newer_requests::{CallbackNotificationFilter, DeploymentCallbackFilter};
use crate::api::replay::{self, DestinationRef, ReplayPlan, SendOptions};
use crate::api::{ApiRequest, Client};

const CALLBACKS: Columns = &[
    ("id", "id"),
    ("name", "name"),
    ("status", "status"),
    ("deployment", "provider_deployment.id"),
    ("destinations", "destinations[].id"),
    ("triggers", "provider_triggers[].provider_trigger.key"),
    ("created", "created_at"),
];
const EVENTS: Columns = &[
    ("id", "id"),
    ("type", "type"),
    ("trigger", "trigger_key"),
    ("delivery", "delivery_status"),
    ("created", "created_at"),
];
const DESTINATIONS: Columns = &[
    ("id", "id"),
    ("name", "name"),
    ("status", "status"),
    ("url", "url"),
    ("created", "created_at"),
];
pub(super) const NOTIFICATIONS: Columns = &[
    ("id", "id"),
    ("status", "status"),
    ("event_type", "event.type"),
    ("destination", "destination.name"),
    ("attempts", "attempt_count"),
    ("last", "last_attempt_at"),
    ("next", "next_attempt_at"),
    ("created", "created_at"),
];
const NOTIFICATION: Columns = &[
    ("id", "id"),
    ("status", "status"),
    ("event_type", "event.type"),
    ("event", "event.id"),
    ("destination", "destination.name"),
    ("url", "destination.webhook.url"),
    ("attempts", "attempt_count"),
    ("last_attempt", "last_attempt_at"),
    ("next_attempt", "next_attempt_at"),
    ("error", "error.message"),
    ("created", "created_at"),
];

/// The statuses of this generation's notifications, as the platform spells them.
const STATUSES: [&str; 4] = ["pending", "delivered", "retrying", "failed"];

/// Why `callback-destinations` does not run the verb (one sentence), or nothing when it does.
pub fn lacking(cmd: &Resource) -> Option<&'static str> {
    Some(match cmd {
        Resource::Callbacks(CallbacksCmd::Instances { .. }) => {
            "this generation lists no callback instances"
        }
        Resource::Destinations(DestinationsCmd::Ping { .. }) => {
            "this generation has no test event for a destination"
        }
        Resource::Destinations(DestinationsCmd::RotateSecret { .. }) => {
            "rotating a callback destination's secret needs a browser session; keys are refused (403)"
        }
        Resource::Destinations(DestinationsCmd::Archive { .. }) => {
            "destinations delete archives a callback destination here"
        }
        Resource::Destinations(DestinationsCmd::Op(_)) => {
            "Switchboard does not offer this verb on callback destinations yet"
        }
        Resource::Notifications(NotificationsCmd::Retry { .. }) => {
            "this generation has no server-side retry; notifications replay sends the embedded request again"
        }
        Resource::Notifications(NotificationsCmd::Diff(_)) => {
            "this generation keeps no receiver's answer (only an attempt count), so there is nothing to compare"
        }
        Resource::Notifications(NotificationsCmd::List { watch, scan, .. })
            if watch.watch || scan.count || !scan.event_types.is_empty() =>
        {
            "notifications list takes --callback, --destination and --status here (the platform filters them), not --watch, --count or --event-type"
        }
        Resource::Notifications(NotificationsCmd::List { events, .. }) if !events.is_empty() => {
            "this generation filters notifications by callback, destination and status, not by event"
        }
        Resource::Listeners(_) | Resource::Events(_) => {
            "listeners and organization events belong to event-destinations; here a callback attaches its destinations (callbacks update ID --destination ID) and callbacks events ID lists what it received"
        }
        _ => return None,
    })
}

/// Now, rounded up to the second: a notification created this second is inside the window.
fn stats_now() -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound as _;
    let t = chrono::Utc::now();
    let s = t.trunc_subsecs(0);
    if s < t {
        s + chrono::TimeDelta::seconds(1)
    } else {
        s
    }
}

fn usage(m: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(m.into())
}

/// `--trigger ID[=type,type]`: a provider trigger and, optionally, the event types taken from it.
fn trigger(text: &str) -> Result<TriggerInput, HeadlessError> {
    TriggerInput::parse(text).map_err(|why| usage(format!("--trigger {:?}: {why}", clean(text))))
}

/// The statuses as this generation names them (`succeeded` is `delivered` here).
pub(super) fn statuses(
    given: &[crate::api::model::NotificationStatus],
) -> Result<Vec<String>, HeadlessError> {
    given
        .iter()
        .map(|s| match s.as_str() {
            "succeeded" => Ok("delivered".to_string()),
            t if STATUSES.contains(&t) => Ok(t.to_string()),
            t => Err(usage(format!(
                "--status {:?}: this generation's notifications are pending, delivered, retrying or failed",
                clean(t)
            ))),
        })
        .collect()
}

/// Runs a webhook verb on `callback-destinations`.
///
/// # Errors
/// The API's; usage errors (exit 2); a replay's outcome.
pub async fn run(
    client: &Client,
    out: &Output,
    cmd: Resource,
    ctx: &super::ForwardContext,
) -> Result<(), HeadlessError> {
    match cmd {
        Resource::Callbacks(c) => callbacks(client, out, c).await,
        Resource::Destinations(c) => destinations(client, out, c).await,
        Resource::Notifications(NotificationsCmd::List {
            list: l,
            callbacks,
            destinations,
            scan,
            ..
        }) => {
            let f = CallbackNotificationFilter {
                destination_ids: destinations,
                statuses: statuses(&scan.statuses)?,
            };
            notifications(client, out, &l, &callbacks, &f, scan.since).await
        }
        Resource::Notifications(NotificationsCmd::Get { id, callback }) => {
            let found = find(client, &id, callback.as_deref()).await?;
            one(out, &found.notification, NOTIFICATION)
        }
        Resource::Notifications(NotificationsCmd::Replay(a)) => {
            replay_one(client, out, a, ctx.read_only).await
        }
        Resource::Notifications(NotificationsCmd::Wait(a)) => {
            super::callback_wait::run(client, out, a).await
        }
        Resource::Notifications(NotificationsCmd::Forward(a)) => {
            super::callback_forward::run(client, out.format, a, ctx).await
        }
        Resource::Notifications(NotificationsCmd::Recover(a)) => {
            super::callback_recover::run(client, out.format, a, ctx.read_only, &ctx.profile).await
        }
        Resource::Notifications(NotificationsCmd::Search(a)) => search(client, out, a).await,
        Resource::Notifications(NotificationsCmd::Export(a)) => {
            super::export::run_callbacks(client, out, a).await
        }
        other => Err(usage(format!(
            "{} is not offered on callback-destinations.",
            super::current::verb(&other)
        ))),
    }
}

async fn callbacks(client: &Client, out: &Output, c: CallbacksCmd) -> Result<(), HeadlessError> {
    match c {
        CallbacksCmd::List(l) => {
            let f = DeploymentCallbackFilter::default();
            list(client, out, &l, CALLBACKS, |q| {
                ApiRequest::list_deployment_callbacks(q, &f)
            })
            .await
        }
        CallbacksCmd::Get { id } => one(
            out,
            &send(client, &ApiRequest::get_callback(&id)).await?,
            CALLBACKS,
        ),
        CallbacksCmd::Create {
            provider_deployment,
            integration,
            integration_provider,
            name,
            description,
            destinations,
            triggers,
        } => {
            if integration.is_some() || integration_provider.is_some() {
                return Err(usage(
                    "callbacks create on callback-destinations: --integration and --integration-provider are event-destinations'; a callback here is created on --provider-deployment.",
                ));
            }
            let (Some(provider_deployment), Some(name)) = (provider_deployment, name) else {
                return Err(usage(
                    "callbacks create on callback-destinations needs --provider-deployment and --name.",
                ));
            };
            let triggers = triggers
                .iter()
                .map(|t| trigger(t))
                .collect::<Result<Vec<_>, _>>()?;
            let b = CreateDeploymentCallback {
                provider_deployment_id: provider_deployment,
                name,
                description,
                metadata: None,
                poll_interval_seconds_override: None,
                destination_ids: (!destinations.is_empty()).then_some(destinations),
                triggers: (!triggers.is_empty()).then_some(triggers),
            };
            one(
                out,
                &send(client, &ApiRequest::create_deployment_callback(&b)).await?,
                CALLBACKS,
            )
        }
        CallbacksCmd::Update {
            id,
            name,
            description,
            destinations,
            no_destinations,
        } => {
            let destination_ids = if no_destinations {
                Some(Vec::new())
            } else {
                (!destinations.is_empty()).then_some(destinations)
            };
            let b = UpdateDeploymentCallback {
                name,
                description,
                metadata: None,
                poll_interval_seconds_override: None,
                destination_ids,
                triggers: None,
            };
            one(
                out,
                &send(client, &ApiRequest::update_deployment_callback(&id, &b)).await?,
                CALLBACKS,
            )
        }
        CallbacksCmd::Delete { id, yes } => {
            ask(
                yes,
                "archive a callback",
                &format!("Archive callback {}? It stops taking events.", clean(&id)),
            )?;
            one(
                out,
                &send(client, &ApiRequest::delete_callback(&id)).await?,
                CALLBACKS,
            )
        }
        CallbacksCmd::Events {
            id,
            list: l,
            types,
            callbacks,
            statuses,
        } => {
            if !statuses.is_empty() {
                return Err(usage(
                    "callbacks events on callback-destinations: the platform filters by --type, not --status.",
                ));
            }
            let mut named: Vec<String> = id.into_iter().chain(callbacks).collect();
            named.dedup();
            let cb = match named.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(usage(
                        "callbacks events here needs the callback: callbacks events ID [--type T].",
                    ));
                }
                _ => {
                    return Err(usage(
                        "callbacks events here lists one callback's events: name one callback.",
                    ));
                }
            };
            crate::api::request::check_segment(&cb)?;
            list(client, out, &l, EVENTS, |q| {
                ApiRequest::list_deployment_callback_events(q, &cb, &types)
            })
            .await
        }
        CallbacksCmd::Instances { .. } => Err(usage(
            "callbacks instances on callback-destinations: this generation lists no callback instances.",
        )),
    }
}

async fn destinations(
    client: &Client,
    out: &Output,
    c: DestinationsCmd,
) -> Result<(), HeadlessError> {
    match c {
        DestinationsCmd::List { list: l, callbacks } => {
            list(client, out, &l, DESTINATIONS, |q| {
                ApiRequest::list_callback_destinations(q, &callbacks)
            })
            .await
        }
        DestinationsCmd::Get { id } => one(
            out,
            &send(client, &ApiRequest::get_callback_destination(&id)).await?,
            DESTINATIONS,
        ),
        DestinationsCmd::Create {
            name,
            url,
            description,
            all_callbacks,
            callbacks,
            retry,
        } => {
            if all_callbacks || !callbacks.is_empty() {
                return Err(usage(
                    "destinations create on callback-destinations: --all-callbacks and --callback do not apply; attach it from the callback (callbacks update ID --destination ID).",
                ));
            }
            if retry.given() {
                return Err(usage(
                    "destinations create on callback-destinations: the retry flags are event-destinations'; the platform keeps its own schedule here.",
                ));
            }
            let b = CreateCallbackDestination {
                name,
                url,
                description,
                metadata: None,
            };
            let d = send(client, &ApiRequest::create_callback_destination(&b)).await?;
            one(out, &d, DESTINATIONS)?;
            if out.table()
                && out.fields.is_none()
                && let Some(s) = pick(&d, "signing_secret").as_str()
            {
                super::output::emit(|w| {
                    writeln!(
                        w,
                        "signing secret: {} (-o json prints it whole)",
                        clean(&crate::text::redact::mask(s))
                    )
                })?;
            }
            Ok(())
        }
        DestinationsCmd::Update {
            id,
            name,
            description,
            clear_description,
            url,
        } => {
            if clear_description {
                return Err(usage(
                    "destinations update on callback-destinations: the platform takes a new --description, not none.",
                ));
            }
            let b = UpdateCallbackDestination {
                name,
                description,
                metadata: None,
                url,
            };
            one(
                out,
                &send(client, &ApiRequest::update_callback_destination(&id, &b)).await?,
                DESTINATIONS,
            )
        }
        DestinationsCmd::Delete { id, yes } => {
            ask(
                yes,
                "archive a destination",
                &format!(
                    "Archive destination {}? Callbacks stop delivering to it.",
                    clean(&id)
                ),
            )?;
            one(
                out,
                &send(client, &ApiRequest::delete_callback_destination(&id)).await?,
                DESTINATIONS,
            )
        }
        DestinationsCmd::Stats { id, window } => {
            crate::api::request::check_segment(&id)?;
            let d = send(client, &ApiRequest::get_callback_destination(&id)).await?;
            let now = stats_now();
            let s =
                crate::api::callback_health::destination_stats(client, &id, window, now).await?;
            let name = pick(&d, "name");
            let name = name.as_str().unwrap_or_default();
            super::current_deliveries::print_stats(out, &id, name, &s, window)
        }
        other => Err(usage(format!(
            "{} on callback-destinations: {}.",
            super::current::verb(&Resource::Destinations(other.clone())),
            lacking(&Resource::Destinations(other)).unwrap_or("not offered")
        ))),
    }
}

/// `notifications search EXPR`: every callback's notifications merged newest first (or those of
/// `--callback`), filtered on the server by `--destination` and `--status`, each read by id for
/// its sent request; `$response` is `null`, as this generation keeps no receiver's answer.
async fn search(
    client: &Client,
    out: &Output,
    a: super::search::SearchArgs,
) -> Result<(), HeadlessError> {
    let sel = &a.selection;
    if !sel.events.is_empty() || !sel.event_types.is_empty() {
        return Err(usage(
            "notifications search on callback-destinations selects by --callback, --destination, --status, --since, --until and --retried, not by event or event type (test .type in EXPR instead)",
        ));
    }
    for cb in &sel.callbacks {
        crate::api::request::check_segment(cb)?;
    }
    let selection = crate::api::selection::Selection {
        retried: sel.retried,
        since: sel.since,
        until: sel.until,
        ..crate::api::selection::Selection::default()
    };
    selection.validate().map_err(|e| usage(e.to_string()))?;
    let plan = super::newer_search::Plan {
        source: crate::api::newer_search::Source::Callbacks(sel.callbacks.clone()),
        deliveries: crate::api::newer_requests::DeliveryFilter::default(),
        notifications: CallbackNotificationFilter {
            destination_ids: sel.destinations.clone(),
            statuses: statuses(&sel.statuses)?,
        },
        selection,
    };
    super::newer_search::run(client, out, a, plan).await
}

/// `notifications list`: one callback's pages as the platform serves them, or every callback's
/// newest page merged newest first (`--limit` in all).
async fn notifications(
    client: &Client,
    out: &Output,
    l: &ListArgs,
    callbacks: &[String],
    f: &CallbackNotificationFilter,
    since: Option<chrono::DateTime<chrono::Utc>>,
) -> Result<(), HeadlessError> {
    // A view's window (`since`, as `--view today` gives) bounds the merged newest pages; one
    // callback's pages are printed as the platform pages them, so a window merges that one.
    if let ([cb], None) = (callbacks, since) {
        crate::api::request::check_segment(cb)?;
        return list(client, out, l, NOTIFICATIONS, |q| {
            ApiRequest::list_callback_notifications(q, cb, f)
        })
        .await;
    }
    // Newest first is what the merge gives (a view's order asks just that).
    let other_order = l.order.is_some_and(|o| o != crate::api::Order::Desc);
    if l.after.is_some() || l.before.is_some() || l.cursor.is_some() || l.all || other_order {
        return Err(usage(
            "notifications list without one --callback merges every callback's newest notifications: --after, --before, --cursor, --order and --all need --callback ID.",
        ));
    }
    for cb in callbacks {
        crate::api::request::check_segment(cb)?;
    }
    let limit = l.limit.unwrap_or(20);
    let mut merged = cg::merged_notifications(
        client,
        limit,
        (!callbacks.is_empty()).then_some(callbacks),
        f,
    )
    .await?;
    // The merge is newest first (an unreadable time last): older ones cut, the window ends
    // within what was read.
    if let Some(since) = since
        && crate::api::window::cut(&mut merged.items, since)
    {
        merged.more = false;
    }
    match out.format {
        OutputFormat::Ndjson => out.items(&merged.items)?,
        _ if !out.table() => {
            let doc = json!({
                "object": "list",
                "items": merged.items,
                "pagination": { "has_more_after": merged.more, "has_more_before": false },
            });
            out.document(&format!("{doc:#}"))?;
        }
        _ => {
            table(out, NOTIFICATIONS, &merged.items)?;
            eprintln!(
                "(the newest of {} callbacks merged{}; --callback ID pages one)",
                merged.callbacks,
                if merged.more { ", more there" } else { "" }
            );
        }
    }
    Ok(())
}

/// A notification by id: under `callback`, or looked for through the callbacks (and said so).
async fn find(
    client: &Client,
    id: &str,
    callback: Option<&str>,
) -> Result<cg::Found, HeadlessError> {
    crate::api::request::check_segment(id)?;
    if let Some(cb) = callback {
        crate::api::request::check_segment(cb)?;
    }
    match cg::find_notification(client, id, callback).await? {
        Some(found) => {
            if callback.is_none() {
                eprintln!(
                    "notification {} found under callback {} (looked through {} callbacks; --callback asks one)",
                    clean(id),
                    clean(&found.callback_id),
                    found.asked
                );
            }
            Ok(found)
        }
        None => Err(HeadlessError::Outcome {
            code: 3,
            message: format!(
                "no callback has notification {} (every callback looked through; this generation has no global notification get)",
                clean(id)
            ),
        }),
    }
}

/// `notifications replay`: the embedded request sent again to `--to`, signed `t=…,v1=…` with
/// the sending destination's secret when the platform gives it (else unsigned, and said so).
async fn replay_one(
    client: &Client,
    out: &Output,
    a: super::ReplayArgs,
    read_only: bool,
) -> Result<(), HeadlessError> {
    let target =
        replay::parse_target(&a.to).map_err(|e| usage(crate::text::line(&e.to_string())))?;
    super::replay::check_target(&target, read_only, a.yes)?;
    if a.attempt.is_some() {
        return Err(usage(
            "notifications replay on callback-destinations: --attempt does not apply; a notification keeps one request.",
        ));
    }
    let found = find(client, &a.id, a.callback.as_deref()).await?;
    let n: CallbackNotification =
        serde_json::from_value(found.notification.clone()).map_err(|e| {
            crate::api::Error::Decode {
                status: 200,
                detail: e.to_string(),
            }
        })?;
    let Some((mut body, mut headers)) = cg::replay_request(&n) else {
        return Err(usage(format!(
            "notification {} has no embedded request to replay.",
            clean(&n.id)
        )));
    };
    if a.edit || a.body_file.is_some() {
        body = super::edit::new_body(&body, a.body_file.as_deref())?;
    }
    let sender = cg::sender(client, &found.callback_id, &n).await?;
    let destination = sender.as_ref().map(|d| DestinationRef {
        id: d.id.clone(),
        name: d.name.clone(),
    });
    if !a.unsigned {
        match sender.as_ref().and_then(|d| d.signing_secret.as_ref()) {
            Some(secret) => cg::sign(&mut headers, secret, Utc::now().timestamp(), &body),
            None if sender.is_some() => eprintln!(
                "The platform gave no signing secret for this destination, so the replay is sent unsigned."
            ),
            None => eprintln!(
                "No destination of the callback matches the notification's, so its secret is unknown and the replay is sent unsigned."
            ),
        }
    }
    let plan = ReplayPlan {
        notification_id: n.id.clone(),
        attempt_index: i64::from(n.attempt_count.saturating_sub(1)),
        target,
        method: "POST",
        body,
        headers,
        signing: None,
        destination,
    };
    if !plan.is_loopback() && !a.yes {
        super::replay::confirm_remote(&plan)?;
    }
    let result = replay::send(
        &plan,
        &SendOptions {
            timeout: super::replay::timeout(),
        },
    )
    .await;
    if out.table() {
        let text = super::replay_report::to_table(&plan, &result);
        super::output::emit(|w| super::output::write_raw(w, &text, false))?;
    } else {
        out.document(&format!(
            "{:#}",
            super::replay_report::to_json(&plan, &result)
        ))?;
    }
    super::replay::outcome(&result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trigger_takes_an_id_and_optional_event_types() {
        let t = trigger("ptr_1=issues.opened, issues.closed").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.provider_trigger_id, "ptr_1");
        assert_eq!(
            t.event_types,
            Some(vec!["issues.opened".into(), "issues.closed".into()])
        );
        let bare = trigger("ptr_2").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bare.event_types, None);
        assert!(trigger("=a").is_err());
    }

    #[test]
    fn statuses_keep_this_generations_words() {
        use crate::api::model::NotificationStatus;
        let s = statuses(&[
            NotificationStatus::from("succeeded"),
            NotificationStatus::from("failed"),
        ])
        .unwrap_or_default();
        assert_eq!(s, vec!["delivered".to_string(), "failed".to_string()]);
        assert!(statuses(&[NotificationStatus::Other("cancelled".into())]).is_err());
    }
}
