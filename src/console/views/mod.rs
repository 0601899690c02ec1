//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub(crate) mod callbacks;
pub(crate) mod destinations;
pub(crate) mod imports;
pub(crate) mod kit;
pub(crate) mod notifications;
pub(crate) mod teams;

use ratatui::text::Line;
use ratatui::widgets::Cell;

use super::record::{Item, Record};
use super::tab::Tab;

pub(crate) use kit::{Column, Tone, ViewCtx, duration_ms};

/// The columns of a tab's list.
pub(crate) fn columns(tab: Tab) -> &'static [Column] {
    match tab {
        Tab::Teams => teams::COLUMNS,
        Tab::Imports => imports::COLUMNS,
        Tab::Callbacks => callbacks::COLUMNS,
        Tab::Destinations => destinations::COLUMNS,
        Tab::Notifications => notifications::COLUMNS,
    }
}

/// The cells of one row, one per column.
pub(crate) fn cells(record: &Record, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    match record.shown() {
        Item::Team(t) => teams::cells(t, ctx),
        Item::Import(i) => imports::cells(i, ctx),
        Item::Callback(c) => callbacks::cells(c, ctx),
        Item::Destination(d) => destinations::cells(d, ctx),
        Item::Notification(n) => notifications::cells(n, ctx),
    }
}

/// Every field of the item, for the detail pane.
pub(crate) fn detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
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
pub(crate) fn title(record: &Record) -> String {
    match record.shown() {
        Item::Team(t) => format!("Team {}", t.name),
        Item::Import(i) => format!("Import {}", i.id),
        Item::Callback(c) => format!("Callback {}", c.name.as_deref().unwrap_or(&c.id)),
        Item::Destination(d) => format!("Destination {}", d.name),
        Item::Notification(n) => format!("Notification {}", n.id),
    }
}
