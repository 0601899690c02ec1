//! Pretty, coloured JSON as lines, and a scrollable block that shows them (shared by the attempt
//! view and the raw JSON view).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use serde_json::Value;

use crate::console::theme::Theme;

const INDENT: usize = 2;

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
    /// The largest useful scroll for a body area of `height` lines.
    pub(crate) fn max_scroll(total: usize, height: u16) -> u16 {
        u16::try_from(total)
            .unwrap_or(u16::MAX)
            .saturating_sub(height)
    }

    /// Draws the view into `area`.
    pub(crate) fn render(self, frame: &mut Frame, area: Rect) {
        let block = Block::bordered().title(Line::from(Span::styled(
            format!(" {} ", self.title),
            self.theme.accent,
        )));
        let inner = block.inner(area);
        let total = self.lines.len();
        let scroll = self.scroll.min(Self::max_scroll(total, inner.height));
        let block = if total > usize::from(inner.height) {
            block.title_bottom(
                Line::from(Span::styled(
                    format!(
                        " {}–{} of {total} ",
                        scroll + 1,
                        (usize::from(scroll) + usize::from(inner.height)).min(total)
                    ),
                    self.theme.muted,
                ))
                .right_aligned(),
            )
        } else {
            block
        };
        frame.render_widget(block, area);
        frame.render_widget(Paragraph::new(self.lines).scroll((scroll, 0)), inner);
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
