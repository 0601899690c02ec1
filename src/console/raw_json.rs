//! The `v` view: the selected item's JSON as received, pretty-printed, coloured, scrollable,
//! with `/` search. Signing secrets and tokens are masked, never shown.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use serde_json::Value;

use super::theme::Theme;
use super::widgets::json;
use crate::text::redact;

/// Pretty JSON of an item for the clipboard: secrets masked, hazards `\u`-escaped.
pub(crate) fn pretty(v: &Value) -> String {
    crate::text::clip::json(v)
}

/// Columns one `←`/`→` moves the JSON view.
pub(crate) const SIDEWAYS: usize = 8;

/// The open raw view.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RawView {
    /// Title (the item's id).
    pub(crate) id: String,
    /// The item, secrets masked.
    pub(crate) value: Value,
    /// Pretty-printed lines (as drawn), for search and scrolling.
    pub(crate) lines: Vec<String>,
    /// First line shown.
    pub(crate) scroll: usize,
    /// Columns scrolled sideways (`←`/`→`, `h`/`l`): long lines are not wrapped.
    pub(crate) hscroll: usize,
    /// Search query; empty when none.
    pub(crate) search: crate::console::input::TextInput,
    /// Whether keys are typed into the search.
    pub(crate) editing: bool,
    /// Index into the matching lines of the current match.
    pub(crate) current: usize,
}

impl RawView {
    /// A view of an item's JSON.
    pub(crate) fn new(id: &str, raw: &Value) -> Self {
        let value = redact::masked(raw);
        let lines = json::lines(&value, &Theme::plain())
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        Self {
            id: id.to_string(),
            value,
            lines,
            ..Self::default()
        }
    }

    /// Lines that contain the search (ignoring case).
    pub(crate) fn matches(&self) -> Vec<usize> {
        let q = self.search.value().to_lowercase();
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
    pub(crate) fn jump(&mut self, forward: bool, height: usize) -> bool {
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
    pub(crate) fn show_current(&mut self, height: usize) {
        let m = self.matches();
        if let Some(&line) = m.get(self.current.min(m.len().saturating_sub(1)))
            && (line < self.scroll || line >= self.scroll + height.max(1))
        {
            self.scroll = line.saturating_sub(height / 3);
        }
        self.clamp(height);
    }

    /// Keeps the scroll inside the text.
    pub(crate) fn clamp(&mut self, height: usize) {
        self.scroll = self
            .scroll
            .min(self.lines.len().saturating_sub(height.max(1)));
        let widest = self
            .lines
            .iter()
            .map(|l| crate::resource::display_width(l))
            .max()
            .unwrap_or(0);
        // The end of the widest line stays in view.
        self.hscroll = self.hscroll.min(widest.saturating_sub(SIDEWAYS));
    }

    /// Scrolls sideways by [`SIDEWAYS`] columns, no further than the end of the widest line in
    /// a view `width` columns wide.
    pub(crate) fn sideways(&mut self, right: bool, width: usize) {
        let widest = self
            .lines
            .iter()
            .map(|l| crate::resource::display_width(l))
            .max()
            .unwrap_or(0);
        self.hscroll = if right {
            self.hscroll
                .saturating_add(SIDEWAYS)
                .min(widest.saturating_sub(width))
        } else {
            self.hscroll.saturating_sub(SIDEWAYS)
        };
    }
}

/// Reverses every occurrence of `search` (ignoring case) in a coloured line, keeping the colours.
pub(crate) fn highlight(line: Line<'static>, search: &str) -> Line<'static> {
    if search.is_empty() {
        return line;
    }
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let chars: Vec<char> = text.chars().collect();
    let lower: Vec<char> = chars.iter().flat_map(|c| c.to_lowercase()).collect();
    let q: Vec<char> = search.to_lowercase().chars().collect();
    // Case folding that changes lengths would misplace marks: leave such lines plain.
    if lower.len() != chars.len() || q.is_empty() {
        return line;
    }
    let mut hit = vec![false; chars.len()];
    let mut j = 0;
    while j + q.len() <= lower.len() {
        if lower.get(j..j + q.len()) == Some(&q[..]) {
            hit[j..j + q.len()].fill(true);
            j += q.len();
        } else {
            j += 1;
        }
    }
    let mut spans = Vec::new();
    let mut pos = 0;
    for span in line.spans {
        let mut run = String::new();
        let mut run_hit = false;
        for c in span.content.chars() {
            let h = hit.get(pos).copied().unwrap_or(false);
            if h != run_hit && !run.is_empty() {
                let style = if run_hit {
                    span.style.add_modifier(Modifier::REVERSED)
                } else {
                    span.style
                };
                spans.push(Span::styled(std::mem::take(&mut run), style));
            }
            run_hit = h;
            run.push(c);
            pos += 1;
        }
        if !run.is_empty() {
            let style = if run_hit {
                span.style.add_modifier(Modifier::REVERSED)
            } else {
                span.style
            };
            spans.push(Span::styled(run, style));
        }
    }
    Line::from(spans)
}

/// Draws the view over `area`.
pub(crate) fn render(view: &RawView, frame: &mut Frame, area: Rect, theme: &Theme) {
    let height = usize::from(area.height.saturating_sub(2));
    // Colours from the shared JSON widget; the plain lines serve the search.
    let lines: Vec<Line> = json::lines(&view.value, theme)
        .into_iter()
        .skip(view.scroll)
        .take(height)
        .map(|l| highlight(l, view.search.value()))
        .collect();
    let matches = view.matches();
    let inner_width = usize::from(area.width.saturating_sub(2));
    let wide = view
        .lines
        .iter()
        .any(|l| crate::resource::display_width(l) > inner_width);
    let sideways = match (view.hscroll, wide) {
        (0, false) => String::new(),
        (0, true) => "· → more ".into(),
        (n, _) => format!("· column {} · ←/→ ", n + 1),
    };
    let status = if view.search.value().is_empty() {
        format!(
            " line {} of {} {sideways}",
            (view.scroll + 1).min(view.lines.len()),
            view.lines.len()
        )
    } else if matches.is_empty() {
        format!(
            " no match for {:?} ",
            crate::text::line(view.search.value())
        )
    } else {
        format!(
            " match {} of {} for {:?} ",
            view.current.min(matches.len() - 1) + 1,
            matches.len(),
            crate::text::line(view.search.value())
        )
    };
    let block = Block::bordered()
        .title(Line::from(Span::styled(
            format!(" JSON {} (as received) ", crate::text::line(&view.id)),
            theme.accent,
        )))
        .title_bottom(Line::from(Span::styled(status, theme.muted)));
    frame.render_widget(Clear, area);
    let x = u16::try_from(view.hscroll).unwrap_or(u16::MAX);
    frame.render_widget(Paragraph::new(lines).block(block).scroll((0, x)), area);
}
