//! The power room's derived view (`console/power/filter_sort.rs`): sorting and filtering
//! reorder what is shown, never the server's rows, and the view is derived again only when its
//! inputs change.

use crate::console::clock::Clock;
use crate::console::derived_view::refresh;
use crate::console::record::decode_page_body;
use crate::console::state::State;
use crate::console::tab::Tab;

fn state_with_callbacks() -> State {
    let body = include_str!("../../tests/fixtures/callback-list.json");
    let page = decode_page_body(Tab::Callbacks, 200, body).expect("fixture decodes");
    let mut state = State::new("p", "http://127.0.0.1", Clock::System);
    state.tab = Tab::Callbacks;
    state
        .tab_state_mut(Tab::Callbacks)
        .list
        .set_rows(page.records);
    state.touch_rows(Tab::Callbacks);
    refresh(&mut state);
    state
}

fn ids(state: &State, shown: bool) -> Vec<String> {
    let list = &state.tab_state(Tab::Callbacks).list;
    if shown {
        list.shown().map(|r| r.id().to_string()).collect()
    } else {
        list.rows.iter().map(|r| r.id().to_string()).collect()
    }
}

#[test]
fn sort_reorders_the_view_never_the_rows() {
    let mut state = state_with_callbacks();
    let server = ids(&state, false);
    assert!(server.len() > 1, "the fixture has several callbacks");
    assert_eq!(ids(&state, true), server, "no sort: server order");
    state.power.sorts[Tab::Callbacks.index()].cycle(Tab::Callbacks);
    state.power.sorts[Tab::Callbacks.index()].desc = true;
    refresh(&mut state);
    assert_eq!(ids(&state, false), server, "rows stay in server order");
    let mut sorted = ids(&state, true);
    sorted.sort();
    let mut all = server.clone();
    all.sort();
    assert_eq!(sorted, all, "the view shows every row once");
}

#[test]
fn the_view_is_derived_again_only_when_its_inputs_change() {
    let mut state = state_with_callbacks();
    let i = Tab::Callbacks.index();
    state.power.filters[i].query = crate::console::input::TextInput::new("zz-no-such-text");
    refresh(&mut state);
    assert_eq!(state.tab_state(Tab::Callbacks).list.shown_len(), 0);
    // A marker view survives a refresh when rows, query and sort are unchanged…
    state.tab_state_mut(Tab::Callbacks).list.view = vec![0];
    refresh(&mut state);
    assert_eq!(state.tab_state(Tab::Callbacks).list.view, vec![0]);
    // …and is replaced once the rows change.
    state.touch_rows(Tab::Callbacks);
    refresh(&mut state);
    assert_eq!(state.tab_state(Tab::Callbacks).list.shown_len(), 0);
}
