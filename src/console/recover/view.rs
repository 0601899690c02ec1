//! The recover room's drawing: the form, the count first (the api's plan in words) also under
//! its confirmation (the confirmation layer's), progress, and the results with one delivery's answer opened. Receiver and
//! server text goes through the one sanitizer, URLs and headers through the redaction policy.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{Field, Marks, RecoverState, Room, Stage};
use crate::api::journal::Outcome;
use crate::api::recover::{self, Delivery};
use crate::api::replay::HistoryEntry;
use crate::console::record::Record;
use crate::console::state::Core;
use crate::console::theme::Theme;
use crate::console::widgets::json::JsonView;
use crate::text::line as safe;
use crate::text::redact::mask_url;

/// The list's title suffix: how many rows are marked (on any page). Marks are the
/// Notifications list's: other tabs' titles do not carry them.
pub(crate) fn title_suffix(marks: &Marks, cx: &Core) -> String {
    let n = marks.ids.len();
    if n == 0 || !super::marks_tab(cx.tab) {
        String::new()
    } else {
        format!(" · {n} marked")
    }
}

/// The mark column of the list, when it has marks: one flag per row given.
pub(crate) fn marks<'a>(
    marks: &Marks,
    cx: &Core,
    rows: impl Iterator<Item = &'a Record>,
) -> Option<Vec<bool>> {
    let ids = &marks.ids;
    let here = super::marks_tab(cx.tab);
    (here && !ids.is_empty()).then(|| rows.map(|r| ids.contains(r.id())).collect())
}

/// The room's parts over `area`: its border, the lines above (form, count, progress) and what
/// the results (or an answer) take of the rest.
fn parts(room: &Room, area: Rect, t: &Theme) -> (Block<'static>, Vec<Line<'static>>, [Rect; 2]) {
    let block = Block::bordered()
        .border_style(t.accent)
        .title(Line::from(Span::styled(
            format!(
                " Recover · {} · {} ",
                safe(&room.scope),
                if room.platform.is_some() {
                    "the platform's retry: signed and recorded by the platform"
                } else {
                    "sent from this machine, never recorded"
                }
            ),
            t.accent,
        )));
    let inner = block.inner(area);
    let lines = top_lines(room, t);
    // The results (or an answer) take what the lines above leave; the room's keys are the
    // footer's.
    let results =
        room.open.is_some() || matches!(room.stage, Stage::Running { .. } | Stage::Done(_));
    let (top_c, main_c) = if results {
        (
            Constraint::Length(u16::try_from(lines.len()).unwrap_or(4)),
            Constraint::Fill(1),
        )
    } else {
        (Constraint::Fill(1), Constraint::Length(0))
    };
    let parts = Layout::vertical([top_c, main_c]).areas(inner);
    (block, lines, parts)
}

/// The open delivery's answer: title and lines.
fn answer(cx: &Core, room: &Room) -> Option<(String, Vec<Line<'static>>)> {
    let i = room.open?;
    let d = room.deliveries.get(i)?;
    let entry = HistoryEntry {
        notification_id: d.notification.clone(),
        attempt_index: room.attempts.get(&d.notification).copied().unwrap_or(0),
        target: d.target.clone(),
        result: d.result.clone(),
        edited_body: None,
    };
    Some((
        format!(
            "RECOVERED FROM THIS MACHINE · {} · not a recorded attempt",
            safe(&d.notification)
        ),
        crate::text::tui::safe_lines(crate::console::replay::view::answer_lines(
            cx,
            &entry,
            &cx.settings.theme,
        )),
    ))
}

/// The furthest the open answer scrolls on this screen: 0 when it fits or none is open.
pub(crate) fn max_scroll(model: &RecoverState, cx: &Core) -> u16 {
    let Some(room) = model.room_of(&cx.profile) else {
        return 0;
    };
    let screen = Rect::new(0, 0, cx.size.0, cx.size.1);
    let (_, _, [_, main]) = parts(
        room,
        crate::console::layout::body(screen),
        &cx.settings.theme,
    );
    answer(cx, room).map_or(0, |(_, lines)| JsonView::max_scroll(&lines, main))
}

/// Draws the room over `area` when it is open (for the active profile).
pub(crate) fn render(model: &RecoverState, cx: &Core, frame: &mut Frame, area: Rect) {
    let Some(room) = model.room_of(&cx.profile) else {
        return;
    };
    let t = &cx.settings.theme;
    frame.render_widget(Clear, area);
    let (block, lines, [top, main]) = parts(room, area, t);
    frame.render_widget(block, area);
    frame.render_widget(
        Paragraph::new(crate::text::tui::safe_lines(lines)).wrap(Wrap { trim: false }),
        top,
    );
    if let Some((title, lines)) = answer(cx, room) {
        JsonView {
            title,
            lines,
            scroll: room.scroll,
            theme: t,
        }
        .render(frame, main);
    } else if let Some(p) = room.platform.as_deref() {
        let lines = super::platform::result_lines(p, usize::from(main.height), t);
        frame.render_widget(Paragraph::new(crate::text::tui::safe_lines(lines)), main);
    } else if matches!(room.stage, Stage::Running { .. } | Stage::Done(_)) {
        let lines = result_lines(room, usize::from(main.height), t);
        frame.render_widget(Paragraph::new(crate::text::tui::safe_lines(lines)), main);
    }
}

fn label(text: &str, t: &Theme) -> Span<'static> {
    Span::styled(format!("{text:<10}"), t.muted)
}

/// The form, the count, the confirmation or the progress: what sits above the results.
fn top_lines(room: &Room, t: &Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let editing = room.stage == Stage::Editing;
    for (f, name, empty) in [
        (Field::Since, "Since", "no start (the whole history)"),
        (Field::Statuses, "Statuses", "any status"),
        (Field::Target, "Target", "each destination's own URL"),
    ] {
        let text = room.field(f);
        let focused = editing && room.focus == f;
        let value = if focused {
            Span::styled(text.with_cursor(), t.key)
        } else if text.value().is_empty() {
            Span::styled(empty.to_string(), t.muted)
        } else {
            Span::raw(text.value().to_string())
        };
        out.push(Line::from(vec![label(name, t), value]));
    }
    if let Some(m) = &room.message {
        out.push(Line::from(Span::styled(m.clone(), t.error)));
    }
    out.push(Line::default());
    if let Some(p) = room.platform.as_deref() {
        out.extend(super::platform::stage_lines(room, p, t));
        return out;
    }
    match &room.stage {
        // The platform's stages (drawn above).
        Stage::RetryPlanned(_) | Stage::RetryConfirm(_) => {}
        Stage::Editing => {
            out.push(Line::from(Span::styled(
                "Enter counts what this selects, newest first, and shows the count, the time span \
                 and the first few before anything is sent. Each is then sent again from this \
                 machine, signed as the platform signs; the platform's records do not change.",
                t.muted,
            )));
        }
        Stage::Planning => out.push(Line::from(Span::styled("counting…", t.warn))),
        Stage::Planned(plan) => {
            out.extend(
                recover::overview(plan, false, None)
                    .into_iter()
                    .map(Line::raw),
            );
            if plan.items.is_empty() {
                out.push(Line::from(Span::styled("Nothing to send.", t.warn)));
            }
        }
        // The question itself is the confirmation layer's, drawn over the count.
        Stage::Confirm(plan) => out.extend(
            recover::overview(plan, false, None)
                .into_iter()
                .map(Line::raw),
        ),
        Stage::Running {
            total, stopping, ..
        } => {
            out.push(progress(room, *total, t));
            if *stopping {
                out.push(Line::from(Span::styled(
                    "stopping: the requests in flight finish and are journaled; nothing new starts",
                    t.warn,
                )));
            }
        }
        Stage::Done(s) => {
            out.push(Line::from(Span::styled(
                format!(
                    "{} sent: {} succeeded, {} failed, {} unreachable",
                    s.sent(),
                    s.succeeded,
                    s.failed,
                    s.unreachable
                ),
                if s.sent() == s.succeeded {
                    t.ok
                } else {
                    t.warn
                },
            )));
            if s.claimed_elsewhere > 0 {
                out.push(Line::raw(format!(
                    "{} not sent: another run had claimed them",
                    s.claimed_elsewhere
                )));
            }
            if s.stopped {
                out.push(Line::from(Span::styled(
                    format!(
                        "stopped: {} not sent; recovering the same selection again sends the rest",
                        s.left
                    ),
                    t.warn,
                )));
            }
            if let Some(j) = &room.journal {
                out.push(Line::from(Span::styled(
                    format!("journal: in {}", j.join("journal").display()),
                    t.muted,
                )));
            }
        }
    }
    out
}

fn progress(room: &Room, total: usize, t: &Theme) -> Line<'static> {
    const WIDTH: usize = 30;
    let done = room.deliveries.len();
    let count = |o: Outcome| room.deliveries.iter().filter(|d| d.outcome == o).count();
    let filled = WIDTH * done.min(total) / total.max(1);
    Line::from(vec![
        Span::styled(
            format!("[{}{}]", "#".repeat(filled), "-".repeat(WIDTH - filled)),
            t.accent,
        ),
        Span::raw(format!(
            " {done}/{total} sent · {} succeeded · {} failed · {} unreachable",
            count(Outcome::Succeeded),
            count(Outcome::Failed),
            count(Outcome::Unreachable)
        )),
    ])
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::Succeeded => "succeeded",
        Outcome::Failed => "failed",
        Outcome::Unreachable => "unreachable",
        Outcome::Sending => "sending",
    }
}

/// One delivery: outcome, notification, answer, duration, target (masked).
fn result_line(d: &Delivery, selected: bool, t: &Theme) -> Line<'static> {
    let r = &d.result;
    let answer = match (r.status, &r.error) {
        (Some(s), None) => format!("HTTP {s}"),
        (Some(s), Some(e)) => format!("HTTP {s}, then {e}"),
        (None, Some(e)) => e.to_string(),
        (None, None) => "no answer".into(),
    };
    let style = match d.outcome {
        Outcome::Succeeded => t.ok,
        _ => t.error,
    };
    let mut line = Line::from(vec![
        Span::raw(if selected { "▶ " } else { "  " }),
        Span::styled(
            format!("{:<11}", outcome_text(d.outcome).to_uppercase()),
            style,
        ),
        Span::raw(format!(
            " {}  {}  {:>5} ms  → {}",
            d.notification,
            answer,
            r.duration.as_millis(),
            mask_url(d.target.as_str())
        )),
    ]);
    if selected {
        line = line.style(t.selected);
    }
    line
}

/// The deliveries so far, one screenful around the cursor.
fn result_lines(room: &Room, height: usize, t: &Theme) -> Vec<Line<'static>> {
    let n = room.deliveries.len();
    if n == 0 {
        return vec![Line::from(Span::styled(
            "no delivery has completed yet",
            t.muted,
        ))];
    }
    let height = height.max(1);
    let start = room.cursor.saturating_sub(height.saturating_sub(1)).min(n);
    room.deliveries[start..(start + height).min(n)]
        .iter()
        .enumerate()
        .map(|(k, d)| result_line(d, start + k == room.cursor, t))
        .collect()
}

/// The room's keys where it is: (keys, word); also the footer's while it is open.
pub(crate) fn key_hints(room: &Room) -> &'static [(&'static str, &'static str)] {
    if room.open.is_some() {
        return &[("↑/↓", "scroll"), ("Esc", "back to the results")];
    }
    match &room.stage {
        Stage::Editing => &[
            ("Enter", "count"),
            ("Tab", "next field"),
            ("Ctrl-U", "clear"),
            ("Esc", "close"),
        ],
        Stage::Planning => &[("Esc", "cancel")],
        Stage::Planned(p) if p.items.is_empty() => &[("Esc", "back")],
        Stage::Planned(_) => &[("Enter", "send"), ("Esc", "back")],
        Stage::Confirm(_) | Stage::RetryConfirm(_) => &[("Esc", "back")],
        Stage::RetryPlanned(p) if p.items.is_empty() && !p.already.is_empty() => {
            &[("a", "ask again"), ("Esc", "back")]
        }
        Stage::RetryPlanned(p) if p.items.is_empty() => &[("Esc", "back")],
        Stage::RetryPlanned(p) if !p.already.is_empty() => &[
            ("Enter", "ask the platform"),
            ("a", "ask again"),
            ("Esc", "back"),
        ],
        Stage::RetryPlanned(_) => &[("Enter", "ask the platform"), ("Esc", "back")],
        Stage::Running { .. } => &[("↑/↓", "choose"), ("Enter", "answer"), ("Esc", "stop")],
        Stage::Done(_) => &[("↑/↓", "choose"), ("Enter", "answer"), ("Esc", "close")],
    }
}
