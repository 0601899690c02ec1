//! A `callback-destinations` callback event: its fields, then the webhook it received (the
//! trigger's input) and what it passed on (the output), as the server sent them (the detail pane
//! sanitizes every line).
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::model::DeploymentCallbackEvent;
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use crate::resource::deployment_callback_events::{
    DEPLOYMENT_CALLBACK_EVENTS, DeploymentCallbackEvents, json_lines,
};

impl super::DetailView for DeploymentCallbackEvents {
    fn detail(item: &DeploymentCallbackEvent, ctx: &ViewCtx) -> Vec<Line<'static>> {
        let mut lines = super::described::detail(&DEPLOYMENT_CALLBACK_EVENTS, item, ctx);
        for (title, v) in [
            ("Webhook received", item.input.as_ref()),
            ("Passed on", item.output.as_ref()),
        ] {
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(title, ctx.theme.section)));
            lines.extend(
                json_lines(v)
                    .into_iter()
                    .map(|l| Line::from(format!("  {l}"))),
            );
        }
        lines
    }

    fn dialog(_action: Action, _item: Option<&DeploymentCallbackEvent>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
