//! The power tools' drawing: the filter count and highlights on the list, the command line,
//! filter prompt and raw view keys in the footer, the raw view over the body.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{PowerState, filter, filter_sort};
use crate::console::deliveries::LocalFilter;
use crate::console::keymap::Action;
use crate::console::layout;
use crate::console::state::{Core, LoadState};

/// The rows of a list area that hold data: inside the border, below errors and the header.
pub(crate) fn data_rows_area(cx: &Core, list_area: Rect) -> Rect {
    let list = &cx.current().list;
    let errors = match &list.load {
        LoadState::Error(e) => 1 + u16::from(e.hint.is_some()),
        _ => 0,
    };
    let inner = Block::bordered().inner(list_area);
    let top = inner.y.saturating_add(errors + 1);
    let shown = u16::try_from(list.shown_len().saturating_sub(list.offset)).unwrap_or(u16::MAX);
    let height = inner.bottom().saturating_sub(top).min(shown);
    Rect::new(inner.x, top, inner.width, height)
}

/// Draws the filter count on the list's bottom border and highlights the matches (`local`: the
/// deliveries' status filter, for the count).
pub(crate) fn render_list_extras(
    room: &PowerState,
    cx: &Core,
    local: &LocalFilter,
    frame: &mut Frame,
    area: Rect,
) {
    let f = &room.filters[cx.tab.index()];
    if !f.active() && !f.editing {
        return;
    }
    let count = filter_sort::count_line(room, cx, local, cx.tab).unwrap_or_default();
    let text = format!(" /{} · {count} ", f.query.value());
    let w = (text.chars().count() as u16).min(area.width.saturating_sub(2));
    let x = area.right().saturating_sub(w + 1);
    let bottom = Rect::new(x, area.bottom().saturating_sub(1), w, 1);
    frame.render_widget(
        Paragraph::new(Span::styled(text, cx.settings.theme.accent)),
        bottom,
    );
    if f.active() {
        let rows = data_rows_area(cx, area);
        filter::highlight(frame.buffer_mut(), rows, f.query.value());
    }
}

/// Draws the command line, the filter prompt or the raw view's keys in the footer; false when
/// the usual footer applies.
pub(crate) fn render_footer(room: &PowerState, cx: &Core, frame: &mut Frame, area: Rect) -> bool {
    let t = &cx.settings.theme;
    let km = &cx.settings.keymap;
    let line = if let Some(c) = &room.command {
        let mut spans = vec![Span::styled(":", t.key), Span::raw(c.input.with_cursor())];
        if let Some(cands) = c.candidates_line() {
            spans.push(Span::styled(format!("  {cands}"), t.muted));
        }
        Line::from(spans)
    } else if let Some(v) = &room.raw {
        if v.editing {
            Line::from(vec![
                Span::styled("search /", t.key),
                Span::raw(v.search.with_cursor()),
                Span::styled("  Enter find · Esc clear", t.muted),
            ])
        } else {
            let pairs = [
                (Action::Down, "scroll"),
                (Action::Filter, "search"),
                (Action::NextMatch, "next"),
                (Action::PrevMatch, "prev"),
                (Action::CopyJson, "copy JSON"),
                (Action::Back, "close"),
            ];
            let mut spans = Vec::new();
            for (a, word) in pairs {
                if let Some(k) = km.keys_for(a).first() {
                    spans.push(Span::raw(" "));
                    spans.push(Span::styled(k.label(), t.key));
                    spans.push(Span::styled(format!(" {word} "), t.muted));
                }
            }
            Line::from(spans)
        }
    } else if room.filters[cx.tab.index()].editing {
        let f = &room.filters[cx.tab.index()];
        Line::from(vec![
            Span::styled("filter /", t.key),
            Span::raw(f.query.with_cursor()),
            Span::styled("  Enter keep · Esc clear", t.muted),
        ])
    } else {
        return false;
    };
    frame.render_widget(Paragraph::new(line), area);
    true
}

/// Draws the raw view over the body.
pub(crate) fn render_overlay(room: &PowerState, cx: &Core, frame: &mut Frame, screen: Rect) {
    let Some(view) = &room.raw else {
        return;
    };
    let areas = layout::areas(screen, cx.tab, cx.current().detail.is_some());
    let top = areas.header.bottom();
    let body = Rect::new(
        screen.x,
        top,
        screen.width,
        areas.footer.y.saturating_sub(top),
    );
    crate::console::raw_json::render(view, frame, body, &cx.settings.theme);
}
