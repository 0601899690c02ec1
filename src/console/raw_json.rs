//! The `v` view: the selected item's JSON as received, pretty-printed, coloured, scrollable,
//! with `/` search. Signing secrets and tokens are masked, never shown.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use serde_json::Value;

use super::theme::Theme;

/// Whether a field holds a secret (masked in the view, the copy and the filter).
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.contains("secret") || k.contains("password") || (k.ends_with("token") && k != "token_type")
}

/// The value with every secret field replaced by its first characters and `…`.
pub fn masked(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let x = match x {
                        Value::String(s) if is_secret_key(k) => Value::String(mask(s)),
                        other => masked(other),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(masked).collect()),
        other => other.clone(),
    }
}

fn mask(s: &str) -> String {
    let head: String = s.chars().take(6).collect();
    format!("{head}…")
}

/// Pretty JSON of an item, secrets masked, key order as received.
pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(&masked(v)).unwrap_or_default()
}

/// The open raw view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawView {
    /// Title (the item's id).
    pub id: String,
    /// Pretty-printed lines.
    pub lines: Vec<String>,
    /// First line shown.
    pub scroll: usize,
    /// Search query; empty when none.
    pub search: String,
    /// Whether keys are typed into the search.
    pub editing: bool,
    /// Index into the matching lines of the current match.
    pub current: usize,
}

impl RawView {
    /// A view of an item's JSON.
    pub fn new(id: &str, raw: &Value) -> Self {
        Self {
            id: id.to_string(),
            lines: pretty(raw).lines().map(str::to_string).collect(),
            ..Self::default()
        }
    }

    /// Lines that contain the search (ignoring case).
    pub fn matches(&self) -> Vec<usize> {
        let q = self.search.to_lowercase();
        if q.is_empty() {
            return Vec::new();
        }
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.to_lowercase().contains(&q))
            .map(|(i, _)| i)
            .collect()
    }

    /// Moves to the next (or previous) match and scrolls it into view; false when none.
    pub fn jump(&mut self, forward: bool, height: usize) -> bool {
        let m = self.matches();
        if m.is_empty() {
            return false;
        }
        self.current = if forward {
            (self.current + 1) % m.len()
        } else {
            (self.current + m.len() - 1) % m.len()
        };
        self.show_current(height);
        true
    }

    /// Scrolls so that the current match is visible.
    pub fn show_current(&mut self, height: usize) {
        let m = self.matches();
        if let Some(&line) = m.get(self.current.min(m.len().saturating_sub(1)))
            && (line < self.scroll || line >= self.scroll + height.max(1))
        {
            self.scroll = line.saturating_sub(height / 3);
        }
        self.clamp(height);
    }

    /// Keeps the scroll inside the text.
    pub fn clamp(&mut self, height: usize) {
        self.scroll = self
            .scroll
            .min(self.lines.len().saturating_sub(height.max(1)));
    }
}

/// Styles of the JSON tokens (a local renderer until a shared JSON widget exists).
fn token_styles(theme: &Theme) -> [Style; 5] {
    let plain = theme.muted == Style::new().add_modifier(Modifier::DIM);
    if plain {
        let s = Style::new();
        return [s.add_modifier(Modifier::BOLD), s, s, s, theme.muted];
    }
    [
        Style::new().fg(Color::Cyan),    // key
        Style::new().fg(Color::Green),   // string
        Style::new().fg(Color::Yellow),  // number
        Style::new().fg(Color::Magenta), // true, false, null
        theme.muted,                     // punctuation
    ]
}

/// One coloured line, with the search occurrences reversed.
pub fn line(text: &str, search: &str, theme: &Theme) -> Line<'static> {
    let [key, string, number, keyword, punct] = token_styles(theme);
    let chars: Vec<char> = text.chars().collect();
    let mut styles = vec![punct; chars.len()];
    let mut i = 0;
    while i < chars.len() {
        match chars.get(i).copied() {
            Some('"') => {
                let start = i;
                i += 1;
                while i < chars.len() && chars.get(i) != Some(&'"') {
                    i += if chars.get(i) == Some(&'\\') { 2 } else { 1 };
                }
                i = (i + 1).min(chars.len());
                let is_key = chars.get(i) == Some(&':');
                styles[start..i].fill(if is_key { key } else { string });
            }
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let start = i;
                while i < chars.len()
                    && chars
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || "+-.".contains(*c))
                {
                    i += 1;
                }
                styles[start..i].fill(number);
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = i;
                while i < chars.len() && chars.get(i).is_some_and(char::is_ascii_alphabetic) {
                    i += 1;
                }
                styles[start..i].fill(keyword);
            }
            _ => i += 1,
        }
    }
    if !search.is_empty() {
        let lower: Vec<char> = text.to_lowercase().chars().collect();
        let q: Vec<char> = search.to_lowercase().chars().collect();
        if lower.len() == chars.len() {
            let mut j = 0;
            while j + q.len() <= lower.len() {
                if lower.get(j..j + q.len()) == Some(&q[..]) {
                    for s in styles.iter_mut().skip(j).take(q.len()) {
                        *s = s.add_modifier(Modifier::REVERSED);
                    }
                    j += q.len();
                } else {
                    j += 1;
                }
            }
        }
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut run = String::new();
    let mut style = styles.first().copied().unwrap_or_default();
    for (c, s) in chars.iter().zip(&styles) {
        if *s != style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), style));
        }
        style = *s;
        run.push(*c);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, style));
    }
    Line::from(spans)
}

/// Draws the view over `area`.
pub fn render(view: &RawView, frame: &mut Frame, area: Rect, theme: &Theme) {
    let height = usize::from(area.height.saturating_sub(2));
    let lines: Vec<Line> = view
        .lines
        .iter()
        .skip(view.scroll)
        .take(height)
        .map(|l| line(l, &view.search, theme))
        .collect();
    let matches = view.matches();
    let status = if view.search.is_empty() {
        format!(
            " line {} of {} ",
            (view.scroll + 1).min(view.lines.len()),
            view.lines.len()
        )
    } else if matches.is_empty() {
        format!(" no match for {:?} ", view.search)
    } else {
        format!(
            " match {} of {} for {:?} ",
            view.current.min(matches.len() - 1) + 1,
            matches.len(),
            view.search
        )
    };
    let block = Block::bordered()
        .title(Line::from(Span::styled(
            format!(" JSON {} (as received) ", view.id),
            theme.accent,
        )))
        .title_bottom(Line::from(Span::styled(status, theme.muted)));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
