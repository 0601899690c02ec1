//! One module per resource: its columns, row cells and detail pane. Dispatch on the item kind.
pub mod attempt;
pub mod callbacks;
pub mod destinations;
pub mod imports;
pub mod notifications;
pub mod teams;

use chrono::{DateTime, Utc};
use ratatui::layout::Constraint;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::clock::Clock;
use super::record::{Item, Record};
use super::tab::Tab;
use super::theme::Theme;

/// A list column.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// Header text.
    pub title: &'static str,
    /// Width rule.
    pub width: Constraint,
    /// Shown on narrow lists too (otherwise only when there is room).
    pub narrow: bool,
}

/// Shorthand for a column definition.
pub const fn col(title: &'static str, width: Constraint, narrow: bool) -> Column {
    Column {
        title,
        width,
        narrow,
    }
}

/// What views need besides the item: time and styles.
#[derive(Debug, Clone, Copy)]
pub struct ViewCtx<'a> {
    /// Time source.
    pub clock: &'a Clock,
    /// Styles.
    pub theme: &'a Theme,
}

impl ViewCtx<'_> {
    /// A relative-time cell (`3 min ago`).
    pub fn ago(&self, t: &DateTime<Utc>) -> Cell<'static> {
        Cell::from(self.clock.relative(t))
    }

    /// Local time and relative distance (`2025-10-24 17:30 (3 min ago)`).
    pub fn when(&self, t: &DateTime<Utc>) -> Span<'static> {
        Span::raw(self.clock.local_and_relative(t))
    }

    /// Text, or a muted fallback when empty.
    pub fn or_muted(&self, v: Option<&str>, fallback: &str) -> Span<'static> {
        match v {
            Some(s) if !s.is_empty() => Span::raw(s.to_string()),
            _ => Span::styled(fallback.to_string(), self.theme.muted),
        }
    }

    /// A status word with a symbol and a colour (never the colour alone).
    pub fn status(&self, word: &str, tone: Tone) -> Span<'static> {
        let (sym, style): (&str, Style) = match tone {
            Tone::Good => ("✓", self.theme.ok),
            Tone::Busy => ("↻", self.theme.warn),
            Tone::Waiting => ("…", self.theme.warn),
            Tone::Bad => ("✗", self.theme.error),
            Tone::Off => ("○", self.theme.muted),
            Tone::Unknown => ("?", self.theme.text),
        };
        Span::styled(format!("{sym} {word}"), style)
    }
}

/// How a status reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Succeeded, active.
    Good,
    /// Retrying.
    Busy,
    /// Pending.
    Waiting,
    /// Failed.
    Bad,
    /// Expired, inactive.
    Off,
    /// A value this version does not know.
    Unknown,
}

/// `12 ms` or `10.0 s`.
pub fn duration_ms(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// `every 30 s`, `every 5 min`, `every 2 h`.
pub fn interval(secs: i64) -> String {
    if secs > 0 && secs % 3600 == 0 {
        format!("{} h", secs / 3600)
    } else if secs > 0 && secs % 60 == 0 {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

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
pub fn cells(record: &Record, ctx: &ViewCtx) -> Vec<Cell<'static>> {
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
