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
        theme: &state.settings.theme,
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
            columns: super::deliveries::view::columns(state),
            rows: list
                .shown()
                .skip(window.start)
                .take(window.len())
                .map(|r| {
                    super::deliveries::view::decorate(state, r, views::context::row(state, r, &ctx))
                })
                .collect(),
            first: window.start,
            list,
            focused: ts.detail.is_none() && !state.help,
            frame: state.frame,
            theme: &state.settings.theme,
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
        super::forms::view::render(frame, screen, d, &state.settings.theme);
    }
    let toast_area = Rect::new(screen.x, areas.footer.y.saturating_sub(4), screen.width, 3);
    toast::render(frame, toast_area, &state.toasts, &state.settings.theme);
    if state.help {
        help::render(frame, screen, &state.settings.keymap, &state.settings.theme);
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
        Some(r) => {
            let mut lines = super::deliveries::view::detail_lines(state, r, ctx);
            if let super::record::Item::Team(t) = &r.item {
                lines.extend(team_members(state, &t.id, ctx));
            }
            (views::title(r), lines)
        }
        None => (
            "Detail".to_string(),
            vec![Line::from(Span::styled(
                "nothing selected",
                state.settings.theme.muted,
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
        theme: &state.settings.theme,
    }
    .render(frame, area);
}

/// A team's members for its detail, from the members loaded in the background.
fn team_members(state: &State, team_id: &str, ctx: &ViewCtx) -> Vec<Line<'static>> {
    use super::views::teams::{MembersNow, member_lines};
    let members = super::members::of_team(state, team_id);
    let now = match (&members, &state.members.error) {
        (Some(m), _) => MembersNow::Loaded(m),
        (None, Some(e)) => MembersNow::Failed(e),
        (None, None) if state.members.pending.is_some() => MembersNow::Loading,
        // Not asked yet (a preview of the selected row): Enter opens the detail and asks.
        (None, None) => return Vec::new(),
    };
    // Names and emails are the server's text.
    crate::text::tui::safe_lines(member_lines(now, ctx))
}

fn render_header(state: &State, frame: &mut Frame, area: Rect) {
    let t = &state.settings.theme;
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
    // The status keeps its place: the line before it is cut with `…`, one column short of it.
    let room = usize::from(bottom.width).saturating_sub(activity.width() + 1);
    frame.render_widget(Paragraph::new(Line::from(tabs)), top);
    frame.render_widget(Paragraph::new(Line::from(cut(info, room))), bottom);
    frame.render_widget(
        Paragraph::new(Line::from(activity)).alignment(Alignment::Right),
        bottom,
    );
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
