//! The help overlay, generated from the keymap.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Clear, Row, Table};

use super::centered;
use crate::console::keymap::Keymap;
use crate::console::theme::Theme;

/// Draws the help box centred in `area`; when the rows do not fit its height they flow into
/// side-by-side columns, so no key is ever cut off.
pub fn render(frame: &mut Frame, area: Rect, keymap: &Keymap, theme: &Theme) {
    let rows = keymap.help_rows();
    let width =
        |f: fn(&(String, &'static str)) -> usize| rows.iter().map(f).max().unwrap_or(0) as u16;
    let key_w = width(|(k, _)| k.chars().count());
    let desc_w = width(|(_, d)| d.chars().count());
    let fit = usize::from(area.height.saturating_sub(4)).max(1);
    let columns = rows.len().div_ceil(fit).max(1);
    let per_column = rows.len().div_ceil(columns).max(1);
    let column_w = key_w + desc_w + 3;
    let r = centered(
        area,
        (column_w * columns as u16 + 2).min(area.width),
        per_column as u16 + 2,
    );
    let block = Block::bordered()
        .title(Line::from(Span::styled(" Keys ", theme.accent)))
        .title_bottom(Line::from(Span::styled(" ? or Esc to close ", theme.muted)));
    let inner = block.inner(r);
    frame.render_widget(Clear, r);
    frame.render_widget(block, r);
    let slots = Layout::horizontal(vec![Constraint::Fill(1); columns])
        .spacing(2)
        .split(inner);
    for (chunk, slot) in rows.chunks(per_column).zip(slots.iter()) {
        let table = Table::new(
            chunk.iter().map(|(k, d)| {
                Row::new(vec![
                    Cell::from(Span::styled(k.clone(), theme.key)),
                    Cell::from(*d),
                ])
            }),
            [Constraint::Length(key_w), Constraint::Fill(1)],
        )
        .column_spacing(2);
        frame.render_widget(table, *slot);
    }
}
