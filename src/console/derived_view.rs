//! The derived view of each tab's list: the rows stay in server order and the power tools'
//! filter and sort, and the deliveries' status filter and time window, produce the positions
//! shown (`ListPane::view`), derived again only when one of them or the rows change. It reads
//! several rooms and what every room knows of an item (`views::context`), so the router runs it
//! after every message.
use crate::console::pane;
use crate::console::power::filter;
use crate::console::state::{State, ViewKey};
use crate::console::tab::Tab;

/// Derives again the view of every tab whose rows, query, sort or local status filter changed
/// since, keeping the selected row when it stays in view.
pub(crate) fn refresh(state: &mut State) {
    for tab in Tab::ALL {
        let i = tab.index();
        let f = &state.power.filters[i];
        let sort = state.power.sorts[i];
        let shaped = f.active() || sort.column.is_some();
        let query = if f.active() {
            f.query.value().to_string()
        } else {
            String::new()
        };
        let local = &state.deliveries.local;
        let status = tab
            .is_notifications_list()
            .then(|| local.applied.clone())
            .flatten();
        let since = tab.is_notifications_list().then_some(local.since).flatten();
        let shaped = shaped || status.is_some() || since.is_some();
        let keeps = |r: &_| !tab.is_notifications_list() || local.keeps(r);
        let list = &state.tabs[i].list;
        let key = ViewKey {
            rev: list.rev,
            len: list.rows.len(),
            query,
            status,
            since,
            sort,
        };
        // Rev 0 is a list never marked: nothing is known of its rows.
        let fresh = key.rev != 0 && list.view_of.as_ref() == Some(&key);
        let mut changed = false;
        let mut hay = std::mem::take(&mut state.core.haystacks);
        let list = &state.tabs[i].list;
        let view = (!fresh).then(|| {
            let mut view: Vec<usize> = (0..list.rows.len())
                .filter(|&i| list.rows.get(i).is_some_and(keeps))
                .collect();
            crate::console::views::context::with_ctx(state, |ctx| {
                if !key.query.trim().is_empty() {
                    let texts = hay.of((tab, key.rev, state.handled), &list.rows, ctx);
                    filter::retain_matching(&key.query, texts, &mut view);
                }
                sort.apply(tab, &list.rows, ctx, &mut view);
            });
            view
        });
        state.haystacks = hay;
        let list = &mut state.tab_state_mut(tab).list;
        if let Some(view) = view {
            if view != list.view {
                let selected = list.selected().map(|r| r.id().to_string());
                list.view = view;
                list.cursor = selected
                    .and_then(|id| list.shown().position(|r| r.id() == id))
                    .unwrap_or(0);
                changed = true;
            }
            list.view_of = Some(key);
        }
        if shaped || changed {
            pane::keep_cursor_visible(state, tab);
        }
    }
}
