//! `update`: the router. A key becomes an `Input` once (every action bound to it); Ctrl-C
//! quits, then the key goes down [`Layer::ORDER`] to the first open layer that takes it, the tab
//! last (`on_action`). A reply goes to the room its address ([`Pane`]) names, in one `match`; a
//! click goes through `mouse`. Rooms change their own part of the state and hand back effects or
//! a [`Step`] (effects plus an action the router applies next); list and detail work is in
//! [`super::pane`]. It never awaits: I/O is returned as [`Effect`]s.
use crossterm::event::{KeyEvent, KeyEventKind};

use super::compare;
use super::deliveries;
use super::forms;
use super::forward;
use super::keymap::Action;
use super::layers::Layer;
use super::members;
use super::mouse;
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
    power::filter_sort::refresh(state);
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
            let alerts = super::alerts::update::on_tick(state);
            if !state.animating() {
                return (!alerts.is_empty()).then_some(alerts);
            }
            on_tick(state);
            let mut effects = deliveries::update::on_tick(state);
            effects.extend(alerts);
            effects
        }
        Msg::Api {
            req_id,
            pane,
            result,
        } => on_reply(state, req_id, pane, result)?,
        // Compare owns the screen: clicks must not move what is behind it.
        Msg::Power(PowerMsg::Mouse(_)) if state.compare.overlay.is_some() => Vec::new(),
        // The forward room owns the screen: clicks must not move what is behind it.
        Msg::Power(PowerMsg::Mouse(_)) if state.forward.room.is_some() => Vec::new(),
        // The replay room owns the screen: clicks must not move what is behind it.
        Msg::Power(PowerMsg::Mouse(ev)) if state.replay.room.is_some() => {
            replay::update::on_mouse(state, ev);
            Vec::new()
        }
        // So does the recover room.
        Msg::Power(PowerMsg::Mouse(_)) if state.recover.room.is_some() => Vec::new(),
        Msg::Power(PowerMsg::Mouse(ev)) => {
            let step = mouse::on_mouse(state, ev);
            run(state, step)
        }
        Msg::Power(p) => {
            let step = power::update::on_msg(state, p);
            run(state, step)
        }
        Msg::Paste(text) => on_paste(state, &text)?,
        Msg::Edited(result) if super::samples::update::awaits_editor(state) => {
            super::samples::update::edited(state, result)
        }
        Msg::Edited(result) => replay::update::edited(state, result),
    })
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
            deliveries::update::before_list_reply(state, req_id);
            if let Some(tab) = pane::on_reply(state, to, result) {
                forms::update::land_cursor(&mut state.forms, &mut state.core, tab);
                pane::keep_cursor_visible(state, tab);
            }
            Some(deliveries::update::after_reply(state))
        }
        Pane::Form(_) => forms::update::awaits(&state.forms, req_id).then(|| {
            // A write's answer may hold what no read gives again (a new secret): replay keeps it.
            if let Ok(ApiReply::Item(record)) = &result {
                state.replay.remember_shown(&state.core.profile, record);
            }
            let window = state.deliveries.window;
            forms::update::on_reply(&mut state.forms, &mut state.core, window, req_id, result)
        }),
        Pane::Replay => {
            replay::update::awaits(state, req_id).then(|| replay::update::on_reply(state, result))
        }
        Pane::Recover => {
            recover::update::awaits(state, req_id).then(|| recover::update::on_reply(state, result))
        }
        Pane::Compare => {
            compare::update::awaits(state, req_id).then(|| compare::update::on_reply(state, result))
        }
        Pane::Forward => {
            forward::update::awaits(state, req_id).then(|| forward::update::on_reply(state, result))
        }
        Pane::Samples => super::samples::update::awaits(state, req_id)
            .then(|| super::samples::update::on_reply(state, result)),
        Pane::Alerts => super::alerts::update::awaits(state, req_id)
            .then(|| super::alerts::update::on_reply(state, result)),
        Pane::Search => super::search::update::awaits(state, req_id)
            .then(|| super::search::update::on_reply(state, result)),
        Pane::Members => {
            members::awaits(state, req_id).then(|| members::on_reply(state, req_id, result))
        }
        Pane::Health | Pane::Lookup | Pane::Names | Pane::Active | Pane::Glance => {
            deliveries::update::on_reply(state, to, req_id, result)
        }
        Pane::Stats => deliveries::health::on_stats(state, req_id, result),
        Pane::Follow => {
            super::follow::awaits(state, req_id).then(|| super::follow::on_reply(state, result))
        }
        Pane::Named => deliveries::deleted::on_reply(state, req_id, result),
    }
}

/// The effects of opening the console: load the active tab.
pub(crate) fn init(state: &mut State) -> Vec<Effect> {
    let mut effects = pane::init(state);
    effects.extend(super::alerts::update::start(state));
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
        return power::update::refuse(state, action);
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
        Action::Back if power::update::filter_active(state) => power::update::clear_filter(state),
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
            effects.extend(deliveries::update::after_open(state, tab));
            effects
        }
        Action::Deliver(k) => deliveries::update::on_action(state, k),
        Action::Replay => replay::update::open(state),
        Action::EditReplay => replay::update::open_edit(state),
        Action::Mark | Action::MarkRange | Action::MarkAll | Action::Recover => {
            recover::update::on_action(state, action)
        }
        Action::Forward => forward::update::open(state),
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
        Action::Search => super::search::update::open(state),
        Action::Palette => super::palette::update::open(state),
        Action::Alerts => super::alerts::update::open(state),
        Action::Samples => super::samples::update::open(state),
        Action::KeepSample => super::samples::update::open_keep(state),
        Action::Command
        | Action::Filter
        | Action::Sort
        | Action::SortFlip
        | Action::RawJson
        | Action::CopyId
        | Action::CopyJson
        | Action::NextMatch
        | Action::PrevMatch => power::update::on_action(state, action),
    }
}

fn on_tick(state: &mut State) {
    state.frame = state.frame.wrapping_add(1);
    for t in &mut state.toasts {
        t.ttl = t.ttl.saturating_sub(1);
    }
    state.toasts.retain(|t| t.ttl > 0);
}
