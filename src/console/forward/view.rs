//! The forward room's drawing: the target, the forwarder's honest state, the live list of
//! forwards (newest first) and an open answer. Receiver and server text goes through the one
//! sanitizer, the answer's headers through the one redaction policy.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{Focus, INTERVAL, Room, Row};
use crate::api::forward::State as Fwd;
use crate::api::replay::masked_headers;
use crate::console::state::Core;
use crate::console::theme::Theme;
use crate::text::line as safe;

/// The keys the room offers where it is (the footer's declaration).
pub(crate) fn key_hints(room: &Room) -> &'static [(&'static str, &'static str)] {
    match (room.open.is_some(), room.running.is_some(), room.focus) {
        (true, _, _) => &[("=", "compare"), ("Esc", "close answer")],
        (false, true, _) => &[
            ("s", "stop"),
            ("j/k", "move"),
            ("Enter", "answer"),
            ("Esc", "stop & close"),
        ],
        (false, false, Focus::Target) => &[("Enter", "start"), ("Tab", "list"), ("Esc", "close")],
        (false, false, Focus::List) => &[
            ("Enter", "answer"),
            ("j/k", "move"),
            ("Tab", "target"),
            ("Esc", "close"),
        ],
    }
}

/// The state as a sentence.
fn state_line(room: &Room, t: &Theme) -> Line<'static> {
    let (text, style) = match &room.state {
        None => ("not started: Enter starts".to_string(), t.muted),
        Some(Fwd::Connecting) => ("connecting…".to_string(), t.warn),
        Some(Fwd::Following) => (
            format!("following · polling every {} s", INTERVAL.as_secs()),
            t.ok,
        ),
        Some(Fwd::CatchingUp { left }) => (format!("catching up · {left} left"), t.warn),
        Some(Fwd::Reconnecting { why, retry_in }) => (
            format!(
                "reconnecting · {} · next try in {:.1} s",
                safe(why),
                retry_in.as_secs_f64()
            ),
            t.error,
        ),
        Some(Fwd::Stopped) => ("stopped".to_string(), t.muted),
    };
    let mut spans = vec![
        Span::styled("State     ", t.muted),
        Span::styled(text, style),
    ];
    if let Some(n) = room.caught_up {
        spans.push(Span::styled(
            format!(" · last catch-up {n} forwarded"),
            t.muted,
        ));
    }
    Line::from(spans)
}

fn row_line(row: &Row, selected: bool, t: &Theme) -> Line<'static> {
    let time = row.at.format("%H:%M:%S").to_string();
    let event = safe(row.event_type.as_deref().unwrap_or("-")).into_owned();
    let id = safe(&row.notification_id).into_owned();
    let outcome = match (&row.result, &row.skipped) {
        (Some(r), _) => {
            let status = r
                .status
                .map_or_else(|| "none".to_string(), |s| s.to_string());
            let mut s = format!("{status}  {} ms", r.duration.as_millis());
            if let Some(e) = &r.error {
                s.push_str(&format!("  {}", safe(&e.to_string())));
            }
            let style = if r.is_success() { t.ok } else { t.error };
            Span::styled(s, style)
        }
        (None, Some(why)) => Span::styled(format!("not sent: {}", safe(why)), t.warn),
        (None, None) => Span::raw(""),
    };
    let mark = if selected { "› " } else { "  " };
    let base = if selected { t.selected } else { t.text };
    Line::from(vec![
        Span::styled(format!("{mark}{time}  {event:<20}  {id}  "), base),
        outcome,
    ])
}

/// Draws the room over `area` when it is open (for the active profile).
pub(crate) fn render(model: &super::ForwardState, cx: &Core, frame: &mut Frame, area: Rect) {
    let Some(room) = model.room_of(&cx.profile) else {
        return;
    };
    let t = &cx.settings.theme;
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(t.accent)
        .title(Line::from(Span::styled(
            format!(" Forward · {} ", safe(&room.scope)),
            t.accent,
        )));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The unsigned sentences (one a destination, a few at most) below the usual five lines.
    let said = u16::try_from(room.unsigned.len().min(3)).unwrap_or(3);
    let [head, list] =
        Layout::vertical([Constraint::Length(5 + said), Constraint::Fill(1)]).areas(inner);
    let target_style = if room.focus == Focus::Target && room.running.is_none() {
        t.accent
    } else {
        t.text
    };
    let target = if room.focus == Focus::Target && room.running.is_none() {
        room.target.with_cursor()
    } else {
        room.target.value().to_string()
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("Target    ", t.muted),
            Span::styled(safe(&target).into_owned(), target_style),
        ]),
        state_line(room, t),
    ];
    if let Some(e) = &room.target_error {
        lines.push(Line::from(Span::styled(format!("✗ {}", safe(e)), t.error)));
    }
    if let Some(m) = &room.message {
        lines.push(Line::from(Span::styled(format!("✗ {}", safe(m)), t.error)));
    }
    let kept = match (&room.started_after, room.kept) {
        (_, false) => "nothing kept: no data directory (no resume, no journal)".to_string(),
        (Some(Some(c)), true) => format!("after {} · once per target (journal)", safe(c)),
        (Some(None), true) => "from the first notification · once per target (journal)".into(),
        (None, true) => "resumes where this target stopped · once per target (journal)".into(),
    };
    lines.push(Line::from(Span::styled(kept, t.muted)));
    for u in &room.unsigned {
        lines.push(Line::from(Span::styled(safe(u).into_owned(), t.warn)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), head);

    if let Some(open) = room.open.and_then(|i| room.newest(i)) {
        render_answer(open, t, frame, list);
        return;
    }
    let mut rows: Vec<Line> = vec![Line::from(Span::styled(
        format!("{} forwarded · newest first", room.rows.len()),
        t.section,
    ))];
    if room.rows.is_empty() {
        rows.push(Line::from(Span::styled("nothing forwarded yet", t.muted)));
    }
    let height = usize::from(list.height.saturating_sub(1)).max(1);
    let first = room.cursor.saturating_sub(height - 1);
    for i in first..room.rows.len().min(first + height) {
        if let Some(r) = room.newest(i) {
            let selected = room.focus == Focus::List && i == room.cursor;
            rows.push(row_line(r, selected, t));
        }
    }
    frame.render_widget(Paragraph::new(rows), list);
}

/// An answer: status, duration, headers (masked), body (sanitised).
fn render_answer(row: &Row, t: &Theme, frame: &mut Frame, area: Rect) {
    let Some(r) = &row.result else {
        return;
    };
    let status = r
        .status
        .map_or_else(|| "none".to_string(), |s| s.to_string());
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "Answer to {} · status {status} · {} ms",
            safe(&row.notification_id),
            r.duration.as_millis()
        ),
        t.section,
    ))];
    if let Some(e) = &r.error {
        lines.push(Line::from(Span::styled(
            format!("✗ {}", safe(&e.to_string())),
            t.error,
        )));
    }
    for (k, v) in masked_headers(&r.headers) {
        lines.push(Line::from(vec![
            Span::styled(format!("{}: ", safe(&k)), t.muted),
            Span::styled(safe(&v).into_owned(), t.text),
        ]));
    }
    lines.push(Line::default());
    for l in r.body.as_deref().unwrap_or_default().lines() {
        lines.push(Line::from(Span::styled(safe(l).into_owned(), t.text)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}
