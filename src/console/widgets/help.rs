//! The help overlay, generated from the keymap.
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Clear, Row, Table};

use super::centered;
use crate::console::keymap::Keymap;
use crate::console::theme::Theme;

/// Draws the help box centred in `area`.
pub fn render(frame: &mut Frame, area: Rect, keymap: &Keymap, theme: &Theme) {
    let rows = keymap.help_rows();
    let key_w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0) as u16;
    let desc_w = rows
        .iter()
        .map(|(_, d)| d.chars().count())
        .max()
        .unwrap_or(0) as u16;
    let r = centered(area, key_w + desc_w + 5, rows.len() as u16 + 2);
    let table = Table::new(
        rows.into_iter()
            .map(|(k, d)| Row::new(vec![Cell::from(Span::styled(k, theme.key)), Cell::from(d)])),
        [Constraint::Length(key_w), Constraint::Fill(1)],
    )
    .column_spacing(2)
    .block(
        Block::bordered()
            .title(Line::from(Span::styled(" Keys ", theme.accent)))
            .title_bottom(Line::from(Span::styled(" ? or Esc to close ", theme.muted))),
    );
    frame.render_widget(Clear, r);
    frame.render_widget(table, r);
}
