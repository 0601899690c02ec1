//! Callbacks (read-only): type, schedule, webhook URL.
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use ratatui::text::{Line, Span};

use super::kit::{ViewCtx, interval};
use crate::api::model::Callback;
use crate::api::secret::mask_url_key;
use crate::console::widgets::fields::Fields;

/// Whether a next run lies in the past (more than the clock's "just now").
fn overdue(t: &chrono::DateTime<chrono::Utc>, ctx: &ViewCtx) -> bool {
    (ctx.clock.now() - *t).num_seconds() >= 45
}

/// Detail lines: fields and the schedule.
pub(crate) fn detail(c: &Callback, ctx: &ViewCtx) -> Vec<Line<'static>> {
    detail_with(c, ctx, None)
}

/// Detail lines with the hook URL shown in full when `revealed` holds it (after `R`).
pub(crate) fn detail_with(
    c: &Callback,
    ctx: &ViewCtx,
    revealed: Option<&str>,
) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    let url = match (c.url.as_deref(), revealed) {
        (Some(_), Some(full)) => Some(vec![
            Span::styled(full.to_string(), ctx.theme.warn),
            Span::styled("  (REVEALED · y copies · R hides)", ctx.theme.warn),
        ]),
        (Some(u), None) if mask_url_key(u) != u => Some(vec![
            Span::raw(mask_url_key(u)),
            Span::styled("  (masked · R reveals)", ctx.theme.muted),
        ]),
        (Some(u), None) => Some(vec![Span::raw(u.to_string())]),
        (None, _) => None,
    };
    f.opt("Name", c.name.as_deref())
        .field("ID", c.id.clone())
        .field("Type", c.kind.to_string())
        .opt("Description", c.description.as_deref());
    // The last segment is the hook's key: anyone holding it can post events.
    match url {
        Some(spans) => f.field_spans("Webhook URL", spans),
        None => f.opt("Webhook URL", None),
    };
    f.field("Created", ctx.when(&c.created_at))
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
        Some(t) if overdue(t, ctx) => {
            f.field("Next run", ctx.when(t));
            f.line(
                2,
                vec![Span::styled(
                    format!(
                        "overdue by {}: not run since (the server's scheduler is behind or off)",
                        ctx.clock.relative(t).trim_end_matches(" ago")
                    ),
                    ctx.theme.warn,
                )],
            )
        }
        Some(t) => f.field("Next run", ctx.when(t)),
        None => f.opt("Next run", None),
    };
    f.finish()
}

impl super::DetailView for crate::resource::callbacks::Callbacks {
    fn detail(item: &Callback, ctx: &ViewCtx) -> Vec<Line<'static>> {
        detail(item, ctx)
    }

    fn follow_keys() -> &'static [Action] {
        use crate::console::delivery_key::DeliveryKey as K;
        &[
            Action::Deliver(K::Destinations),
            Action::Deliver(K::Notifications),
        ]
    }

    /// Read-only: no write key opens a dialog here.
    fn dialog(_action: Action, _item: Option<&Callback>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}
