//! An operation whose answer is a delivery to wait on (a ping, `t` on an event destination): once
//! the platform accepted it, the worker follows the delivery (bounded polling, never the UI
//! thread) and the outcome comes back as a toast, as headless `destinations ping` waits for it.
//! Which operations are followed is their resource's console module's answer
//! (`DetailView::follows_reply`), not a name checked here.
use std::time::Duration;

use super::msg::{ApiCmd, ApiReply, Effect, Pane};
use super::state::{Core, Following, State, ToastKind};
use crate::api::delivery_follow::{self, Followed};
use crate::api::{Client, Error};

/// How long a followed delivery is waited on.
pub(crate) const WITHIN: Duration = Duration::from_secs(30);
/// How often it is read meanwhile.
const EVERY: Duration = Duration::from_millis(250);

/// Starts following `delivery` for `what`; a newer follow replaces an older one.
pub(crate) fn start(state: &mut Core, delivery: String, what: &str) -> Vec<Effect> {
    let req_id = state.next_req_id();
    state.following = Some(Following {
        req_id,
        delivery: delivery.clone(),
        what: what.to_string(),
    });
    vec![Effect::Api {
        req_id,
        pane: Pane::Follow,
        cmd: ApiCmd::Follow(delivery),
    }]
}

/// The worker's part.
pub(crate) async fn execute(client: &Client, delivery: &str) -> Result<ApiReply, Error> {
    delivery_follow::first_outcome(client, delivery, WITHIN, EVERY)
        .await
        .map(|f| ApiReply::Followed(Box::new(f)))
}

/// Whether a reply answers the follow under way.
pub(crate) fn awaits(state: &State, req_id: u64) -> bool {
    state.following.as_ref().is_some_and(|f| f.req_id == req_id)
}

/// The outcome: a toast, and the delivery's detail read again when it is open.
pub(crate) fn on_reply(state: &mut State, result: Result<ApiReply, Error>) -> Vec<Effect> {
    let Some(f) = state.following.take() else {
        return Vec::new();
    };
    let (kind, text) = match result {
        Ok(ApiReply::Followed(out)) => {
            let failed = matches!(&*out, Followed::Done(_)) && !out.succeeded();
            let kind = if failed {
                ToastKind::Error
            } else {
                ToastKind::Info
            };
            (kind, out.sentence(&f.what))
        }
        Ok(_) => (
            ToastKind::Error,
            format!("{}: unexpected reply from the worker", f.what),
        ),
        Err(e) => (
            ToastKind::Error,
            format!("{}: could not follow {}: {e}", f.what, f.delivery),
        ),
    };
    state.toast(kind, crate::text::sanitize::line(&text).into_owned());
    let tab = super::tab::Tab::of_id(&f.delivery);
    match tab {
        Some(tab)
            if state
                .tab_state(tab)
                .detail
                .as_ref()
                .is_some_and(|d| d.id == f.delivery) =>
        {
            super::pane::load_detail(state, tab, f.delivery)
        }
        _ => Vec::new(),
    }
}
