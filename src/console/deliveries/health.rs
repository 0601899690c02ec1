//! Destination health over the notifications the console loaded: counts, success rate, latency.
use crate::api::model::{Notification, NotificationStatus};

/// How many of a destination's latest notifications are looked at.
pub(crate) const HEALTH_SAMPLE: usize = 200;

/// Statistics over loaded notifications.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Health {
    /// Notifications looked at.
    pub total: usize,
    /// Succeeded.
    pub succeeded: usize,
    /// Retrying.
    pub retrying: usize,
    /// Pending.
    pub pending: usize,
    /// Failed.
    pub failed: usize,
    /// Any other status.
    pub other: usize,
    /// Median duration of the last attempts, ms.
    pub median_ms: Option<i64>,
    /// 95th percentile of the same, ms.
    pub p95_ms: Option<i64>,
}

impl Health {
    /// Succeeded out of those that finished (succeeded + failed), in percent.
    pub(crate) fn success_rate(&self) -> Option<f64> {
        let done = self.succeeded + self.failed;
        (done > 0).then(|| self.succeeded as f64 * 100.0 / done as f64)
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[i64], p: usize) -> Option<i64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// Computes the health of up to [`HEALTH_SAMPLE`] notifications.
pub fn compute<'a>(items: impl IntoIterator<Item = &'a Notification>) -> Health {
    let mut h = Health::default();
    let mut durations = Vec::new();
    for n in items.into_iter().take(HEALTH_SAMPLE) {
        h.total += 1;
        match n.status {
            NotificationStatus::Succeeded => h.succeeded += 1,
            NotificationStatus::Retrying => h.retrying += 1,
            NotificationStatus::Pending => h.pending += 1,
            NotificationStatus::Failed => h.failed += 1,
            NotificationStatus::Other(_) => h.other += 1,
        }
        if let Some(r) = n.last_attempt().and_then(|a| a.webhook_request.as_ref()) {
            durations.push(r.duration);
        }
    }
    durations.sort_unstable();
    h.median_ms = percentile(&durations, 50);
    h.p95_ms = percentile(&durations, 95);
    h
}

/// How many of each listed destination's newest notifications its sparkline is drawn from.
pub const GLANCE_SAMPLE: u32 = 50;

/// Bars in a list row's sparkline (the newest deliveries that fit).
pub(crate) const GLANCE_BARS: usize = 12;

/// Asks, in the background, for the recent deliveries of listed destinations not asked yet.
pub(crate) fn want_glance(
    state: &mut crate::console::state::State,
) -> Vec<crate::console::msg::Effect> {
    use crate::console::msg::{ApiCmd, Effect, Pane};
    use crate::console::record::Item;
    use crate::console::tab::Tab;
    if state.deliveries.glance_pending.is_some() {
        return Vec::new();
    }
    let ids: Vec<String> = state
        .tab_state(Tab::Destinations)
        .list
        .rows
        .iter()
        .filter_map(|r| match &r.item {
            Item::Destination(d) => Some(d.id.clone()),
            _ => None,
        })
        .filter(|id| !state.deliveries.glance_asked.contains(id))
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    let req_id = state.next_req_id();
    let d = &mut state.deliveries;
    d.glance_asked.extend(ids.iter().cloned());
    d.glance_pending = Some(req_id);
    vec![Effect::Api {
        req_id,
        pane: Pane::Glance,
        cmd: ApiCmd::Glance(ids),
    }]
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
pub fn glance_spans(
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
pub fn timeline_lines(
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
    use super::{glance_spans, percentile};
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

    #[test]
    fn nearest_rank() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), Some(50));
        assert_eq!(percentile(&v, 95), Some(95));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }
}
