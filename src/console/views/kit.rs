//! What every resource view draws with: list columns, the view context (clock, theme) and
//! its cell helpers, status tones, durations.
use chrono::{DateTime, Utc};
use ratatui::style::Style;
use ratatui::text::Span;

use crate::console::clock::Clock;
use crate::console::theme::Theme;

/// What views need besides the item: time and styles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewCtx<'a> {
    /// Time source.
    pub(crate) clock: &'a Clock,
    /// Styles.
    pub(crate) theme: &'a Theme,
}

impl ViewCtx<'_> {
    /// Local time and relative distance (`2025-10-24 17:30 (3 min ago)`).
    pub(crate) fn when(&self, t: &DateTime<Utc>) -> Span<'static> {
        Span::raw(self.clock.local_and_relative(t))
    }

    /// A status word with a symbol and a colour (never the colour alone).
    pub(crate) fn status(&self, word: &str, tone: Tone) -> Span<'static> {
        let (sym, style): (&str, Style) = match tone {
            Tone::Good => ("✓", self.theme.ok),
            Tone::Busy => ("↻", self.theme.warn),
            Tone::Waiting => ("…", self.theme.warn),
            Tone::Bad => ("✗", self.theme.error),
            Tone::Off => ("○", self.theme.muted),
            Tone::Unknown => ("?", self.theme.text),
        };
        Span::styled(format!("{sym} {word}"), style)
    }
}

pub(crate) use crate::resource::Tone;

/// `12 ms` or `10.0 s`.
pub(crate) fn duration_ms(ms: i64) -> String {
    // The API counts whole milliseconds: 0 is an answer within the first one (loopback), not
    // an instant one.
    if ms <= 0 {
        "<1 ms".into()
    } else if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// `every 30 s`, `every 5 min`, `every 2 h`.
pub(crate) fn interval(secs: i64) -> String {
    if secs > 0 && secs % 3600 == 0 {
        format!("{} h", secs / 3600)
    } else if secs > 0 && secs % 60 == 0 {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_loopback_delivery_does_not_read_zero_ms() {
        assert_eq!(super::duration_ms(0), "<1 ms");
        assert_eq!(super::duration_ms(7), "7 ms");
        assert_eq!(super::duration_ms(1500), "1.5 s");
    }
}
