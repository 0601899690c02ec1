//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub mod callbacks;
pub mod destinations;
pub mod imports;
pub mod kit;
pub mod notifications;
pub mod teams;

use ratatui::text::Line;
use ratatui::widgets::Cell;

use super::record::{Item, Record};
use super::tab::Tab;

pub use kit::{Column, Tone, ViewCtx, col, duration_ms, interval};

/// The columns of a tab's list.
pub fn columns(tab: Tab) -> &'static [Column] {
    match tab {
        Tab::Teams => teams::COLUMNS,
        Tab::Imports => imports::COLUMNS,
        Tab::Callbacks => callbacks::COLUMNS,
        Tab::Destinations => destinations::COLUMNS,
        Tab::Notifications => notifications::COLUMNS,
    }
}

/// The record as views show it: when any of its text holds a control, bidi or invisible
/// character, a copy decoded from its JSON with every string through the one sanitizer
/// ([`crate::text::sanitize`]); actions keep using the record as received.
fn shown(record: &Record) -> std::borrow::Cow<'_, Record> {
    use crate::text::sanitize::{json_for_display, json_has_hazard};
    if !json_has_hazard(&record.raw) {
        return std::borrow::Cow::Borrowed(record);
    }
    let tab = match &record.item {
        Item::Team(_) => Tab::Teams,
        Item::Import(_) => Tab::Imports,
        Item::Callback(_) => Tab::Callbacks,
        Item::Destination(_) => Tab::Destinations,
        Item::Notification(_) => Tab::Notifications,
    };
    match super::record::decode_item(tab, json_for_display(&record.raw), 200) {
        Ok(r) => std::borrow::Cow::Owned(r),
        // Should a sanitised copy not decode, the terminal backend still filters every cell.
        Err(_) => std::borrow::Cow::Borrowed(record),
    }
}

/// The cells of one row, one per column.
pub(crate) fn cells(record: &Record, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    let record = shown(record);
    match &record.item {
        Item::Team(t) => teams::cells(t, ctx),
        Item::Import(i) => imports::cells(i, ctx),
        Item::Callback(c) => callbacks::cells(c, ctx),
        Item::Destination(d) => destinations::cells(d, ctx),
        Item::Notification(n) => notifications::cells(n, ctx),
    }
}

/// Every field of the item, for the detail pane.
pub fn detail(record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let record = shown(record);
    let lines = match &record.item {
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
    let record = shown(record);
    match &record.item {
        Item::Team(t) => format!("Team {}", t.name),
        Item::Import(i) => format!("Import {}", i.id),
        Item::Callback(c) => format!("Callback {}", c.name.as_deref().unwrap_or(&c.id)),
        Item::Destination(d) => format!("Destination {}", d.name),
        Item::Notification(n) => format!("Notification {}", n.id),
    }
}
