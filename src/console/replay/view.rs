//! The replay room's drawing: the target form, the preview of what will be sent, the typed host
//! confirmation, the answer (marked *replayed locally*) and this profile's replay history. The
//! receiver's and the recording's text goes through the one sanitizer, headers through the one
//! redaction policy.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{Focus, ReplayState, Room, Stage};
use crate::api::replay::{
    HistoryEntry, MAX_RESPONSE_BODY, ReplayPlan, ReplayResult, any_masked, masked_headers,
};
use crate::console::state::Core;
use crate::console::theme::Theme;
use crate::console::widgets::json::{JsonView, text_lines};
use crate::text::line as safe;

/// Width of the form's labels.
const LABEL: usize = 10;
/// History rows shown at most.
const HISTORY_ROWS: usize = 6;

/// The room's parts over `area`: its border, the form, the preview or answer, the history.
fn parts(model: &ReplayState, cx: &Core, room: &Room, area: Rect) -> (Block<'static>, [Rect; 3]) {
    let t = &cx.settings.theme;
    let attempt = room.attempt.map_or_else(
        || "latest recorded attempt".into(),
        |i| format!("attempt #{}", i.saturating_add(1)),
    );
    let block = Block::bordered()
        .border_style(t.accent)
        .title(Line::from(Span::styled(
            title(&room.notification_id, &attempt, area.width),
            t.accent,
        )));
    let inner = block.inner(area);
    let entries = model
        .history(&cx.profile)
        .map_or(0, |h| h.newest_first().count());
    let history_h = if entries == 0 {
        0
    } else {
        u16::try_from(entries.min(HISTORY_ROWS) + 1).unwrap_or(0)
    };
    // The room's keys are the footer's.
    let parts = Layout::vertical([
        Constraint::Length(form_height(room, inner.width)),
        Constraint::Fill(1),
        Constraint::Length(history_h),
    ])
    .areas(inner);
    (block, parts)
}

/// What the room's main part shows past the form: the preview or the answer (title, lines).
fn shown(cx: &Core, room: &Room) -> Option<(String, Vec<Line<'static>>)> {
    let t = &cx.settings.theme;
    match &room.stage {
        Stage::Editing | Stage::Preparing => None,
        Stage::Preview { plan, headers } | Stage::Confirm { plan, headers, .. } => Some((
            "Preview · nothing sent yet".into(),
            preview_lines(plan, headers, t, room.edit),
        )),
        Stage::Editor(plan) => Some((
            "Editing the body in $VISUAL / $EDITOR · nothing sent yet".into(),
            preview_lines(plan, &masked_headers(&plan.headers), t, false),
        )),
        Stage::Sending(plan) => Some((
            "Sending…".into(),
            preview_lines(plan, &masked_headers(&plan.headers), t, room.edit),
        )),
        Stage::Answer(e) => Some((
            format!(
                "REPLAYED LOCALLY · {} attempt #{} · not a recorded attempt",
                safe(&e.notification_id),
                e.attempt_index.saturating_add(1)
            ),
            {
                let mut lines = answer_lines(cx, e, t);
                if let Some(note) = &room.note {
                    lines.insert(0, Line::from(Span::styled(note.clone(), t.warn)));
                }
                lines
            },
        )),
    }
    .map(|(title, lines)| (title, crate::text::tui::safe_lines(lines)))
}

/// The furthest the preview or answer scrolls on this screen: 0 when it fits.
pub(crate) fn max_scroll(model: &ReplayState, cx: &Core) -> u16 {
    let Some(room) = model.room_of(&cx.profile) else {
        return 0;
    };
    let screen = Rect::new(0, 0, cx.size.0, cx.size.1);
    let (_, [_, main, _]) = parts(model, cx, room, crate::console::layout::body(screen));
    shown(cx, room).map_or(0, |(_, lines)| JsonView::max_scroll(&lines, main))
}

/// Draws the room over `area` when it is open (for the active profile).
pub(crate) fn render(model: &ReplayState, cx: &Core, frame: &mut Frame, area: Rect) {
    let Some(room) = model.room_of(&cx.profile) else {
        return;
    };
    let t = &cx.settings.theme;
    frame.render_widget(Clear, area);
    let (block, [form, main, history]) = parts(model, cx, room, area);
    frame.render_widget(block, area);
    let entries: Vec<&HistoryEntry> = model
        .history(&cx.profile)
        .map(|h| h.newest_first().collect())
        .unwrap_or_default();
    render_form(cx, room, frame, form);
    match shown(cx, room) {
        None => {
            let text = [
                "Enter fetches the notification and the signing secret of the destination that \
                 delivered it, then shows what will be sent: the recorded body byte for byte, the \
                 platform's headers and a fresh Metorial-Signature. Nothing is sent before the \
                 preview's Enter.",
                "The answer is shown here, marked replayed locally; the platform records nothing.",
            ];
            let lines: Vec<Line> = text
                .iter()
                .flat_map(|l| [Line::default(), Line::from(Span::styled(*l, t.muted))])
                .collect();
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), main);
        }
        Some((title, lines)) => JsonView {
            title,
            lines,
            scroll: room.scroll,
            theme: t,
        }
        .render(frame, main),
    }
    render_history(cx, room, &entries, frame, history);
}

/// The room's title, shortened to fit the border: the notification, then the attempt, then
/// "local, never recorded" are kept as long as there is room.
fn title(notification: &str, attempt: &str, width: u16) -> String {
    let room = usize::from(width).saturating_sub(4);
    let id = safe(notification);
    [
        format!(" Replay {id} · {attempt} · local, never recorded "),
        format!(" Replay {id} · {attempt} · local "),
        format!(" Replay {id} · {attempt} "),
        format!(" Replay {id} "),
        " Replay ".to_string(),
    ]
    .into_iter()
    .find(|t| t.chars().count() <= room)
    .unwrap_or_default()
}

/// A duration as milliseconds, with decimals below 10 ms (a loopback answer takes less than
/// one: `0.42 ms`, never `0 ms`).
pub(crate) fn millis(d: std::time::Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn form_height(room: &Room, width: u16) -> u16 {
    // Messages wrap: as many lines as they need at this width.
    let wrapped = |text: &str, indent: usize| {
        let w = usize::from(width).saturating_sub(indent).max(1);
        u16::try_from((text.chars().count() + 2).div_ceil(w).max(1)).unwrap_or(1)
    };
    let mut h = 2 + u16::from(room.signing.is_some());
    if let Some(e) = &room.target_error {
        h += wrapped(e, LABEL);
    }
    if matches!(room.stage, Stage::Preparing) {
        h += 1;
    }
    if let Some(m) = &room.message {
        h += 1 + wrapped(m, 0);
    }
    h
}

fn render_form(cx: &Core, room: &Room, frame: &mut Frame, area: Rect) {
    let t = &cx.settings.theme;
    let editing = matches!(room.stage, Stage::Editing);
    let label = |text: &str, focused: bool| {
        Span::styled(
            format!("{text:>w$}  ", w = LABEL - 2),
            if focused && editing {
                t.accent
            } else {
                t.muted
            },
        )
    };
    let width = usize::from(area.width).saturating_sub(LABEL + 1).max(1);
    let value = room.target.value();
    let scroll = room.target.0.visual_scroll(width);
    let shown: String = value.chars().skip(scroll).take(width).collect();
    let mut lines = vec![Line::from(vec![
        label("Target", room.focus == Focus::Target),
        Span::raw(safe(&shown).into_owned()),
    ])];
    if let Some(e) = &room.target_error {
        lines.push(Line::from(vec![
            Span::raw(" ".repeat(LABEL)),
            Span::styled(format!("✗ {}", safe(e)), t.error),
        ]));
    }
    if let Some(sg) = &room.signing {
        // Never drawn in full: one mark per character typed, nothing of the secret itself.
        let n = sg.secret.value().chars().count();
        lines.push(Line::from(vec![
            label("Secret", room.focus == Focus::Secret),
            Span::raw("•".repeat(n.min(width))),
            Span::styled(
                if n == 0 {
                    "the destination's signing secret (shown by the platform on create and rotate only; kept in memory)"
                } else {
                    ""
                },
                t.muted,
            ),
        ]));
    }
    let check = if room.unsigned { "[x]" } else { "[ ]" };
    lines.push(Line::from(vec![
        label("Unsigned", room.focus == Focus::Unsigned),
        Span::styled(check, t.key),
        Span::styled(
            if room.unsigned {
                " no Metorial-Signature is sent"
            } else {
                " signed with the destination's secret, fresh timestamp"
            },
            t.muted,
        ),
    ]));
    if matches!(room.stage, Stage::Preparing) {
        lines.push(Line::from(Span::styled(
            format!(
                "{}{} preparing: fetching the notification and its destination…",
                " ".repeat(LABEL),
                crate::console::widgets::spinner(cx.frame)
            ),
            t.warn,
        )));
    }
    if let Some(m) = &room.message {
        lines.push(Line::default());
        lines.push(Line::from(Span::styled(format!("✗ {}", safe(m)), t.error)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    if editing
        && room.focus == Focus::Secret
        && let Some(sg) = &room.signing
        && area.height > 1
    {
        let col = sg.secret.0.visual_cursor().min(width);
        let x = area.x + u16::try_from(LABEL + col).unwrap_or(0);
        // The secret's line follows the target's (and its problem, when shown).
        let y = area.y + 1 + u16::from(room.target_error.is_some());
        if x < area.right() && y < area.bottom() {
            frame.set_cursor_position(Position::new(x, y));
        }
    }
    if editing && room.focus == Focus::Target && area.height > 0 {
        let col = room.target.0.visual_cursor().saturating_sub(scroll);
        let x = area.x + u16::try_from(LABEL + col).unwrap_or(0);
        if x < area.right() {
            frame.set_cursor_position(Position::new(x, area.y));
        }
    }
}

fn section(out: &mut Vec<Line<'static>>, title: String, t: &Theme) {
    out.push(Line::raw(""));
    out.push(Line::from(Span::styled(title, t.section)));
}

/// Header lines; `headers` are already through the redaction policy.
fn header_lines(out: &mut Vec<Line<'static>>, headers: &[(String, String)], t: &Theme) {
    if headers.is_empty() {
        out.push(Line::from(Span::styled("  none", t.muted)));
    }
    for (k, v) in headers {
        out.push(Line::from(vec![
            Span::styled(format!("  {k}: "), t.key),
            Span::styled(v.clone(), t.text),
        ]));
    }
}

fn body_lines(out: &mut Vec<Line<'static>>, body: Option<&str>, t: &Theme) {
    match body {
        Some(b) if !b.is_empty() => {
            for l in text_lines(b, t) {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(l.spans);
                out.push(Line::from(spans));
            }
        }
        _ => out.push(Line::from(Span::styled("  empty", t.muted))),
    }
}

/// " (secret values masked)" when the policy hides any of these headers for who wrote them
/// (an own receiver's answer shows whole, so it says nothing).
fn masked_note<H: crate::api::replay::HeaderList + ?Sized>(headers: &H) -> &'static str {
    if any_masked(headers) {
        " (secret values masked)"
    } else {
        ""
    }
}

/// What will be sent: method, URL, who signs, the headers (masked), the recorded body.
fn preview_lines(
    plan: &ReplayPlan,
    headers: &[(String, String)],
    t: &Theme,
    edited: bool,
) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::from(vec![
            Span::styled(plan.method, t.accent),
            Span::raw(format!(" {}", plan.target)),
        ]),
        Line::from(vec![
            Span::styled("Replays   ", t.muted),
            Span::raw(format!(
                "{} attempt #{}",
                plan.notification_id,
                plan.attempt_index.saturating_add(1)
            )),
        ]),
        Line::from(vec![
            Span::styled("Signature ", t.muted),
            match (&plan.signing, &plan.destination) {
                (Some(_), Some(d)) => Span::raw(format!(
                    "fresh, with the signing secret of {} ({})",
                    d.name, d.id
                )),
                (Some(_), None) => Span::raw("fresh"),
                // callback-destinations signs t=…,v1=… when the plan is made.
                (None, Some(d)) if crate::api::callback_gen::signed_in_headers(&plan.headers) => {
                    Span::raw(format!(
                        "t=…,v1=…, made when previewed, with the signing secret of {} ({})",
                        d.name, d.id
                    ))
                }
                (None, _) => Span::styled("none (unsigned)", t.warn),
            },
        ]),
    ];
    section(&mut out, format!("Headers{}", masked_note(headers)), t);
    header_lines(&mut out, headers, t);
    section(
        &mut out,
        if edited {
            format!("Body · {} bytes, as edited", plan.body.len())
        } else {
            format!(
                "Body · {} bytes, sent byte for byte as recorded",
                plan.body.len()
            )
        },
        t,
    );
    body_lines(&mut out, Some(&plan.body), t);
    out
}

/// A replay's answer: status, duration, error, headers (masked), body; then what was sent.
pub(crate) fn answer_lines(cx: &Core, e: &HistoryEntry, t: &Theme) -> Vec<Line<'static>> {
    let r: &ReplayResult = &e.result;
    let status = match r.status {
        Some(s) if r.is_success() => Span::styled(format!("HTTP {s}"), t.ok),
        // Headers came but the body was reset or stalled: failed, as the delivery engine counts it.
        Some(s) if r.is_2xx() => Span::styled(
            format!("HTTP {s} · FAILED: the answer did not arrive whole"),
            t.error,
        ),
        Some(s) => Span::styled(format!("HTTP {s}"), t.error),
        None => Span::styled("no answer", t.error),
    };
    let mut out = vec![
        Line::from(vec![
            Span::styled("Replayed locally  ", t.warn),
            Span::styled("POST", t.accent),
            Span::raw(format!(" {}", e.target)),
        ]),
        Line::from(vec![
            Span::styled("Answer    ", t.muted),
            status,
            Span::styled(
                format!(
                    "  in {} · sent {}",
                    millis(r.duration),
                    cx.clock.local_and_relative(&r.sent_at)
                ),
                t.muted,
            ),
        ]),
    ];
    if let Some(err) = &r.error {
        out.push(Line::from(vec![
            Span::styled("Error     ", t.muted),
            Span::styled(err.to_string(), t.error),
        ]));
    }
    let headers = masked_headers(&r.headers);
    section(
        &mut out,
        format!("Response headers{}", masked_note(&r.headers)),
        t,
    );
    header_lines(&mut out, &headers, t);
    section(&mut out, "Response body".into(), t);
    body_lines(&mut out, r.body.as_deref(), t);
    if r.body_truncated {
        out.push(Line::from(Span::styled(
            format!("  (truncated at {} KiB)", MAX_RESPONSE_BODY / 1024),
            t.muted,
        )));
    }
    let sent = masked_headers(&r.sent_headers);
    section(
        &mut out,
        format!("Sent headers{}", masked_note(&r.sent_headers)),
        t,
    );
    header_lines(&mut out, &sent, t);
    out
}

fn render_history(
    cx: &Core,
    room: &Room,
    entries: &[&HistoryEntry],
    frame: &mut Frame,
    area: Rect,
) {
    if area.height == 0 {
        return;
    }
    let t = &cx.settings.theme;
    let focused = room.focus == Focus::History;
    // The key that moves here where the room is: Tab on the form, `h` on an answer.
    let how = match (focused, &room.stage) {
        (true, _) => " · Enter shows",
        (false, Stage::Answer(_)) => " · h here",
        (false, Stage::Editing) => " · Tab here",
        (false, _) => "",
    };
    let shown_entry = match &room.stage {
        Stage::Answer(e) => Some(e.as_ref()),
        _ => None,
    };
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "Replays of profile {} this session ({}, newest first){}{how}",
            safe(&cx.profile),
            entries.len(),
            if shown_entry.is_some() {
                " · ● shown"
            } else {
                ""
            }
        ),
        if focused { t.accent } else { t.section },
    ))];
    let rows = usize::from(area.height.saturating_sub(1)).max(1);
    let start = room.history_cursor.saturating_sub(rows - 1);
    for (i, e) in entries.iter().enumerate().skip(start).take(rows) {
        let r = &e.result;
        let status = r
            .status
            .map_or_else(|| "---".to_string(), |s| s.to_string());
        let style = if r.is_success() { t.ok } else { t.error };
        // A 2xx cut short is a failure: marked, not only coloured.
        let cut = if r.is_2xx() && !r.is_success() {
            "✗"
        } else {
            " "
        };
        let mark = if focused && i == room.history_cursor {
            "▶"
        } else {
            " "
        };
        let shown = if shown_entry == Some(*e) {
            "● "
        } else {
            "  "
        };
        let when = r
            .sent_at
            .with_timezone(&cx.clock.offset_at(&r.sent_at))
            .format("%H:%M:%S");
        lines.push(crate::text::tui::safe_line(Line::from(vec![
            Span::styled(mark, t.accent),
            Span::styled(shown, t.accent),
            Span::styled(format!("{when}  "), t.muted),
            Span::styled(format!("{status:>3}{cut} "), style),
            // The target tells entries apart: before the ids, which are cut first.
            Span::raw(format!("{}  ", e.target)),
            Span::styled(
                format!(
                    "{} #{} · {}",
                    e.notification_id,
                    e.attempt_index.saturating_add(1),
                    millis(r.duration)
                ),
                t.muted,
            ),
        ])));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The room's keys where it is: (keys, word). The room takes every key, so these are also the
/// footer's while it is open.
pub(crate) fn key_hints(room: &Room) -> &'static [(&'static str, &'static str)] {
    match (&room.stage, room.focus) {
        (Stage::Editing | Stage::Answer(_), Focus::History) => &[
            ("↑/↓", "choose"),
            ("Enter", "show its answer"),
            ("Esc", "back"),
        ],
        (Stage::Editing, _) => &[
            ("Enter", "preview"),
            ("Tab", "next field"),
            ("Space", "toggle unsigned"),
            ("Ctrl-U", "clear"),
            ("Esc", "close"),
        ],
        (Stage::Preparing, _) => &[("Esc", "cancel")],
        (Stage::Preview { .. }, _) => &[("Enter", "send"), ("↑/↓", "scroll"), ("Esc", "back")],
        (Stage::Confirm { .. }, _) => &[("Enter", "confirm"), ("Esc", "back")],
        (Stage::Sending(_), _) => &[("Esc", "stop waiting")],
        (Stage::Editor(_), _) => &[],
        (Stage::Answer(_), _) => &[("↑/↓", "scroll"), ("h", "history"), ("Esc", "back")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_millisecond_answers_do_not_read_zero() {
        use std::time::Duration;
        assert_eq!(millis(Duration::from_micros(420)), "0.42 ms");
        assert_eq!(millis(Duration::from_micros(3_250)), "3.2 ms");
        assert_eq!(millis(Duration::from_millis(250)), "250 ms");
    }

    #[test]
    fn the_title_fits_its_border() {
        let id = "cbn_0mwtm2eftzUC1xtN97Sefv";
        for width in [20u16, 40, 50, 60, 80, 120] {
            let t = title(id, "attempt #1", width);
            assert!(t.chars().count() + 4 <= usize::from(width), "{width}: {t}");
        }
        assert!(title(id, "attempt #1", 120).contains("never recorded"));
        assert!(title(id, "attempt #1", 50).contains(id));
    }
}
