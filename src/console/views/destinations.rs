//! Callback destinations: webhook URL, masked signing secret, callback selection.
pub(crate) mod dialogs;

use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::health::{MAX_COUNTED, Stats, window_text};
use crate::api::model::{Destination, SelectionType};
use crate::api::secret::mask;
use crate::console::deliveries::HealthPane;
use crate::console::deliveries::health::STATS_WINDOW_SECS;
use crate::console::widgets::fields::Fields;
use chrono::TimeDelta;

/// Detail lines: fields, the webhook (secret masked) and the callback selection.
pub(crate) fn detail(d: &Destination, ctx: &ViewCtx) -> Vec<Line<'static>> {
    detail_with(d, ctx, &Extras::default())
}

/// What the console knows about a destination beyond its record.
#[derive(Debug, Default)]
pub(crate) struct Extras<'a> {
    /// Names of callbacks by id.
    pub(crate) names: Option<&'a crate::api::NameCache>,
    /// Known to be deleted.
    pub(crate) deleted: bool,
    /// The signing secret revealed (in full), for this destination.
    pub(crate) secret: Option<String>,
}

/// Detail lines with names, the deleted mark and a revealed secret.
pub(crate) fn detail_with(d: &Destination, ctx: &ViewCtx, x: &Extras) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    if x.deleted {
        f.field_spans(
            "Status",
            vec![Span::styled(
                "deleted (no longer receives notifications)",
                ctx.theme.error,
            )],
        );
    }
    f.field("Name", d.name.clone())
        .field("ID", d.id.clone())
        .field("Type", d.kind.to_string())
        .opt("Description", Some(d.description.as_str()))
        .field("Created", ctx.when(&d.created_at));
    f.section("Webhook");
    match &d.webhook_destination {
        Some(w) => {
            let secret = match &x.secret {
                Some(s) => vec![
                    Span::styled(s.clone(), ctx.theme.warn),
                    Span::styled("  (REVEALED · y copies · R hides)", ctx.theme.warn),
                ],
                None => vec![
                    Span::raw(mask(&w.signing_secret)),
                    Span::styled("  (masked · R reveals)", ctx.theme.muted),
                ],
            };
            f.field("URL", crate::text::redact::mask_url(&w.url))
                .field_spans("Signing secret", secret);
        }
        None => {
            f.line(2, vec![Span::styled("none", ctx.theme.muted)]);
        }
    }
    f.section("Callbacks");
    match (&d.callbacks.kind, &d.callbacks.callback_ids) {
        (SelectionType::All, _) => {
            f.line(2, vec![Span::raw("all callbacks")]);
        }
        (_, Some(ids)) if !ids.is_empty() => {
            f.line(2, vec![Span::raw(format!("selected ({}):", ids.len()))]);
            for id in ids {
                // By name, the id beside it (an id without a known name shows alone).
                let line = match x.names.and_then(|n| n.name(id)) {
                    Some(name) => vec![
                        Span::raw(name.to_string()),
                        Span::styled(format!("  {id}"), ctx.theme.muted),
                    ],
                    None => vec![Span::raw(id.clone())],
                };
                f.line(4, line);
            }
        }
        (kind, _) => {
            f.line(
                2,
                vec![Span::styled(format!("{kind}: none"), ctx.theme.muted)],
            );
        }
    }
    f.finish()
}

/// The health section of a destination's detail: [`Stats`] over the same window as
/// `destinations stats` (the same numbers; retrying is not success), then the outcomes over time
/// of the notifications loaded for the chart.
pub(crate) fn health_lines(
    stats: Option<&Result<Stats, String>>,
    loading: bool,
    timeline: Option<&HealthPane>,
    ctx: &ViewCtx,
) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.section(format!(
        "Health (last {}, as destinations stats counts)",
        window_text(TimeDelta::seconds(STATS_WINDOW_SECS))
    ));
    if loading {
        f.line(2, vec![Span::styled("loading…", ctx.theme.warn)]);
    }
    match stats {
        Some(Ok(s)) if s.notifications == 0 => {
            f.line(
                2,
                vec![Span::styled(
                    "no notification created in the window",
                    ctx.theme.muted,
                )],
            );
        }
        Some(Ok(s)) => {
            let mut lines = s.lines();
            // The window's line names the worker's instant; the heading says the window.
            lines.pop();
            if s.truncated {
                lines.push(format!("only the newest {MAX_COUNTED} were read"));
            }
            for l in lines {
                f.line(2, vec![Span::raw(l)]);
            }
        }
        Some(Err(e)) => {
            f.line(
                2,
                vec![Span::styled(format!("stopped: {e}"), ctx.theme.error)],
            );
        }
        None => {}
    }
    let mut lines = f.finish();
    if let Some(h) = timeline.filter(|h| !h.items.is_empty()) {
        lines.push(Line::raw(""));
        lines.push(Line::from(Span::styled(
            "Outcomes over time",
            ctx.theme.section,
        )));
        lines.extend(crate::console::deliveries::health::timeline_lines(
            &h.items, ctx.theme, ctx.clock, 48,
        ));
    }
    lines
}

impl super::DetailView for crate::resource::destinations::Destinations {
    fn detail(item: &Destination, ctx: &ViewCtx) -> Vec<Line<'static>> {
        detail(item, ctx)
    }

    fn follow_keys() -> &'static [Action] {
        &[Action::Deliver(
            crate::console::delivery_key::DeliveryKey::Notifications,
        )]
    }

    fn dialog(action: Action, item: Option<&Destination>) -> Option<Dialog> {
        use crate::console::views::destinations::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(d)) => Some(f::edit(d)),
            (Action::DELETE, Some(d)) => Some(f::delete(d)),
            _ => None,
        }
    }

    /// A deleted destination is gone for good: wherever it is named, it shows so.
    fn write_spec(action: Action) -> crate::console::forms::WriteSpec {
        crate::console::forms::WriteSpec {
            gone: action == Action::DELETE,
            ..crate::console::forms::WriteSpec::standard(action)
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::destinations::dialogs::build(d)
            .map(|req| WriteOp::Op(<Self as crate::resource::Resource>::KIND, req))
    }

    /// `C duplicate` beside `d delete`.
    fn op_rank(verb: &str) -> Option<u8> {
        (verb == crate::resource::destinations::DUPLICATE.verb).then_some(11)
    }
}
