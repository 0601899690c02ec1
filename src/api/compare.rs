//! Comparing two answers of a receiver (issue 27): two recorded attempts, a recorded attempt and a
//! replayed or forwarded answer. Status, duration, headers (through the one redaction policy) and
//! the body: as JSON when both bodies are JSON (keys in order, changed values marked), line by
//! line otherwise. No UI here. Every string of a [`Comparison`] has been through the one
//! sanitizer already, so whatever shows it (a table, JSON, a console pane) cannot forget to.
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::model::Attempt;
use super::replay::ReplayResult;
use crate::text::redact::{HeaderOrigin, header_value_from};
use crate::text::sanitize::{line, lines};

/// How long the line diff may search for the shortest edit before settling for a longer one.
const LINE_DIFF_TIME: Duration = Duration::from_millis(500);
/// Body rows listed at most: past it, only rows that differ are listed (up to this many) and
/// the rest are counted in [`Comparison::omitted`], so two large answers make a bounded result.
pub const MAX_ROWS: usize = 2_000;
/// Bytes of one value or line shown; a longer one is cut and says how long it was.
const MAX_CELL: usize = 2_000;

/// One side of a comparison: an answer as recorded or as received (receiver text, raw).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// What it is, e.g. `attempt #2` or `replay 1 (to http://localhost:3000/in)`.
    pub label: String,
    /// The status; `None` when no answer came.
    pub status: Option<i64>,
    /// Milliseconds from sending to the end of the answer.
    pub duration_ms: Option<u64>,
    /// The answer's headers, as received.
    pub headers: Vec<(String, String)>,
    /// The answer's body, as received.
    pub body: Option<String>,
    /// Why no (whole) answer came.
    pub error: Option<String>,
    /// Who wrote the headers: the answer's one masking verdict, the same wherever it is shown
    /// (the replay room, compare, `notifications diff`).
    pub origin: HeaderOrigin,
}

impl Answer {
    /// The answer recorded in attempt `a`; `None` when the attempt recorded no exchange.
    #[must_use]
    pub fn from_attempt(a: &Attempt) -> Option<Self> {
        let r = a.webhook_request.as_ref()?;
        Some(Self {
            label: format!("attempt #{}", a.number()),
            status: r.has_response().then_some(r.response_status),
            duration_ms: u64::try_from(r.duration).ok(),
            headers: r
                .response_headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            body: r.response_body.clone(),
            error: r.request_error.clone(),
            // Recorded by the platform: fail closed, as `notifications get` shows it.
            origin: HeaderOrigin::Elsewhere,
        })
    }

    /// A replayed (or forwarded) answer, labelled `label`.
    #[must_use]
    pub fn from_replay(label: impl Into<String>, r: &ReplayResult) -> Self {
        Self {
            label: label.into(),
            status: r.status.map(i64::from),
            duration_ms: u64::try_from(r.duration.as_millis()).ok(),
            headers: r.headers.list.clone(),
            body: r.body.clone(),
            error: r.error.as_ref().map(ToString::to_string),
            origin: r.headers.origin,
        }
    }
}

/// How one row differs between the two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The same on both sides.
    Same,
    /// On both sides, with different values.
    Changed,
    /// Only on the right.
    Added,
    /// Only on the left.
    Removed,
}

impl Change {
    /// The mark shown before a row: ` `, `~`, `+`, `-`.
    #[must_use]
    pub fn mark(self) -> char {
        match self {
            Change::Same => ' ',
            Change::Changed => '~',
            Change::Added => '+',
            Change::Removed => '-',
        }
    }

    fn of<T: PartialEq>(left: Option<&T>, right: Option<&T>) -> Self {
        match (left, right) {
            (Some(l), Some(r)) if l == r => Change::Same,
            (Some(_), Some(_)) => Change::Changed,
            (None, Some(_)) => Change::Added,
            (Some(_), None) => Change::Removed,
            (None, None) => Change::Same,
        }
    }
}

/// A side's summary line: label, status, duration and error (sanitised).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Side {
    /// What it is.
    pub label: String,
    /// The status; `None` when no answer came.
    pub status: Option<i64>,
    /// Milliseconds.
    pub duration_ms: Option<u64>,
    /// Why no (whole) answer came.
    pub error: Option<String>,
}

/// A header on either side: its value through the redaction policy, then the sanitizer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeaderRow {
    /// The name (lowercase).
    pub name: String,
    /// The left value, masked when the policy hides it.
    pub left: Option<String>,
    /// The right value, masked when the policy hides it.
    pub right: Option<String>,
    /// How it differs (compared before masking, so a changed secret still shows as changed).
    pub change: Change,
}

/// A leaf of the JSON bodies: its path and compact value on each side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonRow {
    /// `$`, `$.payload.build`, `$.items[0]`.
    pub path: String,
    /// The left value as compact JSON.
    pub left: Option<String>,
    /// The right value as compact JSON.
    pub right: Option<String>,
    /// How it differs.
    pub change: Change,
}

/// A line of the line-by-line comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineRow {
    /// [`Change::Same`], [`Change::Removed`] (left only) or [`Change::Added`] (right only).
    pub change: Change,
    /// Line number on the left, from 1.
    pub left_line: Option<usize>,
    /// Line number on the right, from 1.
    pub right_line: Option<usize>,
    /// The line.
    pub text: String,
}

/// How the bodies compare.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "mode", content = "rows", rename_all = "snake_case")]
pub enum BodyDiff {
    /// Both bodies are JSON: leaf by leaf, keys in the left's order, then the right's new ones.
    Json(Vec<JsonRow>),
    /// Otherwise: line by line.
    Lines(Vec<LineRow>),
}

impl BodyDiff {
    /// Whether any row differs.
    #[must_use]
    pub fn differs(&self) -> bool {
        match self {
            BodyDiff::Json(rows) => rows.iter().any(|r| r.change != Change::Same),
            BodyDiff::Lines(rows) => rows.iter().any(|r| r.change != Change::Same),
        }
    }
}

/// Two answers side by side. Every string in it is sanitised, and header values masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Comparison {
    /// The left side.
    pub left: Side,
    /// The right side.
    pub right: Side,
    /// Whether the statuses differ.
    pub status_changed: bool,
    /// Right minus left, in milliseconds, when both are known.
    pub duration_delta_ms: Option<i64>,
    /// Every header of either side.
    pub headers: Vec<HeaderRow>,
    /// The bodies.
    pub body: BodyDiff,
    /// Body rows not listed (past [`MAX_ROWS`]).
    #[serde(skip_serializing_if = "Omitted::is_none")]
    pub omitted: Omitted,
}

/// Body rows a comparison does not list, and how many of those differ.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Omitted {
    /// Rows not listed.
    pub rows: usize,
    /// Of those, rows that differ.
    pub changed: usize,
}

impl Omitted {
    /// Whether every row is listed.
    #[must_use]
    pub fn is_none(&self) -> bool {
        self.rows == 0
    }
}

impl Comparison {
    /// Whether the two answers differ in status, a header or the body.
    #[must_use]
    pub fn differs(&self) -> bool {
        self.status_changed
            || self.headers.iter().any(|h| h.change != Change::Same)
            || self.body.differs()
            || self.omitted.changed > 0
    }
}

/// Compares `left` with `right`.
#[must_use]
pub fn compare(left: &Answer, right: &Answer) -> Comparison {
    let side = |a: &Answer| Side {
        label: line(&a.label).into_owned(),
        status: a.status,
        duration_ms: a.duration_ms,
        error: a.error.as_deref().map(|e| line(e).into_owned()),
    };
    let duration_delta_ms = match (left.duration_ms, right.duration_ms) {
        (Some(l), Some(r)) => i64::try_from(r)
            .ok()
            .zip(i64::try_from(l).ok())
            .map(|(r, l)| r.saturating_sub(l)),
        _ => None,
    };
    let (body, omitted) = body(
        left.body.as_deref().unwrap_or_default(),
        right.body.as_deref().unwrap_or_default(),
    );
    Comparison {
        left: side(left),
        right: side(right),
        status_changed: left.status != right.status,
        duration_delta_ms,
        headers: headers(left, right),
        body,
        omitted,
    }
}

fn headers(left_answer: &Answer, right_answer: &Answer) -> Vec<HeaderRow> {
    let (left, right) = (&left_answer.headers, &right_answer.headers);
    let find = |hs: &[(String, String)], name: &str| {
        hs.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut names: Vec<String> = Vec::new();
    for (k, _) in left.iter().chain(right) {
        let k = k.to_ascii_lowercase();
        if !names.contains(&k) {
            names.push(k);
        }
    }
    names
        .into_iter()
        .map(|name| {
            let (l, r) = (find(left, &name), find(right, &name));
            // Each side keeps its own answer's verdict (an own receiver's header shows here as
            // it did in the replay room).
            let show = |origin: HeaderOrigin, v: Option<String>| {
                v.map(|v| line(header_value_from(origin, &name, &v, false)).into_owned())
            };
            HeaderRow {
                change: Change::of(l.as_ref(), r.as_ref()),
                left: show(left_answer.origin, l),
                right: show(right_answer.origin, r),
                name: line(&name).into_owned(),
            }
        })
        .collect()
}

/// A body as JSON: only an object or an array counts (a bare `"ok"` or `42` reads better as a
/// line). Checked without building it: the comparison reads it a level at a time.
fn as_json(body: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(body)
        .ok()
        .filter(|v| matches!(v.get().as_bytes().first(), Some(b'{' | b'[')))
}

fn body(left: &str, right: &str) -> (BodyDiff, Omitted) {
    match (as_json(left), as_json(right)) {
        (Some(l), Some(r)) => {
            let mut count = Keep::counting();
            json_rows(&mut Vec::new(), Some(l), Some(r), &mut count);
            let mut keep = count.then();
            json_rows(&mut Vec::new(), Some(l), Some(r), &mut keep);
            let omitted = keep.omitted();
            (BodyDiff::Json(keep.rows), omitted)
        }
        _ => {
            let (rows, omitted) = line_rows(left, right);
            (BodyDiff::Lines(rows), omitted)
        }
    }
}

/// One level of a JSON body: its members as text not yet read, or a value. Only the levels on
/// the path being compared are read, so memory follows the body's breadth, not its whole tree.
enum Node<'a> {
    Object(Vec<(String, &'a RawValue)>),
    Array(Vec<&'a RawValue>),
    Leaf(Value),
}

/// An object's members in order; a repeated key keeps its first place and its last value, as
/// a parsed object does.
struct Members<'a>(Vec<(String, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut out: Vec<(String, &'de RawValue)> = Vec::new();
                let mut at: HashMap<String, usize> = HashMap::new();
                while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                    match at.get(&k) {
                        Some(&i) => out[i].1 = v,
                        None => {
                            at.insert(k.clone(), out.len());
                            out.push((k, v));
                        }
                    }
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

fn node(raw: &RawValue) -> Node<'_> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'{') => serde_json::from_str::<Members>(text)
            .map_or(Node::Leaf(Value::Null), |m| Node::Object(m.0)),
        Some(b'[') => serde_json::from_str::<Vec<&RawValue>>(text)
            .map_or(Node::Leaf(Value::Null), Node::Array),
        _ => Node::Leaf(serde_json::from_str(text).unwrap_or(Value::Null)),
    }
}

/// Which rows are listed: every row when they are at most [`MAX_ROWS`], else only those that
/// differ (at most [`MAX_ROWS`]); counted in a first pass, listed in a second.
struct Keep<T> {
    /// Rows and rows that differ, as counted (first pass) or to come (second).
    total: usize,
    changed: usize,
    listing: bool,
    only_changed: bool,
    rows: Vec<T>,
    listed_changed: usize,
}

impl<T> Keep<T> {
    fn counting() -> Self {
        Self {
            total: 0,
            changed: 0,
            listing: false,
            only_changed: false,
            rows: Vec::new(),
            listed_changed: 0,
        }
    }

    /// The second pass, after counting.
    fn then(self) -> Self {
        Self {
            listing: true,
            only_changed: self.total > MAX_ROWS,
            ..self
        }
    }

    /// Offers a row: counts it, or lists it (built by `make`) if it is kept.
    fn offer(&mut self, change: Change, make: impl FnOnce() -> T) {
        if !self.listing {
            self.total += 1;
            self.changed += usize::from(change != Change::Same);
            return;
        }
        if self.rows.len() >= MAX_ROWS || (self.only_changed && change == Change::Same) {
            return;
        }
        self.listed_changed += usize::from(change != Change::Same);
        self.rows.push(make());
    }

    fn omitted(&self) -> Omitted {
        Omitted {
            rows: self.total - self.rows.len(),
            changed: self.changed - self.listed_changed,
        }
    }
}

/// `text` cut to [`MAX_CELL`] bytes (at a character boundary), saying how long it was.
fn capped(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_CELL {
        return text.into();
    }
    let mut end = MAX_CELL;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…({} bytes)", &text[..end], text.len()).into()
}

fn compact(v: &Value) -> String {
    line(&capped(&v.to_string())).into_owned()
}

/// A node's value as compact JSON (a member that is an object or an array is read whole here,
/// for the rows listed only).
fn compact_node(n: &Node<'_>, raw: &RawValue) -> String {
    match n {
        Node::Leaf(v) => compact(v),
        _ => serde_json::from_str::<Value>(raw.get())
            .map_or_else(|_| line(&capped(raw.get())).into_owned(), |v| compact(&v)),
    }
}

/// A step of a path into a JSON body.
enum Step {
    Key(String),
    Index(usize),
}

fn path_text(steps: &[Step]) -> String {
    let mut path = String::from("$");
    for s in steps {
        path = match s {
            Step::Key(k) => key_path(&path, k),
            Step::Index(i) => format!("{path}[{i}]"),
        };
    }
    line(&capped(&path)).into_owned()
}

fn json_rows(
    path: &mut Vec<Step>,
    l: Option<&RawValue>,
    r: Option<&RawValue>,
    out: &mut Keep<JsonRow>,
) {
    let (ln, rn) = (l.map(node), r.map(node));
    match (&ln, &rn) {
        (Some(Node::Object(lo)), Some(Node::Object(ro))) if !(lo.is_empty() && ro.is_empty()) => {
            // The left's keys in its order, then the keys only the right has, in its order.
            let right: HashMap<&str, &RawValue> =
                ro.iter().map(|(k, v)| (k.as_str(), *v)).collect();
            let left: HashSet<&str> = lo.iter().map(|(k, _)| k.as_str()).collect();
            for (k, lv) in lo {
                path.push(Step::Key(k.clone()));
                json_rows(path, Some(lv), right.get(k.as_str()).copied(), out);
                path.pop();
            }
            for (k, rv) in ro.iter().filter(|(k, _)| !left.contains(k.as_str())) {
                path.push(Step::Key(k.clone()));
                json_rows(path, None, Some(rv), out);
                path.pop();
            }
        }
        (Some(Node::Array(la)), Some(Node::Array(ra))) if !(la.is_empty() && ra.is_empty()) => {
            for i in 0..la.len().max(ra.len()) {
                path.push(Step::Index(i));
                json_rows(path, la.get(i).copied(), ra.get(i).copied(), out);
                path.pop();
            }
        }
        _ => {
            let change = match (&ln, &rn) {
                (Some(Node::Leaf(a)), Some(Node::Leaf(b))) => Change::of(Some(a), Some(b)),
                // Two empty objects, or two empty arrays.
                (Some(Node::Object(_)), Some(Node::Object(_)))
                | (Some(Node::Array(_)), Some(Node::Array(_))) => Change::Same,
                (Some(_), Some(_)) => Change::Changed,
                (None, Some(_)) => Change::Added,
                (Some(_), None) => Change::Removed,
                (None, None) => Change::Same,
            };
            out.offer(change, || JsonRow {
                path: path_text(path),
                left: ln.as_ref().zip(l).map(|(n, raw)| compact_node(n, raw)),
                right: rn.as_ref().zip(r).map(|(n, raw)| compact_node(n, raw)),
                change,
            });
        }
    }
}

fn key_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

fn line_rows(left: &str, right: &str) -> (Vec<LineRow>, Omitted) {
    let diff = similar::TextDiff::configure()
        .timeout(LINE_DIFF_TIME)
        .diff_lines(left, right);
    let change_of = |c: &similar::Change<&str>| match c.tag() {
        similar::ChangeTag::Equal => Change::Same,
        similar::ChangeTag::Delete => Change::Removed,
        similar::ChangeTag::Insert => Change::Added,
    };
    let mut keep = Keep::counting();
    for listing in [false, true] {
        if listing {
            keep = keep.then();
        }
        for c in diff.iter_all_changes() {
            let change = change_of(&c);
            keep.offer(change, || {
                // One diff line is one text line: its ending goes, any other break a marker.
                let text = lines(&capped(c.value().trim_end_matches(['\n', '\r']))).join("⏎");
                LineRow {
                    change,
                    left_line: c.old_index().map(|i| i + 1),
                    right_line: c.new_index().map(|i| i + 1),
                    text,
                }
            });
        }
    }
    let omitted = keep.omitted();
    (keep.rows, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: i64, headers: &[(&str, &str)], body: &str) -> Answer {
        Answer {
            label: "a".into(),
            status: Some(status),
            duration_ms: Some(5),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            body: Some(body.into()),
            error: None,
            origin: HeaderOrigin::Elsewhere,
        }
    }

    #[test]
    fn json_bodies_compare_leaf_by_leaf_in_key_order() {
        let l = answer(500, &[], r#"{"ok":false,"n":{"a":1,"b":[1,2]},"gone":1}"#);
        let r = answer(200, &[], r#"{"ok":true,"n":{"a":1,"b":[1,3,4]},"new":"x"}"#);
        let c = compare(&l, &r);
        assert!(c.status_changed && c.differs());
        let BodyDiff::Json(rows) = &c.body else {
            panic!("json expected: {:?}", c.body)
        };
        let got: Vec<(&str, Change)> = rows.iter().map(|r| (r.path.as_str(), r.change)).collect();
        assert_eq!(
            got,
            [
                ("$.ok", Change::Changed),
                ("$.n.a", Change::Same),
                ("$.n.b[0]", Change::Same),
                ("$.n.b[1]", Change::Changed),
                ("$.n.b[2]", Change::Added),
                ("$.gone", Change::Removed),
                ("$.new", Change::Added),
            ]
        );
        assert_eq!(rows[0].left.as_deref(), Some("false"));
        assert_eq!(rows[0].right.as_deref(), Some("true"));
    }

    #[test]
    fn other_bodies_compare_line_by_line_and_are_sanitised() {
        let l = answer(500, &[], "boom\n\u{1b}]0;PWNED\u{7}\ntrace");
        let r = answer(200, &[], "ok");
        let c = compare(&l, &r);
        let BodyDiff::Lines(rows) = &c.body else {
            panic!("lines expected")
        };
        assert!(rows.iter().all(|r| !r.text.contains('\u{1b}')));
        assert!(
            rows.iter()
                .any(|r| r.change == Change::Added && r.text == "ok")
        );
        assert_eq!(
            rows.iter().filter(|r| r.change == Change::Removed).count(),
            3
        );
    }

    #[test]
    fn large_bodies_list_a_bounded_number_of_rows_differences_first() {
        let body = |flip: usize| {
            let items: Vec<Value> = (0..MAX_ROWS * 3)
                .map(|i| serde_json::json!({"id": i, "ok": i % 1000 != flip}))
                .collect();
            serde_json::json!({ "items": items }).to_string()
        };
        let c = compare(&answer(200, &[], &body(0)), &answer(200, &[], &body(1)));
        let BodyDiff::Json(rows) = &c.body else {
            panic!("json expected")
        };
        // 6,000 items of two leaves: only the rows that differ are listed, the rest counted.
        assert!(rows.iter().all(|r| r.change == Change::Changed));
        assert_eq!(rows.len(), 12);
        assert_eq!(c.omitted.rows, MAX_ROWS * 6 - 12);
        assert_eq!(c.omitted.changed, 0);
        assert!(c.differs());

        let long = "x".repeat(MAX_CELL * 10);
        let lines_l = (0..MAX_ROWS * 2)
            .map(|i| format!("{i} {long}"))
            .collect::<Vec<_>>()
            .join("\n");
        let c = compare(&answer(200, &[], &lines_l), &answer(200, &[], "other"));
        let BodyDiff::Lines(rows) = &c.body else {
            panic!("lines expected")
        };
        assert_eq!(rows.len(), MAX_ROWS);
        assert_eq!(c.omitted.rows, MAX_ROWS + 1);
        assert_eq!(c.omitted.changed, MAX_ROWS + 1);
        assert!(rows.iter().all(|r| r.text.len() < MAX_CELL + 100));
    }

    #[test]
    fn bodies_are_read_a_level_at_a_time_as_parsed_ones_compare() {
        let l = answer(
            200,
            &[],
            " {\"a\": {}, \"b\": [ ], \"c\": {\"x\": 1}, \"d\": 1, \"d\": 2}",
        );
        let r = answer(200, &[], r#"{"a":{},"b":{},"c":"s","d":2,"e\u0041":[1]}"#);
        let c = compare(&l, &r);
        let BodyDiff::Json(rows) = &c.body else {
            panic!("json expected: {:?}", c.body)
        };
        let got: Vec<(&str, Change, Option<&str>)> = rows
            .iter()
            .map(|r| (r.path.as_str(), r.change, r.left.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("$.a", Change::Same, Some("{}")),
                ("$.b", Change::Changed, Some("[]")),
                ("$.c", Change::Changed, Some(r#"{"x":1}"#)),
                ("$.d", Change::Same, Some("2")),
                ("$.eA", Change::Added, None),
            ]
        );
    }

    #[test]
    fn header_values_go_through_the_redaction_policy() {
        let l = answer(
            200,
            &[("Set-Cookie", "s=SECRET1"), ("content-type", "a")],
            "",
        );
        let r = answer(
            200,
            &[("set-cookie", "s=SECRET2"), ("content-type", "a")],
            "",
        );
        let c = compare(&l, &r);
        let cookie = c
            .headers
            .iter()
            .find(|h| h.name == "set-cookie")
            .expect("row");
        assert_eq!(cookie.change, Change::Changed);
        let shown = serde_json::to_string(&c).expect("json");
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(
            c.headers
                .iter()
                .any(|h| h.name == "content-type" && h.change == Change::Same)
        );
    }
}
