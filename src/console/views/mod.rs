//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub mod callbacks;
pub mod context;
pub mod destinations;
pub mod imports;
pub mod kit;
pub mod list;
pub mod notifications;
pub mod teams;

use ratatui::text::Line;

use super::record::{Item, Record};

pub use kit::{Tone, ViewCtx, duration_ms, interval};
pub use list::{ListColumn, cells, columns};

/// Every field of the item, for the detail pane.
pub fn detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let lines = match record.shown() {
        Item::Team(t) => teams::detail(t, ctx),
        Item::Import(i) => imports::detail(i, ctx),
        Item::Callback(c) => callbacks::detail(c, ctx),
        Item::Destination(d) => destinations::detail(d, ctx),
        Item::Notification(n) => notifications::detail(n, ctx),
    };
    crate::text::tui::safe_lines(lines)
}

/// The detail pane's title.
pub fn title(record: &Record) -> String {
    match record.shown() {
        Item::Team(t) => format!("Team {}", t.name),
        Item::Import(i) => format!("Import {}", i.id),
        Item::Callback(c) => format!("Callback {}", c.name.as_deref().unwrap_or(&c.id)),
        Item::Destination(d) => format!("Destination {}", d.name),
        Item::Notification(n) => format!("Notification {}", n.id),
    }
}
