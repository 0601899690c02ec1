//! Destination health in the console, read from the one health module (`api::health`): the
//! list's glance (recent deliveries) and the open destination's `Stats`, asked for again on `r`.
use crate::api::model::Notification;

/// How many of a destination's latest notifications are looked at.
pub(crate) const HEALTH_SAMPLE: usize = 200;

/// How many of each listed destination's newest notifications its sparkline is drawn from.
pub(crate) const GLANCE_SAMPLE: u32 = 50;

/// Bars in a list row's sparkline (the newest deliveries that fit).
pub(crate) const GLANCE_BARS: usize = 12;

/// Asks, in the background, for the recent deliveries of listed destinations not asked yet.
pub(crate) fn want_glance(
    cx: &mut crate::console::state::Core,
) -> Vec<crate::console::msg::Effect> {
    use crate::console::msg::{ApiCmd, Effect, Pane};
    use crate::console::record::Item;
    if cx.caches.glance_pending.is_some() {
        return Vec::new();
    }
    // A new page of the list (`r`, paging, a write) asks again for every destination on it, so
    // that the glance is never older than the list and a destination that has had deliveries
    // since never says it had none.
    let rev = cx.tab_state(super::RECEIVERS).list.rev;
    if rev != cx.caches.glance_rev {
        cx.caches.glance_rev = rev;
        cx.caches.glance_asked.clear();
    }
    let ids: Vec<String> = cx
        .tab_state(super::RECEIVERS)
        .list
        .rows
        .iter()
        .filter_map(|r| match &r.item {
            Item::Destination(d) => Some(d.id.clone()),
            _ => None,
        })
        .filter(|id| !cx.caches.glance_asked.contains(id))
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    let d = &mut cx.caches;
    d.glance_asked.extend(ids.iter().cloned());
    d.glance_pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Glance,
        cmd: ApiCmd::Glance(ids),
    }]
}

/// The window a destination's detail counts its health over: the default of
/// `destinations stats`, so that both show the same numbers.
pub(crate) const STATS_WINDOW_SECS: i64 = 24 * 3600;

/// Asks for the open destination's [`crate::api::health::Stats`] after its detail (or any list)
/// was loaded or reloaded: however it was opened (Enter, `:goto cld_…`), and again on `r`.
pub(crate) fn want_stats(
    d: &mut super::DeliveriesState,
    cx: &mut crate::console::state::Core,
) -> Vec<crate::console::msg::Effect> {
    use crate::console::msg::{ApiCmd, Effect, Pane};
    let tab = cx.tab;
    if !tab.has_stats() {
        return Vec::new();
    }
    let Some(id) = cx.tab_state(tab).detail.as_ref().map(|d| d.id.clone()) else {
        return Vec::new();
    };
    if d.stats_pending.is_some() && d.stats.as_ref().is_some_and(|(s, _)| *s == id) {
        return Vec::new();
    }
    let req_id = cx.next_req_id();
    // The numbers already shown stay while they are refreshed.
    let kept = d
        .stats
        .take()
        .filter(|(s, _)| *s == id)
        .and_then(|(_, v)| v);
    d.stats = Some((id.clone(), kept));
    d.stats_pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Stats,
        cmd: ApiCmd::Stats {
            id,
            window_secs: STATS_WINDOW_SECS,
        },
    }]
}

/// The reply to [`want_stats`]; `None` when it is stale.
pub(crate) fn on_stats(
    d: &mut super::DeliveriesState,
    req_id: u64,
    result: Result<crate::console::msg::ApiReply, crate::api::Error>,
) -> Option<Vec<crate::console::msg::Effect>> {
    use crate::console::msg::ApiReply;
    if d.stats_pending != Some(req_id) {
        return None;
    }
    d.stats_pending = None;
    let (_, shown) = d.stats.as_mut()?;
    *shown = Some(match result {
        Ok(ApiReply::Stats(s)) => Ok(*s),
        Ok(_) => Err("unexpected reply".into()),
        Err(e) => Err(e.to_string()),
    });
    Some(Vec::new())
}

/// Turns a drawn buffer into lines, keeping each cell's style (widgets drawn into text).
fn buffer_lines(buf: &ratatui::buffer::Buffer) -> Vec<ratatui::text::Line<'static>> {
    use ratatui::text::{Line, Span};
    let area = buf.area;
    (area.top()..area.bottom())
        .map(|y| {
            let spans: Vec<Span<'static>> = (area.left()..area.right())
                .filter_map(|x| buf.cell((x, y)))
                .map(|c| Span::styled(c.symbol().to_string(), c.style()))
                .collect();
            Line::from(spans)
        })
        .collect()
}

/// The style of an outcome.
fn outcome_style(
    o: crate::api::health::Outcome,
    theme: &crate::console::theme::Theme,
) -> ratatui::style::Style {
    use crate::api::health::Outcome;
    match o {
        Outcome::Succeeded => theme.ok,
        Outcome::Failed => theme.error,
        Outcome::Pending => theme.muted,
    }
}

/// A list row's glance: a sparkline of the newest deliveries (one bar each, height by duration,
/// colour by outcome, drawn by ratatui's `Sparkline`) and the success rate over them.
pub(crate) fn glance_spans(
    h: &crate::api::health::Health,
    theme: &crate::console::theme::Theme,
) -> Vec<ratatui::text::Span<'static>> {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::text::Span;
    use ratatui::widgets::{Sparkline, SparklineBar, Widget};
    if h.deliveries.is_empty() {
        return vec![Span::styled("no deliveries", theme.muted)];
    }
    let recent = &h.deliveries[h.deliveries.len().saturating_sub(GLANCE_BARS)..];
    let ms =
        |d: &crate::api::health::Delivery| u64::try_from(d.duration_ms.unwrap_or(0)).unwrap_or(0);
    let longest = recent.iter().map(ms).max().unwrap_or(0).max(1);
    let bars: Vec<SparklineBar> = recent
        .iter()
        .map(|d| {
            // Heights 1–8 by duration against the longest shown: every delivery gets a bar.
            // u128: a hostile server's duration may be near `i64::MAX`, and `* 7` must not wrap.
            let height =
                1 + u64::try_from(u128::from(ms(d)) * 7 / u128::from(longest)).unwrap_or(7);
            SparklineBar::from(height).style(Some(outcome_style(d.outcome, theme)))
        })
        .collect();
    let width = u16::try_from(bars.len()).unwrap_or(1);
    let area = Rect::new(0, 0, width, 1);
    let mut buf = Buffer::empty(area);
    Sparkline::default()
        .max(8)
        .data(bars)
        .render(area, &mut buf);
    // Right-aligned bars, so that the rates line up down the list.
    let pad = GLANCE_BARS.saturating_sub(recent.len());
    let mut spans: Vec<Span<'static>> = vec![Span::raw(" ".repeat(pad))];
    spans.extend(buffer_lines(&buf).into_iter().flat_map(|l| l.spans));
    let rate = h
        .success_percent()
        .map_or_else(|| "    —".to_string(), |p| format!(" {p:>3}%"));
    let tone = match h.success_percent() {
        Some(100) => theme.ok,
        Some(p) if p >= 90 => theme.warn,
        Some(_) => theme.error,
        None => theme.muted,
    };
    spans.push(Span::styled(rate, tone));
    spans
}

/// Outcomes over time for a destination's detail: the loaded deliveries in equal time slices,
/// succeeded and failed side by side in each (ratatui's `BarChart`), and the window covered.
pub(crate) fn timeline_lines(
    items: &[Notification],
    theme: &crate::console::theme::Theme,
    clock: &crate::console::clock::Clock,
    width: u16,
) -> Vec<ratatui::text::Line<'static>> {
    use crate::api::health::{Health as Recent, Outcome};
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::text::{Line, Span};
    use ratatui::widgets::{Bar, BarChart, BarGroup, Widget};
    let h = Recent::from_notifications(items);
    let Some((from, to)) = h.window() else {
        return Vec::new();
    };
    // Slices of the window: as many as fit (3 columns each), at most 16.
    let slices = usize::from(width / 3).clamp(1, 16);
    let span_ms = (to - from).num_milliseconds().max(1);
    let mut counts = vec![(0u64, 0u64); slices];
    for d in &h.deliveries {
        let at = (d.at - from).num_milliseconds();
        let i = usize::try_from(at.saturating_mul(i64::try_from(slices).unwrap_or(1)) / span_ms)
            .unwrap_or(0)
            .min(slices - 1);
        if let Some(c) = counts.get_mut(i) {
            match d.outcome {
                Outcome::Succeeded => c.0 += 1,
                Outcome::Failed => c.1 += 1,
                Outcome::Pending => {}
            }
        }
    }
    let mut chart = BarChart::default().bar_width(1).bar_gap(0).group_gap(1);
    for (ok, failed) in &counts {
        let bars = [
            Bar::default()
                .value(*ok)
                .text_value(String::new())
                .style(theme.ok),
            Bar::default()
                .value(*failed)
                .text_value(String::new())
                .style(theme.error),
        ];
        chart = chart.data(BarGroup::default().bars(&bars));
    }
    let area = Rect::new(0, 0, u16::try_from(slices * 3).unwrap_or(width), 4);
    let mut buf = Buffer::empty(area);
    chart.render(area, &mut buf);
    let mut out = vec![Line::from(vec![
        Span::styled("  ", theme.muted),
        Span::styled("▌succeeded", theme.ok),
        Span::raw(" "),
        Span::styled("▌failed", theme.error),
        Span::styled(format!("  {slices} time slices"), theme.muted),
    ])];
    out.insert(
        0,
        Line::from(vec![
            Span::styled("  Window ", theme.muted),
            Span::raw(format!(
                "{} → {} · {} loaded",
                clock.local(&from),
                window_end(&clock.local(&from), &clock.local(&to)),
                h.deliveries.len()
            )),
        ]),
    );
    for l in buffer_lines(&buf) {
        let mut spans = vec![Span::raw("  ")];
        spans.extend(l.spans);
        out.push(Line::from(spans));
    }
    out
}

/// The end of a window: only the time when it falls on the day it starts.
fn window_end<'a>(from: &str, to: &'a str) -> &'a str {
    match (from.split_once(' '), to.split_once(' ')) {
        (Some((day_a, _)), Some((day_b, time))) if day_a == day_b => time,
        _ => to,
    }
}

#[cfg(test)]
mod tests {
    use super::glance_spans;
    use crate::api::health::{Delivery, Health, Outcome};

    #[test]
    fn glance_takes_extreme_and_negative_durations() {
        let at = chrono::DateTime::UNIX_EPOCH;
        let d = |id: &str, ms: i64| Delivery {
            id: id.into(),
            outcome: Outcome::Succeeded,
            duration_ms: Some(ms),
            attempts: 1,
            at,
        };
        let h = Health {
            deliveries: vec![
                d("a", i64::MAX),
                d("b", i64::MAX - 1),
                d("c", -5),
                d("d", i64::MIN),
            ],
        };
        let spans = glance_spans(&h, &crate::console::theme::Theme::plain());
        let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(text.contains("100%"), "{text}");
    }
}
