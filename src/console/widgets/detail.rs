//! The detail pane: a titled, scrollable block of field lines with its load state.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::paged_table::error_lines;
use super::spinner;
use crate::console::state::LoadState;
use crate::console::theme::Theme;

/// A detail pane ready to draw.
#[derive(Debug)]
pub(crate) struct DetailView<'a> {
    /// Block title.
    pub title: String,
    /// Body lines.
    pub lines: Vec<Line<'static>>,
    /// Lines scrolled.
    pub scroll: u16,
    /// Load state of the refresh.
    pub load: &'a LoadState,
    /// Whether the pane has the focus (it is open, not a preview).
    pub focused: bool,
    /// Animation frame for the spinner.
    pub frame: u64,
    /// Styles.
    pub theme: &'a Theme,
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
        // Lines are counted before wrapping, so this is a guide rather than an exact position.
        let total = self.lines.len() as u16;
        let visible = block.inner(area).height;
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
        let inner = block.inner(area);
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
        // Clamp so that "scroll to the end" leaves the last line at the bottom.
        let max = (self.lines.len() as u16).saturating_sub(body.height);
        let scroll = self.scroll.min(max);
        frame.render_widget(
            Paragraph::new(self.lines)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0)),
            body,
        );
    }
}
