//! The filter of a tab's loaded rows (`/`), with the matched characters highlighted on screen.
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use crate::console::record::Record;
use crate::resource::Ctx;

/// One tab's filter.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Filter {
    /// The query; empty means no filter.
    pub(crate) query: crate::console::input::TextInput,
    /// Whether keys are typed into the query.
    pub(crate) editing: bool,
}

impl Filter {
    /// Whether rows are being filtered.
    pub(crate) fn active(&self) -> bool {
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

/// Keeps the positions (into `rows`) of the rows that match `query`: every word of it matching
/// one of the texts the row's columns show (the resource's description says which: what is
/// shown is what filters; secrets are never shown, so never matched).
/// Each word is looked for as written (smart case), not scattered: `/503` finds the rows that
/// show 503, not every id holding a 5, a 0 and a 3.
pub(crate) fn retain_matching(query: &str, rows: &[Record], ctx: &Ctx<'_>, view: &mut Vec<usize>) {
    view.retain(|&i| {
        rows.get(i).is_some_and(|r| {
            crate::resource::matches(query, &crate::console::views::list::filter_texts(r, ctx))
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
