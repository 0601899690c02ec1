//! "Now" and the local offset, injected so that snapshots are stable; relative time text.
use chrono::{DateTime, FixedOffset, Offset, TimeZone, Utc};

/// Where the console reads the time from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The system clock and time zone.
    System,
    /// A frozen instant and offset (tests, snapshots).
    Fixed {
        /// The instant taken as now.
        now: DateTime<Utc>,
        /// The local offset.
        offset: FixedOffset,
    },
}

impl Clock {
    /// The current instant.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        match self {
            Clock::System => Utc::now(),
            Clock::Fixed { now, .. } => *now,
        }
    }

    /// The local offset at an instant.
    pub(crate) fn offset_at(&self, t: &DateTime<Utc>) -> FixedOffset {
        match self {
            Clock::System => chrono::Local.offset_from_utc_datetime(&t.naive_utc()).fix(),
            Clock::Fixed { offset, .. } => *offset,
        }
    }

    /// `2025-10-24 17:30` in local time.
    pub(crate) fn local(&self, t: &DateTime<Utc>) -> String {
        t.with_timezone(&self.offset_at(t))
            .format("%Y-%m-%d %H:%M")
            .to_string()
    }

    /// `2025-10-24 17:30 (3 min ago)`.
    pub(crate) fn local_and_relative(&self, t: &DateTime<Utc>) -> String {
        format!("{} ({})", self.local(t), relative(self.now(), *t))
    }

    /// `3 min ago` / `in 2 h` relative to now.
    pub(crate) fn relative(&self, t: &DateTime<Utc>) -> String {
        relative(self.now(), *t)
    }
}

/// Human text for the distance between `now` and `t`: `just now`, `3 min ago`, `in 2 h`, `5 d ago`.
pub(crate) fn relative(now: DateTime<Utc>, t: DateTime<Utc>) -> String {
    let secs = (now - t).num_seconds();
    let future = secs < 0;
    let s = secs.unsigned_abs();
    if s < 45 {
        return if future { "in a moment" } else { "just now" }.into();
    }
    let amount = if s < 60 * 60 {
        format!("{} min", s.div_ceil(60).max(1))
    } else if s < 48 * 3600 {
        format!("{} h", s / 3600)
    } else if s < 60 * 86400 {
        format!("{} d", s / 86400)
    } else if s < 730 * 86400 {
        format!("{} mo", s / (30 * 86400))
    } else {
        format!("{} y", s / (365 * 86400))
    };
    if future {
        format!("in {amount}")
    } else {
        format!("{amount} ago")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        crate::api::model::time::parse(s).expect("valid time")
    }

    #[test]
    fn relative_covers_past_and_future() {
        let now = at("2025-10-24T16:00:00Z");
        assert_eq!(relative(now, at("2025-10-24T15:59:50Z")), "just now");
        assert_eq!(relative(now, at("2025-10-24T15:57:00Z")), "3 min ago");
        assert_eq!(relative(now, at("2025-10-24T13:00:00Z")), "3 h ago");
        assert_eq!(relative(now, at("2025-10-20T16:00:00Z")), "4 d ago");
        assert_eq!(relative(now, at("2025-10-24T18:00:00Z")), "in 2 h");
    }

    #[test]
    fn fixed_clock_uses_its_offset() {
        let c = Clock::Fixed {
            now: at("2025-10-24T16:00:00Z"),
            offset: FixedOffset::east_opt(3600).expect("offset"),
        };
        assert_eq!(c.local(&at("2025-10-24T15:30:00Z")), "2025-10-24 16:30");
    }
}
