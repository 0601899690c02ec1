//! The command line's commands whose work lies beyond the power tools: the power tools parse
//! and remember them (`power::update`), the router runs them here, where every room is in
//! reach.
use super::msg::Effect;
use super::pane;
use super::state::State;

/// `:search EXPR`: the search checks it, the tab it fills is shown, then the search starts.
pub(crate) fn search(state: &mut State, expr: &str) -> Vec<Effect> {
    let Some(tab) = super::search::update::prepare(&mut state.search, &mut state.core, expr) else {
        return Vec::new();
    };
    let mut effects = Vec::new();
    if state.tab != tab {
        effects.extend(pane::switch_tab(state, tab));
    }
    super::search::update::start(&mut state.search, &mut state.core, tab, expr, effects)
}
