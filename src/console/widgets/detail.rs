//! The detail pane: a titled, scrollable block of field lines with its load state.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use std::cell::RefCell;

use std::sync::Arc;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::resource::wrap::{Row, WrapCache};

use super::wrapped::{fingerprint, row_line, wrap_rows};

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
    /// The furthest `lines` scroll in a pane drawn over `area` with this load state (an error
    /// takes rows from the body): 0 when they fit.
    pub(crate) fn max_scroll(
        lines: &[Line<'static>],
        load: &LoadState,
        area: Rect,
        theme: &Theme,
    ) -> u16 {
        let inner = Block::bordered().inner(area);
        let rows = wrapped(lines, usize::from(inner.width)).len();
        let errors = match load {
            LoadState::Error(e) => error_lines(e, theme, inner).len(),
            _ => 0,
        };
        let body = usize::from(inner.height).saturating_sub(errors);
        u16::try_from(rows.saturating_sub(body)).unwrap_or(u16::MAX)
    }

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
