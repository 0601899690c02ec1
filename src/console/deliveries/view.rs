//! The deliveries' drawing: the notification list's title chips (live marker, local status,
//! server-side filters), watch-mode highlights, the breadcrumb of cross-navigation, the attempt
//! cursor and destination health in details, and the overlays (attempt view, filter dialog).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Clear, Paragraph};

use super::FilterDialog;
use super::filter::FIELDS;
use crate::console::record::{Item, Record};
use crate::console::state::State;
use crate::console::tab::Tab;
use crate::console::theme::Theme;
use crate::console::views::{self, ViewCtx};
use crate::console::widgets::centered;

/// The filter chips of a list: `callback cb_… · event … · destination …`.
pub fn chips(f: &crate::api::NotificationFilter) -> Vec<String> {
    let mut out = Vec::new();
    for (label, ids) in [
        ("callback", &f.callback_ids),
        ("event", &f.event_ids),
        ("destination", &f.destination_ids),
    ] {
        if !ids.is_empty() {
            let short: Vec<String> = ids
                .iter()
                .map(|id| views::notifications::clip(id, 13))
                .collect();
            out.push(format!("{label}: {}", short.join(" | ")));
        }
    }
    out
}

/// Draws the notification filter dialog.
pub(crate) fn render_filter(d: &FilterDialog, theme: &Theme, frame: &mut Frame, area: Rect) {
    let b = centered(area, 70, 10);
    let mut lines = Vec::new();
    for (i, (label, text)) in FIELDS.iter().zip(d.texts.iter()).enumerate() {
        let focused = i == d.focus;
        let cursor = if focused { "▏" } else { "" };
        lines.push(Line::from(vec![
            Span::styled(
                format!("{label:>16}: "),
                if focused { theme.accent } else { theme.muted },
            ),
            Span::raw(format!("{text}{cursor}")),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "Several ids each, separated by commas or spaces (any of them matches).",
        theme.muted,
    )));
    lines.push(Line::from(vec![
        Span::styled("Tab", theme.key),
        Span::raw(" next field  "),
        Span::styled("Enter", theme.key),
        Span::raw(" apply  "),
        Span::styled("Esc", theme.key),
        Span::raw(" cancel"),
    ]));
    frame.render_widget(Clear, b);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(Span::styled(
            " Filter notifications (server-side) ",
            theme.accent,
        ))),
        b,
    );
}

/// What follows the list title: the live marker, then filter chips.
pub(crate) fn title_suffix(state: &State, tab: Tab) -> String {
    let list = &state.tab_state(tab).list;
    let mut s = String::new();
    if tab == Tab::Notifications && state.deliveries.watch.on {
        let paused = state.watch_paused();
        s.push_str(if paused {
            " · ● live (paused)"
        } else {
            " · ● live"
        });
    }
    if tab == Tab::Notifications
        && let Some(chip) = super::local::chip(state)
    {
        s.push_str(&format!(" · [{chip}]"));
    }
    for chip in chips(&list.filter) {
        s.push_str(&format!(" · [{chip}]"));
    }
    s
}

/// The breadcrumb of cross-navigation (`Callbacks › Destinations › Notifications`), if any.
pub fn breadcrumb(state: &State) -> Option<String> {
    if state.nav.is_empty() {
        return None;
    }
    let mut parts: Vec<&str> = state.nav.iter().map(|f| f.return_to.title()).collect();
    parts.push(state.tab.title());
    Some(format!("{}   Esc back", parts.join(" › ")))
}

/// Row cells, highlighted while watch mode marks the row new or changed.
pub(crate) fn decorate(
    state: &State,
    record: &Record,
    cells: Vec<Cell<'static>>,
) -> Vec<Cell<'static>> {
    if !state.deliveries.watch.flash.contains_key(record.id()) {
        return cells;
    }
    let style = state.theme.warn.add_modifier(Modifier::BOLD);
    cells.into_iter().map(|c| c.style(style)).collect()
}

/// Detail lines with this module's additions: the attempt cursor, a destination's health.
pub(crate) fn detail_lines(state: &State, record: &Record, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let ts = state.current();
    let open = ts.detail.as_ref().is_some_and(|d| d.id == record.id());
    match &record.item {
        Item::Notification(n) if open => {
            let d = &state.deliveries;
            let cursor = if d.cursor_of == n.id {
                d.attempt_cursor
            } else {
                0
            };
            views::notifications::detail_with(n, ctx, Some(cursor))
        }
        Item::Destination(dest) => {
            let mut lines = views::destinations::detail(dest, ctx);
            if let Some(h) = state
                .deliveries
                .health
                .as_ref()
                .filter(|h| open && h.destination_id == dest.id)
            {
                lines.extend(views::destinations::health_lines(h, ctx));
            }
            lines
        }
        _ => views::detail(record, ctx),
    }
}

/// Draws this module's overlays over the body: the attempt view and the filter dialog.
pub(crate) fn overlays(state: &State, frame: &mut Frame, body: Rect) {
    if let Some(v) = &state.deliveries.attempt {
        super::attempt::render(state, v, frame, body);
    }
    if let Some(d) = &state.deliveries.filter {
        render_filter(d, &state.theme, frame, body);
    }
}
