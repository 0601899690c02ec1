//! Callback notifications (read-only): delivery status and an attempts summary.
use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use ratatui::text::{Line, Span};

use super::kit::{Tone, ViewCtx, duration_ms};
use crate::api::model::{Attempt, AttemptStatus, Notification, NotificationStatus};
use crate::console::deliveries::sorted_attempts;
use crate::console::widgets::fields::Fields;

/// The coloured status with a symbol.
pub(crate) fn status(n: &Notification, ctx: &ViewCtx) -> Span<'static> {
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

/// At most `n` characters, with `…` when cut.
pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// Field lines at the top of a notification's detail (see [`detail_with`]).
const FIELD_LINES: usize = 9;
/// Detail lines above the first attempt row: the fields, the attempts heading (a blank line
/// and a title) and the table header (or "no attempt yet").
pub(crate) const LINES_ABOVE_ATTEMPTS: usize = FIELD_LINES + 3;

/// Detail lines without a selected attempt.
pub(crate) fn detail(n: &Notification, ctx: &ViewCtx) -> Vec<Line<'static>> {
    detail_with(n, ctx, None, &Named::default())
}

/// Names the console found for a notification: its callback and the destinations it went to.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// `name (id)` of the callback, or its id.
    pub(crate) callback: Option<String>,
    /// The destinations it went to, by name (empty when unknown).
    pub(crate) destinations: Vec<String>,
}

/// Detail lines: fields, ids read from the delivered body, and the attempts as a table with
/// `cursor` (a position among the attempts by index) selected.
pub(crate) fn detail_with(
    n: &Notification,
    ctx: &ViewCtx,
    cursor: Option<usize>,
    named: &Named,
) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    let callback = named
        .callback
        .clone()
        .or_else(|| n.body_field("callbackId"));
    let destination = (!named.destinations.is_empty()).then(|| named.destinations.join(", "));
    f.field("ID", n.id.clone())
        .field_spans("Status", vec![status(n, ctx)])
        .field("Type", n.kind.to_string())
        .opt(
            "URL",
            n.url
                .as_deref()
                .map(crate::text::redact::mask_url)
                .as_deref(),
        )
        .opt("Event type", n.event_type().as_deref())
        .opt("Event", n.body_field("eventId").as_deref())
        .opt("Callback", callback.as_deref())
        .field(
            "Destination",
            destination.unwrap_or_else(|| "— (not known to the console)".into()),
        )
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
            Span::raw(format!(" {:<3}", a.number())),
            st,
            Span::raw(format!("{:<14}{took:>7}  ", clip(&resp, 13))),
            Span::styled(ctx.clock.relative(&a.created_at), ctx.theme.muted),
        ]);
        if cursor == Some(pos) {
            line = line.style(ctx.theme.selected);
        }
        lines.push(line);
    }
    // Below the attempts, so the rows the attempt cursor scrolls by stay where they were.
    let timeline = crate::api::retry::Timeline::of_notification(n, ctx.clock.now());
    lines.push(Line::from(vec![
        Span::styled("  Retries  ", ctx.theme.muted),
        Span::raw(timeline.text(|t| ctx.clock.local_and_relative(t))),
    ]));
    if cursor.is_some() && !n.attempts.is_empty() {
        lines.push(Line::from(Span::styled(
            "  j/k select · Enter opens the attempt",
            ctx.theme.muted,
        )));
    }
    lines
}

impl super::DetailView for crate::resource::notifications::Notifications {
    fn detail(item: &Notification, ctx: &ViewCtx) -> Vec<Line<'static>> {
        detail(item, ctx)
    }

    /// Read-only: no write key opens a dialog here.
    fn dialog(_action: Action, _item: Option<&Notification>) -> Option<Dialog> {
        None
    }

    fn build(_d: &mut Dialog) -> Option<WriteOp> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::clock::Clock;
    use crate::console::theme::Theme;

    /// The count the attempt cursor scrolls by must match what the detail draws.
    #[test]
    fn attempts_start_where_the_detail_puts_them() {
        let body = include_str!("../../../tests/fixtures/notification.json");
        let mut n: Notification = serde_json::from_str(body).expect("fixture decodes");
        let (theme, clock) = (Theme::default(), Clock::System);
        let ctx = ViewCtx {
            clock: &clock,
            theme: &theme,
        };
        assert!(!n.attempts.is_empty(), "the fixture has attempts");
        for _ in 0..2 {
            let lines = detail(&n, &ctx).len();
            // Below the attempts: the retry line.
            assert_eq!(lines - n.attempts.len() - 1, LINES_ABOVE_ATTEMPTS);
            n.attempts.clear();
            n.url = None;
        }
    }
}
