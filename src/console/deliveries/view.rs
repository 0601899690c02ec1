//! The deliveries' drawing: the notification list's title chips (live marker, local status,
//! server-side filters), watch-mode highlights, the breadcrumb of cross-navigation, the attempt
//! cursor and destination health in details, and the overlays (attempt view, filter dialog).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use super::FilterDialog;
use super::filter::FIELDS;
use super::names;
use crate::console::record::{Item, Record};
use crate::console::state::State;
use crate::console::tab::Tab;
use crate::console::views::{self, ViewCtx};
use crate::console::widgets::centered;

/// The filter chips of a list: `callback: Issue events · event … · destination: Ops hook`,
/// callbacks and destinations by name (the id when no name is known).
pub(crate) fn chips(state: &State, f: &crate::api::NotificationFilter) -> Vec<String> {
    let mut out = Vec::new();
    for (label, ids, named) in [
        ("callback", &f.callback_ids, true),
        ("event", &f.event_ids, false),
        ("destination", &f.destination_ids, true),
    ] {
        if !ids.is_empty() {
            let short: Vec<String> = ids
                .iter()
                .map(|id| {
                    if named && state.caches.names.name(id).is_some() {
                        views::notifications::clip(&names::label(state, id), 24)
                    } else {
                        views::notifications::clip(id, 13)
                    }
                })
                .collect();
            out.push(format!("{label}: {}", short.join(" | ")));
        }
    }
    out
}

/// One picker field of the filter dialog: chosen names, the search, and (focused) the matches.
fn picker_lines(
    state: &State,
    p: &crate::console::forms::picker::Picker,
    focused: bool,
    lines: &mut Vec<Line<'static>>,
    label: Span<'static>,
) {
    let theme = &state.settings.theme;
    let mut spans = vec![label];
    for id in &p.chosen {
        let name = p
            .label_of(id)
            .map_or_else(|| names::label(state, id), str::to_string);
        spans.push(Span::styled(format!("[{name}] "), theme.accent));
    }
    let cursor = if focused { "▏" } else { "" };
    spans.push(Span::raw(format!("{}{cursor}", p.search.value())));
    lines.push(Line::from(spans));
    if !focused {
        return;
    }
    match &p.items {
        crate::console::forms::picker::Items::Ready(_) => {
            let found = p.filtered();
            if found.is_empty() && !p.search.value().trim().is_empty() {
                lines.push(Line::from(Span::styled(
                    "                  no name matches: Enter takes the text as ids",
                    theme.muted,
                )));
            }
            let start = p.cursor.saturating_sub(3);
            for (i, item) in found.iter().enumerate().skip(start).take(4) {
                let mark = if p.chosen.contains(&item.id) {
                    "[x]"
                } else {
                    "[ ]"
                };
                let line = Line::from(vec![
                    Span::raw(format!("                  {mark} {} ", item.label)),
                    Span::styled(item.id.clone(), theme.muted),
                ]);
                lines.push(if i == p.cursor {
                    line.style(theme.selected)
                } else {
                    line
                });
            }
        }
        _ => lines.push(Line::from(Span::styled(
            "                  loading names… (ids can be typed)",
            theme.muted,
        ))),
    }
}

/// The columns of the shown tab's list, from its resource's description.
pub(crate) fn columns(state: &State) -> Vec<views::ListColumn> {
    views::columns(state.tab)
}

/// Draws the notification filter dialog.
pub(crate) fn render_filter(state: &State, d: &FilterDialog, frame: &mut Frame, area: Rect) {
    let theme = &state.settings.theme;
    let mut lines = Vec::new();
    for (i, label) in FIELDS.iter().enumerate() {
        let focused = i == d.focus;
        let label = Span::styled(
            format!("{label:>16}: "),
            if focused { theme.accent } else { theme.muted },
        );
        match i {
            0 => picker_lines(state, &d.callbacks, focused, &mut lines, label),
            2 => picker_lines(state, &d.destinations, focused, &mut lines, label),
            _ => {
                let cursor = if focused { "▏" } else { "" };
                lines.push(Line::from(vec![
                    label,
                    Span::raw(format!("{}{cursor}", d.events.value())),
                ]));
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "Type to search by name, Space chooses (several: any matches). Event ids: commas or spaces.",
        theme.muted,
    )));
    // As tall as its lines once wrapped (the wrap drawn is the one measured).
    let inner_w = usize::from(area.width.min(76).saturating_sub(2)).max(1);
    let rows =
        crate::console::widgets::wrapped::wrap_rows(&crate::text::tui::safe_lines(lines), inner_w);
    let b = centered(area, 76, u16::try_from(rows.len() + 2).unwrap_or(u16::MAX));
    frame.render_widget(Clear, b);
    frame.render_widget(
        Paragraph::new(
            rows.iter()
                .map(crate::console::widgets::wrapped::row_line)
                .collect::<Vec<_>>(),
        )
        .block(Block::bordered().title(Span::styled(
            " Filter notifications (server-side) ",
            theme.accent,
        ))),
        b,
    );
}

/// The keys the filter dialog takes: the screen's footer shows them while it is open.
pub(crate) const FILTER_KEYS: &[(&str, &str)] = &[
    ("Tab", "field"),
    ("↑↓", "move"),
    ("Space", "choose"),
    ("Ctrl-U", "clear"),
    ("Enter", "apply"),
    ("Esc", "cancel"),
];

/// What follows the list title: the live marker, then filter chips.
pub(crate) fn title_suffix(state: &State, tab: Tab) -> String {
    let list = &state.tab_state(tab).list;
    let mut s = String::new();
    if tab == super::LIST && state.deliveries.watch.on {
        let paused = state.watch_paused();
        s.push_str(if paused {
            " · ● live (paused)"
        } else {
            " · ● live"
        });
    }
    if tab == super::LIST
        && let Some(chip) = super::local::chip(state)
    {
        s.push_str(&format!(" · [{chip}]"));
    }
    if let Some(chip) = super::window::chip(state, tab) {
        s.push_str(&format!(" · [{chip}]"));
    }
    if let Some(chip) = crate::console::search::update::chip(&state.search, &state.core, tab) {
        s.push_str(&format!(" · [{chip}]"));
    }
    for chip in chips(state, &list.filter) {
        s.push_str(&format!(" · [{chip}]"));
    }
    // Names are server text.
    crate::text::line(&s).into_owned()
}

/// What the shown list says when it is empty, if not the usual (a status filter on).
pub(crate) fn empty_note(state: &State) -> Option<String> {
    (state.tab == super::LIST)
        .then(|| super::local::empty_note(state))
        .flatten()
}

/// The shown list's bottom line, if not the page's number: a scan's progress (the title is too
/// narrow for it beside a preview), or what a status filter examined.
pub(crate) fn page_note(state: &State) -> Option<String> {
    if state.tab != super::LIST {
        return None;
    }
    super::scan::progress(state)
        .map(|p| format!(" {p} "))
        .or_else(|| super::local::page_note(state))
        .or_else(|| merged_note(state))
}

/// The bottom line after `n`/`N` joined pages: how many rows, from which page, and that `r`
/// starts again from the top (a page number alone would not be true).
fn merged_note(state: &State) -> Option<String> {
    if !super::scan::merged(state) {
        return None;
    }
    let list = &state.tab_state(super::LIST).list;
    let mut parts = Vec::new();
    if list.pagination.has_more_before {
        parts.push("← more".to_string());
    }
    parts.push(format!(
        "{} rows from page {} on",
        super::scan::grouped(list.rows.len()),
        list.page.max(1)
    ));
    parts.push("r: from the top".to_string());
    if list.pagination.has_more_after {
        parts.push("more →".to_string());
    }
    Some(format!(" {} ", parts.join(" · ")))
}

/// The breadcrumb of cross-navigation (`Callbacks › Destinations › Notifications`), if any.
pub(crate) fn breadcrumb(state: &State) -> Option<String> {
    if state.nav.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = state
        .nav
        .iter()
        .map(|f| f.return_to.title().to_string())
        .collect();
    // The last step says whose list it is, by name.
    let mut last = state.tab.title().to_string();
    if let Some(chip) = chips(state, &state.current().list.filter).first() {
        last.push_str(&format!(" of {chip}"));
    }
    parts.push(last);
    Some(crate::text::line(&format!("{}   Esc back", parts.join(" › "))).into_owned())
}

/// Row cells, the glance drawn as a sparkline, highlighted while watch mode marks the row new
/// or changed.
pub(crate) fn decorate(
    state: &State,
    record: &Record,
    cells: Vec<Line<'static>>,
) -> Vec<Line<'static>> {
    let mut cells = cells;
    if let Item::Destination(dest) = &record.item
        && let Some(h) = state.caches.glance.get(&dest.id)
        && let Some(c) = views::list::position(super::RECEIVERS, "Recent deliveries")
            .and_then(|i| cells.get_mut(i))
    {
        *c = Line::from(super::health::glance_spans(h, &state.settings.theme));
    }
    if !state.deliveries.watch.flash.contains_key(record.id()) {
        return cells;
    }
    let style = state.settings.theme.warn.add_modifier(Modifier::BOLD);
    cells.into_iter().map(|c| c.patch_style(style)).collect()
}

/// The detail's lines, before the sanitizer: names and the revealed secret are server text
/// too, sanitized by the detail pane (once per record, not on every key).
pub(crate) fn unsanitised_detail(
    state: &State,
    record: &Record,
    ctx: &ViewCtx,
) -> Vec<Line<'static>> {
    let ts = state.current();
    let open = ts.detail.as_ref().is_some_and(|d| d.id == record.id());
    match &record.item {
        Item::Notification(n) => {
            let d = &state.deliveries;
            let cursor = if d.cursor_of == n.id {
                d.attempt_cursor
            } else {
                0
            };
            let named = views::notifications::Named {
                callback: n
                    .body_field("callbackId")
                    .map(|id| state.caches.names.label_with_id(&id)),
                destinations: match names::destination_line(state, n) {
                    None if state.caches.names_pending.is_some() => vec!["looking up…".into()],
                    line => line.into_iter().collect(),
                },
            };
            views::notifications::detail_with(n, ctx, open.then_some(cursor), &named)
        }
        Item::Destination(dest) => {
            let d = &state.caches;
            let secret = dest
                .webhook_destination
                .as_ref()
                .map(|w| super::secret::shown(state, dest, &w.signing_secret))
                .and_then(|(s, revealed)| revealed.then_some(s));
            let extras = views::destinations::Extras {
                names: Some(&d.names),
                deleted: d.deleted.contains(&dest.id),
                secret: secret.filter(|_| open),
            };
            let mut lines = views::destinations::detail_with(dest, ctx, &extras);
            if open {
                let d = &state.deliveries;
                let stats = d.stats.as_ref().filter(|(id, _)| *id == dest.id);
                let timeline = d.health.as_ref().filter(|h| h.destination_id == dest.id);
                lines.extend(views::destinations::health_lines(
                    stats.and_then(|(_, s)| s.as_ref()),
                    stats.is_some() && d.stats_pending.is_some(),
                    timeline,
                    ctx,
                ));
            }
            lines
        }
        Item::EventDestination(ed) => {
            let mut lines = views::unsanitised_detail(record, ctx);
            // Revealed (`R`, asked first): the masked new secret in full, until it is left.
            if let Some(secret) = open
                .then(|| super::secret::revealed_event_secret(state, &ed.id))
                .flatten()
            {
                let masked = crate::api::secret::mask(&secret);
                let full = format!("{} (REVEALED)", crate::text::line(&secret));
                for span in lines.iter_mut().flat_map(|l| l.spans.iter_mut()) {
                    if span.content.contains(&masked) {
                        span.content = span.content.replace(&masked, &full).into();
                    }
                }
            }
            lines
        }
        // A callback destination's health, counted as `destinations stats` counts it here.
        Item::CallbackDestination(cd) => {
            let mut lines = views::unsanitised_detail(record, ctx);
            let d = &state.deliveries;
            if open {
                let stats = d.stats.as_ref().filter(|(id, _)| *id == cd.id);
                lines.push(Line::default());
                lines.extend(views::destinations::health_lines(
                    stats.and_then(|(_, s)| s.as_ref()),
                    stats.is_some() && d.stats_pending.is_some(),
                    None,
                    ctx,
                ));
            }
            lines
        }
        Item::Callback(c) => {
            let revealed = open
                .then(|| super::secret::revealed_hook(state, &c.id))
                .flatten();
            views::callbacks::detail_with(c, ctx, revealed.as_deref())
        }
        _ => views::unsanitised_detail(record, ctx),
    }
}

/// Draws this module's overlays over the body: the attempt view and the filter dialog.
pub(crate) fn overlays(state: &State, frame: &mut Frame, body: Rect) {
    if let Some(v) = &state.deliveries.attempt {
        super::attempt::render(state, v, frame, body);
    }
    if let Some(d) = &state.deliveries.filter {
        render_filter(state, d, frame, body);
    }
}
