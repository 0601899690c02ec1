//! Draws the whole screen from the state: the tab (header, list, detail, footer, toasts), then
//! every open layer over it, up [`Layer::ORDER`].
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::layers::Layer;
use super::layout::{self, MIN_SIZE};
use super::state::State;
use super::views::{self, ViewCtx};
use super::widgets::detail::DetailView;
use super::widgets::paged_table::PagedTable;
use super::widgets::{spinner, toast};

/// Draws one frame.
pub(crate) fn render(state: &State, frame: &mut Frame) {
    let screen = frame.area();
    if layout::too_small((screen.width, screen.height)) {
        let msg = format!(
            "terminal too small: {}×{} (needs {}×{})",
            screen.width, screen.height, MIN_SIZE.0, MIN_SIZE.1
        );
        // Wrapped, so that the whole sentence shows in a narrow split too.
        let y = screen.height.saturating_sub(2) / 2;
        frame.render_widget(
            Paragraph::new(msg)
                .alignment(Alignment::Center)
                .wrap(ratatui::widgets::Wrap { trim: true }),
            Rect::new(screen.x, screen.y + y, screen.width, screen.height - y),
        );
        return;
    }
    let areas = layout::areas(screen, state.tab, state.current().detail.is_some());
    let body = Rect::new(
        screen.x,
        areas.header.bottom(),
        screen.width,
        areas.footer.y.saturating_sub(areas.header.bottom()),
    );
    // Up the one order keys and clicks go down: the tab first, the outermost open layer last.
    render_tab(state, frame, screen);
    for layer in Layer::ORDER.into_iter().rev() {
        if layer != Layer::Tab && layer.is_open(state) {
            layer.draw(state, frame, screen, body);
        }
    }
}

/// The tab: header, list, detail and the footer line (the key hints or the prompt being
/// typed, and the toasts).
fn render_tab(state: &State, frame: &mut Frame, screen: Rect) {
    let ts = state.current();
    let areas = layout::areas(screen, state.tab, ts.detail.is_some());
    render_header(state, frame, areas.header);
    let ctx = ViewCtx {
        clock: &state.clock,
        theme: &state.settings.theme,
    };
    if let Some(area) = areas.list {
        let list = &ts.list;
        let order = match list.rows_order.unwrap_or(list.order) {
            crate::api::Order::Asc => "oldest first",
            crate::api::Order::Desc => "newest first",
        };
        let window = super::widgets::paged_table::visible_window(list, area);
        PagedTable {
            title: format!(
                "{} · {order}{}{}",
                state.tab.title(),
                super::deliveries::view::title_suffix(
                    &state.deliveries,
                    &state.core,
                    state.tab,
                    super::search::update::chip(&state.search, &state.core, state.tab)
                ),
                super::power::filter_sort::sort_suffix(&state.power, &state.core)
            ) + &super::recover::view::title_suffix(&state.recover.marks, &state.core),
            noun: state.tab.noun(),
            columns: super::deliveries::view::columns(state),
            rows: views::row_cache::rows(
                state,
                &ctx,
                list.shown().skip(window.start).take(window.len()),
                |r, cells| {
                    super::deliveries::view::decorate(&state.deliveries, &state.core, r, cells)
                },
            ),
            first: window.start,
            list,
            focused: ts.detail.is_none() && !state.help,
            frame: state.frame,
            theme: &state.settings.theme,
            marks: super::recover::view::marks(
                &state.recover.marks,
                &state.core,
                list.shown().skip(window.start).take(window.len()),
            ),
            empty: super::deliveries::view::empty_note(&state.deliveries, &state.core),
            page_note: super::deliveries::view::page_note(&state.deliveries, &state.core),
            stable: super::widgets::paged_table::stable_for(state.tab),
        }
        .render(frame, area);
        let local = &state.deliveries.local;
        super::power::view::render_list_extras(&state.power, &state.core, local, frame, area);
    }
    if let Some(area) = areas.detail {
        render_detail(state, &ctx, frame, area);
    }
    // A toast takes the right end of the footer line (never rows of the list or its border);
    // the key hints are cut to what is left.
    // `? help` and `q quit` stay whatever the toasts say.
    let kept = super::footer::kept_width(
        super::layers::Layer::declared(state),
        &state.settings.keymap,
    )
    .min(areas.footer.width);
    let toast_area = Rect {
        x: areas.footer.x + kept,
        width: areas.footer.width - kept,
        ..areas.footer
    };
    let toast_w = toast::width(&state.toasts, toast_area.width);
    let hints = Rect {
        width: areas.footer.width.saturating_sub(toast_w),
        ..areas.footer
    };
    if super::power::view::render_footer(&state.power, &state.core, frame, areas.footer) {
        // A prompt's text comes first: the toast only where the prompt leaves room.
        let used = used_width(frame, areas.footer);
        toast::render(
            frame,
            areas.footer,
            used,
            &state.toasts,
            &state.settings.theme,
        );
    } else {
        render_footer(state, frame, hints);
        toast::render(frame, toast_area, 0, &state.toasts, &state.settings.theme);
    }
}

fn render_detail(state: &State, ctx: &ViewCtx, frame: &mut Frame, area: Rect) {
    let ts = state.current();
    let idle = super::state::LoadState::Idle;
    let (load, scroll, focused) = match &ts.detail {
        Some(d) => (&d.load, d.scroll, true),
        None => (&idle, 0, false),
    };
    let (title, lines) = super::detail::title_and_lines(state, ctx);
    DetailView {
        title,
        lines,
        scroll,
        load,
        focused,
        frame: state.frame,
        theme: &state.settings.theme,
    }
    .render(frame, area);
}

fn render_header(state: &State, frame: &mut Frame, area: Rect) {
    let t = &state.settings.theme;
    let narrow = layout::is_narrow(area.width);
    let top = Rect::new(area.x, area.y, area.width, 1);
    let bottom = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    );
    frame.render_widget(Paragraph::new(Line::from(tabs_line(state, top.width))), top);
    // On a narrow terminal the labels go first, and read-only comes before the address, so
    // that what the cut leaves is the profile, the mode, then the place.
    let mut info = if narrow {
        vec![Span::raw(" "), Span::raw(state.profile.clone())]
    } else {
        vec![
            Span::styled(" switchboard", t.accent),
            Span::styled(" · profile ", t.muted),
            Span::raw(state.profile.clone()),
        ]
    };
    if narrow && state.read_only {
        info.push(Span::styled(" · read-only", t.warn));
    }
    // Failing alert rules come before the address, so a cut leaves them.
    if let Some(chip) = super::alerts::update::header(&state.alerts) {
        info.push(Span::styled(format!(" · {chip}"), t.error));
    }
    info.push(Span::styled(" · ", t.muted));
    // While following a webhook, the path matters more than the address.
    match super::deliveries::view::breadcrumb(state) {
        Some(crumb) => info.push(Span::styled(crumb, t.accent)),
        None => info.push(Span::raw(state.base_url.clone())),
    }
    if !narrow && state.read_only {
        info.push(Span::styled(" · read-only", t.warn));
    }
    let activity = activity(state);
    // The status keeps its place: the line before it is cut with `…`, one column short of it.
    let room = usize::from(bottom.width).saturating_sub(activity.width() + 1);
    frame.render_widget(Paragraph::new(Line::from(cut(info, room))), bottom);
    frame.render_widget(
        Paragraph::new(Line::from(activity)).alignment(Alignment::Right),
        bottom,
    );
}

/// The console's own requests, worded so that it cannot be read as the service's state
/// ("idle" was): `⠋ 2 requests` while replies are awaited, `0 requests` otherwise.
fn activity(state: &State) -> Span<'static> {
    let t = &state.settings.theme;
    let n = state.in_flight();
    let noun = if n == 1 { "request" } else { "requests" };
    if n > 0 {
        Span::styled(format!("{} {n} {noun} ", spinner(state.frame)), t.warn)
    } else {
        Span::styled(format!("0 {noun} "), t.muted)
    }
}

/// The tabs as `tab::labels` lays them out, the active one reversed.
fn tabs_line(state: &State, width: u16) -> Vec<Span<'static>> {
    let t = &state.settings.theme;
    let mut tabs = vec![Span::raw(" ")];
    for (tab, label, _) in super::tab::labels(&state.shown, state.tab, width) {
        let style = if tab == state.tab {
            t.accent.add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            t.tab
        };
        tabs.push(Span::styled(label, style));
    }
    tabs
}

/// Columns of `area`'s first row up to its last non-blank cell, as drawn so far.
fn used_width(frame: &mut Frame, area: Rect) -> u16 {
    let buf = frame.buffer_mut();
    (area.left()..area.right())
        .rev()
        .find(|&x| buf.cell((x, area.y)).is_some_and(|c| c.symbol() != " "))
        .map_or(0, |x| x + 1 - area.left())
}

/// The spans cut to `width` columns, ending in `…` when anything was left out.
fn cut(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    if spans.iter().map(Span::width).sum::<usize>() <= width {
        return spans;
    }
    let mut left = width.saturating_sub(1);
    let mut out = Vec::new();
    'spans: for s in spans {
        let mut text = String::new();
        for c in s.content.chars() {
            let w = Span::raw(c.to_string()).width();
            if w > left {
                out.push(Span::styled(text, s.style));
                break 'spans;
            }
            left -= w;
            text.push(c);
        }
        out.push(Span::styled(text, s.style));
    }
    out.push(Span::raw("…"));
    out
}

fn render_footer(state: &State, frame: &mut Frame, area: Rect) {
    let t = &state.settings.theme;
    let mut spans = Vec::new();
    let declared = super::layers::Layer::declared(state);
    for (keys, word) in super::footer::hints(declared, &state.settings.keymap, area.width) {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(keys, t.key));
        spans.push(Span::styled(format!(" {word} "), t.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
