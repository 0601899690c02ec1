//! The status filter a newer generation's platform serves (its deliveries list takes `status`):
//! `l` cycles it and asks the server again, without scanning pages on this side.
use crate::console::msg::Effect;
use crate::console::pane::load_list;
use crate::console::state::{Anchor, Core, ToastKind};
use crate::console::views;

/// Whether the shown tab's resource filters by status on the server.
pub(crate) fn applies(cx: &Core) -> bool {
    !views::server_statuses(cx.tab).is_empty()
}

/// The next status (all → each in turn → all), and the first page under it.
pub(crate) fn cycle(cx: &mut Core) -> Vec<Effect> {
    let tab = cx.tab;
    let statuses = views::server_statuses(tab);
    let list = &mut cx.tab_state_mut(tab).list;
    let next = match list.filter.statuses.first() {
        None => statuses.first(),
        Some(cur) => statuses.iter().skip_while(|s| **s != cur.as_str()).nth(1),
    };
    list.filter.statuses = next.map(|s| vec![(*s).to_string()]).unwrap_or_default();
    let word = next.map_or_else(|| "all".to_string(), |s| (*s).to_string());
    if next.is_none() {
        // Back to "all" closes a view's window too, as on pulsar's Notifications.
        cx.window = None;
    }
    cx.toast(
        ToastKind::Info,
        format!("Status: {word} (filtered by the server)"),
    );
    load_list(cx, tab, Anchor::First, 1, true)
}
