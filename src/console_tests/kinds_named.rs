//! Issue 33's standing target: at most 2 files under `src/console` name any one resource kind
//! (`Kind::X` or `Tab::X`, as `grep -rlw` counts them). A room asks the resource instead ("does
//! this kind deliver?"); a test that needs a subject lives here, outside `src/console`.
use std::path::{Path, PathBuf};

use crate::console::tab::Tab;

/// The most files of `src/console` that may name one kind.
const MOST: usize = 2;

/// Every `.rs` file below `dir`, into `out` (the source guards read the tree as text).
pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("src/console is readable");
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn word_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `text` holds `needle` as a whole word (`grep -w`).
fn names(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        !word_char(before) && !word_char(after)
    })
}

/// The files of `src/console` naming each kind, by the kind's name in the registry.
fn files_naming() -> Vec<(String, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/console");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("a console source file");
            let name = p.strip_prefix(&root).unwrap_or(p).display().to_string();
            (name, text)
        })
        .collect();
    Tab::ALL
        .into_iter()
        .map(|k| {
            let kind = format!("{k:?}");
            let (a, b) = (format!("Kind::{kind}"), format!("Tab::{kind}"));
            let mut naming: Vec<String> = texts
                .iter()
                .filter(|(_, t)| names(t, &a) || names(t, &b))
                .map(|(n, _)| n.clone())
                .collect();
            naming.sort();
            (kind, naming)
        })
        .collect()
}

#[test]
fn at_most_two_console_files_name_any_one_kind() {
    let over: Vec<String> = files_naming()
        .into_iter()
        .filter(|(_, files)| files.len() > MOST)
        .map(|(kind, files)| format!("{kind}: {} ({})", files.len(), files.join(", ")))
        .collect();
    assert!(
        over.is_empty(),
        "ask the resource instead of naming it; over {MOST} files: {over:#?}"
    );
}

#[test]
fn the_count_sees_a_kind_named_and_not_a_longer_name() {
    assert!(names("x == Tab::Callbacks {", "Tab::Callbacks"));
    assert!(!names("Tab::CallbacksX", "Tab::Callbacks"));
    assert!(!names("MyTab::Callbacks", "Tab::Callbacks"));
    // Every kind is counted, by its registry name.
    assert_eq!(files_naming().len(), Tab::COUNT);
}
