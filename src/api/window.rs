//! A view's time window (`since`, as `today` gives) over a list the platform cannot filter by
//! time (issue 38): event-destinations' deliveries (headless `list --view` and the console's
//! Deliveries) and callback-destinations' merged notifications. Such a list is read newest first
//! and its ids follow creation time, so the first item created before the window's start ends
//! it: the cost follows the window, never the whole history.
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::selection::PAGE;
use super::{ApiRequest, Client, Error, ListQuery, Order};

/// Whether `v` was created at or after `since`; one whose `created_at` does not read is not.
#[must_use]
pub fn within(v: &Value, since: DateTime<Utc>) -> bool {
    v.get("created_at")
        .and_then(Value::as_str)
        .and_then(super::model::time::parse)
        .is_some_and(|c| c >= since)
}

/// Cuts newest-first `items` at the first one created before `since`; whether the window ended
/// among them (everything after it is older still).
pub fn cut(items: &mut Vec<Value>, since: DateTime<Utc>) -> bool {
    match items.iter().position(|v| !within(v, since)) {
        Some(i) => {
            items.truncate(i);
            true
        }
        None => false,
    }
}

/// What a windowed walk read ([`walk`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    /// Items handed on (all in the window).
    pub listed: usize,
    /// Items read, the first older one included.
    pub examined: usize,
    /// The walk stopped at its `limit` with the list going on: the window may hold more.
    pub more: bool,
    /// The id to continue after (the last item handed on).
    pub last: Option<String>,
}

/// Walks a list newest first from `after` (the platform's filters are in `build`), handing
/// `seen` each page's items created since `since`, until the first older one, `limit` items
/// handed, the list's end, or `seen` saying stop; pages of `limit` (at most 100), within the
/// client's walk budget ([`super::lookup::walk`]).
///
/// # Errors
/// The API's; [`Error::TooManyPages`] past the budget, naming the `--after` id to continue
/// from (what was handed on stays handed on).
pub async fn walk(
    client: &Client,
    after: Option<String>,
    build: impl Fn(&ListQuery) -> ApiRequest,
    since: DateTime<Utc>,
    limit: usize,
    mut seen: impl FnMut(Vec<Value>) -> bool,
) -> Result<Walked, Error> {
    let page = u32::try_from(limit).unwrap_or(PAGE).clamp(1, PAGE);
    let q = ListQuery {
        limit: Some(page),
        after,
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let mut w = Walked::default();
    super::lookup::walk(client, q, build, |mut items: Vec<Value>| {
        w.examined += items.len();
        // A short page is the list's end.
        let full = items.len() >= page as usize;
        let ended = cut(&mut items, since);
        let room = limit.saturating_sub(w.listed);
        let beyond = items.len() > room;
        items.truncate(room);
        w.listed += items.len();
        if let Some(id) = items
            .last()
            .and_then(|v| v.get("id"))
            .and_then(Value::as_str)
        {
            w.last = Some(id.to_string());
        }
        let reached = w.listed >= limit;
        w.more = reached && !ended && (beyond || full);
        seen(items) && !ended && !reached
    })
    .await?;
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_newest_first_run_is_cut_at_the_first_older_item() {
        let since = super::super::model::time::parse("2026-01-31T00:00:00Z").expect("time");
        let item = |id: &str, at: &str| json!({"id": id, "created_at": at});
        let mut items = vec![
            item("c", "2026-01-31T10:00:00Z"),
            item("b", "2026-01-31T00:00:00Z"),
            item("a", "2026-01-30T23:59:59.999Z"),
            item("z", "2026-01-31T12:00:00Z"),
        ];
        assert!(cut(&mut items, since));
        let ids: Vec<&str> = items.iter().filter_map(|v| v["id"].as_str()).collect();
        assert_eq!(
            ids,
            ["c", "b"],
            "at the start is within; after the first older, none"
        );
        let mut all_new = vec![item("d", "2026-02-01T00:00:00Z")];
        assert!(!cut(&mut all_new, since));
        assert_eq!(all_new.len(), 1);
        assert!(!within(&json!({"id": "x", "created_at": "soon"}), since));
        assert!(!within(&json!({"id": "x"}), since));
    }
}
