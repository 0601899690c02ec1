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

/// Each row's filter texts as shown, and lower-cased, for one list's rows: building them
/// formats every column of every row, so a run of keys typed into `/` builds them once.
#[derive(Clone, Default, PartialEq)]
pub(crate) struct Haystacks {
    /// The tab, its rows' revision and length, and the message that last used them.
    of: Option<(crate::console::tab::Tab, u64, usize)>,
    used_at: u64,
    rows: Vec<(Vec<String>, Vec<String>)>,
}

impl std::fmt::Debug for Haystacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Haystacks({} rows)", self.rows.len())
    }
}

impl Haystacks {
    /// The texts of `rows` (tab `tab`, revision `rev`), kept from the message before this one
    /// (`handled`) when it used them for the same rows, else built again: any other message in
    /// between (a reply, a tick, a resize) may have changed a name or a relative time.
    pub(crate) fn of(
        &mut self,
        (tab, rev, handled): (crate::console::tab::Tab, u64, u64),
        rows: &[Record],
        ctx: &Ctx<'_>,
    ) -> &[(Vec<String>, Vec<String>)] {
        let of = Some((tab, rev, rows.len()));
        if self.of != of || self.used_at.wrapping_add(1) != handled {
            self.rows = rows
                .iter()
                .map(|r| {
                    let texts = crate::console::views::list::filter_texts(r, ctx);
                    let lower = texts.iter().map(|t| t.to_lowercase()).collect();
                    (texts, lower)
                })
                .collect();
            self.of = of;
        }
        self.used_at = handled;
        &self.rows
    }
}

/// Keeps the positions (into the rows) of the rows that match `query`: every word of it matching
/// one of the texts the row's columns show (the resource's description says which: what is
/// shown is what filters; secrets are never shown, so never matched).
/// Each word is looked for as written (smart case), not scattered: `/503` finds the rows that
/// show 503, not every id holding a 5, a 0 and a 3. The same rule as `resource::matches`, on
/// texts lower-cased once.
pub(crate) fn retain_matching(
    query: &str,
    hay: &[(Vec<String>, Vec<String>)],
    view: &mut Vec<usize>,
) {
    let words: Vec<(bool, &str, String)> = query
        .split_whitespace()
        .map(|w| (w.chars().any(char::is_uppercase), w, w.to_lowercase()))
        .collect();
    view.retain(|&i| {
        hay.get(i).is_some_and(|(texts, lower)| {
            words.iter().all(|(exact, w, lw)| {
                if *exact {
                    texts.iter().any(|t| t.contains(w))
                } else {
                    lower.iter().any(|t| t.contains(lw.as_str()))
                }
            })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::tab::Tab;
    use chrono::{DateTime, Utc};

    fn team_rows() -> Vec<Record> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/team-list.json");
        let body = std::fs::read_to_string(path).expect("team fixture");
        crate::console::record::decode_page_body(Tab::Teams, 200, &body)
            .expect("fixture decodes")
            .records
    }

    /// Whether any row's texts hold `word` (the Created column shows the relative time).
    fn holds(h: &[(Vec<String>, Vec<String>)], word: &str) -> bool {
        h.iter()
            .any(|(texts, _)| texts.iter().any(|t| t.contains(word)))
    }

    #[test]
    fn haystacks_are_kept_only_for_a_run_of_messages_on_the_same_rows() {
        let rows = team_rows();
        let first = |_: &DateTime<Utc>| "first-clock".to_string();
        let second = |_: &DateTime<Utc>| "second-clock".to_string();
        let at = |f| Ctx {
            relative: Some(f),
            ..Ctx::default()
        };
        let mut h = Haystacks::default();
        // (tab, rows' revision, message, clock, what the texts hold afterwards)
        type Clock<'a> = &'a dyn Fn(&DateTime<Utc>) -> String;
        let steps: [(Tab, u64, u64, Clock, &str); 5] = [
            (Tab::Teams, 1, 10, &first, "first-clock"),
            // The very next message, same rows: kept (the run of keys typed into `/`).
            (Tab::Teams, 1, 11, &second, "first-clock"),
            // A message in between that did not use them: built again.
            (Tab::Teams, 1, 13, &second, "second-clock"),
            // New rows (another revision), or another tab: built again.
            (Tab::Teams, 2, 14, &first, "first-clock"),
            (Tab::Imports, 2, 15, &second, "second-clock"),
        ];
        for (tab, rev, handled, clock, want) in steps {
            let texts = h.of((tab, rev, handled), &rows, &at(clock));
            assert!(holds(texts, want), "message {handled}: {want}");
        }
    }

    #[test]
    fn matching_is_smart_case_and_every_word_must_match() {
        let hay = vec![
            (
                vec!["Flaky partner".to_string()],
                vec!["flaky partner".to_string()],
            ),
            (
                vec!["Event archive".to_string()],
                vec!["event archive".to_string()],
            ),
        ];
        let kept = |q: &str| {
            let mut view = vec![0, 1];
            retain_matching(q, &hay, &mut view);
            view
        };
        assert_eq!(kept("flaky"), [0]);
        assert_eq!(kept("Flaky"), [0]);
        assert_eq!(kept("FLAKY"), Vec::<usize>::new());
        assert_eq!(kept("e ar"), [0, 1]);
        assert_eq!(kept("event flaky"), Vec::<usize>::new());
    }
}
