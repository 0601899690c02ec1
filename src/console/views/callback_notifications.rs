//! A `callback-destinations` notification: its fields (attempt count, next and last attempt,
//! error), then the request it sent as the get embeds it (headers through the redaction policy).
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::model::CallbackNotification;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::callback_notifications::{
    CALLBACK_NOTIFICATIONS, CallbackNotifications, STATUSES, request_lines,
};

impl super::DetailView for CallbackNotifications {
    fn detail(item: &CallbackNotification, ctx: &ViewCtx) -> Vec<Line<'static>> {
        let mut lines = super::described::detail(&CALLBACK_NOTIFICATIONS, item, ctx);
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("Request sent", ctx.theme.section)));
        match request_lines(item) {
            Some(rs) => lines.extend(rs.into_iter().map(|l| Line::from(format!("  {l}")))),
            // Lists carry no event; the detail reads the notification itself.
            None => lines.push(Line::from(Span::styled(
                "  not in this answer",
                ctx.theme.muted,
            ))),
        }
        lines
    }

    fn server_statuses() -> &'static [&'static str] {
        STATUSES
    }

    fn dialog(_action: Action, _item: Option<&CallbackNotification>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
