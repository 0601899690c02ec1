//! Event destinations: create and edit dialogs; ping, rotate (a typed confirmation: it breaks the
//! receiver until it has the new secret) and archive in the footer.
pub(crate) mod dialogs;

use ratatui::text::Line;

use super::kit::ViewCtx;
use crate::api::model::EventDestination;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::event_destinations::{EVENT_DESTINATIONS, EventDestinations};

impl super::DetailView for EventDestinations {
    fn detail(item: &EventDestination, ctx: &ViewCtx) -> Vec<Line<'static>> {
        super::described::detail(&EVENT_DESTINATIONS, item, ctx)
    }

    fn op_rank(verb: &str) -> Option<u8> {
        match verb {
            "ping" => Some(4),
            "rotate-secret" => Some(24),
            "archive" => Some(25),
            _ => None,
        }
    }

    fn typed_confirm(verb: &str) -> bool {
        verb == "rotate-secret"
    }

    fn keeps_reply(verb: &str) -> bool {
        // The new secret is in rotate's answer only.
        verb == "rotate-secret"
    }

    fn write_keys() -> &'static [Action] {
        &[Action::CREATE, Action::EDIT]
    }

    fn platform_retry(
        item: Option<&EventDestination>,
        _statuses: &[String],
    ) -> Option<(String, crate::api::platform_retry::RetrySelection)> {
        let d = item?;
        Some((
            format!("destination {} ({})", d.name, d.id),
            crate::api::platform_retry::RetrySelection {
                destinations: vec![d.id.clone()],
                ..Default::default()
            },
        ))
    }

    fn follows_reply(verb: &str) -> bool {
        // A ping is a test through the real pipeline: its worth is how it ended.
        verb == "ping"
    }

    fn keeps_created() -> bool {
        // The signing secret is in create's answer only.
        true
    }

    fn dialog(action: Action, item: Option<&EventDestination>) -> Option<Dialog> {
        use crate::console::views::event_destinations::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(d)) => Some(f::edit(d)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::event_destinations::dialogs::build(d)
    }
}
