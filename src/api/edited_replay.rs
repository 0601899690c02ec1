//! `E` on the newer generations: a replay plan whose body the operator edited, signed again over
//! the edited bytes as the generation signs (generations.md §6, §7), by the code that signs their
//! replays ([`super::delivery_replay::plan_now`], [`super::callback_gen::sign`]); no signer here.
use super::callback_gen::{sign, signed_in_headers};
use super::delivery_replay::{Recorded, plan_now};
use super::model::CallbackDestination;
use super::replay::ReplayPlan;
use super::{ApiRequest, Client, Error, Secret};

/// Headers [`plan_now`] makes for each send: dropped from the plan before it signs again.
const MADE_PER_SEND: [&str; 2] = ["metorial-signature", "metorial-timestamp"];

/// `event-destinations`: `plan` (made by [`plan_now`]) with `body` in place of the recorded one,
/// a timestamp and signature made now over `body` with `secret`; `None` sends it unsigned.
#[must_use]
pub fn delivery(plan: &ReplayPlan, body: String, secret: Option<&Secret>) -> ReplayPlan {
    let recorded = Recorded {
        delivery: plan.notification_id.clone(),
        destination: plan
            .destination
            .as_ref()
            .map(|d| d.id.clone())
            .unwrap_or_default(),
        attempt_number: plan.attempt_index.saturating_add(1),
        headers: plan
            .headers
            .iter()
            .filter(|(k, _)| !MADE_PER_SEND.iter().any(|m| k.eq_ignore_ascii_case(m)))
            .cloned()
            .collect(),
        body,
    };
    plan_now(&recorded, plan.target.clone(), secret)
}

/// `callback-destinations`: `plan` with `body` in place of the embedded one. A plan that was
/// signed is signed again now over `body` with its destination's secret, read afresh (the plan
/// keeps none); beside it the sentence saying why it goes unsigned when that secret is gone.
///
/// # Errors
/// The API's, reading the destination.
pub async fn callback(
    client: &Client,
    plan: &ReplayPlan,
    body: String,
) -> Result<(ReplayPlan, Option<String>), Error> {
    let mut out = plan.clone();
    out.body = body;
    if !signed_in_headers(&out.headers) {
        return Ok((out, None));
    }
    // The recorded signature covers the old body: never sent with the edited one.
    out.headers
        .retain(|(k, _)| !k.eq_ignore_ascii_case("Metorial-Signature"));
    let Some(d) = &plan.destination else {
        return Ok((
            out,
            Some("The destination that signed the plan is unknown, so the edited body is sent unsigned.".into()),
        ));
    };
    let raw = client
        .send(&ApiRequest::get_callback_destination(&d.id))
        .await?;
    let dest: CallbackDestination = super::client::decode(raw.status, &raw.body)?;
    match dest.signing_secret.as_ref().filter(|s| !s.is_empty()) {
        Some(secret) => {
            sign(&mut out.headers, secret, chrono::Utc::now().timestamp(), &out.body);
            Ok((out, None))
        }
        None => Ok((
            out,
            Some("The platform gave no signing secret for this destination, so the edited body is sent unsigned.".into()),
        )),
    }
}
