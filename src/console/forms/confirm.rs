//! Draws what a dialog that is only a question shows around its confirmation (which the one
//! confirmation layer draws, `console::confirm`): "Working…" while the write is on its way,
//! the server's answer when it failed; and the one-line "discard what you typed? y / n".
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::console::forms::{Dialog, Phase};
use crate::console::theme::Theme;
use crate::console::widgets::centered;

/// Width of a confirmation box.
const WIDTH: u16 = 64;

/// Draws a question-only dialog's box after its question was answered: its write in flight or
/// the server's answer.
pub(crate) fn render(frame: &mut Frame, area: Rect, d: &Dialog, theme: &Theme) {
    let block = Block::bordered()
        .border_style(theme.warn)
        .title(Line::from(Span::styled(
            format!(" {} ", crate::text::line(&d.title)),
            theme.warn,
        )));
    crate::console::confirm::draw_box(frame, area, WIDTH, lines(d, theme), block);
}

fn lines(d: &Dialog, theme: &Theme) -> Vec<Line<'static>> {
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
    lines.push(match d.phase {
        Phase::Submitting(_) => Line::from(Span::styled("Working…", theme.warn)),
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
