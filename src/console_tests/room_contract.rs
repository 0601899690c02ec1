//! Issue 33's room contract, held: no room reaches the whole console state. Every directory under
//! `src/console` but `views` (drawing above the rooms) is a room or a widget, and none of its
//! files names the type `State`: a room's functions take its own model and the `Core`, plus
//! exactly what they read of another room, given by the router (see ARCHITECTURE.md). A new
//! room directory is held to this without being listed here.
use std::path::Path;

use super::kinds_named::rust_files;

/// Whether `text` names the console's `word` as a whole word (`grep -w`), outside line comments,
/// string literals' openings, renamed imports and its tests (`#[cfg(test)]`, which may build a whole state to
/// drive the room). A path into another module (`forward::State`, `Event::State`) is that
/// module's type, not the console's; `state::State` is the console's.
fn names_outside_tests(text: &str, word: &str) -> bool {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    code.lines()
        .map(|l| l.split("//").next().unwrap_or(l))
        .any(|line| {
            line.match_indices(word).any(|(i, _)| {
                let before = line[..i].chars().next_back();
                let after = line[i + word.len()..].chars().next();
                let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                let head = &line[..i];
                // Another module's type, or one imported under another name.
                let elsewhere = (head.ends_with("::") && !head.ends_with("state::"))
                    || line[i + word.len()..].starts_with(" as ");
                !part(before) && !part(after) && !elsewhere && !head.ends_with('"')
            })
        })
}

#[test]
fn no_room_names_the_whole_state() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/console");
    let mut rooms = Vec::new();
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&root).expect("src/console is readable") {
        let dir = entry.expect("a directory entry").path();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        if !dir.is_dir() || name.as_deref() == Some("views") {
            continue;
        }
        rooms.push(name.unwrap_or_default());
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for f in files {
            let is_test_file = f.file_stem().is_some_and(|s| s == "tests");
            let text = std::fs::read_to_string(&f).expect("a console source file");
            if !is_test_file && names_outside_tests(&text, "State") {
                offenders.push(f.strip_prefix(&root).unwrap_or(&f).display().to_string());
            }
        }
    }
    // The guard must see the rooms it guards (a moved tree would make it pass vacuously).
    for room in ["deliveries", "recover", "replay", "forms", "power"] {
        assert!(
            rooms.iter().any(|r| r == room),
            "{room} not found in {rooms:?}"
        );
    }
    offenders.sort();
    assert!(
        offenders.is_empty(),
        "these room files name the whole `State` (take the room's model and `Core` instead): {offenders:?}"
    );
}
