//! Toasts: short messages in the bottom-right corner that clear themselves.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Clear, Paragraph};

use crate::console::state::{Toast, ToastKind};
use crate::console::theme::Theme;

/// Draws the toasts stacked upwards from the bottom of `area`, newest lowest.
pub(crate) fn render(frame: &mut Frame, area: Rect, toasts: &[Toast], theme: &Theme) {
    for (i, toast) in toasts.iter().rev().enumerate() {
        // Toasts often quote a server's error message.
        let text = format!(" {} ", crate::text::line(&toast.text));
        let w = (text.chars().count() as u16).min(area.width);
        let y = area.bottom().saturating_sub(1 + i as u16);
        if y < area.y {
            break;
        }
        let r = Rect::new(area.right().saturating_sub(w), y, w, 1);
        let style = match toast.kind {
            ToastKind::Info => theme.selected,
            ToastKind::Error => theme.error.add_modifier(ratatui::style::Modifier::REVERSED),
        };
        frame.render_widget(Clear, r);
        frame.render_widget(Paragraph::new(Span::styled(text, style)), r);
    }
}
