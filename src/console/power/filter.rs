//! Fuzzy filter of a tab's loaded rows (`/`), with the matched characters highlighted on screen.
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use serde_json::Value;

use crate::console::raw_json::{is_secret_key, shown_field};
use crate::console::record::Record;

/// One tab's filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    /// The query; empty means no filter.
    pub query: crate::console::input::TextInput,
    /// Whether keys are typed into the query.
    pub editing: bool,
}

impl Filter {
    /// Whether rows are being filtered.
    pub fn active(&self) -> bool {
        !self.query.value().trim().is_empty()
    }
}

/// A compiled query.
pub(crate) struct FuzzyQuery {
    pattern: Pattern,
    matcher: Matcher,
}

impl FuzzyQuery {
    /// Compiles a query (smart case: case matters once it has a capital).
    pub(crate) fn new(query: &str) -> Self {
        Self {
            pattern: Pattern::parse(query, CaseMatching::Smart, Normalization::Smart),
            matcher: Matcher::new(Config::DEFAULT),
        }
    }

    /// Whether `text` matches.
    pub(crate) fn matches(&mut self, text: &str) -> bool {
        let mut buf = Vec::new();
        self.pattern
            .score(Utf32Str::new(text, &mut buf), &mut self.matcher)
            .is_some()
    }

    /// Character positions of the match in `text`, sorted; empty when it does not match.
    pub(crate) fn positions(&mut self, text: &str) -> Vec<usize> {
        let mut buf = Vec::new();
        let mut idx = Vec::new();
        if self
            .pattern
            .indices(Utf32Str::new(text, &mut buf), &mut self.matcher, &mut idx)
            .is_none()
        {
            return Vec::new();
        }
        let mut out: Vec<usize> = idx.into_iter().map(|i| i as usize).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Calls `f` on each text a row is matched against until it returns true; whether it did.
/// The texts are the scalar values (nested ones too), secrets left out; each word of a query
/// must match one of them, so that letters scattered over unrelated fields do not make a match.
fn each_text(v: &Value, depth: u8, f: &mut impl FnMut(&str) -> bool) -> bool {
    match v {
        Value::String(s) => f(s),
        Value::Number(n) => f(&n.to_string()),
        Value::Bool(b) => f(if *b { "true" } else { "false" }),
        Value::Array(a) if depth < 3 => a.iter().any(|x| each_text(x, depth + 1, f)),
        // Secrets are not matched at all, a hook URL only as shown (its key masked).
        Value::Object(o) if depth < 3 => {
            o.iter()
                .filter(|(k, _)| !is_secret_key(k))
                .any(|(k, x)| match x {
                    Value::String(s) => f(&shown_field(o, k, s)),
                    other => each_text(other, depth + 1, f),
                })
        }
        _ => false,
    }
}

/// Keeps the positions (into `rows`) of the rows that match `query`: every word of it matching
/// some field. The texts are matched where they lie; nothing is copied.
pub(crate) fn retain_matching(query: &str, rows: &[Record], view: &mut Vec<usize>) {
    let mut words: Vec<FuzzyQuery> = query.split_whitespace().map(FuzzyQuery::new).collect();
    view.retain(|&i| {
        rows.get(i).is_some_and(|r| {
            words
                .iter_mut()
                .all(|w| each_text(&r.raw, 0, &mut |t| w.matches(t)))
        })
    });
}

/// Marks the characters of each screen line in `area` that match `query` (bold, underlined:
/// visible without colour too).
pub(crate) fn highlight(buf: &mut Buffer, area: Rect, query: &str) {
    let mut q = FuzzyQuery::new(query);
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        // (column, first char) of each visible cell; wide characters leave empty cells.
        let cells: Vec<(u16, char)> = (area.left()..area.right())
            .filter_map(|x| {
                let c = buf.cell((x, y))?.symbol().chars().next()?;
                Some((x, c))
            })
            .collect();
        let line: String = cells.iter().map(|(_, c)| *c).collect();
        for i in q.positions(&line) {
            if let Some((x, _)) = cells.get(i)
                && let Some(cell) = buf.cell_mut((*x, y))
            {
                cell.set_style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
            }
        }
    }
}
