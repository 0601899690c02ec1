//! Time-sortable ids (api.md §1): `<prefix>_` + 9 base-36 chars of millisecond time + 13 random
//! alphanumerics.
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Utc};
use rand::Rng;

const BASE36: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
const ALNUM: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The last millisecond handed out, so ids made in one process sort in creation order.
static LAST_MS: AtomicI64 = AtomicI64::new(0);

/// Milliseconds the service's clock runs ahead of the machine's: `serve --test-clock-skew-secs`,
/// for tests of clients under a skewed server clock only; zero otherwise.
static SKEW_MS: AtomicI64 = AtomicI64::new(0);

/// Skews the service's clock (tests only; see [`SKEW_MS`]).
pub fn skew_clock(ms: i64) {
    SKEW_MS.store(ms, Ordering::Relaxed);
}

/// The service's clock: the machine's, unless skewed for a test.
pub fn now() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::milliseconds(SKEW_MS.load(Ordering::Relaxed))
}

/// The `Date` header of a skewed clock (`None` unskewed: the server's own is right).
pub fn skewed_date() -> Option<String> {
    (SKEW_MS.load(Ordering::Relaxed) != 0)
        .then(|| now().format("%a, %d %b %Y %H:%M:%S GMT").to_string())
}

/// A new id for `prefix`, later than every id this process made before.
pub fn new_id(prefix: &str) -> String {
    let now = now().timestamp_millis();
    let mut prev = LAST_MS.load(Ordering::Relaxed);
    let ms = loop {
        let next = now.max(prev + 1);
        match LAST_MS.compare_exchange(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break next,
            Err(p) => prev = p,
        }
    };
    id_for_millis(prefix, ms)
}

/// Starts the id clock after the newest of `ids` (stored ones): after a restart with a clock
/// that stepped back, new ids still sort after the old.
pub fn start_after<'a>(ids: impl IntoIterator<Item = &'a str>) {
    let newest = ids.into_iter().filter_map(millis_of).max().unwrap_or(0);
    LAST_MS.fetch_max(newest, Ordering::Relaxed);
}

/// The time part of an id, in unix ms.
fn millis_of(id: &str) -> Option<i64> {
    let (_, rest) = id.rsplit_once('_')?;
    let time = rest.get(..9)?;
    let mut n: i64 = 0;
    for b in time.bytes() {
        let digit = BASE36.iter().position(|c| *c == b)?;
        n = n.checked_mul(36)?.checked_add(i64::try_from(digit).ok()?)?;
    }
    Some(n)
}

/// An id stamped with a given (usually past) time, for seed data.
pub fn id_at(prefix: &str, t: DateTime<Utc>) -> String {
    id_for_millis(prefix, t.timestamp_millis())
}

fn id_for_millis(prefix: &str, ms: i64) -> String {
    let mut n = u64::try_from(ms).unwrap_or(0);
    let mut time = [b'0'; 9];
    for slot in time.iter_mut().rev() {
        *slot = BASE36[(n % 36) as usize];
        n /= 36;
    }
    let mut out = String::with_capacity(prefix.len() + 23);
    out.push_str(prefix);
    out.push('_');
    out.extend(time.iter().map(|b| *b as char));
    out.push_str(&random_alnum(13));
    out
}

/// `n` random ASCII letters and digits.
pub fn random_alnum(n: usize) -> String {
    let mut rng = rand::rng();
    (0..n)
        .map(|_| ALNUM[rng.random_range(0..ALNUM.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_shape_and_sort_by_creation() {
        let a = new_id("tm");
        let b = new_id("tm");
        assert_eq!(a.len(), "tm_".len() + 22);
        assert!(a < b, "{a} should sort before {b}");
    }

    #[test]
    fn the_clock_starts_after_the_newest_stored_id() {
        let ahead = Utc::now() + chrono::Duration::hours(2);
        let stored = id_at("tm", ahead);
        assert_eq!(millis_of(&stored), Some(ahead.timestamp_millis()));
        start_after([stored.as_str(), "junk", "x_!!!!!!!!!"]);
        let next = new_id("tm");
        assert!(next > stored, "{next} should sort after {stored}");
    }
}
