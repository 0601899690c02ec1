//! Timestamps on the wire: ISO 8601 UTC with milliseconds (`2025-10-24T15:30:32.140Z`).
use chrono::{DateTime, Datelike, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// The wire text of a timestamp.
pub fn format(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Parses any ISO 8601 / RFC 3339 timestamp into UTC.
pub fn parse(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
        .or_else(|| {
            chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .map(|n| n.and_utc())
        })
}

/// An expiry as the user types it (`--expires-at`, the import form): ISO 8601, or `+N` with a unit `m`, `h`, `d` or `w` from now; returns ISO 8601.
pub fn parse_expires_at(s: &str) -> Result<String, String> {
    expires_at_from(s, Utc::now())
}

/// [`parse_expires_at`] against a given now (for tests).
fn expires_at_from(s: &str, now: DateTime<Utc>) -> Result<String, String> {
    let s = s.trim();
    let bad = || {
        format!("{s:?} is neither ISO 8601 (2026-01-31T00:00:00Z) nor relative (+90d, +12h, +30m)")
    };
    let Some(rel) = s.strip_prefix('+') else {
        return parse(s).map(|t| format(&t)).ok_or_else(bad);
    };
    let (unit_at, _) = rel.char_indices().last().ok_or_else(bad)?;
    let (n, unit) = rel.split_at(unit_at);
    let n: i64 = n.parse().ok().filter(|n| *n >= 0).ok_or_else(bad)?;
    let d = match unit {
        "m" => chrono::Duration::try_minutes(n),
        "h" => chrono::Duration::try_hours(n),
        "d" => chrono::Duration::try_days(n),
        "w" => chrono::Duration::try_weeks(n),
        _ => None,
    }
    .ok_or_else(bad)?;
    let t = now.checked_add_signed(d).ok_or_else(bad)?;
    // ISO 8601 has four-digit years; later ones would not read back anywhere.
    if t.year() > 9999 {
        return Err(format!("{s:?} lands after the year 9999"));
    }
    Ok(format(&t))
}

/// Serde for a required timestamp.
pub mod millis {
    use super::*;

    /// Writes the timestamp with milliseconds.
    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format(t))
    }

    /// Reads any ISO 8601 timestamp.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let s = String::deserialize(d)?;
        parse(&s).ok_or_else(|| serde::de::Error::custom(format!("invalid timestamp {s:?}")))
    }
}

/// Serde for a nullable timestamp.
pub mod millis_opt {
    use super::*;

    /// Writes the timestamp with milliseconds, or null.
    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&format(t)),
            None => s.serialize_none(),
        }
    }

    /// Reads a timestamp or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(s) => parse(&s)
                .map(Some)
                .ok_or_else(|| serde::de::Error::custom(format!("invalid timestamp {s:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_forms() {
        let now = parse("2026-01-01T00:00:00Z").expect("time");
        assert_eq!(
            expires_at_from("+90d", now).as_deref(),
            Ok("2026-04-01T00:00:00.000Z")
        );
        assert_eq!(
            expires_at_from("+12h", now).as_deref(),
            Ok("2026-01-01T12:00:00.000Z")
        );
        assert_eq!(
            expires_at_from("2026-03-04T05:06:07+02:00", now).as_deref(),
            Ok("2026-03-04T03:06:07.000Z")
        );
        assert_eq!(
            expires_at_from("2026-03-04", now).as_deref(),
            Ok("2026-03-04T00:00:00.000Z")
        );
        for bad in [
            "+",
            "+d",
            "+5y",
            "+99999999999999d",
            "tomorrow",
            "+-",
            "+-5d",
            "+5é",
        ] {
            assert!(expires_at_from(bad, now).is_err(), "{bad}");
        }
    }
}
