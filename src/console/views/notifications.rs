//! Callback notifications (read-only): delivery status and an attempts summary.
use ratatui::layout::Constraint::{Fill, Length};
use ratatui::text::{Line, Span};
use ratatui::widgets::Cell;

use super::{Column, Tone, ViewCtx, col, duration_ms};
use crate::api::model::{Attempt, AttemptStatus, Notification, NotificationStatus};
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

/// Detail lines: fields, ids read from the delivered body, and one line per attempt.
pub fn detail(n: &Notification, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.field("ID", n.id.clone())
        .field_spans("Status", vec![status(n, ctx)])
        .field("Type", n.kind.to_string())
        .opt("URL", n.url.as_deref())
        .opt("Event type", n.event_type().as_deref())
        .opt("Event", n.body_field("eventId").as_deref())
        .opt("Callback", n.body_field("callbackId").as_deref())
        .field("Created", ctx.when(&n.created_at));
    let ok = n
        .attempts
        .iter()
        .filter(|a| a.status == AttemptStatus::Succeeded)
        .count();
    let failed = n
        .attempts
        .iter()
        .filter(|a| a.status == AttemptStatus::Failed)
        .count();
    f.section(format!(
        "Attempts ({}: {ok} succeeded, {failed} failed)",
        n.attempts.len()
    ));
    if n.attempts.is_empty() {
        f.line(2, vec![Span::styled("no attempt yet", ctx.theme.muted)]);
    }
    let mut attempts: Vec<&Attempt> = n.attempts.iter().collect();
    attempts.sort_by_key(|a| a.index);
    for a in attempts {
        let mut spans = vec![
            Span::raw(format!("#{:<2} ", a.index)),
            attempt_status(a, ctx),
        ];
        match &a.webhook_request {
            Some(r) if r.has_response() => {
                spans.push(Span::raw(format!("  HTTP {}", r.response_status)));
                spans.push(Span::raw(format!("  {}", duration_ms(r.duration))));
            }
            Some(r) => {
                spans.push(Span::raw(format!(
                    "  no response, {}",
                    duration_ms(r.duration)
                )));
            }
            None => spans.push(Span::styled("  no request (no url)", ctx.theme.muted)),
        }
        spans.push(Span::styled(
            format!("  {}", ctx.clock.relative(&a.created_at)),
            ctx.theme.muted,
        ));
        f.line(2, spans);
        if let Some(err) = a
            .webhook_request
            .as_ref()
            .and_then(|r| r.request_error.as_ref())
        {
            f.line(6, vec![Span::styled(err.clone(), ctx.theme.error)]);
        }
    }
    f.finish()
}
