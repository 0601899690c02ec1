//! The search's keys, replies and title chip: `Ctrl-F` opens the command line at `:search `,
//! `:search EXPR` starts (see the module above), `Esc` stops.
use super::{MAX_MATCHES, Running, SearchCmd, SearchReply, SearchState, Stop};
use crate::api::Error;
use crate::api::jq::Jq;
use crate::api::search::{Tally, VARS};
use crate::console::msg::{ApiCmd, ApiReply, Effect, Pane};
use crate::console::state::{Core, LoadState, ToastKind};
use crate::console::tab::Tab;

/// `Ctrl-F`: what the command line opens at (`:search `), for the router to hand the power
/// tools; `None` (said in a toast) when no list is searched here.
pub(crate) fn open(cx: &mut Core) -> Option<&'static str> {
    searchable(cx).map(|_| "search ")
}

/// `:search EXPR`, first half: checks the expression and stops the running search; the list
/// to fill, unless refused (said in a toast). The router then shows that tab and calls
/// [`start`].
pub(crate) fn prepare(room: &mut SearchState, cx: &mut Core, expr: &str) -> Option<Tab> {
    let expr = expr.trim();
    if expr.is_empty() {
        cx.toast(
            ToastKind::Error,
            "usage: :search EXPR (a jq test: .order.id == \"o-1\", $headers, $response)",
        );
        return None;
    }
    if let Err(e) = Jq::with_vars(expr, VARS) {
        cx.toast(
            ToastKind::Error,
            format!("search: {}", crate::text::line(&e)),
        );
        return None;
    }
    let tab = searchable(cx)?;
    stop(room, cx);
    Some(tab)
}

/// `:search EXPR`, second half (the list's tab shown, `effects` what showing it asked for):
/// empties the list and starts the walk.
pub(crate) fn start(
    room: &mut SearchState,
    cx: &mut Core,
    tab: Tab,
    expr: &str,
    mut effects: Vec<Effect>,
) -> Vec<Effect> {
    let expr = expr.trim();
    // What the list was loading is dropped: its reply would replace the matches.
    effects.retain(|e| {
        !matches!(
            e,
            Effect::Api {
                pane: Pane::List(t),
                ..
            } if *t == tab
        )
    });
    let ts = cx.tab_state_mut(tab);
    ts.detail = None;
    let list = &mut ts.list;
    list.pending = None;
    list.load = LoadState::Loaded;
    list.pagination = crate::api::Pagination::default();
    list.page = 1;
    list.cursor = 0;
    list.offset = 0;
    list.set_rows(Vec::new());
    let filter = list.filter.clone();
    cx.touch_rows(tab);
    let req_id = cx.next_req_id();
    let stop = Stop::default();
    room.run = Some(Running {
        expr: expr.to_string(),
        tab,
        req_id,
        stop: stop.clone(),
        tally: Tally::default(),
        ended: None,
        rev: cx.tab_state(tab).list.rev,
    });
    effects.push(Effect::Api {
        req_id,
        pane: Pane::Search,
        cmd: ApiCmd::Search(Box::new(SearchCmd {
            expr: expr.to_string(),
            filter,
            tab,
            stop,
        })),
    });
    effects
}

/// `Esc` while a search runs: stop it, keeping the matches found. False when none runs.
pub(crate) fn stop(room: &mut SearchState, cx: &mut Core) -> bool {
    let Some(run) = room.run.as_mut().filter(|r| r.ended.is_none()) else {
        return false;
    };
    run.stop.stop();
    run.ended = Some("stopped".into());
    let line = run.tally.line();
    cx.toast(ToastKind::Info, format!("Search stopped: {line}"));
    true
}

/// Whether a reply is the running search's.
pub(crate) fn awaits(room: &SearchState, req_id: u64) -> bool {
    room.run
        .as_ref()
        .is_some_and(|r| r.req_id == req_id && r.ended.is_none())
}

/// A page's matches join the list; the end says how far the search got.
pub(crate) fn on_reply(
    room: &mut SearchState,
    cx: &mut Core,
    result: Result<ApiReply, Error>,
) -> Vec<Effect> {
    let tab = room.run.as_ref().map_or(Tab::NOTIFICATIONS_LIST, |r| r.tab);
    let still_shown = room
        .run
        .as_ref()
        .is_some_and(|r| r.rev == cx.tab_state(tab).list.rev);
    match result {
        Ok(ApiReply::Search(SearchReply::Found { tally, rows })) => {
            if still_shown && !rows.is_empty() {
                let list = &mut cx.tab_state_mut(tab).list;
                let mut all = std::mem::take(&mut list.rows);
                for r in rows {
                    if all.len() < MAX_MATCHES && !all.iter().any(|k| k.id() == r.id()) {
                        all.push(r);
                    }
                }
                list.set_rows(all);
                cx.touch_rows(tab);
            }
            let rev = cx.tab_state(tab).list.rev;
            if let Some(run) = room.run.as_mut() {
                run.tally = tally;
                if still_shown {
                    run.rev = rev;
                }
            }
        }
        Ok(ApiReply::Search(SearchReply::Done { tally, why })) => {
            let line = tally.line();
            let failed = (tally.failed > 0).then(|| {
                format!(
                    "; EXPR failed on {} (the first: {})",
                    tally.failed,
                    tally.first_failure.as_deref().unwrap_or("-")
                )
            });
            let why = why.unwrap_or_else(|| "end of the list".into());
            cx.toast(
                ToastKind::Info,
                crate::text::line(&format!(
                    "Search done ({why}): {line}{}",
                    failed.unwrap_or_default()
                ))
                .into_owned(),
            );
            if let Some(run) = room.run.as_mut() {
                run.tally = tally;
                run.ended = Some(why);
            }
        }
        Ok(_) => {}
        Err(e) => {
            let why = crate::text::line(&e.to_string()).into_owned();
            cx.toast(ToastKind::Error, format!("Search failed: {why}"));
            if let Some(run) = room.run.as_mut() {
                run.ended = Some(why);
            }
        }
    }
    Vec::new()
}

/// The notifications list's title chip while it shows a search's matches:
/// `search .x == 1: examined 300, matched 2, back to … · Esc stops`.
pub(crate) fn chip(room: &SearchState, cx: &Core, tab: Tab) -> Option<String> {
    let run = room.run.as_ref().filter(|r| r.tab == tab)?;
    if run.rev != cx.tab_state(tab).list.rev {
        return None;
    }
    let expr: String = run.expr.chars().take(40).collect();
    let tail = match &run.ended {
        None => " · Esc stops".to_string(),
        Some(why) => format!(" ({why})"),
    };
    Some(format!("search {expr}: {}{tail}", run.tally.line()))
}

/// The list this generation's search fills: pulsar's Notifications, event-destinations'
/// Deliveries or callback-destinations' Notifications (`None`, said in a toast, when none is
/// shown).
fn searchable(cx: &mut Core) -> Option<Tab> {
    let tab = Tab::ALL
        .into_iter()
        .find(|t| t.delivers() && cx.is_shown(*t));
    if tab.is_none() {
        cx.toast(
            ToastKind::Info,
            "Ctrl-F searches the notifications or deliveries list, which this server does not show",
        );
    }
    tab
}
