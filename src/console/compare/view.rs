//! Compare's drawing: the candidates to choose from, then the two answers side by side
//! (status, duration, headers masked, the body as JSON leaves or lines), `~` changed, `+` only
//! right, `-` only left. Every string of a comparison is sanitised by `api::compare` already.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::{CompareState, Overlay};
use crate::api::compare::{BodyDiff, Change, Comparison, Side};
use crate::console::state::Core;
use crate::console::theme::Theme;
use crate::text::line as safe;

/// The keys the overlay offers where it is.
pub(crate) fn key_hints(o: &Overlay) -> &'static [(&'static str, &'static str)] {
    if o.shown.is_some() {
        &[("j/k", "scroll"), ("Esc", "choose another"), ("=", "close")]
    } else {
        &[("j/k", "move"), ("Enter", "compare"), ("Esc", "close")]
    }
}

/// `s` cut to `w` display columns (by characters: the text is sanitised, one line).
fn cut(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        format!("{s:<w$}")
    } else {
        let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

fn change_style(c: Change, t: &Theme) -> Style {
    match c {
        Change::Same => t.muted,
        Change::Changed => t.warn,
        Change::Added => t.ok,
        Change::Removed => t.error,
    }
}

/// One row: mark, name, left value, right value, in columns.
fn row(
    mark: char,
    name: &str,
    left: Option<&str>,
    right: Option<&str>,
    style: Style,
    widths: (usize, usize),
) -> Line<'static> {
    let (nw, vw) = widths;
    Line::from(Span::styled(
        format!(
            "{mark} {} │ {} │ {}",
            cut(name, nw),
            cut(left.unwrap_or(""), vw),
            cut(right.unwrap_or(""), vw)
        ),
        style,
    ))
}

fn side_text(s: &Side) -> String {
    let status = s
        .status
        .map_or_else(|| "none".to_string(), |v| v.to_string());
    let ms = s
        .duration_ms
        .map_or_else(|| "?".to_string(), |v| v.to_string());
    let mut out = format!("status {status} · {ms} ms");
    if let Some(e) = &s.error {
        out.push_str(&format!(" · {e}"));
    }
    out
}

fn comparison_lines(c: &Comparison, width: usize, t: &Theme) -> Vec<Line<'static>> {
    let nw = (width / 4).clamp(8, 28);
    let vw = width.saturating_sub(nw + 8) / 2;
    let w = (nw, vw);
    let mut out = vec![
        row(
            ' ',
            "",
            Some(&c.left.label),
            Some(&c.right.label),
            t.section,
            w,
        ),
        row(
            if c.status_changed { '~' } else { ' ' },
            "answer",
            Some(&side_text(&c.left)),
            Some(&side_text(&c.right)),
            if c.status_changed { t.warn } else { t.text },
            w,
        ),
    ];
    if let Some(d) = c.duration_delta_ms {
        out.push(Line::from(Span::styled(
            format!("  duration {d:+} ms"),
            t.muted,
        )));
    }
    out.push(Line::from(Span::styled("HEADERS", t.section)));
    for h in &c.headers {
        out.push(row(
            h.change.mark(),
            &h.name,
            h.left.as_deref(),
            h.right.as_deref(),
            change_style(h.change, t),
            w,
        ));
    }
    match &c.body {
        BodyDiff::Json(rows) => {
            out.push(Line::from(Span::styled("BODY (JSON)", t.section)));
            for r in rows {
                out.push(row(
                    r.change.mark(),
                    &r.path,
                    r.left.as_deref(),
                    r.right.as_deref(),
                    change_style(r.change, t),
                    w,
                ));
            }
        }
        BodyDiff::Lines(rows) => {
            out.push(Line::from(Span::styled("BODY (lines)", t.section)));
            for r in rows {
                let (l, rt) = match r.change {
                    Change::Removed => (Some(r.text.as_str()), None),
                    Change::Added => (None, Some(r.text.as_str())),
                    Change::Same | Change::Changed => {
                        (Some(r.text.as_str()), Some(r.text.as_str()))
                    }
                };
                out.push(row(
                    r.change.mark(),
                    "",
                    l,
                    rt,
                    change_style(r.change, t),
                    w,
                ));
            }
        }
    }
    if !c.omitted.is_none() {
        out.push(Line::from(Span::styled(
            format!(
                "… {} more rows not shown ({} of them differ)",
                c.omitted.rows, c.omitted.changed
            ),
            t.muted,
        )));
    }
    out
}

/// The furthest the comparison shown scrolls on this screen: 0 when it fits or none is shown.
pub(crate) fn max_scroll(model: &CompareState, cx: &Core) -> u16 {
    let Some(c) = model
        .overlay_of(&cx.profile)
        .and_then(|o| o.shown.as_deref())
    else {
        return 0;
    };
    let screen = Rect::new(0, 0, cx.size.0, cx.size.1);
    let inner = Block::bordered().inner(crate::console::layout::body(screen));
    let total = comparison_lines(c, usize::from(inner.width), &cx.settings.theme).len();
    u16::try_from(total.saturating_sub(usize::from(inner.height))).unwrap_or(u16::MAX)
}

/// Draws the overlay over `area` when it is open (for the active profile).
pub(crate) fn render(model: &CompareState, cx: &Core, frame: &mut Frame, area: Rect) {
    let Some(o) = model.overlay_of(&cx.profile) else {
        return;
    };
    let t = &cx.settings.theme;
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(t.accent)
        .title(Line::from(Span::styled(
            format!(" Compare · {} ", safe(&o.notification_id)),
            t.accent,
        )));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if let Some(c) = &o.shown {
        let lines = comparison_lines(c, usize::from(inner.width), t);
        frame.render_widget(Paragraph::new(lines).scroll((o.scroll, 0)), inner);
        return;
    }
    let mut lines = vec![Line::from(Span::styled(
        format!("Compare {} with…", safe(&o.left.label)),
        t.section,
    ))];
    if let Some(m) = &o.message {
        lines.push(Line::from(Span::styled(format!("✗ {}", safe(m)), t.error)));
    }
    for (i, c) in o.candidates.iter().enumerate() {
        let status = c
            .status
            .map_or_else(|| "none".to_string(), |v| v.to_string());
        let style = if i == o.cursor { t.selected } else { t.text };
        let mark = if i == o.cursor { "› " } else { "  " };
        lines.push(Line::from(Span::styled(
            format!("{mark}{} · status {status}", safe(&c.label)),
            style,
        )));
    }
    if o.pending.is_some() {
        lines.push(Line::from(Span::styled(
            "looking up the attempts…",
            t.muted,
        )));
    } else if o.candidates.is_empty() {
        lines.push(Line::from(Span::styled(
            "nothing else to compare with: no other attempt, replay or forward of it",
            t.muted,
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
