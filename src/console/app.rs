//! `App`: the state plus the way out to the worker. Drivable from tests through its methods.
#[cfg(test)]
use crossterm::event::KeyEvent;
use ratatui::Frame;
use tokio::sync::mpsc;

use super::msg::{ApiCmd, Effect, Msg, Pane};
use super::power::{PowerMsg, ProfileInfo};
use super::state::State;
use super::update::{init, update};
use super::worker::Worker;
use crate::api::Client;
use crate::api::generation::Generation;

/// A request `update` asked for, as kept by an `App` without a worker.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    /// Tag to answer with.
    pub(crate) req_id: u64,
    /// The pane it feeds.
    pub(crate) pane: Pane,
    /// The call.
    pub(crate) cmd: ApiCmd,
}

/// A profile resolved off the UI task: its tag, name, and client, settings and the generation
/// its deployment serves (or why not).
type SwitchResult = (
    u64,
    String,
    Result<(Client, ProfileInfo, Option<Generation>), String>,
);

/// How long a switch waits for the new deployment's generation before showing pulsar's tabs.
const SWITCH_DETECT: std::time::Duration = std::time::Duration::from_secs(10);

/// The console's state and its connection to the API worker.
#[derive(Debug)]
pub(crate) struct App {
    /// All UI state.
    pub(crate) state: State,
    worker: Option<Worker>,
    replies: mpsc::UnboundedReceiver<Msg>,
    outbox: Vec<Request>,
    /// Profiles being resolved (a key command may take its time): newest switch wins.
    switches: (
        mpsc::UnboundedSender<SwitchResult>,
        mpsc::UnboundedReceiver<SwitchResult>,
    ),
    switch_seq: u64,
    /// Switches resolving on blocking tasks whose result has not come back yet.
    switches_out: usize,
    /// Where copies go (the terminal by default; tests inject a buffer).
    pub(crate) clipboard: super::clipboard::Clipboard,
    /// How `:profile NAME` gets a client; none refuses the switch.
    pub(crate) switcher: Option<super::power::ProfileSwitcher>,
    /// A message was handled since the last draw.
    redraw: bool,
    /// A text to open in the operator's editor ([`Effect::Editor`]), until the loop takes it.
    editor: Option<String>,
}

impl App {
    /// An app whose requests go to a worker task on `client` (needs a tokio runtime).
    pub(crate) fn with_client(mut state: State, client: Client) -> Self {
        state.walk_budget = client.budget();
        let (tx, replies) = mpsc::unbounded_channel();
        Self {
            state,
            worker: Some(Worker::spawn(client, tx)),
            replies,
            outbox: Vec::new(),
            switches: mpsc::unbounded_channel(),
            switch_seq: 0,
            switches_out: 0,
            clipboard: Default::default(),
            switcher: None,
            redraw: true,
            editor: None,
        }
    }

    /// An app without a worker: requests are kept for [`App::take_requests`], replies are fed
    /// with [`App::apply`]. For tests and snapshots.
    pub(crate) fn offline(state: State) -> Self {
        let (_tx, replies) = mpsc::unbounded_channel();
        Self {
            state,
            worker: None,
            replies,
            outbox: Vec::new(),
            switches: mpsc::unbounded_channel(),
            switch_seq: 0,
            switches_out: 0,
            // Offline apps never write to the terminal; tests inject a buffer to see copies.
            clipboard: super::clipboard::Clipboard::to_writer(std::io::sink()),
            switcher: None,
            redraw: true,
            editor: None,
        }
    }

    /// Loads the first tab.
    pub(crate) fn start(&mut self) {
        self.redraw = true;
        let effects = init(&mut self.state);
        self.run_effects(effects);
    }

    /// Shows the tabs a server of generation `g` serves, and no other: the console's
    /// generation, once known. When the tab on screen is not among them, the first shown one
    /// is opened instead.
    pub(crate) fn show_generation(&mut self, g: crate::api::generation::Generation) {
        self.show_tabs(super::tab::shown_for(g));
    }

    /// Before [`App::start`]: the tabs of generation `g`, starting on its first (nothing loaded
    /// yet: the start loads it).
    pub(crate) fn preset_generation(&mut self, g: crate::api::generation::Generation) {
        let shown = super::tab::shown_for(g);
        if let Some(first) = shown.first().filter(|_| !shown.contains(&self.state.tab)) {
            self.state.tab = *first;
        }
        self.state.settings.keymap.shown.clone_from(&shown);
        self.state.shown = shown;
    }

    /// Shows exactly these tabs, in this order (see [`App::show_generation`]).
    pub(crate) fn show_tabs(&mut self, shown: Vec<super::tab::Tab>) {
        let away = (!shown.contains(&self.state.tab))
            .then(|| shown.first().copied())
            .flatten();
        self.state.settings.keymap.shown.clone_from(&shown);
        self.state.shown = shown;
        self.redraw = true;
        if let Some(tab) = away {
            let effects = super::pane::switch_tab(&mut self.state, tab);
            self.run_effects(effects);
        }
    }

    /// Applies one message and carries out its effects.
    pub(crate) fn apply(&mut self, msg: Msg) {
        // Every handled message is drawn after; one that changed nothing is not.
        if let Some(effects) = update(&mut self.state, msg) {
            self.redraw = true;
            self.run_effects(effects);
        }
    }

    /// Whether a text waits to be opened in the editor.
    pub(crate) fn wants_editor(&self) -> bool {
        self.editor.is_some()
    }

    /// The text to open in the editor, once; its answer goes back as [`Msg::Edited`].
    pub(crate) fn take_editor(&mut self) -> Option<String> {
        self.editor.take()
    }

    /// Applies a key press.
    #[cfg(test)]
    pub(crate) fn handle_key(&mut self, key: KeyEvent) {
        self.apply(Msg::Key(key));
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
                // The loop gives the editor the terminal (see `console::run`).
                Effect::Editor(text) => self.editor = Some(text),
                Effect::Power(p) => self.run_power(p),
            }
        }
    }

    fn run_power(&mut self, effect: super::power::PowerEffect) {
        use super::power::PowerEffect;
        match effect {
            PowerEffect::Copy { text, what } => {
                let result = self.clipboard.copy(&text);
                self.apply(Msg::Power(PowerMsg::Copied { what, result }));
            }
            PowerEffect::SaveView {
                path,
                profile,
                name,
                view,
            } => {
                if let Err(e) = crate::config::views::save(&path, profile.as_deref(), &name, &view)
                {
                    let text =
                        crate::text::line(&format!("View {name} not saved: {e}")).into_owned();
                    self.state.toast(super::state::ToastKind::Error, text);
                }
            }
            PowerEffect::SaveHistory(dir, lines) => {
                if let Err(e) = super::power::command::save_history(&dir, &lines) {
                    tracing::warn!("command history not saved in {}: {e}", dir.display());
                }
            }
            // A newer sequence number makes the pending result stale.
            PowerEffect::CancelSwitch => self.switch_seq += 1,
            PowerEffect::SwitchProfile(name) => {
                let Some(switch) = self.switcher.clone() else {
                    let msg = "profiles cannot be switched here".to_string();
                    return self.apply(Msg::Power(PowerMsg::SwitchFailed(msg)));
                };
                self.switch_seq += 1;
                self.switches_out += 1;
                let seq = self.switch_seq;
                if self.worker.is_none() {
                    // Offline apps have no runtime to lean on: resolve in place.
                    // Nothing to detect with: the tabs the state has by default.
                    let result = (switch.0)(&name).map(|(c, i)| (c, i, None));
                    if let Some(m) = self.finish_switch((seq, name, result)) {
                        self.apply(m);
                    }
                    return;
                }
                // Resolving may run the profile's key command (a password manager that asks):
                // off the UI task, so keys and replies keep flowing meanwhile.
                let tx = self.switches.0.clone();
                let runtime = tokio::runtime::Handle::current();
                tokio::task::spawn_blocking(move || {
                    // The new profile may be another deployment: its generation decides the
                    // tabs, detected (or taken from the cache) as at start, within a bound.
                    let result = (switch.0)(&name).map(|(client, info)| {
                        let served = runtime.block_on(async {
                            tokio::time::timeout(SWITCH_DETECT, client.served()).await
                        });
                        let g = served.ok().flatten().and_then(|c| c.generation);
                        (client, info, g)
                    });
                    // The app may have gone: nobody to tell.
                    let _ = tx.send((seq, name, result));
                });
            }
        }
    }

    /// Puts a resolved profile's client in place and returns the news for `update`, unless a
    /// newer switch was asked for since.
    fn finish_switch(&mut self, (seq, name, result): SwitchResult) -> Option<Msg> {
        self.switches_out = self.switches_out.saturating_sub(1);
        if seq != self.switch_seq {
            return None;
        }
        Some(Msg::Power(match result {
            Ok((client, mut info, generation)) => {
                // The header shows the new deployment's generation beside its address, as it
                // does at start (#34).
                if let Some(g) = generation {
                    info.base_url =
                        format!("{} · {}", info.base_url.trim_end_matches('/'), g.as_str());
                }
                // The new session starts on the new deployment's tabs (`switched` keeps them).
                let shown = super::tab::shown_for(generation.unwrap_or(Generation::Pulsar));
                if let Some(first) = shown.first().filter(|_| !shown.contains(&self.state.tab)) {
                    self.state.tab = *first;
                }
                self.state.settings.keymap.shown.clone_from(&shown);
                self.state.shown = shown;
                self.state.walk_budget = client.budget();
                // A new worker and reply channel: whatever the old profile still had in flight
                // is aborted and can never arrive (writes are held back while a switch
                // resolves, so only reads are lost).
                if self.worker.is_some() {
                    let (tx, replies) = mpsc::unbounded_channel();
                    self.worker = Some(Worker::spawn(client, tx));
                    self.replies = replies;
                }
                tracing::info!("switched to profile {}", info.profile);
                PowerMsg::Switched(info)
            }
            Err(e) => PowerMsg::SwitchFailed(format!("profile {name}: {e}")),
        }))
    }

    /// Whether nothing is under way, from what is really in flight: no job at the worker
    /// (running or queued, whichever pane, dialog or background lookup asked, and whether or not
    /// anything still waits for it), no reply queued and not yet applied, no profile resolving.
    /// The one answer tests wait on. An offline app, whose caller answers its requests, answers
    /// from the replies its state awaits. (Toasts and watch mode wait on the clock, not on work.)
    pub(crate) fn is_idle(&self) -> bool {
        let work = match &self.worker {
            // The count before the queue: a job's share goes only once its reply is queued.
            Some(w) => w.outstanding() + usize::from(!self.replies.is_empty()),
            None => self.state.awaited(),
        };
        work == 0 && self.switches_out == 0
    }

    /// Applies replies (and resolved profiles) as they come until [`App::is_idle`]. A job that
    /// ends without a reply (superseded by a newer one for its pane) is seen too, so this never
    /// waits for a reply that cannot come. Returns at once for an offline app. Unbounded: callers
    /// that must not hang put a deadline around it.
    pub(crate) async fn settle(&mut self) {
        /// What woke the wait.
        enum Woke {
            Reply(Option<Msg>),
            Switch(Box<SwitchResult>),
            Ended,
        }
        while !self.is_idle() {
            let Some(worker) = &self.worker else { return };
            let woke = tokio::select! {
                m = self.replies.recv() => Woke::Reply(m),
                Some(done) = self.switches.1.recv() => Woke::Switch(Box::new(done)),
                () = worker.job_ended() => Woke::Ended,
            };
            match woke {
                Woke::Reply(Some(m)) => self.apply(m),
                // The worker is gone: nothing more can come.
                Woke::Reply(None) => return,
                Woke::Switch(done) => {
                    if let Some(m) = self.finish_switch(*done) {
                        self.apply(m);
                    }
                }
                Woke::Ended => {}
            }
        }
    }

    /// Requests made since the last call (offline apps only).
    pub(crate) fn take_requests(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.outbox)
    }

    /// Waits for the next worker reply, or a profile resolved meanwhile (put in place, its
    /// news being the reply); `None` when there is no worker.
    pub(crate) async fn next_reply(&mut self) -> Option<Msg> {
        self.worker.as_ref()?;
        loop {
            tokio::select! {
                m = self.replies.recv() => return m,
                Some(done) = self.switches.1.recv() => {
                    if let Some(m) = self.finish_switch(done) {
                        return Some(m);
                    }
                }
            }
        }
    }

    /// A reply (or resolved profile) that is already waiting, if any.
    pub(crate) fn try_reply(&mut self) -> Option<Msg> {
        while let Ok(done) = self.switches.1.try_recv() {
            if let Some(m) = self.finish_switch(done) {
                return Some(m);
            }
        }
        self.replies.try_recv().ok()
    }

    /// Draws the current state.
    pub(crate) fn render(&self, frame: &mut Frame) {
        super::ui::render(&self.state, frame);
    }

    /// Whether the user asked to leave.
    pub(crate) fn should_quit(&self) -> bool {
        self.state.quit
    }

    /// Whether a redraw is due (a message was handled since the last draw); clears the flag.
    pub(crate) fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.redraw)
    }
}
