//! The attempt view: one delivery attempt's request and response, headers masked unless safe or
//! revealed, bodies pretty-printed, and the signature check.
use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Clear;

use super::lookup::{SigStatus, check};
use super::{AttemptView, DeliveriesState, sorted_attempts};
use crate::api::model::AttemptStatus;
use crate::console::state::Core;
use crate::console::views::{Tone, ViewCtx, duration_ms};
use crate::console::widgets::json::{JsonView, text_lines};
use crate::text::redact::{
    any_header_masked as any_masked, header_is_safe as is_safe, header_value as shown,
};

fn section(out: &mut Vec<Line<'static>>, title: String, ctx: &ViewCtx) {
    out.push(Line::raw(""));
    out.push(Line::from(Span::styled(title, ctx.theme.section)));
}

fn headers(
    out: &mut Vec<Line<'static>>,
    h: &BTreeMap<String, String>,
    revealed: bool,
    ctx: &ViewCtx,
) {
    if h.is_empty() {
        out.push(Line::from(Span::styled("  none", ctx.theme.muted)));
    }
    for (k, v) in h {
        let value = shown(k, v, revealed);
        let style = if is_safe(k) {
            ctx.theme.text
        } else if revealed {
            ctx.theme.warn
        } else {
            ctx.theme.muted
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {k}: "), ctx.theme.key),
            Span::styled(value.to_string(), style),
        ]));
    }
}

fn body(out: &mut Vec<Line<'static>>, b: Option<&str>, ctx: &ViewCtx) {
    match b {
        Some(b) if !b.is_empty() => {
            for l in text_lines(b, ctx.theme) {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(l.spans);
                out.push(Line::from(spans));
            }
        }
        _ => out.push(Line::from(Span::styled("  empty", ctx.theme.muted))),
    }
}

/// The signature line.
fn signature(status: SigStatus, ctx: &ViewCtx) -> Line<'static> {
    let label = Span::styled("Signature  ", ctx.theme.muted);
    match status {
        SigStatus::Verified(name) => Line::from(vec![
            label,
            Span::styled("✓ verified", ctx.theme.ok),
            Span::raw(format!(" with the signing secret of {name}")),
        ]),
        SigStatus::Failed(e) => Line::from(vec![
            label,
            Span::styled("✗ does not verify", ctx.theme.error),
            Span::raw(format!(": {e}")),
        ]),
        SigStatus::Unknown(why) => Line::from(vec![
            label,
            Span::styled(format!("? not checked: {why}"), ctx.theme.warn),
        ]),
    }
}

/// Whether the attempt shown has a header the policy masks (so that `R` means something).
pub(crate) fn masks_anything(v: &AttemptView) -> bool {
    v.attempt()
        .and_then(|a| a.webhook_request.as_ref())
        .is_some_and(|r| any_masked(r.request_headers.keys().chain(r.response_headers.keys())))
}

/// Every line of the attempt view.
pub(crate) fn lines(
    d: &DeliveriesState,
    cx: &Core,
    v: &AttemptView,
    ctx: &ViewCtx,
) -> Vec<Line<'static>> {
    // The receiver wrote most of this: every line through the one sanitizer.
    crate::text::tui::safe_lines(unsanitised_lines(d, cx, v, ctx))
}

fn unsanitised_lines(
    d: &DeliveriesState,
    cx: &Core,
    v: &AttemptView,
    ctx: &ViewCtx,
) -> Vec<Line<'static>> {
    let n = &v.notification;
    let mut out = Vec::new();
    let Some(a) = sorted_attempts(n).get(v.position).copied() else {
        out.push(Line::from(Span::styled(
            "attempt not found",
            ctx.theme.muted,
        )));
        return out;
    };
    let tone = match a.status {
        AttemptStatus::Succeeded => Tone::Good,
        AttemptStatus::Failed => Tone::Bad,
        AttemptStatus::Other(_) => Tone::Unknown,
    };
    out.push(Line::from(vec![
        Span::styled(format!("Attempt #{}  ", a.number()), ctx.theme.header),
        ctx.status(a.status.as_str(), tone),
        Span::styled(
            format!("  {}", ctx.clock.local_and_relative(&a.created_at)),
            ctx.theme.muted,
        ),
    ]));
    let Some(r) = &a.webhook_request else {
        out.push(Line::from(Span::styled(
            "no request was sent (no url)",
            ctx.theme.muted,
        )));
        return out;
    };
    out.push(Line::from(vec![
        Span::styled(r.request_method.clone(), ctx.theme.accent),
        Span::raw(format!(" {}", crate::text::redact::mask_url(&r.url))),
        Span::styled(format!("  {}", duration_ms(r.duration)), ctx.theme.muted),
    ]));
    out.push(signature(check(d, cx, n, v.position), ctx));
    // The note stands over the headers whose values are masked (request, response or both).
    let note =
        |h: &std::collections::BTreeMap<String, String>| match (any_masked(h.keys()), v.revealed) {
            (true, false) => " (secret values masked · R reveals)",
            (true, true) => " (REVEALED for this attempt)",
            _ => "",
        };
    section(
        &mut out,
        format!("Request headers{}", note(&r.request_headers)),
        ctx,
    );
    headers(&mut out, &r.request_headers, v.revealed, ctx);
    section(&mut out, "Request body".into(), ctx);
    body(&mut out, r.request_body.as_deref(), ctx);
    section(&mut out, "Response".into(), ctx);
    if r.has_response() {
        let style = if (200..300).contains(&r.response_status) {
            ctx.theme.ok
        } else {
            ctx.theme.error
        };
        out.push(Line::from(vec![
            Span::styled("  status ", ctx.theme.muted),
            Span::styled(r.response_status.to_string(), style),
        ]));
    } else {
        out.push(Line::from(Span::styled("  no response", ctx.theme.error)));
    }
    if let Some(e) = &r.request_error {
        out.push(Line::from(vec![
            Span::styled("  error ", ctx.theme.muted),
            Span::styled(e.clone(), ctx.theme.error),
        ]));
    }
    section(
        &mut out,
        format!("Response headers{}", note(&r.response_headers)),
        ctx,
    );
    headers(&mut out, &r.response_headers, v.revealed, ctx);
    section(&mut out, "Response body".into(), ctx);
    body(&mut out, r.response_body.as_deref(), ctx);
    out
}

/// The furthest the attempt view scrolls on this screen: 0 when it fits.
pub(crate) fn max_scroll(d: &DeliveriesState, cx: &Core, v: &AttemptView) -> u16 {
    let ctx = ViewCtx {
        clock: &cx.clock,
        theme: &cx.settings.theme,
    };
    let screen = Rect::new(0, 0, cx.size.0, cx.size.1);
    JsonView::max_scroll(&lines(d, cx, v, &ctx), crate::console::layout::body(screen))
}

/// Draws the attempt view over `area`.
pub(crate) fn render(
    d: &DeliveriesState,
    cx: &Core,
    v: &AttemptView,
    frame: &mut Frame,
    area: Rect,
) {
    let ctx = ViewCtx {
        clock: &cx.clock,
        theme: &cx.settings.theme,
    };
    frame.render_widget(Clear, area);
    JsonView {
        // The same number as the table and the body: the attempt's own, counted from 1.
        title: format!(
            "Notification {} · attempt {}",
            v.notification.id,
            v.attempt()
                .map_or_else(|| (v.position + 1).to_string(), |a| a.number().to_string())
        ),
        lines: lines(d, cx, v, &ctx),
        scroll: v.scroll,
        theme: &cx.settings.theme,
    }
    .render(frame, area);
}
