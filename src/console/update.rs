//! `update`: the router. A key becomes an `Input` once (every action bound to it); Ctrl-C
//! quits, then the key goes down [`Layer::ORDER`] to the first open layer that takes it, the tab
//! last (`on_action`); a mouse event goes down the same list. A reply goes to the room its
//! address ([`Pane`]) names, in one `match`. Rooms change their own part of the state and hand back effects or
//! a [`Step`] (effects plus an action the router applies next); list and detail work is in
//! [`super::pane`]. It never awaits: I/O is returned as [`Effect`]s.
use crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};

use super::compare;
use super::deliveries;
use super::forms;
use super::forward;
use super::keymap::Action;
use super::layers::Layer;
use super::members;
use super::msg::{ApiReply, Effect, Msg, Pane, Step};
use super::pane;
use super::power::{self, PowerMsg};
use super::recover;
use super::replay;
use super::state::State;
use crate::api::Error;

/// Applies one message and returns what must be done outside; `None` when the message changed
/// nothing (a stale reply, a tick with nothing moving), so that nothing is drawn for it.
pub(crate) fn update(state: &mut State, msg: Msg) -> Option<Vec<Effect>> {
    state.handled = state.handled.wrapping_add(1);
    state.toast_topic = None;
    let effects = route(state, msg)?;
    super::derived_view::refresh(state);
    Some(effects)
}

fn route(state: &mut State, msg: Msg) -> Option<Vec<Effect>> {
    Some(match msg {
        Msg::Key(key) => on_key(state, key),
        Msg::Resize(w, h) => {
            pane::resize(state, w, h);
            Vec::new()
        }
        Msg::Tick => {
            // The alert rules' timer runs whether or not anything moves on screen.
            let alerts = super::alerts::update::on_tick(&mut state.alerts, &mut state.core);
            if !state.animating() {
                return (!alerts.is_empty()).then_some(alerts);
            }
            on_tick(state);
            let mut effects = deliveries::update::on_tick(&mut state.deliveries, &mut state.core);
            effects.extend(alerts);
            effects
        }
        Msg::Api {
            req_id,
            pane,
            result,
        } => on_reply(state, req_id, pane, result)?,
        Msg::Power(PowerMsg::Mouse(ev)) => on_mouse(state, ev),
        // A new session on the new profile, loaded as when the console opens.
        Msg::Power(PowerMsg::Switched(info)) => {
            super::commands::switched(state, info);
            init(state)
        }
        Msg::Power(p) => {
            let step = power::update::on_msg(&mut state.power, &mut state.core, p);
            run(state, step)
        }
        Msg::Paste(text) => on_paste(state, &text)?,
        Msg::Edited(result)
            if super::samples::update::awaits_editor(&state.samples, &state.core) =>
        {
            super::samples::update::edited(&mut state.samples, &mut state.core, result)
        }
        Msg::Edited(result) => replay::update::edited(&mut state.replay, &mut state.core, result),
    })
}

/// A mouse event goes down [`Layer::ORDER`] like a key: the first open layer that takes it
/// handles it (the one drawn on top; a room or dialog owning the screen takes every event).
/// Nothing takes it when the config turns the mouse off.
fn on_mouse(state: &mut State, ev: MouseEvent) -> Vec<Effect> {
    if !state.settings.mouse {
        return Vec::new();
    }
    for layer in Layer::ORDER {
        if let Some(step) = layer.mouse(state, ev) {
            return run(state, step);
        }
    }
    Vec::new()
}

/// Pasted text goes to the outermost open layer's focused input, through `input::paste`;
/// `None` (nothing to draw) when that layer has no text input focused.
fn on_paste(state: &mut State, text: &str) -> Option<Vec<Effect>> {
    let layer = Layer::ORDER.into_iter().find(|l| l.is_open(state))?;
    layer.paste(state, text).then(Vec::new)
}

/// A worker reply goes to the pane or room whose address it carries; `None` when that one no
/// longer waits for it (stale: the user moved on), so it is dropped without a redraw.
fn on_reply(
    state: &mut State,
    req_id: u64,
    to: Pane,
    result: Result<ApiReply, Error>,
) -> Option<Vec<Effect>> {
    match to {
        Pane::List(_) | Pane::Detail(_) => {
            if !pane::awaits(state, to, req_id) {
                return None;
            }
            deliveries::update::before_list_reply(&mut state.deliveries, &state.core, req_id);
            if let Some(tab) = pane::on_reply(state, to, result) {
                forms::update::land_cursor(&mut state.forms, &mut state.core, tab);
                pane::keep_cursor_visible(state, tab);
            }
            let after = deliveries::update::after_reply(&mut state.deliveries, &mut state.core);
            if after.joined() {
                // A scan joined pages: the view (the power room's filter and sort) first.
                super::derived_view::refresh(state);
            }
            Some(deliveries::update::after_reply_then(
                &mut state.deliveries,
                &mut state.core,
                after,
            ))
        }
        Pane::Form(_) => forms::update::awaits(&state.forms, req_id).then(|| {
            // A write's answer may hold what no read gives again (a new secret): replay keeps it.
            if let Ok(ApiReply::Item(record)) = &result {
                state.replay.remember_shown(&state.core.profile, record);
            }
            forms::update::on_reply(&mut state.forms, &mut state.core, req_id, result)
        }),
        Pane::Replay => replay::update::awaits(&state.replay, &state.core, req_id).then(|| {
            let (mut effects, edited) =
                replay::update::on_reply(&mut state.replay, &mut state.core, result);
            // `E`: compare opens on the edited replay's answer, the recorded one beside it.
            if let Some(to) = edited {
                effects.extend(compare::update::open_against(
                    &mut state.compare,
                    &mut state.core,
                    &state.replay,
                    to,
                ));
            }
            effects
        }),
        Pane::Recover => recover::update::awaits(&state.recover, &state.core, req_id)
            .then(|| recover::update::on_reply(&mut state.recover, &state.core, result)),
        Pane::Compare => compare::update::awaits(&state.compare, &state.core, req_id)
            .then(|| compare::update::on_reply(&mut state.compare, result)),
        Pane::Forward => forward::update::awaits(&state.forward, &state.core, req_id)
            .then(|| forward::update::on_reply(&mut state.forward, result)),
        Pane::Samples => {
            super::samples::update::awaits(&state.samples, &state.core, req_id).then(|| {
                super::samples::update::on_reply(
                    &mut state.samples,
                    &state.core,
                    &mut state.replay.histories,
                    &mut state.compare.overlay,
                    result,
                )
            })
        }
        Pane::Alerts => super::alerts::update::awaits(&state.alerts, req_id)
            .then(|| super::alerts::update::on_reply(&mut state.alerts, result)),
        Pane::Search => super::search::update::awaits(&state.search, req_id)
            .then(|| super::search::update::on_reply(&mut state.search, &mut state.core, result)),
        Pane::Members => members::awaits(state, req_id).then(|| {
            members::on_reply(&mut state.core, state.forms.dialog.as_mut(), req_id, result)
        }),
        Pane::Health | Pane::Lookup | Pane::Names | Pane::Active | Pane::Glance => {
            deliveries::update::on_reply(&mut state.deliveries, &mut state.core, to, req_id, result)
        }
        Pane::Stats => deliveries::health::on_stats(&mut state.deliveries, req_id, result),
        Pane::Follow => {
            super::follow::awaits(state, req_id).then(|| super::follow::on_reply(state, result))
        }
        Pane::Named => deliveries::deleted::on_reply(&mut state.core, req_id, result),
    }
}

/// The effects of opening the console: load the active tab.
pub(crate) fn init(state: &mut State) -> Vec<Effect> {
    let mut effects = pane::init(state);
    effects.extend(super::alerts::update::start(
        &mut state.alerts,
        &mut state.core,
    ));
    effects
}

/// Runs a feature's answer: its effects, then the action it asked for.
fn run(state: &mut State, step: Step) -> Vec<Effect> {
    let mut effects = step.effects;
    if let Some(action) = step.then {
        effects.extend(on_action(state, action));
    }
    effects
}

fn on_key(state: &mut State, key: KeyEvent) -> Vec<Effect> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let input = state.settings.keymap.input(key);
    state.toast_topic = input.action();
    // Ctrl-C quits from anywhere, whatever the keymap says.
    if input.is_ctrl_c() {
        return pane::quit(state);
    }
    for layer in Layer::ORDER {
        if let Some(step) = layer.offer(state, &input) {
            return run(state, step);
        }
    }
    Vec::new()
}

/// Applies a semantic action, from the keymap, the mouse or the command line.
pub(crate) fn on_action(state: &mut State, action: Action) -> Vec<Effect> {
    let tab = state.tab;
    let detail_open = state.current().detail.is_some();
    if state.read_only && action.is_write() {
        return power::update::refuse(&mut state.core, action);
    }
    if let Some(why) = super::callback_gen::refusal(tab, action) {
        state.toast(super::state::ToastKind::Info, why);
        return Vec::new();
    }
    if let Some(why) = super::views::not_here(tab, action) {
        state.toast(super::state::ToastKind::Info, why);
        return Vec::new();
    }
    match action {
        Action::Quit => pane::quit(state),
        Action::Help => {
            state.help = !state.help;
            state.help_scroll = 0;
            Vec::new()
        }
        Action::Back if power::update::filter_active(&state.power, &state.core) => {
            power::update::clear_filter(&mut state.power, &state.core)
        }
        Action::Back => pane::back(state),
        Action::GoTab(t) => pane::switch_tab(state, t),
        Action::NextTab => pane::switch_tab(state, super::tab::next_of(&state.shown, tab)),
        Action::PrevTab => pane::switch_tab(state, super::tab::prev_of(&state.shown, tab)),
        Action::Down | Action::Up | Action::First | Action::Last if detail_open => {
            // Worked out again unless the message before was a scroll key too.
            let max = match state.detail_max {
                Some((at, max)) if at.wrapping_add(1) == state.handled => max,
                _ => super::detail::max_scroll(state),
            };
            state.detail_max = Some((state.handled, max));
            pane::scroll_detail(state, action, max);
            Vec::new()
        }
        Action::Down => pane::move_cursor(state, |c, _| c.saturating_add(1)),
        Action::Up => pane::move_cursor(state, |c, _| c.saturating_sub(1)),
        Action::First => pane::move_cursor(state, |_, _| 0),
        Action::Last => pane::move_cursor(state, |_, n| n.saturating_sub(1)),
        Action::NextPage | Action::PrevPage if detail_open => Vec::new(),
        Action::NextPage => pane::next_page(state, tab),
        Action::PrevPage => pane::prev_page(state, tab),
        Action::ToggleOrder => pane::toggle_order(state, tab),
        Action::Reload => pane::refresh(state, tab),
        // Inside a detail, Enter belongs to the view (attempts); nothing to open.
        Action::Open if detail_open => Vec::new(),
        Action::Open => {
            let mut effects = pane::open_detail(state, tab);
            effects.extend(deliveries::update::after_open(
                &mut state.deliveries,
                &mut state.core,
                tab,
            ));
            effects
        }
        Action::Deliver(k) => {
            deliveries::update::on_action(&mut state.deliveries, &mut state.core, k)
        }
        Action::Replay => replay::update::open(
            &mut state.replay,
            &mut state.core,
            replay::update::Seen::of(&state.deliveries),
        ),
        Action::EditReplay => replay::update::open_edit(
            &mut state.replay,
            &mut state.core,
            replay::update::Seen::of(&state.deliveries),
        ),
        Action::Mark | Action::MarkRange | Action::MarkAll | Action::Recover => {
            recover::update::on_action(
                &mut state.recover,
                &mut state.core,
                action,
                state.deliveries.local.status.as_deref(),
            )
        }
        Action::Forward => forward::update::open(&mut state.forward, &mut state.core),
        // Where there is an answer the compare layer took the key before this point.
        Action::Compare => {
            state.toast(
                super::state::ToastKind::Info,
                "= compares an answer: open an attempt, a replay's or a forward's answer",
            );
            Vec::new()
        }
        Action::Write(_) => {
            let asking = forms::Asking {
                mode: state.power.confirm,
                switching: state.power.switching.as_deref(),
            };
            forms::update::on_action(&mut state.forms, &mut state.core, asking, action)
        }
        Action::Op(op) => {
            let asking = forms::Asking {
                mode: state.power.confirm,
                switching: state.power.switching.as_deref(),
            };
            forms::update::on_op(&mut state.forms, &mut state.core, asking, op)
        }
        Action::Search => match super::search::update::open(&mut state.core) {
            Some(text) => power::update::prompt(&mut state.power, text),
            None => Vec::new(),
        },
        Action::Palette => {
            let declared = pane::keys(state);
            super::palette::update::open(&mut state.palette, &state.core, declared)
        }
        Action::Alerts => super::alerts::update::open(&mut state.alerts, &mut state.core),
        Action::Samples => super::samples::update::open(&mut state.samples, &state.core),
        Action::KeepSample => {
            let chosen = super::replay::update::chosen(
                &state.core,
                super::replay::update::Seen::of(&state.deliveries),
            );
            super::samples::update::open_keep(&mut state.samples, &mut state.core, chosen)
        }
        Action::Command
        | Action::Filter
        | Action::Sort
        | Action::SortFlip
        | Action::RawJson
        | Action::CopyId
        | Action::CopyJson
        | Action::NextMatch
        | Action::PrevMatch => {
            // `s` cycles among the columns on screen, which every room's part of the table sets.
            let shown = (action == Action::Sort)
                .then(|| super::shown_columns::shown(state))
                .flatten();
            power::update::on_action(&mut state.power, &mut state.core, action, shown.as_deref())
        }
    }
}

fn on_tick(state: &mut State) {
    state.frame = state.frame.wrapping_add(1);
    for t in &mut state.toasts {
        t.ttl = t.ttl.saturating_sub(1);
    }
    state.toasts.retain(|t| t.ttl > 0);
}
