//! The list of active alerts (`!`): each failing rule, what it watches (named where the
//! console knows the name), since when and how many deliveries, all sanitised.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::AlertsState;
use crate::console::state::Core;

/// Draws the list over the screen.
pub(crate) fn render(a: &AlertsState, cx: &Core, frame: &mut Frame, area: Rect) {
    let t = &cx.settings.theme;
    let mut lines: Vec<Line> = Vec::new();
    match &a.active {
        None if a.pending.is_some() => lines.push(Line::from(Span::styled("checking…", t.muted))),
        None => {}
        Some(active) if active.is_empty() => {
            lines.push(Line::from(Span::styled("No rule is failing.", t.ok)));
        }
        Some(active) => {
            for f in active {
                let id = f.subject.id();
                let who = cx.caches.names.label_with_id(id);
                let since = f
                    .since
                    .map(|s| cx.clock.local_and_relative(&s))
                    .unwrap_or_else(|| "-".into());
                let text = format!(
                    "{} ({}) · {} deliveries · {} · since {}",
                    f.rule,
                    f.kind,
                    f.notifications.len(),
                    who,
                    since
                );
                lines.push(Line::from(Span::styled(
                    crate::text::line(&text).into_owned(),
                    t.error,
                )));
            }
        }
    }
    if let Some(e) = &a.error {
        lines.push(Line::from(Span::styled(
            format!("check failed: {e}"),
            t.warn,
        )));
    }
    if a.pending.is_some() && a.active.is_some() {
        lines.push(Line::from(Span::styled("checking again…", t.muted)));
    }
    let h = u16::try_from(lines.len().clamp(1, 20) + 2).unwrap_or(22);
    let r = crate::console::widgets::centered(area, area.width.saturating_sub(4).min(140), h);
    let block = Block::bordered()
        .title(Line::from(Span::styled(" Active alerts ", t.accent)))
        .title_bottom(Line::from(Span::styled(" Esc or ! to close ", t.muted)));
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(block), r);
}
