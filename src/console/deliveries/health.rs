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

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), Some(50));
        assert_eq!(percentile(&v, 95), Some(95));
        assert_eq!(percentile(&[7], 95), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }
}
