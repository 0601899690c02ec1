//! Draws the whole screen from the state: header, list, detail, footer, toasts, help.
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::layout::{self, MIN_SIZE};
use super::state::State;
use super::tab::Tab;
use super::views::{self, ViewCtx};
use super::widgets::detail::DetailView;
use super::widgets::paged_table::PagedTable;
use super::widgets::{help, spinner, toast};

/// Draws one frame.
pub fn render(state: &State, frame: &mut Frame) {
    let screen = frame.area();
    if layout::too_small((screen.width, screen.height)) {
        let msg = format!(
            "terminal too small: {}×{} (needs {}×{})",
            screen.width, screen.height, MIN_SIZE.0, MIN_SIZE.1
        );
        let y = screen.height / 2;
        frame.render_widget(
            Paragraph::new(msg).alignment(Alignment::Center),
            Rect::new(screen.x, screen.y + y, screen.width, 1.min(screen.height)),
        );
        return;
    }
    let ts = state.current();
    let areas = layout::areas(screen, ts.detail.is_some());
    render_header(state, frame, areas.header);
    let ctx = ViewCtx {
        clock: &state.clock,
        theme: &state.theme,
    };
    if let Some(area) = areas.list {
        let list = &ts.list;
        let order = match list.order {
            crate::api::Order::Asc => "oldest first",
            crate::api::Order::Desc => "newest first",
        };
        let window = super::widgets::paged_table::visible_window(list, area);
        PagedTable {
            title: format!(
                "{} · {order}{}{}",
                state.tab.title(),
                super::deliveries::view::title_suffix(state, state.tab),
                super::power::filter_sort::sort_suffix(state)
            ),
            noun: state.tab.noun(),
            columns: views::columns(state.tab),
            rows: list
                .shown()
                .skip(window.start)
                .take(window.len())
                .map(|r| super::deliveries::view::decorate(state, r, views::cells(r, &ctx)))
                .collect(),
            first: window.start,
            list,
            focused: ts.detail.is_none() && !state.help,
            frame: state.frame,
            theme: &state.theme,
        }
        .render(frame, area);
        super::power::view::render_list_extras(state, frame, area);
    }
    if let Some(area) = areas.detail {
        render_detail(state, &ctx, frame, area);
    }
    let body = Rect::new(
        screen.x,
        areas.header.bottom(),
        screen.width,
        areas.footer.y.saturating_sub(areas.header.bottom()),
    );
    super::deliveries::view::overlays(state, frame, body);
    super::replay::view::render(state, frame, body);
    super::power::view::render_overlay(state, frame, screen);
    if !super::power::view::render_footer(state, frame, areas.footer) {
        render_footer(state, frame, areas.footer);
    }
    if let Some(d) = &state.forms.dialog {
        super::forms::view::render(frame, screen, d, &state.theme);
    }
    let toast_area = Rect::new(screen.x, areas.footer.y.saturating_sub(4), screen.width, 3);
    toast::render(frame, toast_area, &state.toasts, &state.theme);
    if state.help {
        help::render(frame, screen, &state.keymap, &state.theme);
    }
}

fn render_detail(state: &State, ctx: &ViewCtx, frame: &mut Frame, area: Rect) {
    let ts = state.current();
    let idle = super::state::LoadState::Idle;
    let (record, load, scroll, focused) = match &ts.detail {
        Some(d) => (d.record.as_ref(), &d.load, d.scroll, true),
        None => (ts.list.selected(), &idle, 0, false),
    };
    let (title, lines) = match record {
        Some(r) => (
            views::title(r),
            super::deliveries::view::detail_lines(state, r, ctx),
        ),
        None => (
            "Detail".to_string(),
            vec![Line::from(Span::styled(
                "nothing selected",
                state.theme.muted,
            ))],
        ),
    };
    DetailView {
        title,
        lines,
        scroll,
        load,
        focused,
        frame: state.frame,
        theme: &state.theme,
    }
    .render(frame, area);
}

fn render_header(state: &State, frame: &mut Frame, area: Rect) {
    let t = &state.theme;
    let mut tabs = vec![Span::raw(" ")];
    for tab in Tab::ALL {
        let label = format!(" {} {} ", tab.index() + 1, tab.title());
        let style = if tab == state.tab {
            t.accent.add_modifier(ratatui::style::Modifier::REVERSED)
        } else {
            t.tab
        };
        tabs.push(Span::styled(label, style));
    }
    let mut info = vec![
        Span::styled(" switchboard", t.accent),
        Span::styled(" · profile ", t.muted),
        Span::raw(state.profile.clone()),
        Span::styled(" · ", t.muted),
        Span::raw(state.base_url.clone()),
    ];
    if state.read_only {
        info.push(Span::styled(" · read-only", t.warn));
    }
    if let Some(crumb) = super::deliveries::view::breadcrumb(state) {
        // While following a webhook, the path matters more than the address.
        if let Some(s) = info
            .iter_mut()
            .find(|s| s.content == state.base_url.as_str())
        {
            *s = Span::styled(crumb, t.accent);
        }
    }
    let n = state.in_flight();
    let activity = if n > 0 {
        Span::styled(format!("{} {n} in flight ", spinner(state.frame)), t.warn)
    } else {
        Span::styled("idle ", t.muted)
    };
    let top = Rect::new(area.x, area.y, area.width, 1);
    let bottom = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(1),
    );
    frame.render_widget(Paragraph::new(Line::from(tabs)), top);
    frame.render_widget(Paragraph::new(Line::from(info)), bottom);
    frame.render_widget(
        Paragraph::new(Line::from(activity)).alignment(Alignment::Right),
        bottom,
    );
}

fn render_footer(state: &State, frame: &mut Frame, area: Rect) {
    let t = &state.theme;
    let mut spans = Vec::new();
    for (keys, word) in state.keymap.footer(state.context()) {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(keys, t.key));
        spans.push(Span::styled(format!(" {word} "), t.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
