//! Client-side sort of the loaded rows: `s` cycles the column, `S` flips the direction.
use std::cmp::Ordering;

use serde_json::Value;

use crate::console::record::Record;
use crate::console::tab::Tab;

/// The sort of one tab's loaded rows; no column means server order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sort {
    /// Index into [`keys`] of the tab.
    pub column: Option<usize>,
    /// Descending instead of ascending.
    pub desc: bool,
}

/// Sortable fields of a tab: (label, JSON pointer into the item as received).
pub(crate) fn keys(tab: Tab) -> &'static [(&'static str, &'static str)] {
    match tab {
        Tab::Teams => &[
            ("name", "/name"),
            ("slug", "/slug"),
            ("created", "/created_at"),
            ("id", "/id"),
        ],
        Tab::Imports => &[
            ("status", "/status"),
            ("note", "/note"),
            ("expires", "/expires_at"),
            ("created", "/created_at"),
            ("id", "/id"),
        ],
        Tab::Callbacks => &[
            ("name", "/name"),
            ("type", "/type"),
            ("created", "/created_at"),
            ("id", "/id"),
        ],
        Tab::Destinations => &[
            ("name", "/name"),
            ("url", "/webhook_destination/url"),
            ("created", "/created_at"),
            ("id", "/id"),
        ],
        Tab::Notifications => &[
            ("status", "/status"),
            ("attempts", "/attempts"),
            ("event", "/type"),
            ("created", "/created_at"),
            ("id", "/id"),
        ],
    }
}

impl Sort {
    /// The next column in the cycle: none → first → … → last → none.
    pub(crate) fn cycle(&mut self, tab: Tab) {
        let n = keys(tab).len();
        self.column = match self.column {
            None if n > 0 => Some(0),
            Some(i) if i + 1 < n => Some(i + 1),
            _ => None,
        };
    }

    /// `name ↑` for the list title, when a column is chosen.
    pub fn label(&self, tab: Tab) -> Option<String> {
        let (label, _) = keys(tab).get(self.column?)?;
        let arrow = if self.desc { "↓ desc" } else { "↑ asc" };
        Some(format!("sort {label} {arrow}"))
    }

    /// Sorts a view (positions into `rows`) in place; stable: equal keys keep server order.
    pub fn apply(&self, tab: Tab, rows: &[Record], view: &mut [usize]) {
        let Some((_, pointer)) = self.column.and_then(|i| keys(tab).get(i)) else {
            return;
        };
        view.sort_by(|&a, &b| {
            let field = |i: usize| rows.get(i).and_then(|r| r.raw.pointer(pointer));
            let (x, y) = (field(a), field(b));
            // Missing values stay last whichever the direction.
            rank(x).cmp(&rank(y)).then_with(|| {
                let o = compare(x, y);
                if self.desc { o.reverse() } else { o }
            })
        });
    }
}

/// 1 for a missing or null value, which sorts last.
fn rank(v: Option<&Value>) -> u8 {
    match v {
        None | Some(Value::Null) => 1,
        _ => 0,
    }
}

/// Orders two present JSON values: numbers by value, text ignoring case, arrays by length.
fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Some(Value::String(x)), Some(Value::String(y))) => x.to_lowercase().cmp(&y.to_lowercase()),
        (Some(Value::Array(x)), Some(Value::Array(y))) => x.len().cmp(&y.len()),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        _ => Ordering::Equal,
    }
}
