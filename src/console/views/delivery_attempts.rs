//! An attempt of the newest generation: its outcome, the request it sent and the response it got
//! (headers through the redaction policy).
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::model::DeliveryAttempt;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::console::widgets::fields::Fields;
use crate::resource::deliveries::attempt_lines;
use crate::resource::delivery_attempts::DeliveryAttempts;

impl super::DetailView for DeliveryAttempts {
    fn detail(a: &DeliveryAttempt, ctx: &ViewCtx) -> Vec<Line<'static>> {
        let mut f = Fields::new(ctx.theme);
        f.field("ID", a.id.clone())
            .field("Delivery", a.event_delivery_id.clone())
            .opt("Event", a.event_id.as_deref())
            .opt("Destination", a.event_destination_id.as_deref());
        f.section(format!("Attempt #{}", a.attempt_number));
        for l in attempt_lines(a, false) {
            f.line(2, vec![Span::raw(l)]);
        }
        f.finish()
    }

    fn dialog(_action: Action, _item: Option<&DeliveryAttempt>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}

/// What a delivery (not one of its attempts) leaves to its attempts: `=` compares an attempt's
/// answer. `P` and `E` work on both (the replay room, with the destination's secret typed).
pub(crate) fn not_here_yet(action: Action) -> Option<&'static str> {
    match action {
        Action::Compare => Some(
            "= compares an attempt's answer: open one of the delivery's attempts on the Attempts tab (or, from a shell, `switchboard notifications diff evdi_… --with-attempt N`).",
        ),
        _ => None,
    }
}
