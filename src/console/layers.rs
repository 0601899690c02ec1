//! The layers of the screen and their one order. A key, turned into an [`Input`] once by the
//! router, is offered down [`Layer::ORDER`]; each layer says whether it is open, takes or
//! passes a key, and declares the keys it offers where it is (the footer's source).
use super::compare;
use super::deliveries;
use super::footer::{Hint, Keys};
use super::forms;
use super::forward;
use super::keymap::{Action, Input};
use super::msg::Step;
use super::pane;
use super::power;
use super::replay;
use super::state::State;

/// The layers of the screen, outermost first. A key, turned into an [`Input`] once, is offered
/// down this one list: the first open layer that takes it handles it; a modal layer takes every
/// key while it is open. Only the tab, at the bottom, turns actions into list and detail work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Compare (`=`): every key while open; `=` over an open answer.
    Compare,
    /// The replay room (`P`): every key while open.
    Replay,
    /// The forward room (`L`): every key while open.
    Forward,
    /// An open form dialog and its confirmation: every key.
    Form,
    /// The power tools' prompts: the command line, `/` being typed, the raw JSON view.
    Prompt,
    /// A question of the deliveries room (reveal headers, show a signing secret): any key answers.
    Confirm,
    /// The filter dialog (every key) and the attempt view (its own keys).
    Overlay,
    /// The help overlay: swallows keys but its ways out.
    Help,
    /// The tab on screen: its list or detail.
    Tab,
}

impl Layer {
    /// Every layer, outermost first.
    pub const ORDER: [Layer; 9] = [
        Layer::Compare,
        Layer::Replay,
        Layer::Forward,
        Layer::Form,
        Layer::Prompt,
        Layer::Confirm,
        Layer::Overlay,
        Layer::Help,
        Layer::Tab,
    ];

    /// Whether the layer is on screen.
    pub fn is_open(self, state: &State) -> bool {
        let d = &state.deliveries;
        match self {
            Layer::Compare => state.compare.overlay_of(&state.profile).is_some(),
            Layer::Replay => state.replay.room_of(&state.profile).is_some(),
            Layer::Forward => state.forward.room_of(&state.profile).is_some(),
            Layer::Form => state.forms.dialog.is_some(),
            Layer::Prompt => power::update::is_modal(state),
            Layer::Confirm => {
                d.attempt.as_ref().is_some_and(|v| v.confirm)
                    || d.secret_confirm.is_some()
                        && d.secret_confirm.as_deref()
                            == deliveries::secret::open_destination(state).map(|x| x.id.as_str())
            }
            Layer::Overlay => d.filter.is_some() || d.attempt.is_some(),
            Layer::Help => state.help,
            Layer::Tab => true,
        }
    }

    /// The outermost open layer: whose keys the footer shows.
    pub fn top(state: &State) -> Layer {
        Layer::ORDER
            .into_iter()
            .find(|l| l.is_open(state))
            .unwrap_or(Layer::Tab)
    }

    /// The keys the layer declares for the footer where it is.
    pub(crate) fn keys(self, state: &State) -> Keys {
        use super::deliveries::keys::DeliveryKey as K;
        match self {
            Layer::Replay => match state.replay.room_of(&state.profile) {
                Some(room) => Keys::Only(
                    replay::view::key_hints(room)
                        .iter()
                        .map(|(k, w)| Hint::Key(k, w))
                        .collect(),
                ),
                None => Keys::Own,
            },
            Layer::Compare => match state.compare.overlay_of(&state.profile) {
                Some(o) => Keys::Only(
                    compare::view::key_hints(o)
                        .iter()
                        .map(|(k, w)| Hint::Key(k, w))
                        .collect(),
                ),
                None => Keys::Own,
            },
            Layer::Forward => match state.forward.room_of(&state.profile) {
                Some(room) => Keys::Only(
                    forward::view::key_hints(room)
                        .iter()
                        .map(|(k, w)| Hint::Key(k, w))
                        .collect(),
                ),
                None => Keys::Own,
            },
            // Forms, prompts and the filter dialog draw their own hints.
            Layer::Form | Layer::Prompt => Keys::Own,
            Layer::Confirm => {
                Keys::Only(vec![Hint::Key("y", "yes"), Hint::Key("other keys", "no")])
            }
            Layer::Overlay if state.deliveries.filter.is_some() => Keys::Own,
            Layer::Overlay => Keys::Offers(vec![
                Hint::Action(Action::Deliver(K::Reveal), "reveal"),
                Hint::Action(Action::Replay, "replay"),
                Hint::Action(Action::Compare, "compare"),
                Hint::Pair(Action::Down, Action::Up, "scroll"),
                Hint::Action(Action::Back, "back"),
            ]),
            Layer::Help => Keys::Offers(vec![Hint::Action(Action::Back, "back")]),
            Layer::Tab => Keys::Offers(pane::keys(state)),
        }
    }

    /// What the outermost layer with keys of its own declares (forms, prompts and the filter
    /// dialog draw their hints themselves; the next layer's show meanwhile).
    pub(crate) fn declared(state: &State) -> Keys {
        Layer::ORDER
            .into_iter()
            .filter(|l| l.is_open(state))
            .map(|l| l.keys(state))
            .find(|k| !matches!(k, Keys::Own))
            .unwrap_or(Keys::Own)
    }

    /// Offers a key to the layer: `None` when it is not the layer's (closed, or a key it lets
    /// through), so the next layer gets it.
    pub(crate) fn offer(self, state: &mut State, input: &Input) -> Option<Step> {
        match self {
            Layer::Compare => compare::update::on_key(state, input).map(Step::from),
            Layer::Replay => replay::update::on_key(state, input).map(Step::from),
            Layer::Forward => forward::update::on_key(state, input).map(Step::from),
            Layer::Form => state
                .forms
                .dialog
                .is_some()
                .then(|| forms::update::on_key(state, input.key).into()),
            Layer::Prompt => {
                power::update::is_modal(state).then(|| power::update::on_modal_key(state, input))
            }
            Layer::Confirm => deliveries::update::confirm_key(state, input).map(Step::from),
            Layer::Overlay => deliveries::update::overlay_key(state, input).map(Step::from),
            Layer::Help if state.help => {
                // The help overlay swallows keys; the usual ways out close it.
                match input.action() {
                    Some(Action::Help | Action::Back) => state.help = false,
                    Some(Action::Quit) => return Some(pane::quit(state).into()),
                    _ => {}
                }
                Some(Step::default())
            }
            Layer::Help => None,
            Layer::Tab => {
                if let Some(effects) = deliveries::update::tab_key(state, input) {
                    return Some(effects.into());
                }
                input.action().map(|a| Step::then(Vec::new(), a))
            }
        }
    }
}
