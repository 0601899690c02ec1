//! Callbacks (read-only): type, schedule, webhook URL.
use ratatui::text::Line;

use super::kit::{ViewCtx, interval};
use crate::api::model::Callback;
use crate::api::secret::mask_url_key;
use crate::console::widgets::fields::Fields;

/// Detail lines: fields and the schedule.
pub fn detail(c: &Callback, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.opt("Name", c.name.as_deref())
        .field("ID", c.id.clone())
        .field("Type", c.kind.to_string())
        .opt("Description", c.description.as_deref())
        // The last segment is the hook's key: anyone holding it can post events.
        .opt("Webhook URL", c.url.as_deref().map(mask_url_key).as_deref())
        .field("Created", ctx.when(&c.created_at))
        .field("Updated", ctx.when(&c.updated_at));
    f.section("Schedule");
    f.field(
        "Interval",
        format!(
            "every {} ({} s)",
            interval(c.schedule.interval_seconds),
            c.schedule.interval_seconds
        ),
    );
    match &c.schedule.next_run_at {
        Some(t) => f.field("Next run", ctx.when(t)),
        None => f.opt("Next run", None),
    };
    f.finish()
}
