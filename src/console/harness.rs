//! The console's test driver and its whole public face for tests and benches (the console itself
//! never uses it): an app for a profile on a real service URL, driven by keys, drained until it
//! is idle, and seen as the text of the rendered screen, the requests it made and a few
//! read-outs. The state stays private to the crate: what a test needs becomes a read-out here.
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use super::app::App;
use super::clock::Clock;
use super::msg::{ApiCmd, ApiReply, Msg};
use super::record::{decode_item_body, decode_page_body};
use super::state::{LoadState, State};
use super::tab::Tab;
use crate::api::{Client, ClientOptions, Error, Secret};

/// How long [`Harness::settle`] waits at most; replies normally arrive in milliseconds.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// The app did not become idle within the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the console was still busy after {0:?}")]
pub struct Busy(pub Duration);

/// An app under test: keys in; screen, requests and idleness out.
#[derive(Debug)]
pub struct Harness {
    app: App,
}

impl Harness {
    /// An app for `profile` on the service at `base_url` with `api_key`, sized `w`×`h` and
    /// started (its first list requested, not yet settled). Needs a tokio runtime.
    pub fn connect(
        profile: &str,
        base_url: &str,
        api_key: Secret,
        clock: Clock,
        (w, h): (u16, u16),
    ) -> Result<Self, Error> {
        let client = Client::new(ClientOptions {
            base_url: base_url.to_string(),
            api_key,
            max_retries: 0,
            ..ClientOptions::default()
        })?;
        let state = State::new(profile, base_url.trim_end_matches('/'), clock);
        Ok(Self::start(App::with_client(state, client), w, h))
    }

    /// An app for `profile` on `client` (its own options: timeouts, retries), sized `w`×`h` and
    /// started. Needs a tokio runtime.
    pub fn with_client(profile: &str, client: Client, clock: Clock, (w, h): (u16, u16)) -> Self {
        let state = State::new(profile, client.base_url().trim_end_matches('/'), clock);
        Self::start(App::with_client(state, client), w, h)
    }

    /// The app as `switchboard` starts it for `setup`: the generation its client chose (the
    /// tabs, and a pin the server contradicts said in the header), sized and started.
    pub async fn from_setup(setup: &super::ConsoleSetup, (w, h): (u16, u16)) -> Self {
        let chosen = setup.client.served().await;
        let mut app = setup.app();
        if let Some(c) = &chosen {
            super::pin_note::prepare(&mut app, c);
        }
        Self::start(app, w, h)
    }

    /// An app without a worker, sized and started: its requests wait for
    /// [`Harness::answer_lists`].
    pub fn offline(profile: &str, clock: Clock, (w, h): (u16, u16)) -> Self {
        let state = State::new(profile, "http://127.0.0.1:9", clock);
        Self::start(App::offline(state), w, h)
    }

    fn start(mut app: App, w: u16, h: u16) -> Self {
        app.apply(Msg::Resize(w, h));
        app.start();
        Self { app }
    }

    /// What the console copies from now on goes to a buffer the test reads (OSC 52 bytes).
    #[cfg(test)]
    pub fn capture_clipboard(&mut self) -> std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        self.app.clipboard = super::clipboard::Clipboard::to_buffer(out.clone());
        out
    }

    /// Where the console keeps its journal and history (none by default).
    pub fn set_data_dir(&mut self, dir: &std::path::Path) -> &mut Self {
        self.app.state.settings.data_dir = Some(dir.to_path_buf());
        self
    }

    /// How `:profile NAME` gets another profile's client (none refuses the switch).
    pub fn set_switcher(&mut self, switcher: super::power::ProfileSwitcher) -> &mut Self {
        self.app.switcher = Some(switcher);
        self
    }

    /// Shows only the tabs a server of generation `g` serves (the console's generation).
    pub fn show_generation(&mut self, g: crate::api::generation::Generation) -> &mut Self {
        self.app.show_generation(g);
        self
    }

    /// Applies one message (a key, a resize, a reply for an offline app).
    pub(crate) fn apply(&mut self, msg: Msg) -> &mut Self {
        self.app.apply(msg);
        self
    }

    /// The text the app asked to open in $VISUAL / $EDITOR (`E`), once; `None` when it asked
    /// for none. Answer it with [`Harness::edited`], as the console's loop does.
    pub fn take_editor(&mut self) -> Option<String> {
        self.app.take_editor()
    }

    /// What the editor left: the edited text, or why it failed.
    pub fn edited(&mut self, result: Result<String, String>) -> &mut Self {
        self.apply(Msg::Edited(result))
    }

    /// The edited bodies kept in this profile's replay history, newest first (`None`: a replay
    /// sent as recorded).
    pub fn replayed_edits(&self) -> Vec<Option<String>> {
        let state = &self.app.state;
        state
            .replay
            .history(&state.profile)
            .map(|h| h.newest_first().map(|e| e.edited_body.clone()).collect())
            .unwrap_or_default()
    }

    /// A key with modifiers.
    pub fn key_with(&mut self, code: KeyCode, mods: KeyModifiers) -> &mut Self {
        self.apply(Msg::Key(KeyEvent::new(code, mods)))
    }

    /// A key without modifiers.
    pub fn key(&mut self, code: KeyCode) -> &mut Self {
        self.key_with(code, KeyModifiers::NONE)
    }

    /// Each character of `text` as a key.
    pub fn type_text(&mut self, text: &str) -> &mut Self {
        typed(&mut self.app, text);
        self
    }

    /// A character key.
    pub fn ch(&mut self, c: char) -> &mut Self {
        self.key(KeyCode::Char(c))
    }

    /// Turns the mouse on or off, as the config's `mouse` does.
    pub fn set_mouse(&mut self, on: bool) -> &mut Self {
        self.app.state.settings.mouse = on;
        self
    }

    /// A left click at `column`, `row` of the screen.
    pub fn click(&mut self, column: u16, row: u16) -> &mut Self {
        use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
        self.apply(Msg::Power(super::power::PowerMsg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })))
    }

    /// The layers open now, outermost first (the tab last).
    #[cfg(test)]
    pub(crate) fn open_layers(&self) -> Vec<super::layers::Layer> {
        super::layers::Layer::ORDER
            .into_iter()
            .filter(|l| l.is_open(&self.app.state))
            .collect()
    }

    /// A new terminal size.
    pub fn resize(&mut self, w: u16, h: u16) -> &mut Self {
        self.apply(Msg::Resize(w, h))
    }

    /// `Ctrl` and a character.
    pub fn ctrl(&mut self, c: char) -> &mut Self {
        self.apply(ctrl(c))
    }

    /// Applies replies until [`App::is_idle`], at most [`DEADLINE`].
    pub async fn settle(&mut self) -> Result<&mut Self, Busy> {
        self.settle_within(DEADLINE).await
    }

    /// [`Harness::settle`] bounded by `within`: for work of many requests (a search reads each
    /// item of a long list by id), which [`DEADLINE`], sized for a reply, does not bound.
    pub async fn settle_within(&mut self, within: Duration) -> Result<&mut Self, Busy> {
        tokio::time::timeout(within, self.app.settle())
            .await
            .map_err(|_| Busy(within))?;
        Ok(self)
    }

    /// Applies replies (a running forward's too) until the screen shows `text`, at most
    /// `within`; whether it did.
    pub async fn until_screen(&mut self, text: &str, within: Duration) -> bool {
        let end = tokio::time::Instant::now() + within;
        while !self.screen().contains(text) {
            let left = end.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Ok(Some(m)) = tokio::time::timeout(left, self.app.next_reply()).await {
                self.app.apply(m);
            }
        }
        true
    }

    /// A key, then whatever it started, settled.
    pub async fn press(&mut self, code: KeyCode) -> Result<&mut Self, Busy> {
        self.key(code);
        self.settle().await
    }

    /// Whether nothing is in flight ([`App::is_idle`]).
    pub fn is_idle(&self) -> bool {
        self.app.is_idle()
    }

    /// Answers an offline app's pending list requests with the page `body(tab)` (status 200),
    /// decoded as the worker decodes it; the number of lists answered.
    pub fn answer_lists(&mut self, body: impl Fn(Tab) -> String) -> Result<usize, Error> {
        let mut answered = 0;
        for r in self.app.take_requests() {
            if let ApiCmd::List { tab, .. } | ApiCmd::ListSince { tab, .. } = r.cmd {
                let page = decode_page_body(tab, 200, &body(tab))?;
                self.apply(Msg::Api {
                    req_id: r.req_id,
                    pane: r.pane,
                    result: Ok(ApiReply::Page(page)),
                });
                answered += 1;
            }
        }
        Ok(answered)
    }

    /// The requests an offline app made since the last call, for a test to answer itself.
    #[cfg(test)]
    pub(crate) fn take_requests(&mut self) -> Vec<super::app::Request> {
        self.app.take_requests()
    }

    /// Drops an offline app's pending requests, as a worker would take them; how many.
    pub fn take_request_count(&mut self) -> usize {
        self.app.take_requests().len()
    }

    /// Draws the app into a frame of the caller's terminal.
    pub fn render(&self, frame: &mut ratatui::Frame) {
        self.app.render(frame);
    }

    /// The state as its `Debug` form prints it (secrets must not be in it).
    pub fn state_debug(&self) -> String {
        format!("{:?}", self.app.state)
    }

    /// The screen as text, drawn at the app's size.
    pub fn screen(&self) -> String {
        screen(&self.app)
    }

    /// The screen as a buffer (styles included), drawn at the app's size.
    pub fn buffer(&self) -> Buffer {
        buffer(&self.app)
    }

    /// The tab on screen.
    pub fn tab(&self) -> Tab {
        self.app.state.tab
    }

    /// The id of the current list's selected row.
    pub fn selected_id(&self) -> Option<String> {
        let list = &self.app.state.current().list;
        list.selected().map(|r| r.id().to_string())
    }

    /// The ids of the current list's rows as shown (filtered and sorted).
    pub fn shown_ids(&self) -> Vec<String> {
        shown_ids(&self.app)
    }

    /// The ids of the current list's rows as loaded (server order).
    pub fn row_ids(&self) -> Vec<String> {
        row_ids(&self.app)
    }

    /// The current list's `/` filter, when one is on.
    pub fn filter(&self) -> Option<String> {
        let f = &self.app.state.power.filters[self.app.state.tab.index()];
        f.active().then(|| f.query.value().to_string())
    }

    /// The message of the current list's failed load, if its last load failed.
    pub fn list_error(&self) -> Option<String> {
        match &self.app.state.current().list.load {
            LoadState::Error(view) => Some(view.message.clone()),
            _ => None,
        }
    }

    /// The texts of the toasts on screen, oldest first.
    pub fn toasts(&self) -> Vec<String> {
        self.app
            .state
            .toasts
            .iter()
            .map(|t| t.text.clone())
            .collect()
    }
}

/// Each character of `text` as a key, on a bare app (the crate's tests; [`Harness::type_text`]).
pub(crate) fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.apply(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )));
    }
}

/// `Ctrl` and a character, as a message ([`Harness::ctrl`]).
pub(crate) fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// An app drawn at its own size, as text (one line per row).
pub(crate) fn screen(app: &App) -> String {
    let (w, h) = app.state.size;
    screen_sized(app, w, h)
}

/// An app drawn at a given size, as text.
pub(crate) fn screen_sized(app: &App, w: u16, h: u16) -> String {
    let mut term = test_terminal(w, h);
    let _ = term.draw(|f| app.render(f));
    term.backend().to_string()
}

/// An app drawn at its own size, as a buffer (styles included).
pub(crate) fn buffer(app: &App) -> Buffer {
    let (w, h) = app.state.size;
    let mut term = test_terminal(w, h);
    let _ = term.draw(|f| app.render(f));
    term.backend().buffer().clone()
}

/// The ids of an app's current list rows as shown (filtered and sorted).
pub(crate) fn shown_ids(app: &App) -> Vec<String> {
    let list = &app.state.current().list;
    list.shown().map(|r| r.id().to_string()).collect()
}

/// The ids of an app's current list rows as loaded (server order).
pub(crate) fn row_ids(app: &App) -> Vec<String> {
    let list = &app.state.current().list;
    list.rows.iter().map(|r| r.id().to_string()).collect()
}

fn test_terminal(w: u16, h: u16) -> Terminal<TestBackend> {
    // `TestBackend` never fails: drawing into memory has no I/O.
    match Terminal::new(TestBackend::new(w, h)) {
        Ok(t) => t,
        Err(e) => match e {},
    }
}

/// Decodes `body` (answered with `status`) as a page of `tab`, the way the worker does: the
/// number of rows, or why it was refused. For property tests of hostile bodies.
pub fn decode_page(tab: Tab, status: u16, body: &str) -> Result<usize, Error> {
    decode_page_body(tab, status, body).map(|p| p.records.len())
}

/// Decodes `body` (answered with `status`) as one record of `tab`, the way the worker does.
pub fn decode_item(tab: Tab, status: u16, body: &str) -> Result<(), Error> {
    decode_item_body(tab, status, body).map(|_| ())
}
