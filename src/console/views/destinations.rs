//! Callback destinations: webhook URL, masked signing secret, callback selection.
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::{Column, ViewCtx, col};
use crate::api::model::{CallbackSelection, Destination, SelectionType};
use crate::api::secret::mask;
use crate::console::widgets::fields::Fields;

/// List columns.
pub const COLUMNS: &[Column] = &[
    col("Name", Fill(1), true),
    col("URL", Fill(2), true),
    col("Callbacks", Length(10), true),
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
pub fn cells(d: &Destination, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    let url = d.webhook_destination.as_ref().map(|w| w.url.as_str());
    vec![
        Cell::from(d.name.clone()),
        Cell::from(ctx.or_muted(url, "—")),
        Cell::from(selection(&d.callbacks)),
        ctx.ago(&d.created_at),
        Cell::from(Span::styled(d.id.clone(), ctx.theme.muted)),
    ]
}

/// Detail lines: fields, the webhook (secret masked) and the callback selection.
pub fn detail(d: &Destination, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.field("Name", d.name.clone())
        .field("ID", d.id.clone())
        .field("Type", d.kind.to_string())
        .opt("Description", Some(d.description.as_str()))
        .field("Created", ctx.when(&d.created_at));
    f.section("Webhook");
    match &d.webhook_destination {
        Some(w) => {
            f.field("URL", w.url.clone()).field_spans(
                "Signing secret",
                vec![
                    Span::raw(mask(&w.signing_secret)),
                    Span::styled("  (masked)", ctx.theme.muted),
                ],
            );
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
                f.line(4, vec![Span::raw(id.clone())]);
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
