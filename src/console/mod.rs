//! The terminal console (ratatui, Elm shape): `msg` → `update` → effects → `worker` → `msg`;
//! `ui` draws from the state. Entry point: [`run`]; tests drive [`App`].
pub(crate) mod alerts;
pub(crate) mod anchor;
pub(crate) mod app;
pub(crate) mod caches;
pub(crate) mod callback_gen;
pub(crate) mod clipboard;
pub(crate) mod clock;
pub(crate) mod commands;
pub(crate) mod confirm;

pub(crate) mod compare;
pub(crate) mod deliveries;
pub(crate) mod delivery_key;
pub(crate) mod derived_view;
pub(crate) mod detail;
pub(crate) mod follow;
pub(crate) mod footer;
pub(crate) mod forms;
pub(crate) mod forward;
pub mod harness;
pub(crate) mod input;
pub(crate) mod samples;

pub(crate) mod keymap;
pub(crate) mod layers;
pub(crate) mod layout;
pub(crate) mod members;
pub(crate) mod mouse;
pub(crate) mod msg;
pub(crate) mod palette;
pub(crate) mod pane;
pub(crate) mod pin_note;
pub mod power;
pub(crate) mod raw_json;
pub(crate) mod record;
pub(crate) mod recover;
pub(crate) mod replay;
pub(crate) mod rooms;
pub(crate) mod saved_views;
pub(crate) mod search;
pub(crate) mod settings;
pub(crate) mod setup;
pub(crate) mod shown_columns;
pub(crate) mod state;
pub(crate) mod tab;
pub mod theme;
pub(crate) mod ui;
pub(crate) mod update;
pub(crate) mod views;
pub(crate) mod widgets;
pub(crate) mod worker;

/// What a profile switch keeps; tests start a console with it.
#[cfg(test)]
pub(crate) use settings::Settings;

use crossterm::event::{Event, EventStream, KeyEventKind};
use std::task::Poll;

use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::signal::unix::{SignalKind, signal};

pub(crate) use app::App;
#[cfg(test)]
pub(crate) use app::Request;
pub use clock::Clock;
pub(crate) use msg::Msg;
#[cfg(test)]
pub(crate) use msg::{ApiCmd, ApiReply, Effect, Pane};
pub(crate) use state::State;
pub use tab::Tab;

use crate::api::Client;

/// What the console needs to start.
#[derive(Debug, Clone)]
pub struct ConsoleSetup {
    /// A ready API client for the active profile.
    pub client: Client,
    /// Name of the active profile, shown in the header.
    pub profile: String,
    /// Refuse and hide every write action.
    pub read_only: bool,
    /// Keys, theme, mouse, confirmation, history and profile switching.
    pub power: power::PowerSetup,
}

impl ConsoleSetup {
    /// The initial state for this setup, on the system clock.
    pub(crate) fn initial_state(&self) -> State {
        // The header shows the generation beside the address, as the cache last detected it.
        let base = self.client.base_url().trim_end_matches('/');
        let place = match self.client.detector().and_then(|d| d.cached()) {
            Some(d) => format!(
                "{base} · {}",
                d.generation.map_or(d.webhooks.as_str(), |g| g.as_str())
            ),
            None => base.to_string(),
        };
        let mut s = State::new(self.profile.clone(), place, Clock::System);
        s.read_only = self.read_only;
        self.power.configure(&mut s);
        s
    }

    /// The app for this setup on its client, with the profile switcher in place.
    pub(crate) fn app(&self) -> App {
        let mut app = App::with_client(self.initial_state(), self.client.clone());
        app.clipboard = clipboard::Clipboard::for_mode(app.state.settings.clipboard);
        app.switcher.clone_from(&self.power.switcher);
        app
    }
}

/// Restores the terminal however the loop ends (error, `?`, return).
struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        let _ = crossterm::execute!(
            std::io::stdout(),
            crossterm::event::DisableMouseCapture,
            crossterm::event::DisableBracketedPaste
        );
        ratatui::restore();
    }
}

/// Runs the console until the user quits; the terminal is restored on every exit path
/// (ratatui's panic hook covers panics).
pub async fn run(setup: ConsoleSetup) -> std::io::Result<()> {
    // The tabs follow the generation the deployment serves (detected once and cached, or
    // pinned where nothing contradicts the pin); asked before the app exists, which is large.
    let chosen = setup.client.served().await;
    let mut shutdown = Box::pin(shutdown_signals()?);
    let mut terminal = init_terminal()?;
    let _restore = RestoreOnDrop;
    let mut app = setup.app();
    if let Some(c) = &chosen {
        pin_note::prepare(&mut app, c);
    }
    let mouse = app.state.settings.mouse;
    enable_input_modes(mouse)?;
    // Boxed: the loop's future is large, and `run` awaits it in two places.
    let (mut app, mut ended) = Box::pin(drive_until(
        &mut terminal,
        EventStream::new(),
        app,
        &mut shutdown,
        true,
    ))
    .await?;
    // The loop stops for the editor: its event stream is dropped first (so nothing reads the
    // keyboard behind the editor's back), the terminal restored, then taken back.
    while !ended && let Some(text) = app.take_editor() {
        let edited = with_terminal_restored(&mut terminal, mouse, text).await?;
        app.apply(Msg::Edited(edited));
        (app, ended) = Box::pin(drive_until(
            &mut terminal,
            EventStream::new(),
            app,
            &mut shutdown,
            false,
        ))
        .await?;
    }
    Ok(())
}

/// Bracketed paste (a paste arrives as one text, not as keys: a line break in it never submits
/// anything) and, when asked, the mouse.
fn enable_input_modes(mouse: bool) -> std::io::Result<()> {
    crossterm::execute!(std::io::stdout(), crossterm::event::EnableBracketedPaste)?;
    if mouse {
        crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture)?;
    }
    Ok(())
}

/// Gives the terminal to the operator's editor on `text` (raw mode off, the main screen, the
/// cursor shown), then takes it back and redraws everything; the editor's answer or why none.
async fn with_terminal_restored<B>(
    terminal: &mut Terminal<B>,
    mouse: bool,
    text: String,
) -> std::io::Result<Result<String, String>>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
{
    use crossterm::{cursor, event, terminal as term};
    crossterm::execute!(
        std::io::stdout(),
        event::DisableMouseCapture,
        event::DisableBracketedPaste,
        term::LeaveAlternateScreen,
        cursor::Show
    )?;
    term::disable_raw_mode()?;
    let edited = tokio::task::spawn_blocking(move || {
        crate::config::editor::edit_text(&text, "body.json").map_err(|e| e.to_string())
    })
    .await
    .unwrap_or_else(|e| Err(format!("the editor's task failed: {e}")));
    term::enable_raw_mode()?;
    crossterm::execute!(std::io::stdout(), term::EnterAlternateScreen)?;
    enable_input_modes(mouse)?;
    // What the editor left on the screen is not what ratatui remembers: the screen cleared, and
    // an empty frame drawn so that the next draw writes every cell (`Terminal::clear` would ask
    // the terminal where its cursor is, which not every terminal answers).
    crossterm::execute!(std::io::stdout(), term::Clear(term::ClearType::All))?;
    terminal.draw(|_| {}).map_err(backend_err)?;
    Ok(edited)
}

/// The terminal as `ratatui::try_init` sets it up (raw mode, alternate screen, a panic hook
/// that restores), but drawing through [`crate::text::tui::SafeBackend`], so no cell can write a
/// control, bidi or invisible character whatever a view forgot.
fn init_terminal() -> std::io::Result<Terminal<crate::text::tui::SafeBackend<CrosstermBackend>>> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableBracketedPaste);
        ratatui::restore();
        hook(info);
    }));
    crossterm::terminal::enable_raw_mode()?;
    crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
    let backend =
        crate::text::tui::SafeBackend(ratatui::backend::CrosstermBackend::new(std::io::stdout()));
    Terminal::new(backend)
}

/// The real terminal's backend.
type CrosstermBackend = ratatui::backend::CrosstermBackend<std::io::Stdout>;

/// Resolves on SIGTERM, SIGINT or SIGHUP.
fn shutdown_signals() -> std::io::Result<impl Future<Output = ()>> {
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = hup.recv() => {}
        }
    })
}

/// Turns a terminal event into a message; focus changes are ignored.
fn event_msg(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => Some(Msg::Key(k)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Mouse(m) => Some(Msg::Power(power::PowerMsg::Mouse(m))),
        Event::Paste(text) => Some(Msg::Paste(text)),
        _ => None,
    }
}

fn backend_err<E: std::error::Error + Send + Sync + 'static>(e: E) -> std::io::Error {
    std::io::Error::other(e)
}

#[cfg(test)]
/// The event loop on any backend and event source (the real terminal, or a test's): starts the
/// app, then waits on terminal events, worker replies, `shutdown` and (only while something
/// animates) a tick; applies every pending message, then draws once if anything changed.
/// Returns the app when the user quits, `shutdown` resolves or the events end.
pub(crate) async fn drive<B, S>(
    terminal: &mut Terminal<B>,
    events: S,
    app: App,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<App>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    S: Stream<Item = std::io::Result<Event>> + Unpin,
{
    drive_until(terminal, events, app, shutdown, true)
        .await
        .map(|(app, _)| app)
}

/// [`drive`], starting the app only when `start`; it also returns when the app asks for the
/// editor (`false`: not ended), so that the caller can give it the terminal.
async fn drive_until<B, S>(
    terminal: &mut Terminal<B>,
    mut events: S,
    mut app: App,
    shutdown: impl Future<Output = ()>,
    start: bool,
) -> std::io::Result<(App, bool)>
where
    B: Backend,
    B::Error: Send + Sync + 'static,
    S: Stream<Item = std::io::Result<Event>> + Unpin,
{
    tokio::pin!(shutdown);
    let size = terminal.size().map_err(backend_err)?;
    app.apply(Msg::Resize(size.width, size.height));
    if start {
        app.start();
    }
    let mut tick = tokio::time::interval(settings::TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        if app.take_dirty() {
            terminal.draw(|f| app.render(f)).map_err(backend_err)?;
        }
        if app.should_quit() {
            return Ok((app, true));
        }
        if app.wants_editor() {
            return Ok((app, false));
        }
        // Ticks also while the profile has alert rules: their timer counts them.
        let animating = app.state.animating() || alerts::update::has_rules(&app.state.core);
        let msg = tokio::select! {
            _ = &mut shutdown => return Ok((app, true)),
            Some(m) = app.next_reply() => m,
            ev = events.next() => match ev {
                Some(Ok(ev)) => match event_msg(ev) {
                    Some(m) => m,
                    None => continue,
                },
                Some(Err(e)) => return Err(e),
                None => return Ok((app, true)),
            },
            _ = tick.tick(), if animating => Msg::Tick,
        };
        app.apply(msg);
        // Apply everything already waiting, then draw once.
        while let Some(m) = app.try_reply() {
            app.apply(m);
        }
        // Polled within this task (never with a no-op waker: crossterm keeps the first waker
        // it is given, and a no-op one would leave the loop deaf to the keyboard).
        loop {
            match futures::poll!(events.next()) {
                Poll::Ready(Some(Ok(ev))) => {
                    if let Some(m) = event_msg(ev) {
                        app.apply(m);
                    }
                }
                Poll::Ready(Some(Err(e))) => return Err(e),
                Poll::Ready(None) => return Ok((app, true)),
                Poll::Pending => break,
            }
        }
    }
}
