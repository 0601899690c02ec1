//! The detail pane: a titled, scrollable block of field lines with its load state.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::resource::wrap::{Row, WrapCache, wrap_line};

use super::paged_table::error_lines;
use super::spinner;
use crate::console::state::LoadState;
use crate::console::theme::Theme;

/// A detail pane ready to draw.
#[derive(Debug)]
pub(crate) struct DetailView<'a> {
    /// Block title.
    pub(crate) title: String,
    /// Body lines, server text not yet sanitized: the pane sanitizes them when it wraps them.
    pub(crate) lines: Vec<Line<'static>>,
    /// Lines scrolled.
    pub(crate) scroll: u16,
    /// Load state of the refresh.
    pub(crate) load: &'a LoadState,
    /// Whether the pane has the focus (it is open, not a preview).
    pub(crate) focused: bool,
    /// Animation frame for the spinner.
    pub(crate) frame: u64,
    /// Styles.
    pub(crate) theme: &'a Theme,
}

impl DetailView<'_> {
    /// Draws the pane into `area`.
    pub(crate) fn render(self, frame: &mut Frame, area: Rect) {
        let t = self.theme;
        let mut block = Block::bordered().title(Line::from(Span::styled(
            format!(" {} ", self.title),
            if self.focused { t.accent } else { t.text },
        )));
        if !self.focused {
            block = block
                .border_style(t.muted)
                .title_bottom(Line::from(Span::styled(
                    " preview · Enter to open ",
                    t.muted,
                )));
        }
        if *self.load == LoadState::Loading {
            block = block.title(
                Line::from(Span::styled(
                    format!(" {} loading ", spinner(self.frame)),
                    t.warn,
                ))
                .right_aligned(),
            );
        }
        let inner = block.inner(area);
        // Sanitized and wrapped once per record and width (see `wrapped`): a key on a
        // 100,000-character record costs building and fingerprinting its lines, no more.
        let rows = wrapped(&self.lines, usize::from(inner.width));
        let total = u16::try_from(rows.len()).unwrap_or(u16::MAX);
        let visible = inner.height;
        if total > visible {
            let first = self.scroll.min(total.saturating_sub(visible));
            block = block.title_bottom(
                Line::from(Span::styled(
                    format!(
                        " {}–{} of {} ",
                        first + 1,
                        (first + visible).min(total),
                        total
                    ),
                    t.muted,
                ))
                .right_aligned(),
            );
        }
        frame.render_widget(block, area);
        let errors = match self.load {
            LoadState::Error(e) => error_lines(e, t, inner),
            _ => Vec::new(),
        };
        let [err_area, body] =
            Layout::vertical([Constraint::Length(errors.len() as u16), Constraint::Min(0)])
                .areas(inner);
        if !errors.is_empty() {
            frame.render_widget(Paragraph::new(errors).wrap(Wrap { trim: false }), err_area);
        }
        // Clamp so that "scroll to the end" leaves the last line at the bottom; only the rows
        // that show are turned into lines.
        let max = rows.len().saturating_sub(usize::from(body.height));
        let first = usize::from(self.scroll).min(max);
        let shown: Vec<Line<'static>> = rows
            .iter()
            .skip(first)
            .take(usize::from(body.height))
            .map(row_line)
            .collect();
        frame.render_widget(Paragraph::new(shown), body);
    }
}

thread_local! {
    /// The last detail's rows: a frame redraws the same detail far more often than it changes.
    /// Kept outside `State` (a view never changes the state); keyed by the fingerprint of the
    /// very lines the view built this frame and by the width, so it cannot serve stale rows:
    /// a reload, a reveal, a new minute of a relative time or another theme changes the lines.
    static WRAPPED: RefCell<WrapCache<Style>> = RefCell::new(WrapCache::new());
}

/// A fingerprint of the lines (text and styles) as built, before the sanitizer: a changed
/// record, name, cursor or revealed secret changes it.
pub(crate) fn fingerprint(lines: &[Line<'_>]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for l in lines {
        l.style.hash(&mut h);
        for s in &l.spans {
            s.style.hash(&mut h);
            s.content.hash(&mut h);
        }
        0xffu8.hash(&mut h);
    }
    h.finish()
}

/// Where a line's continuation rows start: under the value of a `Label   value` field (the
/// first span is the label, padded) or under an indented line's text.
fn hang(l: &Line<'_>) -> usize {
    match l.spans.as_slice() {
        [first, _, ..] if first.content.ends_with(' ') && first.content.chars().count() <= 24 => {
            first.content.chars().count()
        }
        _ => 0,
    }
}

/// The lines sanitized and wrapped to `width`, each long value under its label, from the cache
/// when the lines and the width are the ones of the last call.
pub(crate) fn wrapped(lines: &[Line<'static>], width: usize) -> Arc<Vec<Row<Style>>> {
    let key = fingerprint(lines);
    WRAPPED.with(|c| {
        c.borrow_mut().get(key, width, || {
            // Server text reaches the screen through the one sanitizer, on a miss only.
            wrap_rows(&crate::text::tui::safe_lines(lines.to_vec()), width)
        })
    })
}

/// Lines wrapped to `width`, each continuation under its label or indent. They are drawn as
/// they are: the caller has sanitized them.
pub(crate) fn wrap_rows(lines: &[Line<'_>], width: usize) -> Vec<Row<Style>> {
    lines
        .iter()
        .flat_map(|l| {
            let pieces: Vec<(Style, &str)> = l
                .spans
                .iter()
                .map(|s| (l.style.patch(s.style), s.content.as_ref()))
                .collect();
            wrap_line(&pieces, width, hang(l), &Style::default())
        })
        .collect()
}

/// A wrapped row as a line to draw.
pub(crate) fn row_line(r: &Row<Style>) -> Line<'static> {
    Line::from(
        r.iter()
            .map(|(style, text)| Span::styled(text.clone(), *style))
            .collect::<Vec<_>>(),
    )
}
