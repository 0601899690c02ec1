//! Draws the whole screen from the state: header, list, detail, footer, toasts, help.
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::keymap::{Action, Context};
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
                .map(|r| super::deliveries::view::decorate(state, r, views::cells(r, &ctx)))
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
    for (keys, word) in footer_hints(state, area.width) {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(keys, t.key));
        spans.push(Span::styled(format!(" {word} "), t.muted));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The footer's hints for where the user is: (keys, word), the keys that apply to this tab, pane
/// and selection first, then the general ones, cut to `width`; help and quit always fit.
/// Generated from the keymap, so rebound keys show as bound; an unbound action is left out.
pub(crate) fn footer_hints(state: &State, width: u16) -> Vec<(String, &'static str)> {
    // The replay room takes every key: its own keys, not the list's behind it.
    if let Some(room) = state.replay.room_of(&state.profile) {
        let mut left = usize::from(width);
        let mut out = Vec::new();
        for (k, w) in super::replay::view::key_hints(room) {
            let cost = k.chars().count() + w.chars().count() + 3;
            if cost > left {
                break;
            }
            left -= cost;
            out.push(((*k).to_string(), *w));
        }
        return out;
    }
    let km = &state.settings.keymap;
    let hint = |g: &[Action]| -> Option<(String, &'static str)> {
        let first = *g.first()?;
        if km.hide_writes && first.is_write() {
            return None;
        }
        let keys: Vec<String> = g
            .iter()
            .filter_map(|a| km.keys_for(*a).first().map(super::keymap::KeySpec::label))
            .collect();
        let word = match first {
            Action::Down if state.context() == Context::Detail => "scroll",
            Action::Open if state.context() == Context::Detail => "attempt",
            // Beside `/ filter` (this page's rows), the dialog that asks the server.
            Action::Deliver(super::deliveries::keys::DeliveryKey::Filter) => "filter by…",
            a => a.hint(),
        };
        (!keys.is_empty()).then(|| (keys.join("/"), word))
    };
    let groups = footer_groups(state);
    let tail: Vec<(String, &'static str)> = [[Action::Help], [Action::Quit]]
        .iter()
        .filter_map(|g| hint(g))
        .collect();
    let cost = |(k, w): &(String, &'static str)| k.chars().count() + w.chars().count() + 3;
    let mut room = usize::from(width).saturating_sub(tail.iter().map(cost).sum());
    let mut out = Vec::new();
    for g in &groups {
        let Some(h) = hint(g) else { continue };
        let c = cost(&h);
        if c > room {
            break;
        }
        room -= c;
        out.push(h);
    }
    out.extend(tail);
    out
}

/// The action groups of the footer, most useful first (help and quit are added by the caller).
fn footer_groups(state: &State) -> Vec<Vec<Action>> {
    use super::deliveries::keys::DeliveryKey as K;
    let ts = state.current();
    let ctx = state.context();
    if ctx == Context::Help {
        return vec![vec![Action::Back]];
    }
    if state.deliveries.attempt.is_some() {
        return vec![
            vec![Action::Deliver(K::Reveal)],
            vec![Action::Replay],
            vec![Action::Down, Action::Up],
            vec![Action::Back],
        ];
    }
    let selected = match &ts.detail {
        Some(d) => d.record.is_some(),
        None => ts.list.selected().is_some(),
    };
    let mut g: Vec<Vec<Action>> = Vec::new();
    // While server filters are on, the key that clears them comes first.
    if super::deliveries::view::clear_hint(state).is_some() {
        g.push(vec![Action::Deliver(K::ClearFilters)]);
    }
    if ctx == Context::List && selected {
        g.push(vec![Action::Open]);
    }
    // A notification's detail opens its attempts; both replay.
    if state.tab == Tab::Notifications && selected {
        if ctx == Context::Detail {
            g.push(vec![Action::Open]);
        }
        g.push(vec![Action::Replay]);
    }
    let item_keys: Vec<Vec<Action>> = match state.tab {
        Tab::Teams => vec![
            vec![Action::Edit],
            vec![Action::AddMember, Action::RemoveMember],
            vec![Action::SetProject, Action::RemoveProject],
        ],
        Tab::Imports => vec![vec![Action::Edit]],
        Tab::Callbacks => vec![
            vec![Action::Deliver(K::Destinations)],
            vec![Action::Deliver(K::Notifications)],
        ],
        Tab::Destinations if ctx == Context::Detail => vec![
            vec![Action::Edit],
            vec![Action::Deliver(K::Notifications)],
            vec![Action::Deliver(K::Reveal)],
            vec![Action::Delete],
        ],
        Tab::Destinations => vec![
            vec![Action::Edit],
            vec![Action::Deliver(K::Notifications)],
            vec![Action::Delete],
        ],
        Tab::Notifications => Vec::new(),
    };
    let creates = matches!(state.tab, Tab::Teams | Tab::Imports | Tab::Destinations);
    if ctx == Context::List && creates {
        g.push(vec![Action::Create]);
    }
    if selected {
        g.extend(item_keys);
    }
    if state.tab == Tab::Notifications && ctx == Context::List {
        g.push(vec![Action::Deliver(K::Filter)]);
        g.push(vec![Action::Deliver(K::Watch)]);
        g.push(vec![Action::Deliver(K::LocalStatus)]);
    }
    match ctx {
        Context::Detail => g.extend([
            vec![Action::Back],
            vec![Action::Down, Action::Up],
            vec![Action::Reload],
            vec![Action::RawJson],
            vec![Action::CopyId],
        ]),
        _ => g.extend([
            vec![Action::Down, Action::Up],
            vec![Action::Filter],
            vec![Action::NextPage, Action::PrevPage],
            vec![Action::Reload],
            vec![Action::ToggleOrder],
            vec![Action::Command],
            vec![Action::Sort],
            vec![Action::NextTab],
        ]),
    }
    g
}
