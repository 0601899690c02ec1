//! The palette's drawing: a box over the screen, the query, then the actions shown.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::Palette;
use crate::console::theme::Theme;

/// Draws the open palette over the screen.
pub(crate) fn render(frame: &mut Frame, area: Rect, p: &Palette, theme: &Theme) {
    let shown = p.shown();
    let h = u16::try_from(shown.len().clamp(1, 16) + 3).unwrap_or(19);
    let r = crate::console::widgets::centered(area, area.width.saturating_sub(4).min(72), h);
    let block = Block::bordered().title(Line::from(Span::styled(
        format!(" Actions here · {} of {} ", shown.len(), p.entries.len()),
        theme.accent,
    )));
    let inner = block.inner(r);
    let key_w = shown
        .iter()
        .map(|e| e.key.chars().count())
        .max()
        .unwrap_or(0);
    let rows = usize::from(inner.height.saturating_sub(1));
    // The chosen row stays in view.
    let first = p.cursor.saturating_sub(rows.saturating_sub(1));
    let mut lines = vec![Line::from(vec![
        Span::styled("> ", theme.accent),
        Span::styled(crate::text::line(p.query.value()).into_owned(), theme.text),
    ])];
    if shown.is_empty() {
        lines.push(Line::from(Span::styled("no action matches", theme.muted)));
    }
    for (i, e) in shown.iter().enumerate().skip(first).take(rows) {
        let style = if i == p.cursor {
            theme.selected
        } else {
            theme.text
        };
        let mut spans = vec![
            Span::styled(format!("{:<key_w$}  ", e.key), theme.key),
            Span::styled(e.what.clone(), style),
        ];
        if e.writes {
            spans.push(Span::styled("  · writes", theme.warn));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(block), r);
}
