//! Deliveries of the newest generation: the fields, then each attempt with the request it sent
//! and the response it got (headers through the redaction policy).
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::model::EventDelivery;
use crate::api::platform_retry::RetrySelection;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::deliveries::{DELIVERIES, Deliveries, attempt_lines};

impl super::DetailView for Deliveries {
    fn detail(item: &EventDelivery, ctx: &ViewCtx) -> Vec<Line<'static>> {
        let mut lines = super::described::detail(&DELIVERIES, item, ctx);
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(
            format!("Attempts ({})", item.attempts.len()),
            ctx.theme.section,
        )));
        if item.attempts.is_empty() {
            lines.push(Line::from(Span::styled("  none yet", ctx.theme.muted)));
        }
        for a in &item.attempts {
            for l in attempt_lines(a, false) {
                lines.push(Line::from(format!("  {l}")));
            }
            // Only the attempt itself holds its request and response bodies.
            lines.push(Line::from(Span::styled(
                format!("    open with :goto {}", a.id),
                ctx.theme.muted,
            )));
        }
        lines
    }

    fn platform_retry(
        item: Option<&EventDelivery>,
        statuses: &[String],
    ) -> Option<(String, RetrySelection)> {
        Some(match item {
            Some(d) => (
                format!("delivery {}", d.id),
                RetrySelection {
                    deliveries: vec![d.id.clone()],
                    ..RetrySelection::default()
                },
            ),
            None => (
                match statuses {
                    [] => "the deliveries".to_string(),
                    s => format!("the {} deliveries", s.join(", ")),
                },
                RetrySelection {
                    statuses: statuses.to_vec(),
                    ..RetrySelection::default()
                },
            ),
        })
    }

    fn marked_retry(ids: &[String]) -> Option<RetrySelection> {
        Some(RetrySelection {
            deliveries: ids.to_vec(),
            ..RetrySelection::default()
        })
    }

    fn not_here(action: Action) -> Option<&'static str> {
        super::delivery_attempts::not_here_yet(action)
    }

    fn server_statuses() -> &'static [&'static str] {
        crate::resource::deliveries::STATUSES
    }

    fn dialog(_action: Action, _item: Option<&EventDelivery>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
