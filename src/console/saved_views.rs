//! Saved views in the console (issue 38): `:view save NAME` keeps the tab's `/` filter, sort,
//! server order, server filters and status filter (`config::views`), `:view NAME` applies one
//! (switching to its tab and loading its first page), `:view` lists them. They are kept per
//! profile: the active profile's when it is in the config file, else the top-level ones; the
//! shipped ones (failed, retrying, today) are there for everyone. The file is written by the app
//! ([`PowerEffect::SaveView`]), the views in memory live in the settings, so a profile switch
//! keeps them.
use super::input::TextInput;
use super::msg::Effect;
use super::power::PowerEffect;
use super::power::sort;
use super::state::{Anchor, State, ToastKind};
use super::tab::Tab;
use crate::api::{NotificationFilter, Order};
use crate::config::views::{Filters, View, valid_name};

/// The section a profile's views are kept in: its own when the file names it, else the
/// top-level one (`None`).
pub(crate) fn section(state: &State) -> Option<String> {
    state
        .settings
        .profiles
        .contains(&state.profile)
        .then(|| state.profile.clone())
}

/// `:view …`: `save NAME`, a name, or nothing (the list).
pub(crate) fn command(state: &mut State, rest: &str) -> Vec<Effect> {
    let mut words = rest.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (None, _, _) => {
            let names: Vec<String> = state
                .settings
                .views
                .of(section(state).as_deref())
                .into_keys()
                .collect();
            state.toast(
                ToastKind::Info,
                crate::text::line(&format!(
                    "Views: {} — :view NAME applies, :view save NAME keeps this tab's",
                    names.join(" · ")
                ))
                .into_owned(),
            );
            Vec::new()
        }
        (Some("save"), Some(name), None) => save(state, name),
        (Some(name), None, _) if name != "save" => apply_named(state, name),
        _ => {
            state.toast(
                ToastKind::Error,
                "usage: :view, :view NAME, :view save NAME",
            );
            Vec::new()
        }
    }
}

/// The word a view names its tab by.
fn tab_word(tab: Tab) -> &'static str {
    super::views::list::aliases(tab)
        .first()
        .copied()
        .unwrap_or("notifications")
}

/// What the current tab shows, as a view.
pub(crate) fn capture(state: &State) -> View {
    let tab = state.tab;
    let list = &state.tab_state(tab).list;
    let query = state.power.filters[tab.index()]
        .query
        .value()
        .trim()
        .to_string();
    let s = state.power.sorts[tab.index()];
    let sort = s
        .column
        .and_then(|i| sort::keys(tab).into_iter().nth(i))
        .map(
            |(label, _)| {
                if s.desc { format!("-{label}") } else { label }
            },
        );
    let notifications = tab.is_notifications_list();
    View {
        tab: Some(tab_word(tab).to_string()),
        filters: Filters {
            query: (!query.is_empty()).then_some(query),
            callbacks: list.filter.callback_ids.clone(),
            events: list.filter.event_ids.clone(),
            destinations: list.filter.destination_ids.clone(),
            since: None,
        },
        // Pulsar's status filter is the console's own; the newer generations' is the server's.
        status: if notifications {
            state.deliveries.local.status.clone()
        } else {
            list.filter.statuses.first().cloned()
        },
        sort,
        order: Some(
            match list.order {
                Order::Asc => "asc",
                Order::Desc => "desc",
            }
            .to_string(),
        ),
        columns: None,
    }
}

fn save(state: &mut State, name: &str) -> Vec<Effect> {
    if !valid_name(name) {
        state.toast(
            ToastKind::Error,
            "A view's name: letters, digits, - and _ only",
        );
        return Vec::new();
    }
    let view = capture(state);
    let profile = section(state);
    state
        .settings
        .views
        .put(profile.as_deref(), name, view.clone());
    let Some(path) = state.settings.config_path.clone() else {
        state.toast(
            ToastKind::Info,
            format!("View {name} kept for this session (no config file to write)"),
        );
        return Vec::new();
    };
    state.toast(ToastKind::Info, format!("View {name} saved"));
    vec![Effect::Power(PowerEffect::SaveView {
        path,
        profile,
        name: name.to_string(),
        view: Box::new(view),
    })]
}

/// `:view NAME`: applies it and loads its tab's first page.
pub(crate) fn apply_named(state: &mut State, name: &str) -> Vec<Effect> {
    let Some(view) = state
        .settings
        .views
        .of(section(state).as_deref())
        .remove(name)
    else {
        state.toast(
            ToastKind::Error,
            crate::text::line(&format!("No view {name} (:view lists them)")).into_owned(),
        );
        return Vec::new();
    };
    let Some(tab) = apply(state, &view) else {
        state.toast(
            ToastKind::Error,
            crate::text::line(&format!(
                "View {name} is for {}, not shown here",
                view.tab()
            ))
            .into_owned(),
        );
        return Vec::new();
    };
    let mut effects = super::pane::switch_tab(state, tab);
    effects
        .retain(|e| !matches!(e, Effect::Api { pane: super::msg::Pane::List(t), .. } if *t == tab));
    effects.extend(super::pane::load_list(state, tab, Anchor::First, 1, true));
    effects
}

/// Puts a view's settings in place (no request); the tab it is for, when that tab is shown.
pub(crate) fn apply(state: &mut State, view: &View) -> Option<Tab> {
    // The shown tab of that name; a `notifications` view is event-destinations' Deliveries (the
    // deliveries whose list is windowed on the client).
    let named = |t: Tab| super::views::list::aliases(t).contains(&view.tab());
    let tab = Tab::ALL
        .into_iter()
        .filter(|&t| state.is_shown(t))
        .find(|&t| named(t) || (view.tab() == "notifications" && t.windowed_on_client()))?;
    state.tab = tab;
    let f = &view.filters;
    state.power.filters[tab.index()].query = TextInput::new(f.query.as_deref().unwrap_or(""));
    let keys = sort::keys(tab);
    let s = &mut state.power.sorts[tab.index()];
    match &view.sort {
        Some(word) => {
            let (desc, label) = match word.strip_prefix('-') {
                Some(l) => (true, l),
                None => (false, word.as_str()),
            };
            s.column = keys.iter().position(|(l, _)| l == label);
            s.desc = desc;
        }
        None => *s = sort::Sort::default(),
    }
    let list = &mut state.tab_state_mut(tab).list;
    if let Some(order) = view.order.as_deref().and_then(|o| o.parse::<Order>().ok()) {
        list.order = order;
    }
    list.filter = NotificationFilter {
        callback_ids: f.callbacks.clone(),
        event_ids: f.events.clone(),
        destination_ids: f.destinations.clone(),
        // Pulsar: a view's status goes through the status filter below, not the server's.
        statuses: Vec::new(),
    };
    if tab.is_notifications_list() {
        state.deliveries.local.status.clone_from(&view.status);
        state.deliveries.local.since = since(state, view);
    } else if tab.delivers() {
        // The newer generations filter by status on the server, in their own words.
        list.filter.statuses = view
            .status
            .iter()
            .map(|s| match s.as_str() {
                "succeeded" => "delivered".to_string(),
                other => other.to_string(),
            })
            .collect();
        if tab.windowed_on_client() {
            // No time filter on the platform: the worker reads the window (`deliveries::window`).
            state.core.window = since(state, view);
        } else if view.filters.since.is_some() {
            state.toast(
                ToastKind::Info,
                "A view's since applies to pulsar's Notifications and event-destinations' Deliveries; here the list is the newest first, unwindowed.",
            );
        }
    }
    Some(tab)
}

/// Where a view's `since` opens the list's time window: `today` is since midnight UTC (as
/// headless has it), else a duration back from now or a time; one that does not read opens none.
fn since(state: &mut State, view: &View) -> Option<chrono::DateTime<chrono::Utc>> {
    let text = view.filters.since.as_deref()?;
    let now = state.clock.now();
    if text == "today" {
        return Some(
            now.date_naive()
                .and_hms_opt(0, 0, 0)
                .map_or(now, |t| t.and_utc()),
        );
    }
    match crate::api::selection::parse_time(text, now) {
        Ok(t) => Some(t),
        Err(e) => {
            let msg = crate::text::line(&format!("since {text}: {e}")).into_owned();
            state.toast(ToastKind::Error, msg);
            None
        }
    }
}
