//! Client-side sort of the loaded rows: `s` cycles through the sortable columns of the tab's
//! resource description, `S` flips the direction. A column sorts by the value its cell shows.
use crate::console::record::Record;
use crate::console::tab::Tab;
use crate::console::views::list;
use crate::resource::{Ctx, SortKey};

/// The sort of one tab's loaded rows; no column means server order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Sort {
    /// Index into the tab's sortable columns ([`list::sortable`]).
    pub(crate) column: Option<usize>,
    /// Descending instead of ascending.
    pub(crate) desc: bool,
}

/// Sortable columns of a tab: (label, position among the list's columns).
pub(crate) fn keys(tab: Tab) -> Vec<(String, usize)> {
    let columns = list::columns(tab);
    list::sortable(tab)
        .into_iter()
        .filter_map(|i| Some((columns.get(i)?.title.to_lowercase(), i)))
        .collect()
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

    /// The next column in the cycle among those drawn (`shown`: positions among the list's
    /// columns; `None`: all), so that `s` never sorts by a column off screen.
    pub(crate) fn cycle_among(&mut self, tab: Tab, shown: Option<&[usize]>) {
        let keys = keys(tab);
        loop {
            self.cycle(tab);
            match self.column.and_then(|i| keys.get(i)) {
                Some((_, at)) if shown.is_some_and(|s| !s.contains(at)) => {}
                _ => return,
            }
        }
    }

    /// `sort event ↑ asc` for the list title, when a column is chosen.
    pub(crate) fn label(&self, tab: Tab) -> Option<String> {
        let (label, _) = keys(tab).into_iter().nth(self.column?)?;
        let arrow = if self.desc { "↓ desc" } else { "↑ asc" };
        Some(format!("sort {label} {arrow}"))
    }

    /// Sorts a view (positions into `rows`) in place by the chosen column's keys; stable: equal
    /// keys keep server order, and rows showing nothing stay last whichever the direction.
    pub(crate) fn apply(&self, tab: Tab, rows: &[Record], ctx: &Ctx<'_>, view: &mut [usize]) {
        let Some((_, col)) = self.column.and_then(|i| keys(tab).into_iter().nth(i)) else {
            return;
        };
        let keys: Vec<SortKey> = rows.iter().map(|r| list::sort_key(r, col, ctx)).collect();
        let missing = SortKey::Missing;
        view.sort_by(|&a, &b| {
            keys.get(a)
                .unwrap_or(&missing)
                .compare(keys.get(b).unwrap_or(&missing), self.desc)
        });
    }
}
