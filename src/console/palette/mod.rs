//! The action palette (`Ctrl-P`, issue 38) and `?` help's filter. The palette lists every
//! action available where you stand (what the tab declares there, and the moves and tools that
//! work on every list or detail), each with its key and whether it writes (writes are left out
//! in read-only mode); typing narrows it (a fuzzy match: the letters in order), `↑`/`↓` choose,
//! `Enter` runs the chosen action through the router, as its key would. In the help, `/` starts
//! a filter of its rows (keys or descriptions holding what is typed), `Esc` clears it.
pub(crate) mod update;
pub(crate) mod view;

use super::input::TextInput;
use super::keymap::Action;

/// One action in the palette.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// What it runs.
    pub(crate) action: Action,
    /// Its keys (`j/↓`).
    pub(crate) key: String,
    /// What it does.
    pub(crate) what: String,
    /// It changes something on the server.
    pub(crate) writes: bool,
}

/// The open palette.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Palette {
    /// What was typed.
    pub(crate) query: TextInput,
    /// The chosen row among those shown.
    pub(crate) cursor: usize,
    /// Every action available where it was opened.
    pub(crate) entries: Vec<Entry>,
}

/// The palette's and the help filter's part of the state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct PaletteState {
    /// The open palette.
    pub(crate) open: Option<Palette>,
    /// The help's filter (typed after `/`).
    pub(crate) help_query: TextInput,
    /// Keys go into the help's filter.
    pub(crate) help_typing: bool,
}

/// The palette's keys, for the footer.
pub(crate) const KEYS: &[(&str, &str)] = &[
    ("type", "narrow"),
    ("↑↓", "choose"),
    ("Enter", "run"),
    ("Esc", "close"),
];

/// How well `needle` names `hay` (case-insensitive), best first: it is in it (0), each of its
/// words is (1), its letters are the initials of `hay`'s words in order (2); `None` otherwise.
fn rank(hay: &str, needle: &str) -> Option<u8> {
    let hay = hay.to_lowercase();
    let needle = needle.trim().to_lowercase();
    if needle.is_empty() || hay.contains(&needle) {
        return Some(0);
    }
    if needle.split_whitespace().all(|w| hay.contains(w)) {
        return Some(1);
    }
    let initials: String = hay
        .split(|c: char| !c.is_alphanumeric())
        .filter_map(|w| w.chars().next())
        .collect();
    let mut chars = initials.chars();
    needle
        .chars()
        .filter(|c| !c.is_whitespace())
        .all(|n| chars.any(|h| h == n))
        .then_some(2)
}

impl Palette {
    /// The entries the query keeps, best first (ties keep their order).
    pub(crate) fn shown(&self) -> Vec<&Entry> {
        let q = self.query.value();
        let mut ranked: Vec<(u8, &Entry)> = self
            .entries
            .iter()
            .filter_map(|e| {
                let hay = format!("{} {} {}", e.what, e.key, e.action.config_name());
                rank(&hay, q).map(|r| (r, e))
            })
            .collect();
        ranked.sort_by_key(|(r, _)| *r);
        ranked.into_iter().map(|(_, e)| e).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::rank;

    #[test]
    fn letters_in_order_match_and_a_substring_ranks_first() {
        assert_eq!(rank("reload r reload", "rel"), Some(0));
        assert_eq!(rank("search deliveries by content", "sdc"), Some(2));
        assert_eq!(
            rank("search deliveries by content", "content search"),
            Some(1)
        );
        assert_eq!(rank("open the selected row's detail", "relo"), None);
        assert_eq!(rank("reload", "xyz"), None);
        assert_eq!(rank("anything", ""), Some(0));
    }
}
