//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub(crate) mod callbacks;
pub(crate) mod context;
pub(crate) mod destinations;
pub(crate) mod imports;
pub(crate) mod kit;
pub(crate) mod list;
pub(crate) mod notifications;
pub(crate) mod row_cache;
pub(crate) mod teams;

use ratatui::text::Line;

use super::record::{Item, Record};

pub(crate) use kit::{Tone, ViewCtx, duration_ms};
pub(crate) use list::{ListColumn, columns};

/// Every field of the item, for the detail pane, before the sanitizer (the pane sanitizes
/// what it shows, once per record).
pub(crate) fn unsanitised_detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    match record.shown() {
        Item::Team(t) => teams::detail(t, ctx),
        Item::Import(i) => imports::detail(i, ctx),
        Item::Callback(c) => callbacks::detail(c, ctx),
        Item::Destination(d) => destinations::detail(d, ctx),
        Item::Notification(n) => notifications::detail(n, ctx),
    }
}

/// The detail pane's title.
pub(crate) fn title(record: &Record) -> String {
    match record.shown() {
        Item::Team(t) => format!("Team {}", t.name),
        Item::Import(i) => format!("Import {}", i.id),
        Item::Callback(c) => format!("Callback {}", c.name.as_deref().unwrap_or(&c.id)),
        Item::Destination(d) => format!("Destination {}", d.name),
        Item::Notification(n) => format!("Notification {}", n.id),
    }
}
