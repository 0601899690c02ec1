//! Draws confirmations: "are you sure?" with No / Yes (No first and highlighted until changed),
//! and the one-line "discard what you typed? y / n" question.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::console::forms::{Dialog, Phase};
use crate::console::theme::Theme;
use crate::console::widgets::centered;

/// Width of a confirmation box.
const WIDTH: u16 = 64;

/// Draws a confirmation box for `question`; the buttons follow `phase`, or, under
/// `confirm = "type-name"`, a line where the item's name is typed.
pub(crate) fn render(frame: &mut Frame, area: Rect, d: &Dialog, theme: &Theme) {
    let lines = lines(d, theme);
    let r = box_rect(area, &lines);
    let block = Block::bordered()
        .border_style(theme.warn)
        .title(Line::from(Span::styled(
            format!(" {} ", crate::text::line(&d.title)),
            theme.warn,
        )));
    frame.render_widget(Clear, r);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        r,
    );
}

/// Where the No and Yes buttons of a yes/no confirmation are drawn, for mouse clicks.
pub(crate) fn buttons(area: Rect, d: &Dialog, theme: &Theme) -> Option<(Rect, Rect)> {
    if !matches!(d.phase, Phase::Confirm { .. }) || d.type_name.is_some() {
        return None;
    }
    let r = box_rect(area, &lines(d, theme));
    // The buttons are the last line inside the border: ` No `, two spaces, ` Yes `.
    let y = (r.y + r.height).checked_sub(2)?;
    let no = Rect::new(r.x + 1, y, 4, 1);
    let yes = Rect::new(r.x + 1 + 4 + 2, y, 5, 1);
    Some((no, yes))
}

fn box_rect(area: Rect, lines: &[Line]) -> Rect {
    let text_w = usize::from(WIDTH.saturating_sub(2)).max(1);
    let wrapped: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(text_w).max(1))
        .sum();
    let h = u16::try_from(wrapped + 2).unwrap_or(u16::MAX);
    centered(area, WIDTH, h)
}

fn lines(d: &Dialog, theme: &Theme) -> Vec<Line<'static>> {
    let phase = d.phase;
    let yes = matches!(phase, Phase::Confirm { yes: true });
    let button = |label: &str, on: bool| {
        let style = if on { theme.selected } else { theme.muted };
        Span::styled(format!(" {label} "), style)
    };
    let mut lines = vec![
        Line::from(crate::text::line(&d.confirm).into_owned()),
        Line::default(),
    ];
    if let Some(m) = &d.message {
        lines.push(Line::from(Span::styled(
            crate::text::line(m).into_owned(),
            theme.error,
        )));
        lines.push(Line::default());
    }
    lines.push(match (phase, &d.type_name) {
        (Phase::Submitting(_), _) => Line::from(Span::styled("Working…", theme.warn)),
        (Phase::Confirm { .. }, Some(t)) => Line::from(vec![
            Span::raw(format!(
                "Type “{}” to confirm: ",
                crate::text::line(&t.expected)
            )),
            Span::styled(format!("{}▏", t.typed), theme.key),
            Span::styled("   Enter confirm · Esc cancel", theme.muted),
        ]),
        (Phase::Confirm { .. }, None) => Line::from(vec![
            button("No", !yes),
            Span::raw("  "),
            button("Yes", yes),
            Span::styled("   y yes · n/Esc no · ←/→ pick · Enter answer", theme.muted),
        ]),
        _ => Line::from(Span::styled("Esc close", theme.muted)),
    });
    lines
}

/// Draws a one-line yes/no question over the dialog.
pub(crate) fn ask(frame: &mut Frame, area: Rect, question: &str, theme: &Theme) {
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
