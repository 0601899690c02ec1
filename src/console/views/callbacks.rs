//! Callbacks (read-only): type, schedule, webhook URL.
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::kit::{Column, ViewCtx, col, interval};
use crate::api::model::Callback;
use crate::api::secret::mask_url_key;
use crate::console::widgets::fields::Fields;

/// List columns.
pub(crate) const COLUMNS: &[Column] = &[
    col("Name", Fill(2), true),
    col("Type", Length(15), true),
    col("Every", Length(7), true),
    col("Next run", Length(11), true),
    col("Created", Length(11), false),
    col("ID", Length(26), false),
];

/// Row cells.
pub(crate) fn cells(c: &Callback, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    let next = match &c.schedule.next_run_at {
        Some(t) => Cell::from(ctx.clock.relative(t)),
        None => Cell::from(Span::styled("—", ctx.theme.muted)),
    };
    vec![
        Cell::from(ctx.or_muted(c.name.as_deref(), &c.id)),
        Cell::from(c.kind.to_string()),
        Cell::from(interval(c.schedule.interval_seconds)),
        next,
        ctx.ago(&c.created_at),
        Cell::from(Span::styled(c.id.clone(), ctx.theme.muted)),
    ]
}

/// Detail lines: fields and the schedule.
pub(crate) fn detail(c: &Callback, ctx: &ViewCtx) -> Vec<Line<'static>> {
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
