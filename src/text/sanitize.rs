//! The sanitizer: C0/C1 controls and DEL neutralised, bidi and invisible characters made visible.
//!
//! A hostile server or webhook receiver controls the bytes of names, ids, headers and bodies. On
//! a terminal those bytes could set the title (OSC 0), write the clipboard (OSC 52), forge links
//! (OSC 8), clear or repaint the screen (CSI, DCS), or reorder what is read (bidi overrides,
//! zero-width characters). Every such character is shown instead as a visible `⟨U+XXXX⟩` marker,
//! so an operator sees that something odd was sent, and nothing is ever interpreted.
use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is a character that must never reach a terminal as it is: any control (C0, DEL,
/// C1), a bidi control, or an invisible/zero-width formatting character.
#[must_use]
pub fn is_hazard(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// Bidi controls, zero-width and other default-invisible formatting characters: they change how
/// text reads without showing themselves.
#[must_use]
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'                      // soft hyphen
        | '\u{034F}'                    // combining grapheme joiner
        | '\u{061C}'                    // Arabic letter mark
        | '\u{115F}' | '\u{1160}'       // Hangul fillers
        | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'       // Mongolian selectors and vowel separator
        | '\u{200B}'..='\u{200F}'       // zero-width space/joiners, LRM, RLM
        | '\u{2028}'..='\u{202E}'       // line/paragraph separators, bidi embeddings/overrides
        | '\u{2060}'..='\u{206F}'       // word joiner, invisible operators, bidi isolates
        | '\u{3164}'                    // Hangul filler
        | '\u{FE00}'..='\u{FE0F}'       // variation selectors
        | '\u{FEFF}'                    // zero-width no-break space (BOM)
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'       // interlinear annotations
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}' // tag characters ("ASCII smuggling") and more selectors
    )
}

/// The visible stand-in for a hazardous character: `⟨U+001B⟩`.
#[must_use]
pub fn marker(c: char) -> String {
    format!("⟨U+{:04X}⟩", u32::from(c))
}

fn push_marker(out: &mut String, c: char) {
    // Writing to a String cannot fail.
    let _ = write!(out, "⟨U+{:04X}⟩", u32::from(c));
}

/// One-line text (a cell, a title, a toast, an error line): tabs, line breaks and other breaking
/// whitespace become one space each, every other hazard becomes its `⟨U+XXXX⟩` marker. Borrowed
/// when there is nothing to change.
#[must_use]
pub fn line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_hazard) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}' => out.push(' '),
            c if is_hazard(c) => push_marker(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text (a body, a JSON view): split into lines first (`\n`, `\r\n`, a lone `\r`),
/// then each line sanitised as by [`line`].
#[must_use]
pub fn lines(s: &str) -> Vec<String> {
    s.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .map(|l| line(l).into_owned())
        .collect()
}

/// [`lines`] joined with `\n`: the only control character left is the line break itself.
#[must_use]
pub fn multiline(s: &str) -> String {
    lines(s).join("\n")
}

/// Whether text holds no hazard at all, line breaks aside when `newlines` allows them.
#[must_use]
pub fn is_inert(s: &str, newlines: bool) -> bool {
    s.chars().all(|c| !is_hazard(c) || (newlines && c == '\n'))
}

/// JSON text for a terminal: every hazard that is not JSON whitespace (`\t`, `\n`, `\r`) is
/// written as a `\uXXXX` escape (a surrogate pair beyond the BMP). Such characters can only
/// stand inside JSON strings, where the escape means the same character, so the document stays
/// valid JSON with the same value. Borrowed when there is nothing to escape.
#[must_use]
pub fn json_for_terminal(s: &str) -> Cow<'_, str> {
    let needs = |c: char| is_hazard(c) && !matches!(c, '\t' | '\n' | '\r');
    if !s.chars().any(needs) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 32);
    for c in s.chars() {
        if needs(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether any string in a JSON value (keys included) holds a hazard.
#[must_use]
pub fn json_has_hazard(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => s.chars().any(is_hazard),
        Value::Array(a) => a.iter().any(json_has_hazard),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| k.chars().any(is_hazard) || json_has_hazard(x)),
        _ => false,
    }
}

/// A JSON value for display: every string through [`line`], except `*_body` fields, which are
/// multi-line and go through [`multiline`].
#[must_use]
pub fn json_for_display(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(line(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(json_for_display).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match x {
                        Value::String(s) if k.ends_with("_body") => Value::String(multiline(s)),
                        other => json_for_display(other),
                    };
                    (line(k).into_owned(), x)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_visible_markers() {
        assert_eq!(line("a\u{1b}]0;x\u{7}b"), "a⟨U+001B⟩]0;x⟨U+0007⟩b");
        assert_eq!(line("\u{9b}2J\u{7f}"), "⟨U+009B⟩2J⟨U+007F⟩");
        assert_eq!(line("evil\u{202E}gpj.exe"), "evil⟨U+202E⟩gpj.exe");
        assert_eq!(line("a\u{200B}b\u{FEFF}"), "a⟨U+200B⟩b⟨U+FEFF⟩");
        assert_eq!(line("x\r\ny\tz"), "x  y z");
        assert!(matches!(line("plain ✓ text"), Cow::Borrowed(_)));
    }

    #[test]
    fn multiline_keeps_line_breaks_only() {
        assert_eq!(multiline("a\r\nb\u{1b}[2J\nc"), "a\nb⟨U+001B⟩[2J\nc");
        assert!(is_inert(&multiline("x\n\u{85}\u{2029}y"), true));
    }

    #[test]
    fn json_for_terminal_stays_the_same_json() {
        let body = "{\"name\": \"a\u{9b}b\u{202e}c\u{e0041}\u{7f}\",\n \"n\": 1}";
        let shown = json_for_terminal(body);
        assert!(is_inert(&shown, true), "{shown}");
        let a: serde_json::Value = serde_json::from_str(body).expect("input is JSON");
        let b: serde_json::Value = serde_json::from_str(&shown).expect("still JSON");
        assert_eq!(a, b);
        assert!(shown.contains("\\u009b") && shown.contains("\\udb40\\udc41"));
    }
}
