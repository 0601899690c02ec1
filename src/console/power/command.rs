//! The `:` command line: parsing, completion and the history kept between runs.
use std::path::{Path, PathBuf};

use crate::console::tab::Tab;

/// Most history entries kept.
pub(crate) const HISTORY_MAX: usize = 200;

/// The command line while it is open.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CommandLine {
    /// What was typed.
    pub(crate) input: crate::console::input::TextInput,
    /// Position in the history while browsing with ↑/↓ (0 = newest).
    pub(crate) history_pos: Option<usize>,
    /// Completion candidates of the last Tab, and which one is shown.
    pub(crate) completion: Option<(Vec<String>, usize, String)>,
    /// Names of the loaded ids (id → name), shown beside id candidates.
    pub(crate) names: std::collections::BTreeMap<String, String>,
}

/// A parsed command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    /// Show a tab.
    Tab(Tab),
    /// Switch to a profile.
    Profile(String),
    /// List the profiles (`:profile` alone), marking the active one.
    Profiles,
    /// Open a resource by id.
    Goto(String),
    /// Leave.
    Quit,
    /// Open the help.
    Help,
    /// Search the notifications by content (`:search EXPR`, `Ctrl-F`).
    Search(String),
    /// The Samples room (`:samples`).
    Samples,
    /// Saved views: `:view`, `:view NAME`, `:view save NAME` (the rest of the line).
    View(String),
}

/// Words offered by completion.
const WORDS: &[&str] = &[
    "teams",
    "imports",
    "callbacks",
    "destinations",
    "notifications",
    "profile",
    "goto",
    "search",
    "view",
    "samples",
    "help",
    "quit",
];

/// Parses a command line (without the `:`).
pub(crate) fn parse(line: &str) -> Result<Command, String> {
    let mut parts = line.split_whitespace();
    let Some(word) = parts.next() else {
        return Err("empty command".into());
    };
    let arg = parts.next();
    let word = word.to_ascii_lowercase();
    // The words are the resource descriptions' own.
    let words = crate::console::views::list::aliases;
    if let Some(tab) = Tab::ALL
        .into_iter()
        .find(|&t| words(t).contains(&word.as_str()))
    {
        return Ok(Command::Tab(tab));
    }
    match (word.as_str(), arg) {
        // The rest of the line whole: an expression has spaces.
        ("view" | "views", _) => Ok(Command::View(
            line.trim_start()[word.len()..].trim().to_string(),
        )),
        ("search" | "find", _) => Ok(Command::Search(
            line.trim_start()[word.len()..].trim().to_string(),
        )),
        ("q" | "quit" | "q!" | "exit", _) => Ok(Command::Quit),
        ("help" | "h", _) => Ok(Command::Help),
        ("samples" | "sample", _) => Ok(Command::Samples),
        ("profile" | "ctx" | "p", Some(name)) => Ok(Command::Profile(name.to_string())),
        ("profile" | "ctx" | "p", None) => Ok(Command::Profiles),
        ("goto" | "go" | "g", Some(id)) => Ok(Command::Goto(id.to_string())),
        ("goto" | "go" | "g", None) => Err("usage: :goto ID".into()),
        // A bare id opens it, as `:goto ID` does.
        (w, None) if tab_of_id(w).is_some() => Ok(Command::Goto(line.trim().to_string())),
        _ => Err(format!(
            "unknown command :{word} (try :teams, :goto ID, :profile NAME, :q)"
        )),
    }
}

/// The tab a resource id belongs to, from its prefix.
pub(crate) fn tab_of_id(id: &str) -> Option<Tab> {
    crate::console::views::list::tab_of_id(id)
}

/// Completions of a line (prefix matches): command words, profile names after `profile `, and
/// loaded ids after `goto ` or on their own (`tm_…`).
pub(crate) fn complete(line: &str, profiles: &[String], ids: &[String]) -> Vec<String> {
    let ids_with = |prefix: &str, word: Option<&str>| -> Vec<String> {
        ids.iter()
            .filter(|id| id.starts_with(prefix))
            .map(|id| match word {
                Some(w) => format!("{w} {id}"),
                None => id.clone(),
            })
            .collect()
    };
    match line.split_once(' ') {
        None => {
            let lower = line.to_ascii_lowercase();
            let mut out: Vec<String> = WORDS
                .iter()
                .filter(|w| w.starts_with(&lower))
                .map(|w| (*w).to_string())
                .collect();
            if line.contains('_') {
                out.extend(ids_with(line, None));
            }
            out
        }
        Some((word, rest)) if matches!(word, "profile" | "ctx" | "p") => profiles
            .iter()
            .filter(|p| p.starts_with(rest.trim_start()))
            .map(|p| format!("{word} {p}"))
            .collect(),
        Some((word, rest)) if matches!(word, "goto" | "go" | "g") => {
            ids_with(rest.trim_start(), Some(word))
        }
        Some(_) => Vec::new(),
    }
}

/// A loaded record's name for completion: what its row is called (a notification by its
/// status and event type), sanitised; empty when it has none.
fn record_name(item: &crate::console::record::Item) -> String {
    crate::text::sanitize::line(&item.name()).into_owned()
}

/// Names of these records by id, for completion (records without a name are left out).
pub(crate) fn names_of<'a>(
    records: impl Iterator<Item = &'a crate::console::record::Record>,
) -> std::collections::BTreeMap<String, String> {
    records
        .map(|r| (r.id().to_string(), record_name(r.shown())))
        .filter(|(_, name)| !name.is_empty())
        .collect()
}

/// Words that take an argument: completing to one of them leaves a space for the next Tab.
const TAKES_ARG: &[&str] = &["profile", "goto"];

/// `Profiles: ● work (active) · audit`: the answer to `:profile` alone.
pub(crate) fn profiles_line(profiles: &[String], active: &str) -> String {
    let mut names: Vec<String> = profiles
        .iter()
        .map(|p| {
            if p == active {
                format!("● {p} (active)")
            } else {
                p.clone()
            }
        })
        .collect();
    if !profiles.iter().any(|p| p == active) {
        names.insert(0, format!("● {active} (active)"));
    }
    format!("Profiles: {} — :profile NAME switches", names.join(" · "))
}

impl CommandLine {
    /// Tab: the next completion of what was typed before the first Tab. A single candidate is
    /// taken at once (with a space after a word that takes an argument), so the next Tab goes
    /// on from there; several cycle.
    pub(crate) fn complete(&mut self, profiles: &[String], ids: &[String]) {
        let (cands, i, base) = match self.completion.take() {
            Some((c, i, base)) if c.len() > 1 => {
                let next = (i + 1) % c.len();
                (c, next, base)
            }
            _ => {
                let base = self.input.value().to_string();
                (complete(&base, profiles, ids), 0, base)
            }
        };
        if let [only] = cands.as_slice() {
            if TAKES_ARG.contains(&only.as_str()) {
                self.input.set(format!("{only} "));
            } else {
                self.input.set(only.as_str());
            }
            self.completion = None;
            return;
        }
        if let Some(c) = cands.get(i) {
            self.input.set(c.as_str());
        }
        self.completion = Some((cands, i, base));
    }

    /// The candidates as the footer lists them: an id with its name beside it.
    pub(crate) fn candidates_line(&self) -> Option<String> {
        let (cands, _, _) = self.completion.as_ref().filter(|(c, _, _)| c.len() > 1)?;
        let shown: Vec<String> = cands
            .iter()
            .map(|c| {
                let id = c.rsplit(' ').next().unwrap_or(c);
                match self.names.get(id) {
                    Some(name) => format!("{c} ({name})"),
                    None => c.clone(),
                }
            })
            .collect();
        Some(shown.join("  "))
    }

    /// ↑ / ↓ through the history (`older` = ↑).
    pub(crate) fn browse(&mut self, history: &[String], older: bool) {
        if history.is_empty() {
            return;
        }
        let pos = match (self.history_pos, older) {
            (None, true) => Some(0),
            (None, false) => None,
            (Some(p), true) => Some((p + 1).min(history.len() - 1)),
            (Some(0), false) => None,
            (Some(p), false) => Some(p - 1),
        };
        self.history_pos = pos;
        self.input.set(match pos {
            // Newest last in the file, newest first here.
            Some(p) => history
                .get(history.len() - 1 - p)
                .cloned()
                .unwrap_or_default(),
            None => String::new(),
        });
        self.completion = None;
    }
}

/// Adds a line to the history (no immediate repeats, bounded).
pub(crate) fn remember(history: &mut Vec<String>, line: &str) {
    let line = line.trim();
    if line.is_empty() || history.last().is_some_and(|l| l == line) {
        return;
    }
    history.push(line.to_string());
    let excess = history.len().saturating_sub(HISTORY_MAX);
    history.drain(..excess);
}

/// Where the history lives in the data dir.
pub(crate) fn history_path(data_dir: &Path) -> PathBuf {
    data_dir.join("command_history")
}

/// Reads the history (oldest first); nothing when the file is missing or unreadable.
pub(crate) fn load_history(data_dir: Option<&Path>) -> Vec<String> {
    let Some(dir) = data_dir else {
        return Vec::new();
    };
    // Through the private-file rules: a planted link is not read through.
    let Ok(Some(mut f)) = crate::config::private_file::read(&history_path(dir)) else {
        return Vec::new();
    };
    let mut text = String::new();
    if std::io::Read::read_to_string(&mut f, &mut text).is_err() {
        return Vec::new();
    }
    text.lines()
        .map(str::to_string)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Writes the history (one command per line).
pub(crate) fn save_history(data_dir: &Path, history: &[String]) -> std::io::Result<()> {
    crate::config::private_file::dir(data_dir)?;
    let mut text = history.join("\n");
    text.push('\n');
    // Atomic: a crash mid-write leaves the old history, never half of it.
    crate::config::private_file::replace(&history_path(data_dir), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_cycles_and_knows_profiles() {
        let mut c = CommandLine {
            input: crate::console::input::TextInput::new("no"),
            ..Default::default()
        };
        c.complete(&[], &[]);
        assert_eq!(c.input.value(), "notifications");
        let profiles = vec!["work".to_string(), "audit".to_string()];
        assert_eq!(complete("profile a", &profiles, &[]), vec!["profile audit"]);
        // `pro` + Tab → `profile `, Tab again cycles through the profiles.
        let mut c = CommandLine {
            input: crate::console::input::TextInput::new("pro"),
            ..Default::default()
        };
        c.complete(&profiles, &[]);
        assert_eq!(c.input.value(), "profile ");
        c.complete(&profiles, &[]);
        assert_eq!(c.input.value(), "profile work");
        c.complete(&profiles, &[]);
        assert_eq!(c.input.value(), "profile audit");
        c.complete(&profiles, &[]);
        assert_eq!(c.input.value(), "profile work");
    }

    #[test]
    fn completion_knows_loaded_ids() {
        let ids = vec![
            "tm_abc".to_string(),
            "tm_abd".to_string(),
            "clb_1".to_string(),
        ];
        assert_eq!(
            complete("goto tm_ab", &[], &ids),
            ["goto tm_abc", "goto tm_abd"]
        );
        assert_eq!(complete("clb", &[], &ids), Vec::<String>::new());
        assert_eq!(complete("clb_", &[], &ids), ["clb_1"]);
        assert_eq!(parse("clb_1"), Ok(Command::Goto("clb_1".into())));
        assert_eq!(parse("profile"), Ok(Command::Profiles));
        let line = profiles_line(&["work".into(), "audit".into()], "audit");
        assert!(line.contains("work · ● audit (active)"), "{line}");
    }

    #[test]
    fn history_is_bounded_and_skips_repeats() {
        let mut h = Vec::new();
        for i in 0..(HISTORY_MAX + 5) {
            remember(&mut h, &format!("goto tm_{i}"));
            remember(&mut h, &format!("goto tm_{i}"));
        }
        assert_eq!(h.len(), HISTORY_MAX);
        assert_eq!(h.last().map(String::as_str), Some("goto tm_204"));
    }
}
