//! A tab's list read from its resource's description (`crate::resource`): the columns with
//! their width rules, each row's cells, the texts `/` matches and the keys `s` sorts by. The
//! console draws what the description says; it keeps no column list of its own.
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::console::record::Record;
use crate::console::tab::Tab;
use crate::resource::{
    Ctx, Description, Resource, SortKey, Width, with_item as resource_item, with_kind,
};

/// One list column as the console draws it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ListColumn {
    /// Header text.
    pub(crate) title: &'static str,
    /// Width rule (see [`crate::resource::allocate`]).
    pub(crate) width: Width,
}

/// Calls `$f` with the description of `$tab` (each is of its own item type).
macro_rules! with_description {
    ($tab:expr, $f:ident $(, $arg:expr)*) => {
        with_kind!($tab, R => $f(R::description() $(, $arg)*))
    };
}

/// Calls `$f` with a record's shown item and its description.
macro_rules! with_item {
    ($record:expr, $f:ident $(, $arg:expr)*) => {
        resource_item!($record.shown(), R, x => $f(R::description(), x.as_ref() $(, $arg)*))
    };
}

fn columns_of<T>(d: &Description<T>) -> Vec<ListColumn> {
    d.columns
        .iter()
        .map(|c| ListColumn {
            title: c.title,
            width: c.width,
        })
        .collect()
}

/// The columns of a tab's list, in the description's order.
pub(crate) fn columns(tab: Tab) -> Vec<ListColumn> {
    with_description!(tab, columns_of)
}

/// The position of the column titled `title` in a tab's list.
pub(crate) fn position(tab: Tab, title: &str) -> Option<usize> {
    columns(tab).iter().position(|c| c.title == title)
}

fn cells_of<T>(d: &Description<T>, item: &T, ctx: &Ctx<'_>, v: &ViewCtx) -> Vec<Line<'static>> {
    d.columns
        .iter()
        .map(|c| {
            // Names and bodies are server text: one line, through the one sanitizer.
            let text = crate::text::line(head(&(c.cell)(item, ctx))).into_owned();
            let span = match c.tone {
                Some(tone) => v.status(&text, tone(item)),
                None if c.muted || text == crate::resource::DASH => {
                    Span::styled(text, v.theme.muted)
                }
                None => Span::raw(text),
            };
            Line::from(span)
        })
        .collect()
}

/// Characters of a cell worth sanitizing: more than a terminal row shows (the table cuts the
/// rest with `…`), so a row with a 100,000-character value costs what a short one does.
const CELL_CHARS: usize = 2048;

/// The first [`CELL_CHARS`] characters of a cell.
fn head(s: &str) -> &str {
    s.char_indices().nth(CELL_CHARS).map_or(s, |(i, _)| &s[..i])
}

/// The cells of one row, one per column, as the description shows them.
pub(crate) fn cells(record: &Record, ctx: &Ctx<'_>, v: &ViewCtx) -> Vec<Line<'static>> {
    with_item!(record, cells_of, ctx, v)
}

fn filter_texts_of<T>(d: &Description<T>, item: &T, ctx: &Ctx<'_>) -> Vec<String> {
    d.filter_texts(item, ctx)
}

/// The texts `/` matches in a row: what each column shows (and its extra text, such as the
/// absolute date beside `3 min ago`).
pub(crate) fn filter_texts(record: &Record, ctx: &Ctx<'_>) -> Vec<String> {
    with_item!(record, filter_texts_of, ctx)
}

fn sortable_of<T>(d: &Description<T>) -> Vec<usize> {
    d.sortable()
}

/// The positions of the sortable columns of a tab, in the order `s` cycles through them.
pub(crate) fn sortable(tab: Tab) -> Vec<usize> {
    with_description!(tab, sortable_of)
}

fn sort_key_of<T>(d: &Description<T>, item: &T, col: usize, ctx: &Ctx<'_>) -> SortKey {
    d.columns
        .get(col)
        .and_then(|c| c.sort)
        .map_or(SortKey::Missing, |k| k(item, ctx))
}

/// The key column `col` sorts a row by: taken from the value its cell shows.
pub(crate) fn sort_key(record: &Record, col: usize, ctx: &Ctx<'_>) -> SortKey {
    with_item!(record, sort_key_of, col, ctx)
}

fn aliases_of<T>(d: &Description<T>) -> &'static [&'static str] {
    d.aliases
}

/// The words `:` accepts for a tab's list (the first is what completion offers).
pub(crate) fn aliases(tab: Tab) -> &'static [&'static str] {
    with_description!(tab, aliases_of)
}

fn owns_id_of<T>(d: &Description<T>, id: &str) -> bool {
    d.owns_id(id)
}

/// The tab an id belongs to, by its resource's id prefix.
pub(crate) fn tab_of_id(id: &str) -> Option<Tab> {
    Tab::ALL
        .into_iter()
        .find(|&t| with_description!(t, owns_id_of, id))
}
