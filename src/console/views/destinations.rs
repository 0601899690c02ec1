//! Callback destinations: webhook URL, masked signing secret, callback selection.
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::kit::{Column, Tone, ViewCtx, col, duration_ms};
use crate::api::model::{CallbackSelection, Destination, SelectionType};
use crate::api::secret::mask;
use crate::console::deliveries::HealthPane;
use crate::console::deliveries::health::{HEALTH_SAMPLE, compute};
use crate::console::widgets::fields::Fields;

/// Position of the recent-deliveries column in [`COLUMNS`].
pub(crate) const RECENT_COLUMN: usize = 3;

/// List columns.
pub(crate) const COLUMNS: &[Column] = &[
    col("Name", Fill(1), true),
    // In the preview beside a narrow list; the recent deliveries matter more there.
    col("URL", Fill(2), false),
    col("Callbacks", Length(10), true),
    col("Recent deliveries", Length(17), true),
    col("Created", Length(11), true),
    col("ID", Length(26), false),
];

/// `all` or `3 selected`.
fn selection(s: &CallbackSelection) -> String {
    match s.kind {
        SelectionType::All => "all".into(),
        SelectionType::Selected => {
            format!("{} selected", s.callback_ids.as_ref().map_or(0, Vec::len))
        }
        SelectionType::Other(ref o) => o.clone(),
    }
}

/// Row cells.
pub(crate) fn cells(d: &Destination, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    // Through the redaction policy: a userinfo password and secret query values masked.
    let url = d
        .webhook_destination
        .as_ref()
        .map(|w| crate::text::redact::mask_url(&w.url));
    let url = url.as_deref();
    vec![
        Cell::from(d.name.clone()),
        Cell::from(ctx.or_muted(url, "—")),
        Cell::from(selection(&d.callbacks)),
        // Filled in by the deliveries room once the destination's recent deliveries are in.
        Cell::from(Span::styled("…", ctx.theme.muted)),
        ctx.ago(&d.created_at),
        Cell::from(Span::styled(d.id.clone(), ctx.theme.muted)),
    ]
}

/// Detail lines: fields, the webhook (secret masked) and the callback selection.
pub(crate) fn detail(d: &Destination, ctx: &ViewCtx) -> Vec<Line<'static>> {
    detail_with(d, ctx, &Extras::default())
}

/// What the console knows about a destination beyond its record.
#[derive(Debug, Default)]
pub(crate) struct Extras<'a> {
    /// Names of callbacks by id.
    pub names: Option<&'a crate::api::NameCache>,
    /// Known to be deleted.
    pub deleted: bool,
    /// The signing secret revealed (in full), for this destination.
    pub secret: Option<String>,
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

/// The health section of a destination's detail, computed from the notifications loaded.
pub(crate) fn health_lines(h: &HealthPane, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let stats = compute(&h.items);
    let mut f = Fields::new(ctx.theme);
    f.section(format!(
        "Health (from the {} latest notifications loaded)",
        stats.total
    ));
    f.line(
        2,
        vec![Span::styled(
            format!("computed by the console from what it loaded, at most {HEALTH_SAMPLE}"),
            ctx.theme.muted,
        )],
    );
    if h.pending.is_some() {
        f.line(
            2,
            vec![Span::styled("loading notifications…", ctx.theme.warn)],
        );
    }
    if let Some(e) = &h.error {
        f.line(
            2,
            vec![Span::styled(format!("stopped: {e}"), ctx.theme.error)],
        );
    }
    if stats.total == 0 && h.pending.is_none() {
        f.line(
            2,
            vec![Span::styled("no notifications yet", ctx.theme.muted)],
        );
        return f.finish();
    }
    f.line(
        2,
        vec![
            ctx.status(&format!("{} succeeded", stats.succeeded), Tone::Good),
            Span::raw("  "),
            ctx.status(&format!("{} failed", stats.failed), Tone::Bad),
        ],
    );
    let mut waiting = vec![
        ctx.status(&format!("{} retrying", stats.retrying), Tone::Busy),
        Span::raw("  "),
        ctx.status(&format!("{} pending", stats.pending), Tone::Waiting),
    ];
    if stats.other > 0 {
        waiting.push(Span::raw(format!("  {} other", stats.other)));
    }
    f.line(2, waiting);
    let rate = stats
        .success_rate()
        .map_or("— (none finished)".to_string(), |r| format!("{r:.1} %"));
    let ms = |v: Option<i64>| v.map_or("—".to_string(), duration_ms);
    f.field("Success rate", rate)
        .field("Median took", ms(stats.median_ms))
        .field("p95 took", ms(stats.p95_ms));
    let mut lines = f.finish();
    if !h.items.is_empty() {
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
