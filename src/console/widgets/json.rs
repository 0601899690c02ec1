//! Pretty, coloured JSON as lines, and a scrollable block that shows them wrapped (the attempt
//! view, the replay and recover rooms): a long header or value wraps under itself, never cut.
use std::cell::RefCell;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use serde_json::Value;

use super::wrapped::{fingerprint, row_line, wrap_rows};
use crate::console::theme::Theme;
use crate::resource::wrap::Row;

const INDENT: usize = 2;

/// Wrapped views kept: a room shows up to three at once, each redrawn far more often than
/// it changes.
const KEPT: usize = 4;

/// A view's rows, by the fingerprint of its lines and the width.
type Kept = (u64, usize, Arc<Vec<Row<Style>>>);

thread_local! {
    /// The last views' rows, outside `State` (a view never changes the state).
    static WRAPPED: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// `lines` wrapped to `width`, from the cache when these very lines were wrapped at it.
fn wrapped(lines: &[Line<'static>], width: usize) -> Arc<Vec<Row<Style>>> {
    let key = fingerprint(lines);
    WRAPPED.with(|c| {
        let mut c = c.borrow_mut();
        if let Some((_, _, rows)) = c.iter().find(|(k, w, _)| *k == key && *w == width) {
            return Arc::clone(rows);
        }
        let rows = Arc::new(wrap_rows(lines, width));
        if c.len() == KEPT {
            c.remove(0);
        }
        c.push((key, width, Arc::clone(&rows)));
        rows
    })
}

/// Accumulates lines while walking a value.
struct Printer<'t> {
    theme: &'t Theme,
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
}

impl Printer<'_> {
    fn push(&mut self, text: impl Into<String>, style: Style) {
        // Strings are JSON-escaped already; C1, bidi and invisible characters are escaped too.
        let text = crate::text::sanitize::json_for_terminal(&text.into()).into_owned();
        self.current.push(Span::styled(text, style));
    }

    fn newline(&mut self, depth: usize) {
        let done = std::mem::take(&mut self.current);
        self.lines.push(Line::from(done));
        self.current.push(Span::raw(" ".repeat(depth * INDENT)));
    }

    fn scalar(&mut self, v: &Value) {
        let t = self.theme;
        match v {
            Value::String(s) => self.push(Value::String(s.clone()).to_string(), t.ok),
            Value::Number(n) => self.push(n.to_string(), t.warn),
            Value::Bool(b) => self.push(b.to_string(), t.section),
            Value::Null => self.push("null", t.section),
            // Containers are handled by `value`.
            Value::Array(_) | Value::Object(_) => {}
        }
    }

    fn value(&mut self, v: &Value, depth: usize) {
        let punct = self.theme.muted;
        match v {
            Value::Array(items) if items.is_empty() => self.push("[]", punct),
            Value::Object(map) if map.is_empty() => self.push("{}", punct),
            Value::Array(items) => {
                self.push("[", punct);
                for (i, item) in items.iter().enumerate() {
                    self.newline(depth + 1);
                    self.value(item, depth + 1);
                    if i + 1 < items.len() {
                        self.push(",", punct);
                    }
                }
                self.newline(depth);
                self.push("]", punct);
            }
            Value::Object(map) => {
                self.push("{", punct);
                let n = map.len();
                for (i, (k, item)) in map.iter().enumerate() {
                    self.newline(depth + 1);
                    self.push(Value::String(k.clone()).to_string(), self.theme.key);
                    self.push(": ", punct);
                    self.value(item, depth + 1);
                    if i + 1 < n {
                        self.push(",", punct);
                    }
                }
                self.newline(depth);
                self.push("}", punct);
            }
            other => self.scalar(other),
        }
    }
}

/// A JSON value as pretty-printed, coloured lines (keys, strings, numbers, literals each styled).
pub(crate) fn lines(v: &Value, theme: &Theme) -> Vec<Line<'static>> {
    let mut p = Printer {
        theme,
        lines: Vec::new(),
        current: Vec::new(),
    };
    p.value(v, 0);
    let last = std::mem::take(&mut p.current);
    p.lines.push(Line::from(last));
    p.lines
}

/// A body: pretty and coloured when it parses as JSON, otherwise its lines as they are.
pub(crate) fn text_lines(body: &str, theme: &Theme) -> Vec<Line<'static>> {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => lines(&v, theme),
        Err(_) => crate::text::sanitize::lines(body)
            .into_iter()
            .map(Line::raw)
            .collect(),
    }
}

/// A bordered, scrollable view of JSON (or any) lines.
#[derive(Debug)]
pub(crate) struct JsonView<'a> {
    /// Block title.
    pub(crate) title: String,
    /// The lines, usually from [`lines`] or [`text_lines`].
    pub(crate) lines: Vec<Line<'static>>,
    /// Lines scrolled; clamped so that the last line can reach the bottom but not beyond.
    pub(crate) scroll: u16,
    /// Styles.
    pub(crate) theme: &'a Theme,
}

impl JsonView<'_> {
    /// The furthest `lines` scroll in a view drawn over `area`: 0 when they fit.
    pub(crate) fn max_scroll(lines: &[Line<'static>], area: Rect) -> u16 {
        let inner = Block::bordered().inner(area);
        let total = wrapped(lines, usize::from(inner.width)).len();
        u16::try_from(total)
            .unwrap_or(u16::MAX)
            .saturating_sub(inner.height)
    }

    /// Draws the view into `area`.
    pub(crate) fn render(self, frame: &mut Frame, area: Rect) {
        let block = Block::bordered().title(Line::from(Span::styled(
            format!(" {} ", self.title),
            self.theme.accent,
        )));
        let inner = block.inner(area);
        let rows = wrapped(&self.lines, usize::from(inner.width));
        let total = rows.len();
        let height = usize::from(inner.height);
        let first = usize::from(self.scroll).min(total.saturating_sub(height));
        let block = if total > height {
            block.title_bottom(
                Line::from(Span::styled(
                    format!(" {}–{} of {total} ", first + 1, (first + height).min(total)),
                    self.theme.muted,
                ))
                .right_aligned(),
            )
        } else {
            block
        };
        frame.render_widget(block, area);
        let shown: Vec<Line<'static>> =
            rows.iter().skip(first).take(height).map(row_line).collect();
        frame.render_widget(Paragraph::new(shown), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn pretty_prints_nested_values() {
        let v: Value =
            serde_json::from_str(r#"{"a":1,"b":[true,null,"x"],"c":{}}"#).expect("valid json");
        let got = plain(&lines(&v, &Theme::default()));
        assert_eq!(
            got,
            vec![
                "{",
                "  \"a\": 1,",
                "  \"b\": [",
                "    true,",
                "    null,",
                "    \"x\"",
                "  ],",
                "  \"c\": {}",
                "}",
            ]
        );
    }

    #[test]
    fn non_json_is_kept() {
        let got = plain(&text_lines("plain\ntext", &Theme::default()));
        assert_eq!(got, vec!["plain", "text"]);
    }
}
