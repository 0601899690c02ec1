//! Pane operations: loading a list page or a detail, paging, reloading, going back, moving the
//! cursor, and applying the worker's replies to the pane that asked. Features call these; the
//! router (`update`) decides when.
use super::keymap::Action;
use super::layout;
use super::msg::{ApiCmd, ApiReply, Effect, Pane};
use super::record::{PageData, Record};
use super::state::{
    Anchor, Core, DetailPane, ErrorView, ListPane, LoadState, NavFrame, PAGE_SIZE, PendingPage,
    State, ToastKind,
};
use super::tab::Tab;
use crate::api::{Error, ListQuery, NotificationFilter};

/// The effects of opening the console: load the active tab.
pub(crate) fn init(state: &mut State) -> Vec<Effect> {
    let tab = state.tab;
    load_list(state, tab, Anchor::First, 1, true)
}

/// Esc: closes the detail, else returns to where a cross-navigation came from.
pub(crate) fn back(state: &mut State) -> Vec<Effect> {
    if state.current_mut().detail.take().is_some() {
        let tab = state.tab;
        keep_cursor_visible(state, tab);
        return Vec::new();
    }
    match state.nav.pop() {
        Some(frame) => restore(state, frame),
        None => Vec::new(),
    }
}

/// Leaves the trail of cross-navigation (choosing a tab directly): every tab it replaced gets
/// its own state back, the breadcrumb goes, and Esc on a top-level list has nowhere to jump to.
pub(crate) fn leave_trail(state: &mut State) -> Vec<Effect> {
    let tab = state.tab;
    let mut effects = Vec::new();
    while let Some(frame) = state.nav.pop() {
        effects.extend(restore(state, frame));
    }
    state.tab = tab;
    effects
}

/// Puts back the tab state a navigation step replaced and returns to where it started.
fn restore(state: &mut State, frame: NavFrame) -> Vec<Effect> {
    // Requests in flight for the replaced state are now stale and will be dropped; what the
    // restored state was still waiting for was superseded, so ask again.
    let tab = frame.replaced;
    let mut saved = frame.saved;
    let list_waiting = saved.list.pending.take();
    let detail_waiting = saved
        .detail
        .as_mut()
        .and_then(|d| d.pending.take().map(|_| d.id.clone()));
    *state.tab_state_mut(tab) = saved;
    state.tab = frame.return_to;
    keep_cursor_visible(state, frame.return_to);
    let mut effects = Vec::new();
    if let Some(p) = list_waiting {
        effects.extend(load_list(state, tab, p.anchor, p.page, p.new_page));
    }
    if let Some(id) = detail_waiting {
        effects.extend(load_detail(state, tab, id));
    }
    effects
}

/// Opens a tab's list with server-side filters, remembering where to come back to with Esc
/// (cross-navigation: a callback's destinations or notifications, a destination's notifications).
pub(crate) fn open_filtered(state: &mut Core, to: Tab, filter: NotificationFilter) -> Vec<Effect> {
    let saved = std::mem::take(state.tab_state_mut(to));
    state.nav.push(NavFrame {
        return_to: state.tab,
        replaced: to,
        saved,
    });
    state.tab = to;
    let order = state
        .nav
        .last()
        .map(|f| f.saved.list.order)
        .unwrap_or_default();
    let list = &mut state.tab_state_mut(to).list;
    list.filter = filter;
    list.order = order;
    load_list(state, to, Anchor::First, 1, true)
}

/// Shows a tab, loading it the first time.
pub(crate) fn switch_tab(state: &mut State, tab: Tab) -> Vec<Effect> {
    // A tab the server's generation does not serve is absent: nothing to switch to.
    if !state.is_shown(tab) {
        return Vec::new();
    }
    let mut effects = leave_trail(state);
    if tab != state.tab {
        // A key's toast speaks of the tab it was said on; only what this same key said stays
        // (startup warnings and replies' errors are no tab's).
        let now = state.toast_topic;
        state.toasts.retain(|t| t.topic.is_none() || t.topic == now);
    }
    state.tab = tab;
    let list = &state.tab_state(tab).list;
    if list.load == LoadState::Idle && list.pending.is_none() {
        effects.extend(load_list(state, tab, Anchor::First, 1, true));
        return effects;
    }
    keep_cursor_visible(state, tab);
    effects
}

/// Moves the list cursor: `f(cursor, rows)` is the new position.
pub(crate) fn move_cursor(state: &mut Core, f: impl Fn(usize, usize) -> usize) -> Vec<Effect> {
    let list = &mut state.current_mut().list;
    let n = list.shown_len();
    if n > 0 {
        list.cursor = f(list.cursor, n).min(n - 1);
    }
    let tab = state.tab;
    keep_cursor_visible(state, tab);
    Vec::new()
}

/// Scrolls the open detail (Down, Up, First, Last) within `max`, the furthest its content
/// scrolls on this screen.
pub(crate) fn scroll_detail(state: &mut State, action: Action, max: u16) {
    if let Some(d) = state.current_mut().detail.as_mut()
        && let Some(at) = super::widgets::scrolled(d.scroll, action, max)
    {
        d.scroll = at;
    }
}

/// Keeps the selected row inside the visible window of the tab's list.
pub(crate) fn keep_cursor_visible(state: &mut Core, tab: Tab) {
    let size = state.size;
    let ts = state.tab_state_mut(tab);
    let error_lines = match &ts.list.load {
        LoadState::Error(e) => layout::list_error_rows(size, tab, ts.detail.is_some(), e),
        _ => 0,
    };
    let height = layout::list_rows(size, tab, ts.detail.is_some(), error_lines);
    let list = &mut ts.list;
    list.cursor = list.cursor.min(list.shown_len().saturating_sub(1));
    if list.cursor < list.offset {
        list.offset = list.cursor;
    } else if list.cursor >= list.offset + height {
        list.offset = list.cursor + 1 - height;
    }
    let max_offset = list.shown_len().saturating_sub(height);
    list.offset = list.offset.min(max_offset);
}

/// Asks for the page after the shown one.
pub(crate) fn next_page(state: &mut State, tab: Tab) -> Vec<Effect> {
    let list = &state.tab_state(tab).list;
    let (Some(last), true) = (list.rows.last(), list.pagination.has_more_after) else {
        state.toast(ToastKind::Info, "This is the last page");
        return Vec::new();
    };
    let anchor = Anchor::After(last.id().to_string());
    // 0: a page landed on by id, whose number nobody counted; it stays unknown.
    let page = if list.page == 0 {
        0
    } else {
        list.page.saturating_add(1)
    };
    load_list(state, tab, anchor, page, true)
}

/// Asks for the page before the shown one.
pub(crate) fn prev_page(state: &mut State, tab: Tab) -> Vec<Effect> {
    let list = &state.tab_state(tab).list;
    let (Some(first), true) = (list.rows.first(), list.pagination.has_more_before) else {
        state.toast(ToastKind::Info, "This is the first page");
        return Vec::new();
    };
    let anchor = Anchor::Before(first.id().to_string());
    let page = if list.page == 0 {
        0
    } else {
        list.page.saturating_sub(1).max(1)
    };
    load_list(state, tab, anchor, page, true)
}

/// `r`: the list afresh from its first page (what is newest now, not the page it was on), the
/// cursor kept on its item when that is still on it, and the open detail reloaded.
pub(crate) fn refresh(state: &mut State, tab: Tab) -> Vec<Effect> {
    let effects = load_list(state, tab, Anchor::First, 1, false);
    with_detail_reloaded(state, tab, effects)
}

/// `effects` and a reload of the tab's open detail (and its members on Teams).
fn with_detail_reloaded(state: &mut State, tab: Tab, mut effects: Vec<Effect>) -> Vec<Effect> {
    let detail_id = state.tab_state(tab).detail.as_ref().map(|d| d.id.clone());
    if let Some(id) = detail_id {
        effects.extend(load_detail(state, tab, id));
        // Membership may have changed elsewhere; a load under way is fresh enough.
        if tab.lists_members() && state.members.pending.is_none() {
            effects.extend(super::members::refresh(state));
        }
    }
    effects
}

/// The API's largest page.
pub(crate) const MAX_PAGE_SIZE: u32 = 100;

/// Rows a page of `tab`'s list asks for: enough to fill the list at this size (a tall pane is
/// never left half empty), at least [`PAGE_SIZE`], at most the API's [`MAX_PAGE_SIZE`]. The one
/// rule for every tab on every generation; the list's height without a detail open, so opening
/// one does not change the page.
pub(crate) fn page_size(size: (u16, u16), tab: Tab) -> u32 {
    u32::try_from(layout::list_rows(size, tab, false, 0))
        .unwrap_or(MAX_PAGE_SIZE)
        .clamp(PAGE_SIZE, MAX_PAGE_SIZE)
}

/// The list query for a page of a tab, of `limit` rows.
pub(crate) fn list_query(list: &ListPane, anchor: &Anchor, limit: u32) -> ListQuery {
    let mut q = ListQuery {
        limit: Some(limit),
        order: Some(list.order),
        ..ListQuery::default()
    };
    match anchor {
        Anchor::First => {}
        Anchor::After(id) => q.after = Some(id.clone()),
        // The worker asks for the items before it, then the rest (see `ApiCmd::ListAround`).
        Anchor::Before(id) | Anchor::Around(id) => q.before = Some(id.clone()),
    }
    q
}

/// Asks for a page of a tab's list; a newer request makes any older one stale.
pub(crate) fn load_list(
    state: &mut Core,
    tab: Tab,
    anchor: Anchor,
    page: u32,
    new_page: bool,
) -> Vec<Effect> {
    let req_id = state.next_req_id();
    let limit = page_size(state.size, tab);
    let since = super::deliveries::window::since(state, tab);
    let list = &mut state.tab_state_mut(tab).list;
    let query = list_query(list, &anchor, limit);
    list.limit = limit;
    let mut filter = list.filter.clone();
    if !tab.is_notifications_list() {
        // Only notifications take event and destination filters.
        filter.event_ids.clear();
        filter.destination_ids.clear();
    }
    let cmd = match &anchor {
        Anchor::Around(id) => ApiCmd::ListAround {
            tab,
            id: id.clone(),
            query,
            filter,
        },
        _ => match since {
            Some(since) => ApiCmd::ListSince {
                tab,
                query,
                filter,
                since,
            },
            None => ApiCmd::List { tab, query, filter },
        },
    };
    list.pending = Some(PendingPage {
        req_id,
        anchor,
        page,
        new_page,
    });
    list.load = LoadState::Loading;
    vec![Effect::Api {
        req_id,
        pane: Pane::List(tab),
        cmd,
    }]
}

/// Opens the selected row's detail and asks for a fresh copy.
pub(crate) fn open_detail(state: &mut State, tab: Tab) -> Vec<Effect> {
    let Some(record) = state.tab_state(tab).list.selected().cloned() else {
        return Vec::new();
    };
    let id = record.id().to_string();
    state.tab_state_mut(tab).detail = Some(DetailPane {
        id: id.clone(),
        record: Some(record),
        ..DetailPane::default()
    });
    let mut effects = load_detail(state, tab, id);
    if tab.lists_members() {
        // A team's detail lists its members.
        effects.extend(super::members::want(state));
    }
    effects
}

/// Asks for a fresh copy of the open detail's item.
pub(crate) fn load_detail(state: &mut Core, tab: Tab, id: String) -> Vec<Effect> {
    let req_id = state.next_req_id();
    let Some(d) = state.tab_state_mut(tab).detail.as_mut() else {
        return Vec::new();
    };
    d.pending = Some(req_id);
    d.load = LoadState::Loading;
    vec![Effect::Api {
        req_id,
        pane: Pane::Detail(tab),
        cmd: ApiCmd::Get { tab, id },
    }]
}

/// Finds the pane waiting for a request id.
/// Whether this list or detail still waits for this request (else the reply is stale: the user
/// moved on).
pub(crate) fn awaits(state: &State, pane: Pane, req_id: u64) -> bool {
    match pane {
        Pane::List(tab) => {
            let list = &state.tab_state(tab).list;
            list.pending.as_ref().is_some_and(|p| p.req_id == req_id)
        }
        Pane::Detail(tab) => {
            state.tab_state(tab).detail.as_ref().and_then(|d| d.pending) == Some(req_id)
        }
        _ => false,
    }
}

/// Applies a reply to the list or detail that asked for it; the tab whose page arrived, if one
/// did (the router lands the cursor there).
pub(crate) fn on_reply(
    state: &mut State,
    pane: Pane,
    result: Result<ApiReply, Error>,
) -> Option<Tab> {
    match (pane, result) {
        (Pane::List(tab), Ok(ApiReply::Page(page))) => return page_arrived(state, tab, page),
        (Pane::Detail(tab), Ok(ApiReply::Item(record))) => item_arrived(state, tab, record),
        // Any other reply is not what a list or a detail asked for (picker items and the rooms'
        // replies are routed before this point).
        (Pane::List(tab), Ok(_)) => {
            let e = Error::Invalid("expected a list reply".into());
            list_failed(state, tab, &e)
        }
        (Pane::Detail(tab), Ok(_)) => {
            let e = Error::Invalid("expected a single item".into());
            detail_failed(state, tab, &e)
        }
        (Pane::Form(_), _) => {}
        (Pane::List(tab), Err(e)) => list_failed(state, tab, &e),
        (Pane::Detail(tab), Err(e)) => detail_failed(state, tab, &e),
        // Handled by `deliveries` before this point.
        (
            Pane::Health
            | Pane::Lookup
            | Pane::Members
            | Pane::Names
            | Pane::Active
            | Pane::Glance
            | Pane::Stats
            | Pane::Named
            | Pane::Replay
            | Pane::Recover
            | Pane::Forward
            | Pane::Compare
            | Pane::Search
            | Pane::Samples
            | Pane::Alerts
            | Pane::Follow,
            _,
        ) => {}
    }
    None
}

fn page_arrived(state: &mut State, tab: Tab, data: PageData) -> Option<Tab> {
    let list = &mut state.tab_state_mut(tab).list;
    let p = list.pending.take()?;
    list.load = LoadState::Loaded;
    if data.records.is_empty() && p.anchor != Anchor::First {
        // Paged past the end (items were deleted meanwhile): keep what is shown.
        let text = match &p.anchor {
            Anchor::After(_) => {
                list.pagination.has_more_after = false;
                "No more items that way".to_string()
            }
            // The page around a written item came back empty: it is gone, so stop waiting to
            // land on it (else every write key keeps saying its page is loading).
            Anchor::Around(id) => format!("{id} is no longer in this list (deleted meanwhile?)"),
            _ => {
                list.pagination.has_more_before = false;
                "No more items that way".to_string()
            }
        };
        stop_landing(state, tab);
        state.toast(ToastKind::Info, text);
        return None;
    }
    let keep_id = (!p.new_page)
        .then(|| list.selected().map(|r| r.id().to_string()))
        .flatten();
    list.set_rows(data.records);
    // The reply awaited is the newest request's, asked in the order now set.
    list.rows_order = Some(list.order);
    list.pagination = data.pagination;
    // Without items before this page, it is the first one, whatever was counted.
    // A page landed on by id has no count (0, shown as `?`) until the first page is reached.
    list.page = match (list.pagination.has_more_before, &p.anchor) {
        (false, _) => 1,
        (true, Anchor::Around(_)) => 0,
        (true, _) if p.page == 0 => 0,
        (true, _) => p.page.max(2),
    };
    list.anchor = p.anchor;
    // The view is the rows in server order until it is derived again: positions agree.
    list.cursor = match keep_id {
        Some(id) => list
            .rows
            .iter()
            .position(|r| r.id() == id)
            .unwrap_or(list.cursor),
        None => 0,
    };
    if p.new_page {
        list.offset = 0;
    }
    state.touch_rows(tab);
    Some(tab)
}

fn list_failed(state: &mut State, tab: Tab, e: &Error) {
    let list = &mut state.tab_state_mut(tab).list;
    list.pending = None;
    list.load = LoadState::Error(ErrorView::from_error(tab, e));
    // The page a write was to land on will not come: write keys act on the selection again.
    stop_landing(state, tab);
    keep_cursor_visible(state, tab);
}

/// Forgets the item a write was to land on in `tab`, when its page will not arrive.
fn stop_landing(state: &mut State, tab: Tab) {
    if state.forms.land_on.as_ref().is_some_and(|(t, _)| *t == tab) {
        state.forms.land_on = None;
    }
}

fn item_arrived(state: &mut State, tab: Tab, record: Record) {
    // Keep the list row in step with the fresher copy.
    state.replace_row(tab, &record);
    if let Some(d) = state.tab_state_mut(tab).detail.as_mut() {
        d.pending = None;
        d.load = LoadState::Loaded;
        d.record = Some(record);
    }
}

fn detail_failed(state: &mut State, tab: Tab, e: &Error) {
    if let Some(d) = state.tab_state_mut(tab).detail.as_mut() {
        d.pending = None;
        d.load = LoadState::Error(ErrorView::from_error(tab, e));
    }
}

/// Ends the console.
pub(crate) fn quit(state: &mut Core) -> Vec<Effect> {
    state.quit = true;
    vec![Effect::Quit]
}

/// Flips the list's order and loads its first page.
pub(crate) fn toggle_order(state: &mut State, tab: Tab) -> Vec<Effect> {
    let list = &mut state.tab_state_mut(tab).list;
    list.order = list.order.flipped();
    let word = match list.order {
        crate::api::Order::Asc => "oldest first",
        crate::api::Order::Desc => "newest first",
    };
    state.toast(ToastKind::Info, format!("Order: {word}"));
    load_list(state, tab, Anchor::First, 1, true)
}

/// The terminal's new size: the cursor stays in the window.
pub(crate) fn resize(state: &mut State, w: u16, h: u16) {
    state.size = (w, h);
    let tab = state.tab;
    keep_cursor_visible(state, tab);
}

/// The keys the tab offers where it is (list or detail, which tab, a row selected or not), most
/// useful first. Every action has an arm, so a new one does not compile until it says where
/// (and whether) it shows; help and quit are the footer's own.
pub(crate) fn keys(state: &State) -> Vec<super::footer::Hint> {
    use super::delivery_key::DeliveryKey as K;
    use super::footer::Hint::{self, Pair};
    let ts = state.current();
    let detail = ts.detail.is_some();
    let list = !detail;
    let selected = match &ts.detail {
        Some(d) => d.record.is_some(),
        None => ts.list.selected().is_some(),
    };
    let tab = state.tab;
    let notifications = tab.is_notifications_list();
    // Where the generation retries on the server, as the resource's console module says.
    let platform_retry = {
        let record = ts.detail.as_ref().and_then(|d| d.record.as_ref());
        let statuses = &ts.list.filter.statuses;
        match (detail, record) {
            (true, r) => {
                r.is_some_and(|r| super::views::platform_retry(tab, Some(r), statuses).is_some())
            }
            (false, _) => {
                super::views::platform_retry(tab, None, statuses).is_some()
                    || ts.list.selected().is_some_and(|r| {
                        super::views::platform_retry(tab, Some(r), statuses).is_some()
                    })
            }
        }
    };
    // callback-destinations' notifications replay and recover as pulsar's do.
    let cb_notifications = tab.notifies() && !notifications;
    // event-destinations' deliveries and attempts replay in the same room.
    let ed_replay = tab.lists_attempts();
    // A callback or a destination recovers and forwards its notifications.
    let sends_or_receives = tab.notifications_of().is_some_and(|n| n != tab);
    // Keys that follow the selected item to another list, as its console module says.
    let follows = |a: Action| selected && super::views::follow_keys(tab).contains(&a);
    let server_filtered = notifications && ts.list.filter != NotificationFilter::default();
    // Marks work where the recover room says (`n`/`N` on either generation's notifications list).
    let marks_here = super::recover::marks_tab(tab);
    let one = |rank: u8, a: Action, word: &'static str| (rank, Hint::Action(a, word));
    let mut ranked: Vec<(u8, Hint)> = Action::all()
        .into_iter()
        .filter_map(|a| match a {
            // While server filters are on, the key that clears them comes first.
            Action::Deliver(K::ClearFilters) => server_filtered.then(|| one(0, a, "clear filters")),
            Action::Open if list => selected.then(|| one(1, a, "open")),
            // A notification's detail opens its attempts.
            Action::Open => (notifications && selected).then_some((
                2,
                Hint::Means(a, None, "attempt", "open the selected attempt: its request and answer"),
            )),
            Action::Replay => ((notifications || cb_notifications || ed_replay) && selected)
                .then(|| one(3, a, "replay")),
            Action::Mark => (list && marks_here && selected).then(|| one(23, a, "mark")),
            Action::MarkRange => (list && marks_here && selected)
                .then_some((28, Pair(a, Action::MarkAll, a.hint()))),
            Action::Recover => {
                let here = notifications
                    || cb_notifications
                    || platform_retry
                    || (selected && sends_or_receives);
                // After the paging keys, except where marks lead to it.
                here.then(|| one(if notifications { 3 } else { 22 }, a, "recover…"))
            }
            Action::Forward => {
                let from = notifications
                    || cb_notifications
                    || (selected && sends_or_receives);
                (list && from).then(|| one(28, a, "forward"))
            }
            // The tab's dialog writes, where its console module places them.
            Action::Write(v) => super::views::write_place(tab, v)
                .filter(|p| if p.on_list { list } else { selected })
                .map(|p| {
                    let hint = match p.partner {
                        Some(partner) => Pair(a, Action::Write(partner), p.word),
                        None => Hint::Action(a, p.word),
                    };
                    (p.rank, hint)
                }),
            Action::Deliver(K::Destinations) => follows(a).then(|| one(8, a, "destinations")),
            Action::Deliver(K::Notifications) => follows(a).then(|| one(9, a, "notifications")),
            Action::Deliver(K::Events) => follows(a).then(|| one(9, a, "events")),
            Action::Deliver(K::Reveal) => (detail
                && super::deliveries::secret::open_secret_id(state).is_some())
            .then(|| one(10, a, "reveal")),
            // A resource's operations show on its own tab, where its console module places them.
            Action::Op(o) => (selected && o.resource == tab)
                .then(|| super::views::op_rank(o))
                .flatten()
                .map(|rank| one(rank, a, a.hint())),
            // Beside `/ filter` (this page's rows), the dialog that asks the server.
            Action::Deliver(K::Filter) => (list && notifications).then(|| one(12, a, a.hint())),
            Action::Deliver(K::Watch) => (list && notifications).then(|| one(13, a, "watch")),
            Action::Deliver(K::LocalStatus) => {
                let here = notifications || !super::views::server_statuses(tab).is_empty();
                (list && here).then(|| one(14, a, "status"))
            }
            // The next / previous failed delivery, across pages.
            Action::NextMatch => (list && (notifications || cb_notifications)).then_some((
                24,
                Hint::Means(
                    a,
                    Some(Action::PrevMatch),
                    "failed",
                    "next / previous failed delivery, across pages",
                ),
            )),
            Action::Back => detail.then(|| one(20, a, "back")),
            Action::Down if detail => Some((21, Pair(a, Action::Up, "scroll"))),
            Action::Down => Some((20, Pair(a, Action::Up, "move"))),
            Action::Filter => list.then(|| one(21, a, "filter")),
            Action::NextPage => list.then_some((22, Pair(a, Action::PrevPage, "page"))),
            Action::Reload => Some(one(if detail { 22 } else { 23 }, a, "reload")),
            Action::RawJson => detail.then(|| one(23, a, "json")),
            Action::CopyId => detail.then(|| one(24, a, "copy")),
            Action::ToggleOrder => list.then(|| one(24, a, "order")),
            Action::Command => list.then(|| one(25, a, "cmd")),
            Action::Search => (list && notifications).then(|| one(25, a, "search")),
            // In help ("Anywhere"): the footer keeps its width for the room's keys.
            Action::Palette => None,
            // In the palette and the header's chip (`⚠ 2 alerts · !`).
            Action::Alerts => None,
            Action::Samples => None,
            Action::KeepSample => (notifications && selected).then(|| one(29, a, "keep")),
            Action::Sort => list.then(|| one(26, a, "sort")),
            Action::NextTab => list.then(|| one(27, a, "tabs")),
            // Shown with their partner, in help only, or the footer's own (help, quit).
            Action::EditReplay
            | Action::Up
            | Action::First
            | Action::Last
            | Action::PrevPage
            | Action::PrevTab
            | Action::GoTab(_)
            | Action::SortFlip
            | Action::CopyJson
            | Action::PrevMatch
            | Action::MarkAll
            // Offered where there is an answer to compare (the attempt view, the rooms).
            | Action::Compare
            | Action::Help
            | Action::Quit => None,
        })
        .collect();
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.into_iter().map(|(_, h)| h).collect()
}
