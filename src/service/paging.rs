//! List queries (api.md §2): limit, order, after/before/cursor with their precedence, `cur_`
//! cursors and the four Union filter forms, read from the raw query string.
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

use super::errors::{Failure, issue};
use crate::api::{Order, Page, Pagination};

/// The query pairs of a raw query string, percent-decoded, in order.
pub fn parse_pairs(raw: Option<&str>) -> Vec<(String, String)> {
    raw.map(|q| {
        url::form_urlencoded::parse(q.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    })
    .unwrap_or_default()
}

/// Every value of a Union filter: `k=a`, `k=a&k=b`, `k[]=a`, `k[0]=a&k[1]=b`; empty ones dropped.
pub fn union(pairs: &[(String, String)], key: &str) -> Vec<String> {
    pairs
        .iter()
        .filter(|(k, v)| !v.is_empty() && union_key_matches(k, key))
        .map(|(_, v)| v.clone())
        .collect()
}

fn union_key_matches(k: &str, key: &str) -> bool {
    match k.strip_prefix(key) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(|inner| inner.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// Where a page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchor {
    /// The first page.
    Start,
    /// The items after this id.
    After(String),
    /// The items right before this id.
    Before(String),
}

/// A validated list query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListParams {
    /// 1–100.
    pub limit: usize,
    /// By id.
    pub order: Order,
    /// Where the page starts.
    pub anchor: Anchor,
}

/// A key's first value, empty included: `limit=` and `order=` are invalid, not absent (api.md §2).
fn given<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn single<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, v)| k == key && !v.is_empty())
        .map(|(_, v)| v.as_str())
}

impl ListParams {
    /// Validates `limit`, `order`, `after`, `before` and `cursor`.
    pub fn from_pairs(pairs: &[(String, String)]) -> Result<Self, Failure> {
        let mut issues = Vec::new();
        let limit = match given(pairs, "limit") {
            None => 20,
            Some(text) => match text.parse::<i64>() {
                Ok(n) if (1..=100).contains(&n) => n as usize,
                Ok(n) => {
                    let (code, word, bound) = if n < 1 {
                        ("invalid_min", "greater than or equal to", 1)
                    } else {
                        ("invalid_max", "less than or equal to", 100)
                    };
                    let mut i = issue(code, format!("Number must be {word} {bound}"), &["limit"]);
                    if n < 1 {
                        i.min = Some(Value::from(1));
                    } else {
                        i.max = Some(Value::from(100));
                    }
                    issues.push(i);
                    20
                }
                Err(_) => {
                    let mut i = issue(
                        "invalid_type",
                        "Invalid input, expected number, received string",
                        &["limit"],
                    );
                    i.expected = Some("number".into());
                    i.received = Some("string".into());
                    issues.push(i);
                    20
                }
            },
        };
        let order = match given(pairs, "order") {
            None => Order::Asc,
            Some(text) => text.parse::<Order>().unwrap_or_else(|_| {
                let mut i = issue(
                    "invalid_enum",
                    format!("Invalid enum value. Expected 'asc' | 'desc', received '{text}'"),
                    &["order"],
                );
                i.expected = Some(Value::from(vec!["asc", "desc"]));
                i.received = Some(text.into());
                issues.push(i);
                Order::Asc
            }),
        };
        if !issues.is_empty() {
            return Err(Failure::invalid("query", issues));
        }
        let anchor = if let Some(a) = single(pairs, "after") {
            Anchor::After(a.into())
        } else if let Some(b) = single(pairs, "before") {
            Anchor::Before(b.into())
        } else if let Some(c) = single(pairs, "cursor") {
            decode_cursor(c).ok_or_else(|| Failure::bad_request("Invalid cursor format"))?
        } else {
            Anchor::Start
        };
        Ok(Self {
            limit,
            order,
            anchor,
        })
    }
}

/// The opaque cursor for an anchor: `cur_` + base64url of `a:<id>` or `b:<id>`.
pub fn encode_cursor(anchor: &Anchor) -> Option<String> {
    let raw = match anchor {
        Anchor::Start => return None,
        Anchor::After(id) => format!("a:{id}"),
        Anchor::Before(id) => format!("b:{id}"),
    };
    Some(format!("cur_{}", URL_SAFE_NO_PAD.encode(raw)))
}

fn decode_cursor(c: &str) -> Option<Anchor> {
    let bytes = URL_SAFE_NO_PAD.decode(c.strip_prefix("cur_")?).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (dir, id) = text.split_once(':')?;
    if id.is_empty() {
        return None;
    }
    match dir {
        "a" => Some(Anchor::After(id.into())),
        "b" => Some(Anchor::Before(id.into())),
        _ => None,
    }
}

/// Cuts one page out of `items` (sorted by ascending id).
pub fn paginate<T>(mut items: Vec<T>, id: impl Fn(&T) -> &str, p: &ListParams) -> Page<T> {
    if p.order == Order::Desc {
        items.reverse();
    }
    let position = |x: &str| items.iter().position(|i| id(i) == x);
    let (range, pagination) = match &p.anchor {
        Anchor::Start => (
            0..p.limit.min(items.len()),
            Pagination {
                has_more_before: false,
                has_more_after: items.len() > p.limit,
            },
        ),
        Anchor::After(x) => match position(x) {
            None => return Page::default(),
            Some(pos) => {
                let start = pos + 1;
                let end = (start + p.limit).min(items.len());
                (
                    start..end,
                    Pagination {
                        has_more_before: true,
                        has_more_after: end < items.len(),
                    },
                )
            }
        },
        Anchor::Before(x) => match position(x) {
            None => return Page::default(),
            Some(pos) => {
                let start = pos.saturating_sub(p.limit);
                (
                    start..pos,
                    Pagination {
                        has_more_before: start > 0,
                        has_more_after: true,
                    },
                )
            }
        },
    };
    let items = items
        .into_iter()
        .skip(range.start)
        .take(range.end - range.start)
        .collect();
    Page { items, pagination }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        parse_pairs(Some(q))
    }

    #[test]
    fn all_four_union_forms_are_read() {
        let p = pairs(
            "callback_id=a&callback_id=b&callback_id[]=c&callback_id[0]=d&callback_id[x]=e&callback_id=&event_id=f,g",
        );
        assert_eq!(union(&p, "callback_id"), ["a", "b", "c", "d"]);
        assert_eq!(union(&p, "event_id"), ["f,g"]);
    }

    #[test]
    fn cursors_round_trip_and_bad_ones_fail() {
        let a = Anchor::After("tm_1".into());
        let c = encode_cursor(&a).expect("cursor");
        assert_eq!(decode_cursor(&c), Some(a));
        assert_eq!(decode_cursor("tm_1"), None);
        assert_eq!(decode_cursor("cur_!!"), None);
    }
}
