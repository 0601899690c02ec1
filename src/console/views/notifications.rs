//! Callback notifications (read-only): delivery status and an attempts summary.
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::{Column, Tone, ViewCtx, col, duration_ms};
use crate::api::model::{Attempt, AttemptStatus, Notification, NotificationStatus};
use crate::console::deliveries::sorted_attempts;
use crate::console::widgets::fields::Fields;

/// List columns.
pub const COLUMNS: &[Column] = &[
    col("Status", Length(11), true),
    col("Att", Length(3), true),
    col("Resp", Length(4), true),
    col("Took", Length(7), true),
    col("Event", Fill(1), true),
    col("URL", Fill(2), false),
    col("Created", Length(11), true),
    col("ID", Length(26), false),
];

/// The coloured status with a symbol.
pub fn status(n: &Notification, ctx: &ViewCtx) -> Span<'static> {
    let tone = match n.status {
        NotificationStatus::Succeeded => Tone::Good,
        NotificationStatus::Retrying => Tone::Busy,
        NotificationStatus::Pending => Tone::Waiting,
        NotificationStatus::Failed => Tone::Bad,
        NotificationStatus::Other(_) => Tone::Unknown,
    };
    ctx.status(n.status.as_str(), tone)
}

fn attempt_status(a: &Attempt, ctx: &ViewCtx) -> Span<'static> {
    let tone = match a.status {
        AttemptStatus::Succeeded => Tone::Good,
        AttemptStatus::Failed => Tone::Bad,
        AttemptStatus::Other(_) => Tone::Unknown,
    };
    ctx.status(a.status.as_str(), tone)
}

/// The response status of an attempt, `err` when none came, `—` without a request.
fn response(a: Option<&Attempt>) -> String {
    match a.and_then(|a| a.webhook_request.as_ref()) {
        Some(r) if r.has_response() => r.response_status.to_string(),
        Some(_) => "err".into(),
        None => "—".into(),
    }
}

/// Row cells.
pub fn cells(n: &Notification, ctx: &ViewCtx) -> Vec<Cell<'static>> {
    let last = n.last_attempt();
    let took = last
        .and_then(|a| a.webhook_request.as_ref())
        .map(|r| duration_ms(r.duration))
        .unwrap_or_else(|| "—".into());
    vec![
        Cell::from(status(n, ctx)),
        Cell::from(n.attempts.len().to_string()),
        Cell::from(response(last)),
        Cell::from(took),
        Cell::from(ctx.or_muted(n.event_type().as_deref(), "—")),
        Cell::from(ctx.or_muted(n.url.as_deref(), "—")),
        ctx.ago(&n.created_at),
        Cell::from(Span::styled(n.id.clone(), ctx.theme.muted)),
    ]
}

/// At most `n` characters, with `…` when cut.
fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// Detail lines without a selected attempt.
pub fn detail(n: &Notification, ctx: &ViewCtx) -> Vec<Line<'static>> {
    detail_with(n, ctx, None)
}

/// Detail lines: fields, ids read from the delivered body, and the attempts as a table with
/// `cursor` (a position among the attempts by index) selected.
pub fn detail_with(n: &Notification, ctx: &ViewCtx, cursor: Option<usize>) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.field("ID", n.id.clone())
        .field_spans("Status", vec![status(n, ctx)])
        .field("Type", n.kind.to_string())
        .opt("URL", n.url.as_deref())
        .opt("Event type", n.event_type().as_deref())
        .opt("Event", n.body_field("eventId").as_deref())
        .opt("Callback", n.body_field("callbackId").as_deref())
        .field("Created", ctx.when(&n.created_at));
    let count = |s: AttemptStatus| n.attempts.iter().filter(|a| a.status == s).count();
    let (ok, failed) = (
        count(AttemptStatus::Succeeded),
        count(AttemptStatus::Failed),
    );
    f.section(format!(
        "Attempts ({}: {ok} succeeded, {failed} failed)",
        n.attempts.len()
    ));
    if n.attempts.is_empty() {
        f.line(2, vec![Span::styled("no attempt yet", ctx.theme.muted)]);
    } else {
        f.line(
            1,
            vec![Span::styled(
                format!(
                    "{:<3}{:<12}{:<14}{:>7}  {}",
                    "#", "Status", "Response", "Took", "When"
                ),
                ctx.theme.header,
            )],
        );
    }
    let mut lines = f.finish();
    for (pos, a) in sorted_attempts(n).into_iter().enumerate() {
        let mut st = attempt_status(a, ctx);
        st.content = format!("{:<12}", st.content).into();
        let (resp, took) = match &a.webhook_request {
            Some(r) if r.has_response() => (
                format!("HTTP {}", r.response_status),
                duration_ms(r.duration),
            ),
            Some(r) => (
                r.request_error
                    .clone()
                    .unwrap_or_else(|| "no response".into()),
                duration_ms(r.duration),
            ),
            None => ("no request (no url)".into(), "—".into()),
        };
        let mut line = Line::from(vec![
            Span::raw(format!(" {:<3}", a.index)),
            st,
            Span::raw(format!("{:<14}{took:>7}  ", clip(&resp, 13))),
            Span::styled(ctx.clock.relative(&a.created_at), ctx.theme.muted),
        ]);
        if cursor == Some(pos) {
            line = line.style(ctx.theme.selected);
        }
        lines.push(line);
    }
    if cursor.is_some() && !n.attempts.is_empty() {
        lines.push(Line::from(Span::styled(
            "  j/k select · Enter opens the attempt",
            ctx.theme.muted,
        )));
    }
    lines
}

/// The filter chips of a list: `callback cb_… · event … · destination …`.
pub fn chips(f: &crate::api::NotificationFilter) -> Vec<String> {
    let mut out = Vec::new();
    for (label, ids) in [
        ("callback", &f.callback_ids),
        ("event", &f.event_ids),
        ("destination", &f.destination_ids),
    ] {
        if !ids.is_empty() {
            let short: Vec<String> = ids.iter().map(|id| clip(id, 13)).collect();
            out.push(format!("{label}: {}", short.join(" | ")));
        }
    }
    out
}

/// Draws the notification filter dialog.
pub fn render_filter(
    d: &crate::console::deliveries::FilterDialog,
    theme: &crate::console::theme::Theme,
    frame: &mut ratatui::Frame,
    area: ratatui::layout::Rect,
) {
    use crate::console::deliveries::filter::FIELDS;
    use ratatui::widgets::{Block, Clear, Paragraph};
    let b = crate::console::widgets::centered(area, 70, 10);
    let mut lines = Vec::new();
    for (i, (label, text)) in FIELDS.iter().zip(d.texts.iter()).enumerate() {
        let focused = i == d.focus;
        let cursor = if focused { "▏" } else { "" };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{label:>16}: "),
                if focused { theme.accent } else { theme.muted },
            ),
            Span::raw(format!("{text}{cursor}")),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "Several ids each, separated by commas or spaces (any of them matches).",
        theme.muted,
    )));
    lines.push(Line::from(vec![
        Span::styled("Tab", theme.key),
        Span::raw(" next field  "),
        Span::styled("Enter", theme.key),
        Span::raw(" apply  "),
        Span::styled("Esc", theme.key),
        Span::raw(" cancel"),
    ]));
    frame.render_widget(Clear, b);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(Span::styled(
            " Filter notifications (server-side) ",
            theme.accent,
        ))),
        b,
    );
}

/// What follows the list title: the live marker, then filter chips.
pub fn title_suffix(state: &crate::console::State, tab: crate::console::Tab) -> String {
    let list = &state.tab_state(tab).list;
    let mut s = String::new();
    if tab == crate::console::Tab::Notifications && state.deliveries.watch.on {
        let paused = crate::console::deliveries::watch::paused(state);
        s.push_str(if paused {
            " · ● live (paused)"
        } else {
            " · ● live"
        });
    }
    if tab == crate::console::Tab::Notifications
        && let Some(chip) = crate::console::deliveries::local::chip(state)
    {
        s.push_str(&format!(" · [{chip}]"));
    }
    for chip in chips(&list.filter) {
        s.push_str(&format!(" · [{chip}]"));
    }
    s
}

/// The breadcrumb of cross-navigation (`Callbacks › Destinations › Notifications`), if any.
pub fn breadcrumb(state: &crate::console::State) -> Option<String> {
    if state.nav.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = state.nav.iter().map(|f| f.return_to.title()).collect();
    parts.push(state.tab.title());
    Some(format!("{}   Esc back", parts.join(" › ")))
}

/// Row cells, highlighted while watch mode marks the row new or changed.
pub fn decorate(
    state: &crate::console::State,
    record: &crate::console::record::Record,
    cells: Vec<Cell<'static>>,
) -> Vec<Cell<'static>> {
    if !state.deliveries.watch.flash.contains_key(record.id()) {
        return cells;
    }
    let style = state
        .theme
        .warn
        .add_modifier(ratatui::style::Modifier::BOLD);
    cells.into_iter().map(|c| c.style(style)).collect()
}

/// Detail lines with this module's additions: the attempt cursor, a destination's health.
pub fn detail_lines(
    state: &crate::console::State,
    record: &crate::console::record::Record,
    ctx: &ViewCtx,
) -> Vec<Line<'static>> {
    use crate::console::record::Item;
    let ts = state.current();
    let open = ts.detail.as_ref().is_some_and(|d| d.id == record.id());
    match &record.item {
        Item::Notification(n) if open => {
            let d = &state.deliveries;
            let cursor = if d.cursor_of == n.id {
                d.attempt_cursor
            } else {
                0
            };
            detail_with(n, ctx, Some(cursor))
        }
        Item::Destination(dest) => {
            let mut lines = super::destinations::detail(dest, ctx);
            if let Some(h) = state
                .deliveries
                .health
                .as_ref()
                .filter(|h| open && h.destination_id == dest.id)
            {
                lines.extend(super::destinations::health_lines(h, ctx));
            }
            lines
        }
        _ => super::detail(record, ctx),
    }
}

/// Draws this module's overlays over the body: the attempt view and the filter dialog.
pub fn overlays(
    state: &crate::console::State,
    frame: &mut ratatui::Frame,
    body: ratatui::layout::Rect,
) {
    if let Some(v) = &state.deliveries.attempt {
        super::attempt::render(state, v, frame, body);
    }
    if let Some(d) = &state.deliveries.filter {
        render_filter(d, &state.theme, frame, body);
    }
}
