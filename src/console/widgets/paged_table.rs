//! The list of one tab: a table of the loaded page with its paging line, load state and errors.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, HighlightSpacing, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthChar;

use super::spinner;
use crate::console::layout::MARK;
use crate::console::state::{ErrorView, ListPane, LoadState, PAGE_SIZE};
use crate::console::theme::Theme;
use crate::console::views::ListColumn;
use crate::resource::{allocate, width::ELLIPSIS};

/// Everything the paged table needs to draw.
#[derive(Debug)]
pub(crate) struct PagedTable<'a> {
    /// Block title (tab name and order).
    pub(crate) title: String,
    /// Plural noun for the empty message.
    pub(crate) noun: &'static str,
    /// The columns, from the resource's description.
    pub(crate) columns: Vec<ListColumn>,
    /// Cells of the rows from `first` on, one per column: only the rows that can show.
    pub(crate) rows: Vec<Vec<Line<'static>>>,
    /// Index in the page of the first row in `rows`.
    pub(crate) first: usize,
    /// The pane's state.
    pub(crate) list: &'a ListPane,
    /// Whether the list has the keyboard focus.
    pub(crate) focused: bool,
    /// Animation frame for the spinner.
    pub(crate) frame: u64,
    /// Styles.
    pub(crate) theme: &'a Theme,
    /// A mark per row of `rows` (a leading `●` column) while the list has marks.
    pub(crate) marks: Option<Vec<bool>>,
    /// What an empty loaded list says instead of "no … on this page" (how far a filter looked).
    pub(crate) empty: Option<String>,
    /// The bottom line instead of the page's number (rows gathered from several pages).
    pub(crate) page_note: Option<String>,
    /// Widths follow the pane's width alone, never the rows' text ([`stable_widths`]).
    pub(crate) stable: bool,
}

/// Lines for an error in a pane of `inner` size: the message and, when there is one, the hint,
/// wrapped (see [`crate::console::layout::error_rows`]).
pub(crate) fn error_lines(e: &ErrorView, theme: &Theme, inner: Rect) -> Vec<Line<'static>> {
    use crate::console::layout::{ErrorPart, error_rows};
    let out = error_rows(e, inner)
        .into_iter()
        .map(|(part, text)| {
            let style = match part {
                ErrorPart::Message => theme.error,
                ErrorPart::Hint => theme.warn,
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    // The server wrote the message and hint.
    crate::text::tui::safe_lines(out)
}

/// `page 2 · 20 per page · more →`, with `← more` when earlier items exist.
pub(crate) fn page_line(list: &ListPane) -> String {
    let mut parts = Vec::new();
    if list.pagination.has_more_before {
        parts.push("← more".to_string());
    }
    if list.page == 0 && list.pagination.has_more_before {
        parts.push("page ?".to_string());
    } else {
        parts.push(format!("page {}", list.page.max(1)));
    }
    let per_page = if list.limit == 0 {
        PAGE_SIZE
    } else {
        list.limit
    };
    parts.push(format!("{per_page} per page"));
    if list.pagination.has_more_after {
        parts.push("more →".to_string());
    }
    format!(" {} ", parts.join(" · "))
}

impl PagedTable<'_> {
    /// Draws the table into `area`.
    pub(crate) fn render(self, frame: &mut Frame, area: Rect) {
        let t = self.theme;
        let mut block = Block::bordered()
            .title(Line::from(Span::styled(
                format!(" {} ", self.title),
                if self.focused { t.accent } else { t.text },
            )))
            .title_bottom(Line::from(Span::styled(
                self.page_note
                    .clone()
                    .unwrap_or_else(|| page_line(self.list)),
                t.muted,
            )));
        if self.list.load == LoadState::Loading {
            block = block.title(
                Line::from(Span::styled(
                    format!(" {} loading ", spinner(self.frame)),
                    t.warn,
                ))
                .right_aligned(),
            );
        }
        if !self.focused {
            block = block.border_style(t.muted);
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);

        let errors = match &self.list.load {
            LoadState::Error(e) => error_lines(e, t, inner),
            _ => Vec::new(),
        };
        let [err_area, table_area] =
            Layout::vertical([Constraint::Length(errors.len() as u16), Constraint::Min(0)])
                .areas(inner);
        if !errors.is_empty() {
            frame.render_widget(Paragraph::new(errors), err_area);
        }

        if self.list.shown_len() == 0 {
            let msg = match self.list.load {
                LoadState::Idle | LoadState::Loading => format!("loading {}…", self.noun),
                LoadState::Error(_) => String::new(),
                LoadState::Loaded => self
                    .empty
                    .clone()
                    .unwrap_or_else(|| format!("no {} on this page", self.noun)),
            };
            frame.render_widget(Paragraph::new(Span::styled(msg, t.muted)), table_area);
            return;
        }

        // While the list has marks, a one-column `●` before the columns (and its spacing).
        let marks = self.marks;
        let mark_w = if marks.is_some() { 2 } else { 0 };
        let widths = if self.stable {
            stable_widths(&self.columns, table_area.width.saturating_sub(mark_w))
        } else {
            column_widths(
                &self.columns,
                &self.rows,
                table_area.width.saturating_sub(mark_w),
            )
        };
        let shown: Vec<usize> = (0..self.columns.len())
            .filter(|&i| widths.get(i).is_some_and(|w| *w > 0))
            .collect();
        let header = Row::new(
            marks.as_ref().map(|_| Cell::from("")).into_iter().chain(
                shown
                    .iter()
                    .map(|&i| Cell::from(cut_line(Line::raw(self.columns[i].title), widths[i]))),
            ),
        )
        .style(t.header);
        let rows = self.rows.into_iter().enumerate().map(|(k, cells)| {
            let mut cells: Vec<Option<Line<'static>>> = cells.into_iter().map(Some).collect();
            let mark = marks.as_ref().map(|m| {
                Cell::from(if m.get(k).copied().unwrap_or(false) {
                    "●"
                } else {
                    " "
                })
            });
            Row::new(mark.into_iter().chain(shown.iter().map(|&i| {
                let line = cells.get_mut(i).and_then(Option::take).unwrap_or_default();
                Cell::from(cut_line(line, widths[i]))
            })))
        });
        let widths: Vec<Constraint> = marks
            .as_ref()
            .map(|_| Constraint::Length(1))
            .into_iter()
            .chain(shown.iter().map(|&i| Constraint::Length(widths[i])))
            .collect();
        let table = Table::new(rows, widths)
            .header(header)
            .column_spacing(1)
            .row_highlight_style(if self.focused { t.selected } else { t.muted })
            .highlight_symbol("▶ ")
            .highlight_spacing(HighlightSpacing::Always);
        let mut ts = TableState::default()
            .with_offset(0)
            .with_selected(self.list.cursor.checked_sub(self.first));
        frame.render_stateful_widget(table, table_area, &mut ts);
    }
}

/// Each column's width on a table `width` columns wide (0: left out), shared by the
/// description's rules ([`allocate`]) over the widest cell shown and the title.
pub(crate) fn column_widths(
    columns: &[ListColumn],
    rows: &[Vec<Line<'_>>],
    width: u16,
) -> Vec<u16> {
    let content: Vec<u16> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let widest = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(Line::width)
                .max()
                .unwrap_or(0);
            u16::try_from(widest.max(crate::resource::display_width(c.title))).unwrap_or(u16::MAX)
        })
        .collect();
    let rules: Vec<_> = columns.iter().map(|c| c.width).collect();
    allocate(&rules, &content, width.saturating_sub(MARK), 1)
}

/// Whether a tab's columns follow the width alone ([`stable_widths`]): the one rule `ui` draws
/// by and `s` sorts by.
pub(crate) fn stable_for(tab: crate::console::tab::Tab) -> bool {
    tab.is_notifications_list()
}

/// Each column's width on a table `width` columns wide, from the rules alone: which columns
/// show and how wide depends on the width, never on the page's text, so nothing moves while
/// scrolling or paging ([`crate::resource::width::allocate_stable`]).
pub(crate) fn stable_widths(columns: &[ListColumn], width: u16) -> Vec<u16> {
    let rules: Vec<_> = columns.iter().map(|c| c.width).collect();
    crate::resource::width::allocate_stable(&rules, width.saturating_sub(MARK), 1)
}

/// A cell's line in at most `width` columns: whole when it fits, else cut by display width
/// with `…` at the end (in the style of the text it follows).
pub(crate) fn cut_line(line: Line<'static>, width: u16) -> Line<'static> {
    let width = usize::from(width);
    if line.width() <= width {
        return line;
    }
    // A URL alone in its cell is cut in the middle: its host and its path's end tell rows apart.
    if let [span] = line.spans.as_slice()
        && let Some(short) = crate::resource::width::cut_url(&span.content, width)
    {
        return Line::from(Span::styled(short, span.style)).style(line.style);
    }
    let room = width.saturating_sub(1);
    let mut used = 0;
    let mut spans: Vec<Span<'static>> = Vec::new();
    'outer: for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > room {
                spans.push(Span::styled(text, span.style));
                break 'outer;
            }
            used += w;
            text.push(c);
        }
        spans.push(Span::styled(text, span.style));
    }
    if width > 0 {
        let style = spans.last().map(|s| s.style).unwrap_or_default();
        spans.push(Span::styled(ELLIPSIS.to_string(), style));
    }
    Line::from(spans).style(line.style)
}

/// The rows of a page worth formatting for a list drawn in `area`: from the scroll offset (moved
/// so the cursor shows) for one screenful. Formatting only these keeps a frame's cost independent
/// of how many rows are loaded.
pub(crate) fn visible_window(list: &ListPane, area: Rect) -> std::ops::Range<usize> {
    let len = list.shown_len();
    let height = usize::from(area.height).max(1);
    let mut start = list.offset.min(len);
    if list.cursor < start {
        start = list.cursor;
    } else if list.cursor >= start + height {
        start = list.cursor + 1 - height;
    }
    let start = start.min(len);
    start..(start + height).min(len)
}
