//! Draws confirmations: "are you sure?" with No / Yes (No first and highlighted until changed),
//! and the one-line "discard what you typed? y / n" question.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::centered;
use crate::console::forms::{Dialog, Phase};
use crate::console::theme::Theme;

/// Width of a confirmation box.
const WIDTH: u16 = 64;

/// Draws a confirmation box for `question`; the buttons follow `phase`, or, under
/// `confirm = "type-name"`, a line where the item's name is typed.
pub fn render(frame: &mut Frame, area: Rect, d: &Dialog, theme: &Theme) {
    let (title, question, phase) = (d.title.as_str(), d.confirm.as_str(), d.phase);
    let (message, type_name) = (d.message.as_deref(), d.type_name.as_ref());
    let yes = matches!(phase, Phase::Confirm { yes: true });
    let button = |label: &str, on: bool| {
        let style = if on { theme.selected } else { theme.muted };
        Span::styled(format!(" {label} "), style)
    };
    let mut lines = vec![Line::from(question.to_string()), Line::default()];
    if let Some(m) = message {
        lines.push(Line::from(Span::styled(m.to_string(), theme.error)));
        lines.push(Line::default());
    }
    lines.push(match phase {
        Phase::Submitting(_) => Line::from(Span::styled("Working…", theme.warn)),
        Phase::Confirm { .. } if type_name.is_some() => {
            let t = type_name.map(|t| (t.expected.as_str(), t.typed.as_str()));
            let (expected, typed) = t.unwrap_or_default();
            Line::from(vec![
                Span::raw(format!("Type “{expected}” to confirm: ")),
                Span::styled(format!("{typed}▏"), theme.key),
                Span::styled("   Enter confirm · Esc cancel", theme.muted),
            ])
        }
        Phase::Confirm { .. } => Line::from(vec![
            button("No", !yes),
            Span::raw("  "),
            button("Yes", yes),
            Span::styled("   y yes · n/Esc no · ←/→ choose · Enter", theme.muted),
        ]),
        _ => Line::from(Span::styled("Esc close", theme.muted)),
    });
    let text_w = usize::from(WIDTH.saturating_sub(2)).max(1);
    let wrapped: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(text_w).max(1))
        .sum();
    let h = u16::try_from(wrapped + 2).unwrap_or(u16::MAX);
    let r = centered(area, WIDTH, h);
    let block = Block::bordered()
        .border_style(theme.warn)
        .title(Line::from(Span::styled(format!(" {title} "), theme.warn)));
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        r,
    );
}

/// Draws a one-line yes/no question over the dialog.
pub fn ask(frame: &mut Frame, area: Rect, question: &str, theme: &Theme) {
    let text = Line::from(vec![
        Span::raw(format!("{question}  ")),
        Span::styled("y", theme.key),
        Span::styled(" discard · ", theme.muted),
        Span::styled("n", theme.key),
        Span::styled(" keep editing", theme.muted),
    ]);
    let w = u16::try_from(text.width() + 4).unwrap_or(WIDTH);
    let r = centered(area, w, 3);
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(text).block(Block::bordered().border_style(theme.warn)),
        r,
    );
}
