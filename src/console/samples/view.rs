//! The Samples room's drawing: the library's samples, then the selected one's target, send or
//! answer. Everything read from the files or the receiver goes through the one sanitizer; the
//! kept headers were masked when kept.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::{Room, SamplesState, Stage};
use crate::console::state::Core;
use crate::text::line as safe;
use crate::text::sanitize::lines as safe_lines;

/// The room's keys where it is (key, word).
pub(crate) fn key_hints(room: &Room) -> &'static [(&'static str, &'static str)] {
    match room.stage {
        Stage::List => super::update::LIST_KEYS,
        Stage::Target if room.edit => &[("Enter", "edit, then send"), ("Esc", "back")],
        Stage::Target => &[("Enter", "send"), ("Esc", "back")],
        Stage::Answer(..) => &[("c/=", "compare"), ("Esc", "back")],
        Stage::Naming { .. } => &[("Enter", "keep"), ("Esc", "back")],
        Stage::Confirm(_) | Stage::Sending | Stage::Keeping | Stage::Editor(_) => {
            &[("Esc", "back")]
        }
    }
}

/// Draws the room over `area` when it is open.
pub(crate) fn render(samples: &SamplesState, cx: &Core, frame: &mut Frame, area: Rect) {
    let Some(room) = samples.room_of(&cx.profile) else {
        return;
    };
    let t = &cx.settings.theme;
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(t.accent)
        .title(Line::from(Span::styled(
            format!(" Samples · {} ", safe(&cx.profile)),
            t.accent,
        )));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = u16::try_from(room.samples.len().max(1) + room.bad.len() + 1).unwrap_or(u16::MAX);
    let [list, below] = Layout::vertical([
        Constraint::Max(rows.min(inner.height / 2).max(2)),
        Constraint::Fill(1),
    ])
    .areas(inner);
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "  {:<24} {:<24} {:<24} KEPT",
            "NAME", "EVENT", "DESTINATION"
        ),
        t.accent,
    ))];
    if room.samples.is_empty() {
        lines.push(Line::from(
            "  No samples yet: `notifications keep ID --name NAME` keeps one",
        ));
    }
    for (i, s) in room.samples.iter().enumerate() {
        let dest = s.destination.as_ref().map_or_else(
            || "-".to_string(),
            |d| d.name.clone().unwrap_or_else(|| d.id.clone()),
        );
        let mark = if i == room.cursor { "▸ " } else { "  " };
        let text = format!(
            "{mark}{:<24} {:<24} {:<24} {}",
            safe(&s.name),
            safe(s.event_type.as_deref().unwrap_or("-")),
            safe(&dest),
            s.kept_at.format("%Y-%m-%d %H:%M")
        );
        let style = if i == room.cursor { t.accent } else { t.text };
        lines.push(Line::from(Span::styled(text, style)));
    }
    for b in &room.bad {
        lines.push(Line::from(format!("  not a sample: {}", safe(b))));
    }
    // Keep the selected row in view.
    let skip = (room.cursor + 2).saturating_sub(usize::from(list.height));
    let shown: Vec<Line> = lines
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || *i > skip)
        .map(|(_, l)| l)
        .collect();
    frame.render_widget(Paragraph::new(shown), list);
    frame.render_widget(
        Paragraph::new(detail(room)).wrap(Wrap { trim: false }),
        below,
    );
}

/// What shows under the list: the message, the target, the answer, or the selected sample.
fn detail(room: &Room) -> Vec<Line<'static>> {
    let mut out = vec![Line::from("")];
    if let Some(m) = &room.message {
        out.push(Line::from(safe(m).into_owned()));
    }
    match &room.stage {
        Stage::Naming { id, attempt, name } => {
            let attempt = attempt.map_or_else(
                || "its latest recorded attempt".to_string(),
                |i| format!("attempt #{}", i.saturating_add(1)),
            );
            out.push(Line::from(format!(
                "Keep {} ({attempt}) as sample:",
                safe(id)
            )));
            out.push(Line::from(format!("  {}", name.with_cursor())));
            return out;
        }
        Stage::Keeping => {
            out.push(Line::from("Keeping…"));
            return out;
        }
        _ => {}
    }
    let Some(s) = room.selected() else {
        return out;
    };
    match &room.stage {
        Stage::List => {
            out.push(Line::from(format!(
                "{} from {} attempt #{}",
                safe(&s.name),
                safe(&s.notification_id),
                s.attempt
            )));
            for (k, v) in &s.request_headers {
                out.push(Line::from(format!("  {}: {}", safe(k), safe(v))));
            }
            out.extend(
                safe_lines(&s.body)
                    .into_iter()
                    .map(|l| Line::from(format!("  {l}"))),
            );
        }
        Stage::Target => {
            let verb = if room.edit { "Edit, then send" } else { "Send" };
            out.push(Line::from(format!("{verb} {} to:", safe(&s.name))));
            out.push(Line::from(format!("  {}", room.target.with_cursor())));
        }
        Stage::Confirm(url) => {
            out.push(Line::from(format!("Send to {}?", safe(url.as_str()))));
        }
        Stage::Naming { .. } | Stage::Keeping => {}
        Stage::Editor(_) => {
            out.push(Line::from(format!("Editing {}…", safe(&s.name))));
        }
        Stage::Sending => {
            out.push(Line::from(format!("Sending {}…", safe(&s.name))));
        }
        Stage::Answer(r, why) => {
            let status = r
                .status
                .map_or_else(|| "no answer".to_string(), |c| c.to_string());
            let word = if room.edited.is_some() {
                "SENT edited"
            } else {
                "SENT"
            };
            out.push(Line::from(format!(
                "{word} {} → {status} in {} ms",
                safe(&s.name),
                r.duration.as_millis()
            )));
            match why {
                Some(why) => out.push(Line::from(format!("unsigned: {}", safe(why)))),
                None => out.push(Line::from("signed with its destination's secret")),
            }
            if let Some(e) = &r.error {
                out.push(Line::from(format!("error: {}", safe(&e.to_string()))));
            }
            if let Some(body) = &r.body {
                out.extend(
                    safe_lines(body)
                        .into_iter()
                        .map(|l| Line::from(format!("  {l}"))),
                );
            }
        }
    }
    out
}
