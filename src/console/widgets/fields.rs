//! A builder for detail-pane text: labelled fields, sections and indented lines.
use ratatui::text::{Line, Span};

use crate::console::theme::Theme;

/// Width of the label column (a space always follows).
const LABEL: usize = 14;

/// Collects the lines of a detail pane.
#[derive(Debug)]
pub(crate) struct Fields<'t> {
    lines: Vec<Line<'static>>,
    theme: &'t Theme,
}

impl<'t> Fields<'t> {
    /// An empty builder.
    pub(crate) fn new(theme: &'t Theme) -> Self {
        Self {
            lines: Vec::new(),
            theme,
        }
    }

    /// `Label         value`.
    pub(crate) fn field(&mut self, label: &str, value: impl Into<Span<'static>>) -> &mut Self {
        self.field_spans(label, vec![value.into()])
    }

    /// A field whose value is several styled spans.
    pub(crate) fn field_spans(&mut self, label: &str, value: Vec<Span<'static>>) -> &mut Self {
        let mut spans = vec![Span::styled(format!("{label:<LABEL$} "), self.theme.muted)];
        spans.extend(value);
        self.lines.push(Line::from(spans));
        self
    }

    /// A field that may be null: shows a muted dash then.
    pub(crate) fn opt(&mut self, label: &str, value: Option<&str>) -> &mut Self {
        let span = match value {
            Some(v) if !v.is_empty() => Span::raw(v.to_string()),
            _ => self.dash(),
        };
        self.field(label, span)
    }

    /// The muted dash shown for a missing value.
    pub(crate) fn dash(&self) -> Span<'static> {
        Span::styled("—", self.theme.muted)
    }

    /// A blank line and a heading.
    pub(crate) fn section(&mut self, title: impl Into<String>) -> &mut Self {
        self.lines.push(Line::default());
        self.lines
            .push(Line::from(Span::styled(title.into(), self.theme.section)));
        self
    }

    /// A free line, indented by `indent` spaces.
    pub(crate) fn line(&mut self, indent: usize, spans: Vec<Span<'static>>) -> &mut Self {
        let mut all = vec![Span::raw(" ".repeat(indent))];
        all.extend(spans);
        self.lines.push(Line::from(all));
        self
    }

    /// The collected lines.
    pub(crate) fn finish(self) -> Vec<Line<'static>> {
        self.lines
    }
}
