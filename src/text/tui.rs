//! The sanitizer at the terminal: a ratatui backend wrapper that sanitises every cell before it
//! is written, and helpers that sanitise lines of spans for views.
//!
//! The views turn hazards into visible `⟨U+XXXX⟩` markers before layout; the backend is the
//! last line of defence for anything a view forgot (ratatui's own filtering of control
//! characters is an implementation detail, not a promise): a cell whose symbol holds a hazard is
//! written as `�`.
use std::borrow::Cow;

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use ratatui::text::{Line, Span};

use super::sanitize::{is_hazard, line};

/// A backend that never writes a hazardous character in a cell.
#[derive(Debug)]
pub struct SafeBackend<B>(pub B);

/// The cell as it may be written: unchanged, or `�` in place of a symbol holding a hazard.
#[must_use]
pub fn safe_cell(cell: &Cell) -> Cow<'_, Cell> {
    if cell.symbol().chars().any(is_hazard) {
        let mut c = cell.clone();
        c.set_symbol("\u{FFFD}");
        Cow::Owned(c)
    } else {
        Cow::Borrowed(cell)
    }
}

impl<B: Backend> Backend for SafeBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let cells: Vec<(u16, u16, Cow<'a, Cell>)> =
            content.map(|(x, y, c)| (x, y, safe_cell(c))).collect();
        self.0
            .draw(cells.iter().map(|(x, y, c)| (*x, *y, c.as_ref())))
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.0.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.0.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.0.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.0.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.0.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.0.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.0.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.0.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.flush()
    }
}

/// A span with its text through [`line`].
#[must_use]
pub fn safe_span(s: Span<'static>) -> Span<'static> {
    match line(&s.content) {
        Cow::Borrowed(_) => s,
        Cow::Owned(t) => Span::styled(t, s.style),
    }
}

/// A line with every span through [`line`] (markers carry no hazard, so this is idempotent).
#[must_use]
pub fn safe_line(l: Line<'static>) -> Line<'static> {
    let Line {
        spans,
        style,
        alignment,
    } = l;
    let mut out = Line::from(spans.into_iter().map(safe_span).collect::<Vec<_>>()).style(style);
    out.alignment = alignment;
    out
}

/// Every line through [`safe_line`].
#[must_use]
pub fn safe_lines(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    lines.into_iter().map(safe_line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;

    #[test]
    fn the_backend_never_writes_a_hazard() {
        let mut b = SafeBackend(TestBackend::new(3, 1));
        let mut esc = Cell::default();
        esc.set_symbol("\u{1b}");
        let mut rlo = Cell::default();
        rlo.set_symbol("a\u{202e}");
        let ok = Cell::new("x");
        b.draw([(0, 0, &esc), (1, 0, &rlo), (2, 0, &ok)].into_iter())
            .expect("draw");
        let shown: String = b.0.buffer().content().iter().map(Cell::symbol).collect();
        assert_eq!(shown, "\u{FFFD}\u{FFFD}x");
    }

    #[test]
    fn lines_get_markers() {
        let l = safe_line(Line::from(vec![Span::raw("a\u{202e}b"), Span::raw("ok")]));
        assert_eq!(l.spans[0].content, "a⟨U+202E⟩b");
        assert_eq!(l.spans[1].content, "ok");
    }
}
