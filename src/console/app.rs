//! `App`: the state plus the way out to the worker. Drivable from tests through its methods.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use tokio::sync::mpsc;

use super::msg::{ApiCmd, Effect, Msg, Pane};
use super::state::State;
use super::update::{init, update};
use super::worker::Worker;
use crate::api::Client;

/// A request `update` asked for, as kept by an `App` without a worker.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Tag to answer with.
    pub req_id: u64,
    /// The pane it feeds.
    pub pane: Pane,
    /// The call.
    pub cmd: ApiCmd,
}

/// The console's state and its connection to the API worker.
#[derive(Debug)]
pub struct App {
    /// All UI state.
    pub state: State,
    worker: Option<Worker>,
    replies: mpsc::UnboundedReceiver<Msg>,
    outbox: Vec<Request>,
    /// Where copies go (the terminal by default; tests inject a buffer).
    pub clipboard: super::clipboard::Clipboard,
    /// How `:profile NAME` gets a client; none refuses the switch.
    pub switcher: Option<super::power::ProfileSwitcher>,
}

impl App {
    /// An app whose requests go to a worker task on `client` (needs a tokio runtime).
    pub fn with_client(state: State, client: Client) -> Self {
        let (tx, replies) = mpsc::unbounded_channel();
        Self {
            state,
            worker: Some(Worker::spawn(client, tx)),
            replies,
            outbox: Vec::new(),
            clipboard: Default::default(),
            switcher: None,
        }
    }

    /// An app without a worker: requests are kept for [`App::take_requests`], replies are fed
    /// with [`App::apply`]. For tests and snapshots.
    pub fn offline(state: State) -> Self {
        let (_tx, replies) = mpsc::unbounded_channel();
        Self {
            state,
            worker: None,
            replies,
            outbox: Vec::new(),
            clipboard: Default::default(),
            switcher: None,
        }
    }

    /// Loads the first tab.
    pub fn start(&mut self) {
        let effects = init(&mut self.state);
        self.run_effects(effects);
    }

    /// Applies one message and carries out its effects.
    pub fn apply(&mut self, msg: Msg) {
        let effects = update(&mut self.state, msg);
        self.run_effects(effects);
    }

    /// Applies a key press.
    pub fn handle_key(&mut self, key: KeyEvent) {
        self.apply(Msg::Key(key));
    }

    /// Applies a key press without modifiers.
    pub fn press(&mut self, code: KeyCode) {
        self.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    fn run_effects(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Api { req_id, pane, cmd } => match &self.worker {
                    Some(w) => w.send(req_id, pane, cmd),
                    None => self.outbox.push(Request { req_id, pane, cmd }),
                },
                // `update` already set `state.quit`; the loop reads it.
                Effect::Quit => {}
                Effect::Power(p) => self.run_power(p),
            }
        }
    }

    fn run_power(&mut self, effect: super::power::PowerEffect) {
        use super::power::{PowerEffect, PowerMsg};
        match effect {
            PowerEffect::Copy { text, what } => {
                let result = self.clipboard.copy(&text).map_err(|e| e.to_string());
                self.apply(Msg::Power(PowerMsg::Copied { what, result }));
            }
            PowerEffect::SaveHistory(dir, lines) => {
                if let Err(e) = super::command::save_history(&dir, &lines) {
                    tracing::warn!("command history not saved in {}: {e}", dir.display());
                }
            }
            PowerEffect::SwitchProfile(name) => {
                let Some(switch) = self.switcher.clone() else {
                    let msg = "profiles cannot be switched here".to_string();
                    return self.apply(Msg::Power(PowerMsg::SwitchFailed(msg)));
                };
                match (switch.0)(&name) {
                    Ok((client, info)) => {
                        // A new worker and reply channel: whatever the old profile still had
                        // in flight is aborted and can never arrive.
                        if self.worker.is_some() {
                            let (tx, replies) = mpsc::unbounded_channel();
                            self.worker = Some(Worker::spawn(client, tx));
                            self.replies = replies;
                        }
                        tracing::info!("switched to profile {}", info.profile);
                        self.apply(Msg::Power(PowerMsg::Switched(info)));
                    }
                    Err(e) => self.apply(Msg::Power(PowerMsg::SwitchFailed(format!(
                        "profile {name}: {e}"
                    )))),
                }
            }
        }
    }

    /// Requests made since the last call (offline apps only).
    pub fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.outbox)
    }

    /// Waits for the next worker reply; `None` when there is no worker.
    pub async fn next_reply(&mut self) -> Option<Msg> {
        self.worker.as_ref()?;
        self.replies.recv().await
    }

    /// A worker reply that is already waiting, if any.
    pub fn try_reply(&mut self) -> Option<Msg> {
        self.replies.try_recv().ok()
    }

    /// Draws the current state.
    pub fn render(&self, frame: &mut Frame) {
        super::ui::render(&self.state, frame);
    }

    /// Whether the user asked to leave.
    pub fn should_quit(&self) -> bool {
        self.state.quit
    }

    /// Whether a redraw is due; clears the flag.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.state.dirty)
    }
}
