//! What the detail pane shows, its title and lines, and how far they scroll: one answer for
//! the drawing and for the keys, so that `k` after `G` moves at once.
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::layout;
use super::state::{LoadState, State};
use super::views::{self, ViewCtx};
use super::widgets::detail::DetailView;

/// The open detail's (or the selected row's preview's) title and lines, server text not yet
/// sanitized: the pane sanitizes (and wraps) lines it has not seen, so a key on a long record
/// does not sanitize it again.
pub(crate) fn title_and_lines(state: &State, ctx: &ViewCtx) -> (String, Vec<Line<'static>>) {
    let ts = state.current();
    let record = match &ts.detail {
        Some(d) => d.record.as_ref(),
        None => ts.list.selected(),
    };
    match record {
        Some(r) => {
            let mut lines =
                super::deliveries::view::unsanitised_detail(&state.deliveries, &state.core, r, ctx);
            match &r.item {
                super::record::Item::Team(t) => lines.extend(team_members(state, &t.id, ctx)),
                super::record::Item::OrgTeam(t) => lines.extend(team_members(state, &t.id, ctx)),
                _ => {}
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
    }
}

/// The furthest the open detail scrolls on this screen: 0 when it fits or none is open.
pub(crate) fn max_scroll(state: &State) -> u16 {
    let Some(d) = &state.current().detail else {
        return 0;
    };
    let screen = Rect::new(0, 0, state.size.0, state.size.1);
    let Some(area) = layout::areas(screen, state.tab, true).detail else {
        return 0;
    };
    let ctx = ViewCtx {
        clock: &state.clock,
        theme: &state.settings.theme,
    };
    let (_, lines) = title_and_lines(state, &ctx);
    let load: &LoadState = &d.load;
    DetailView::max_scroll(&lines, load, area, &state.settings.theme)
}

/// A team's members for its detail, from the members loaded in the background (server text,
/// sanitized by the pane).
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
    member_lines(now, ctx)
}
