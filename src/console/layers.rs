//! The layers of the screen and their one order. A key, turned into an [`Input`] once by the
//! router, is offered down [`Layer::ORDER`], and so is a mouse event; the screen draws the open
//! layers up the same list, so the layer drawn on top is the one that takes the key and the
//! click. Each layer says whether it is open, takes or passes a key or a click, draws itself,
//! and declares the keys it offers where it is (the footer's source).
use crossterm::event::MouseEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::compare;
use super::confirm::{self, Answer, Subject};
use super::deliveries;
use super::footer::{Hint, Keys};
use super::forms;
use super::forward;
use super::keymap::{Action, Input};
use super::msg::{Effect, Step};
use super::pane;
use super::power;
use super::recover;
use super::replay;
use super::state::State;
use super::widgets::help::HelpGroup;

/// A room's own keys (key, word), every one it takes and nothing else.
fn only(hints: &[(&'static str, &'static str)]) -> Keys {
    Keys::Only(hints.iter().map(|(k, w)| Hint::Key(k, w)).collect())
}

/// The layers of the screen, outermost first. A key, turned into an [`Input`] once, is offered
/// down this one list: the first open layer that takes it handles it; a modal layer takes every
/// key while it is open. A click goes down it the same way, and the screen is drawn up it (the
/// tab first, the outermost open layer last). Only the tab, at the bottom, turns actions into
/// list and detail work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// The help overlay, drawn over everything: swallows keys but its ways out.
    Help,
    /// The one confirmation (yes/no, a typed name, a typed host), whichever room asked: every
    /// key while open.
    Confirm,
    /// Compare (`=`): every key while open; `=` over an open answer.
    Compare,
    /// The replay room (`P`): every key while open.
    Replay,
    /// The recover room (*recover…*): every key while open.
    Recover,
    /// The forward room (`L`): every key while open.
    Forward,
    /// The Samples room (`:samples`): every key while open.
    Samples,
    /// An open form dialog: every key.
    Form,
    /// The action palette (`Ctrl-P`): every key while open.
    Palette,
    /// The power tools' prompts: the command line, `/` being typed, the raw JSON view.
    Prompt,
    /// The filter dialog (every key) and the attempt view (its own keys).
    Overlay,
    /// The tab on screen: its list or detail.
    Tab,
}

impl Layer {
    /// Every layer, outermost first.
    pub(crate) const ORDER: [Layer; 12] = [
        Layer::Help,
        Layer::Confirm,
        Layer::Compare,
        Layer::Replay,
        Layer::Recover,
        Layer::Forward,
        Layer::Samples,
        Layer::Form,
        Layer::Palette,
        Layer::Prompt,
        Layer::Overlay,
        Layer::Tab,
    ];

    /// Whether the layer is on screen.
    pub(crate) fn is_open(self, state: &State) -> bool {
        let d = &state.deliveries;
        match self {
            Layer::Compare => state.compare.overlay_of(&state.profile).is_some(),
            Layer::Replay => state.replay.room_of(&state.profile).is_some(),
            Layer::Recover => state.recover.room_of(&state.profile).is_some(),
            Layer::Forward => state.forward.room_of(&state.profile).is_some(),
            Layer::Samples => state.samples.room_of(&state.profile).is_some(),
            Layer::Form => state.forms.dialog.is_some(),
            Layer::Palette => state.palette.open.is_some() || state.alerts.shown,
            Layer::Prompt => power::update::is_modal(&state.power, &state.core),
            Layer::Confirm => state
                .confirm
                .as_ref()
                .is_some_and(|c| still_asked(state, &c.subject)),
            Layer::Overlay => d.filter.is_some() || d.attempt.is_some(),
            Layer::Help => state.help,
            Layer::Tab => true,
        }
    }

    /// The keys the layer declares for the footer where it is.
    pub(crate) fn keys(self, state: &State) -> Keys {
        use super::delivery_key::DeliveryKey as K;
        match self {
            Layer::Replay => state
                .replay
                .room_of(&state.profile)
                .map_or(Keys::Own, |room| only(replay::view::key_hints(room))),
            Layer::Recover => state
                .recover
                .room_of(&state.profile)
                .map_or(Keys::Own, |room| only(recover::view::key_hints(room))),
            Layer::Compare => state
                .compare
                .overlay_of(&state.profile)
                .map_or(Keys::Own, |o| only(compare::view::key_hints(o))),
            Layer::Forward => state
                .forward
                .room_of(&state.profile)
                .map_or(Keys::Own, |room| only(forward::view::key_hints(room))),
            Layer::Samples => state
                .samples
                .room_of(&state.profile)
                .map_or(Keys::Own, |room| {
                    only(super::samples::view::key_hints(room))
                }),
            // A dialog's keys, in the footer too (its own line is where the mouse clicks).
            Layer::Form => state
                .forms
                .dialog
                .as_ref()
                .map_or(Keys::Own, |d| only(forms::view::key_hints(d))),
            Layer::Palette if state.alerts.shown => only(super::alerts::update::KEYS),
            Layer::Palette => only(super::palette::KEYS),
            // The prompt takes the footer's line itself.
            Layer::Prompt => Keys::Own,
            Layer::Confirm => match &state.confirm {
                Some(c) => Keys::Only(c.hints()),
                None => Keys::Own,
            },
            Layer::Overlay if state.deliveries.filter.is_some() => {
                only(deliveries::view::FILTER_KEYS)
            }
            Layer::Overlay => Keys::Offers(
                [
                    // Offered only where something is masked.
                    state
                        .deliveries
                        .attempt
                        .as_ref()
                        .filter(|v| deliveries::attempt::masks_anything(v))
                        .map(|_| Hint::Action(Action::Deliver(K::Reveal), "reveal")),
                    Some(Hint::Action(Action::Replay, "replay")),
                    Some(Hint::Action(Action::Compare, "compare")),
                    Some(Hint::Pair(Action::Down, Action::Up, "scroll")),
                    Some(Hint::Action(Action::Command, "cmd")),
                    Some(Hint::Action(Action::Back, "back")),
                ]
                .into_iter()
                .flatten()
                .collect(),
            ),
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

    /// The room's name over its keys in help.
    fn title(self, state: &State) -> String {
        let tab = state.tab.title();
        match self {
            Layer::Confirm => "This question".into(),
            Layer::Compare => "Compare".into(),
            Layer::Replay => "Replay".into(),
            Layer::Recover => "Recover".into(),
            Layer::Forward => "Forward".into(),
            Layer::Samples => "Samples".into(),
            Layer::Form => "This dialog".into(),
            Layer::Palette => "Action palette".into(),
            Layer::Prompt => "This prompt".into(),
            Layer::Overlay if state.deliveries.filter.is_some() => "Filter".into(),
            Layer::Overlay => "This attempt".into(),
            Layer::Help | Layer::Tab if state.current().detail.is_some() => {
                format!("{tab}: this item")
            }
            Layer::Help | Layer::Tab => format!("{tab} list"),
        }
    }

    /// What `?` lists, grouped: the keys the room under the help declares where it is (the
    /// footer's, in full), then for a list or detail the moves and tools that work there too.
    /// Every bound key shows (rebinding respected); writes hide in read-only mode.
    pub(crate) fn help(state: &State) -> Vec<HelpGroup> {
        let km = &state.settings.keymap;
        let room = Layer::ORDER
            .into_iter()
            .filter(|l| *l != Layer::Help)
            .find(|l| l.is_open(state))
            .unwrap_or(Layer::Tab);
        let here = match room.keys(state) {
            Keys::Offers(h) | Keys::Only(h) => h,
            Keys::Own => Vec::new(),
        };
        let list = state.current().detail.is_none();
        let anywhere = vec![
            Hint::Action(Action::Help, "help"),
            Hint::Action(Action::Quit, "quit"),
            Hint::Key("Ctrl-C", "quit, always"),
        ];
        let mut groups = vec![(room.title(state), here)];
        if room == Layer::Tab {
            let mut moves = vec![
                Hint::Pair(Action::Down, Action::Up, "move"),
                Hint::Pair(Action::First, Action::Last, "first/last"),
                Hint::Pair(Action::NextTab, Action::PrevTab, "tabs"),
                Hint::Tabs("jump to a tab"),
                Hint::Action(Action::Back, "back"),
            ];
            if list {
                moves.insert(2, Hint::Pair(Action::NextPage, Action::PrevPage, "page"));
            }
            let mut tools = vec![
                Hint::Action(Action::Command, "cmd"),
                Hint::Action(Action::Reload, "reload"),
                Hint::Action(Action::RawJson, "json"),
                Hint::Pair(Action::CopyId, Action::CopyJson, "copy"),
            ];
            if list {
                tools.extend([
                    Hint::Action(Action::Filter, "filter"),
                    Hint::Pair(Action::NextMatch, Action::PrevMatch, "match"),
                    Hint::Pair(Action::Sort, Action::SortFlip, "sort"),
                    Hint::Action(Action::ToggleOrder, "order"),
                ]);
            }
            groups.push(("Moving around".into(), moves));
            groups.push(("Tools".into(), tools));
        }
        groups.push(("Anywhere".into(), anywhere));
        let scripts = state.settings.session_line.as_ref().map(|line| {
            let row = (
                "scripts".to_string(),
                format!(
                    "{} (then headless commands reach this demo; the file goes when it ends)",
                    crate::text::line(line)
                ),
            );
            ("While the demo runs".to_string(), vec![row])
        });
        // A key the room already lists is not listed again.
        let mut seen: Vec<Action> = Vec::new();
        let groups = groups
            .into_iter()
            .map(|(title, hints)| {
                let rows = hints
                    .into_iter()
                    .filter_map(|h| {
                        // Half a pair listed already: the other half alone.
                        let h = match h {
                            Hint::Pair(a, b, _) if seen.contains(&a) => Hint::Action(b, b.hint()),
                            Hint::Pair(a, b, _) if seen.contains(&b) => Hint::Action(a, a.hint()),
                            h => h,
                        };
                        let a = h.actions();
                        let new = a.is_empty() || !a.iter().any(|x| seen.contains(x));
                        seen.extend(a);
                        new.then_some(h)
                    })
                    .filter_map(|h| h.help_row(km))
                    .map(|(keys, desc)| (keys, with_interval(desc, state)))
                    .collect::<Vec<_>>();
                (title, rows)
            })
            .filter(|(_, rows)| !rows.is_empty())
            .chain(scripts)
            .collect::<Vec<_>>();
        super::palette::update::filter_help(&state.palette, groups)
    }

    /// Pasted text for the layer's focused text input; false when it has none (a yes/no
    /// question, a list).
    pub(crate) fn paste(self, state: &mut State, text: &str) -> bool {
        match self {
            Layer::Confirm => match state.confirm.as_mut() {
                Some(c) if matches!(c.kind, confirm::Kind::YesNo { .. }) => false,
                Some(c) => {
                    c.paste(text);
                    true
                }
                None => false,
            },
            Layer::Replay => replay::update::paste(&mut state.replay, text),
            // The field being edited (the typed hosts and count are the confirmation's).
            Layer::Recover => match state.recover.room.as_mut() {
                Some(room) => match &mut room.stage {
                    recover::Stage::Editing => {
                        let focus = room.focus;
                        room.field_mut(focus).paste(text);
                        true
                    }
                    _ => false,
                },
                None => false,
            },
            Layer::Forward => match state.forward.room.as_mut() {
                Some(room) if room.focus == forward::Focus::Target && room.running.is_none() => {
                    room.target.paste(text);
                    true
                }
                _ => false,
            },
            Layer::Samples => super::samples::update::paste(&mut state.samples, text),
            Layer::Compare => false,
            Layer::Form => forms::update::paste(&mut state.forms, text),
            Layer::Palette => super::palette::update::paste(&mut state.palette, text),
            Layer::Prompt => power::update::paste(&mut state.power, &state.core, text),
            Layer::Overlay => match state.deliveries.filter.as_mut() {
                Some(f) => {
                    f.paste(text);
                    true
                }
                None => false,
            },
            Layer::Help | Layer::Tab => false,
        }
    }

    /// Offers a key to the layer: `None` when it is not the layer's (closed, or a key it lets
    /// through), so the next layer gets it.
    pub(crate) fn offer(self, state: &mut State, input: &Input) -> Option<Step> {
        match self {
            Layer::Compare => compare::update::on_key(
                &mut state.compare,
                &mut state.core,
                compare::update::Sources {
                    replay: &state.replay,
                    forward: &state.forward,
                    attempt: state.deliveries.attempt.as_ref(),
                },
                input,
            )
            .map(Step::from),
            Layer::Replay => {
                replay::update::on_key(&mut state.replay, &mut state.core, input).map(Step::from)
            }
            Layer::Recover => {
                recover::update::on_key(&mut state.recover, &mut state.core, input).map(Step::from)
            }
            Layer::Forward => {
                forward::update::on_key(&mut state.forward, &mut state.core, input).map(Step::from)
            }
            Layer::Samples => super::samples::update::on_key(
                &mut state.samples,
                &mut state.core,
                input,
                &mut state.compare.overlay,
            )
            .map(Step::from),
            Layer::Form => state.forms.dialog.is_some().then(|| {
                let asking = forms::Asking {
                    mode: state.power.confirm,
                    switching: state.power.switching.as_deref(),
                };
                forms::update::on_key(&mut state.forms, &mut state.core, asking, input.key).into()
            }),
            Layer::Palette => super::alerts::update::on_key(&mut state.alerts, input)
                .or_else(|| super::palette::update::on_key(&mut state.palette, input)),
            Layer::Prompt => power::update::is_modal(&state.power, &state.core)
                .then(|| super::commands::on_modal_key(state, input)),
            Layer::Confirm => {
                let mut c = state.confirm.take()?;
                if !still_asked(state, &c.subject) {
                    // What it asked about has gone (its detail left, its room closed).
                    return None;
                }
                let answer = confirm::on_key(&mut c, input);
                let subject = c.subject.clone();
                if answer.is_none() {
                    state.confirm = Some(c);
                }
                Some(answer.map_or_else(Step::default, |a| answered(state, subject, a).into()))
            }
            Layer::Overlay => {
                deliveries::update::overlay_key(&mut state.deliveries, &mut state.core, input)
                    .map(Step::from)
            }
            Layer::Help if state.help => {
                // Typed keys narrow it (`/`, or a letter it does not use).
                if let Some(step) =
                    super::palette::update::help_key(&mut state.palette, &mut state.core, input)
                {
                    return Some(step);
                }
                // The help overlay swallows keys; the usual ways out close it, the moves
                // scroll it when it is taller than the screen.
                let (w, h) = state.size;
                let max = crate::console::widgets::help::max_scroll(
                    ratatui::layout::Rect::new(0, 0, w, h),
                    &Layer::help(state),
                );
                if let Some(a) = input.action()
                    && let Some(at) = crate::console::widgets::scrolled(state.help_scroll, a, max)
                {
                    state.help_scroll = at;
                }
                match input.action() {
                    Some(Action::Help | Action::Back) => state.help = false,
                    Some(Action::Quit) => return Some(pane::quit(state).into()),
                    _ => {}
                }
                Some(Step::default())
            }
            Layer::Help => None,
            Layer::Tab => {
                // Esc: a scan of pages stops first, then a search by content (Ctrl-F) on this list
                // (its matches kept), then the marks clear, before the deliveries' own keys.
                let back = input.action() == Some(Action::Back);
                let effects = deliveries::update::tab_key_first(
                    &mut state.deliveries,
                    &mut state.core,
                    input,
                )
                .or_else(|| {
                    let searched = state
                        .search
                        .run
                        .as_ref()
                        .is_some_and(|r| r.tab == state.tab)
                        && state.current().detail.is_none();
                    (back
                        && searched
                        && super::search::update::stop(&mut state.search, &mut state.core))
                    .then(Vec::new)
                })
                .or_else(|| {
                    back.then(|| {
                        recover::update::clear_on_back(&mut state.recover, &mut state.core)
                    })
                    .flatten()
                })
                .or_else(|| {
                    let filtered = power::update::filter_active(&state.power, &state.core);
                    deliveries::update::tab_key(
                        &mut state.deliveries,
                        &mut state.core,
                        input,
                        filtered,
                    )
                });
                if let Some(effects) = effects {
                    return Some(effects.into());
                }
                input.action().map(|a| Step::then(Vec::new(), a))
            }
        }
    }

    /// Draws the layer, when open, over what is drawn already: the screen draws the tab, then
    /// every other open layer up [`Layer::ORDER`] (innermost first). Rooms and overlays cover `body`
    /// (between header and footer), dialogs are placed on the whole `screen`.
    pub(crate) fn draw(self, state: &State, frame: &mut Frame, screen: Rect, body: Rect) {
        match self {
            // Drawn first by `ui::render`, under every layer (the footer line too: it shows
            // what the outer layers declare, the prompt being typed included).
            Layer::Tab => {}
            Layer::Overlay => {
                super::deliveries::view::overlays(&state.deliveries, &state.core, frame, body)
            }
            Layer::Prompt => {
                super::power::view::render_overlay(&state.power, &state.core, frame, screen)
            }
            Layer::Palette => {
                if state.alerts.shown {
                    super::alerts::view::render(&state.alerts, &state.core, frame, screen);
                }
                if let Some(p) = &state.palette.open {
                    super::palette::view::render(frame, screen, p, &state.settings.theme);
                }
            }
            Layer::Form => {
                if let Some(d) = &state.forms.dialog {
                    super::forms::view::render(frame, screen, d, &state.settings.theme);
                }
            }
            Layer::Samples => {
                super::samples::view::render(&state.samples, &state.core, frame, body)
            }
            Layer::Forward => {
                super::forward::view::render(&state.forward, &state.core, frame, body)
            }
            Layer::Recover => {
                super::recover::view::render(&state.recover, &state.core, frame, body)
            }
            Layer::Replay => super::replay::view::render(&state.replay, &state.core, frame, body),
            Layer::Compare => {
                super::compare::view::render(&state.compare, &state.core, frame, body)
            }
            // Drawn while what it asks about is on screen (the layer drops it otherwise).
            Layer::Confirm => {
                if let Some(c) = &state.confirm
                    && super::layers::Layer::Confirm.is_open(state)
                {
                    super::confirm::render(frame, screen, c, &state.settings.theme);
                }
            }
            Layer::Help => {
                if state.help {
                    let groups = super::layers::Layer::help(state);
                    super::widgets::help::render(
                        frame,
                        screen,
                        &groups,
                        state.help_scroll,
                        &state.settings.theme,
                    );
                }
            }
        }
    }

    /// Offers a mouse event to the layer: `None` when it is closed or lets the event through,
    /// so the next layer gets it. A room or dialog that owns the screen takes every event
    /// (clicks must not move what is behind it); the tab's own handling is in `mouse`.
    pub(crate) fn mouse(self, state: &mut State, ev: MouseEvent) -> Option<Step> {
        if !self.is_open(state) {
            return None;
        }
        match self {
            Layer::Help => Some(Step::default()),
            // A click on No or Yes is the key `n` or `y`.
            Layer::Confirm => Some(match super::mouse::confirm_key(state, ev) {
                Some(key) => self.offer(state, &key).unwrap_or_default(),
                None => Step::default(),
            }),
            Layer::Compare => Some(Step::default()),
            Layer::Replay => {
                replay::update::on_mouse(&mut state.replay, &state.core, ev);
                Some(Step::default())
            }
            Layer::Recover | Layer::Forward | Layer::Samples => Some(Step::default()),
            Layer::Form => Some(super::mouse::dialog_click(state, ev).into()),
            Layer::Palette => Some(Step::default()),
            // The command line owns the screen; the raw view (the wheel scrolls it, a tab's
            // label leaves it) and the `/` being typed are the tab's handling in `mouse`.
            Layer::Prompt => state.power.command.is_some().then(Step::default),
            Layer::Overlay => Some(Step::default()),
            Layer::Tab => Some(super::mouse::on_mouse(state, ev)),
        }
    }
}

/// Whether what a confirmation asks about is still on screen; one that is not is dropped.
fn still_asked(state: &State, subject: &Subject) -> bool {
    match subject {
        Subject::FormWrite => state.forms.dialog.is_some(),
        Subject::RevealHeaders => state.deliveries.attempt.is_some(),
        Subject::ShowSecret(id) => {
            deliveries::secret::open_secret_id(state).is_some_and(|open| open == *id)
        }
        Subject::Replay => state.replay.room_of(&state.profile).is_some(),
        Subject::Recover => state.recover.room_of(&state.profile).is_some_and(|r| {
            matches!(
                r.stage,
                recover::Stage::Confirm(_) | recover::Stage::RetryConfirm(_)
            )
        }),
        Subject::SampleSend | Subject::SampleRm(_) => {
            super::samples::update::still_asked(&state.samples, &state.core, subject)
        }
    }
}

/// Hands an answer to the room that asked.
pub(crate) fn answered(state: &mut State, subject: Subject, answer: Answer) -> Vec<Effect> {
    let yes = answer == Answer::Yes;
    match subject {
        Subject::FormWrite => {
            let asking = forms::Asking {
                mode: state.power.confirm,
                switching: state.power.switching.as_deref(),
            };
            forms::update::answered(&mut state.forms, &mut state.core, asking, yes)
        }
        Subject::RevealHeaders => {
            if let Some(v) = state.deliveries.attempt.as_mut() {
                v.revealed = yes;
            }
            Vec::new()
        }
        Subject::ShowSecret(id) => {
            if yes {
                state.deliveries.secret_shown = Some(id);
            }
            Vec::new()
        }
        Subject::Replay => replay::update::answered(&mut state.replay, &mut state.core, yes),
        Subject::Recover => recover::update::answered(&mut state.recover, &mut state.core, yes),
        Subject::SampleSend => {
            super::samples::update::answered_send(&mut state.samples, &mut state.core, yes)
        }
        Subject::SampleRm(name) => {
            super::samples::update::answered_rm(&mut state.samples, &state.core, &name, yes)
        }
    }
}

/// The watch key's description with the interval the operator configured (the action's own
/// text is static; the interval is known only at run time).
fn with_interval(desc: String, state: &State) -> String {
    let watch = Action::Deliver(super::delivery_key::DeliveryKey::Watch).describe();
    let status = Action::Deliver(super::delivery_key::DeliveryKey::LocalStatus).describe();
    if desc == watch {
        format!("{desc} every {}", state.settings.watch_interval())
    } else if desc == status && deliveries::server_status::applies(state) {
        // This tab's platform filters by status itself: `l` asks it, nothing is scanned here.
        "keep one status, filtered by the server (all → each → all)".into()
    } else {
        desc
    }
}
