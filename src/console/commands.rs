//! The command line's commands whose work lies beyond the power tools: the power tools parse
//! and remember them (`power::update`), the router runs them here, where every room is in
//! reach (`:goto`, `:view`, `:search`, and the new session a `:profile` switch starts).
use super::keymap::{Action, Input};
use super::msg::{Effect, Step};
use super::pane;
use super::power::{self, ProfileInfo, update::Routed};
use super::state::{DetailPane, State, ToastKind};

/// A key while the power tools own the keyboard: theirs, then the command it ran, if any.
pub(crate) fn on_modal_key(state: &mut State, input: &Input) -> Step {
    let ran = power::update::on_modal_key(&mut state.power, &mut state.core, input);
    let mut step = ran.step;
    if let Some(routed) = ran.routed {
        step.effects.extend(match routed {
            Routed::Goto(id) => goto(state, &id),
            Routed::View(rest) => super::saved_views::command(state, &rest),
            Routed::Search(expr) => search(state, &expr),
        });
    }
    step
}

/// `:search EXPR`: the search checks it, the tab it fills is shown, then the search starts.
fn search(state: &mut State, expr: &str) -> Vec<Effect> {
    let Some(tab) = super::search::update::prepare(&mut state.search, &mut state.core, expr) else {
        return Vec::new();
    };
    let mut effects = Vec::new();
    if state.tab != tab {
        effects.extend(pane::switch_tab(state, tab));
    }
    super::search::update::start(&mut state.search, &mut state.core, tab, expr, effects)
}

/// Opens a resource from its id: the prefix says which tab.
fn goto(state: &mut State, id: &str) -> Vec<Effect> {
    // A prefix a generation shares with another (`tm_`): the shown tab's.
    let shown = state
        .shown
        .iter()
        .copied()
        .find(|t| id.len() > t.id_prefix().len() && id.starts_with(t.id_prefix()));
    let Some(tab) = shown.or_else(|| power::command::tab_of_id(id)) else {
        state.toast(
            ToastKind::Error,
            format!("{id}: unknown id (tm_, poti_, clb_, cld_ or cbn_)"),
        );
        return Vec::new();
    };
    let mut effects = pane::switch_tab(state, tab);
    let record = state
        .tab_state(tab)
        .list
        .rows
        .iter()
        .find(|r| r.id() == id)
        .cloned();
    state.tab_state_mut(tab).detail = Some(DetailPane {
        id: id.to_string(),
        record,
        ..DetailPane::default()
    });
    effects.extend(pane::load_detail(state, tab, id.to_string()));
    // A loaded row: the cursor goes onto the row the detail shows.
    let shown = state.tab_state(tab).list.shown().position(|r| r.id() == id);
    if let Some(pos) = shown {
        state.tab_state_mut(tab).list.cursor = pos;
        pane::keep_cursor_visible(state, tab);
    }
    effects
}

/// Starts a new session on the new profile: everything of the old one goes (requests in flight
/// included: nobody waits for their ids any more), the settings and what the operator keeps
/// across profiles (toasts, command history, each profile's replays) stay; the current tab loads.
/// The router then loads it (`update::init`).
pub(crate) fn switched(state: &mut State, info: ProfileInfo) {
    let mut fresh = State::with_settings(
        info.profile.clone(),
        info.base_url.clone(),
        state.clock,
        state.settings.clone(),
    );
    fresh.size = state.size;
    fresh.tab = state.tab;
    // The new deployment's tabs, put in place when its generation was detected.
    fresh.shown = std::mem::take(&mut state.shown);
    // Request ids and row revisions keep counting, so that nothing old can pass for new.
    fresh.last_req = state.last_req;
    fresh.last_rev = state.last_rev;
    fresh.toasts = std::mem::take(&mut state.toasts);
    fresh.replay = std::mem::take(&mut state.replay);
    fresh.power.history = std::mem::take(&mut state.power.history);
    fresh.power.confirm = info.confirm;
    fresh.read_only = info.read_only;
    fresh.settings.keymap.hide_writes = info.read_only;
    *state = fresh;
    state.toast_topic = Some(Action::Command);
    state.toast(
        ToastKind::Info,
        format!("Profile {} · {}", info.profile, info.base_url),
    );
    // The new profile's alert rules, judged as when the console opens.
    super::alerts::update::load(state);
}
