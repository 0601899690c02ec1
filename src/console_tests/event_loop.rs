//! The real event loop (`console::drive`) on a `TestBackend`, with key events from a channel,
//! the real worker and a loopback server whose teams route hangs until released.

use std::io;

use crate::common::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use futures::channel::mpsc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use switchboard::console::state::LoadState;
use switchboard::console::{App, Tab, drive};

type Keys = mpsc::UnboundedSender<io::Result<Event>>;

fn send(keys: &Keys, code: KeyCode) {
    keys.unbounded_send(Ok(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))))
        .expect("loop is listening");
}

/// Starts the loop on a 120×40 test terminal; returns the key sender and the loop's task.
fn spawn_loop(
    app: App,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> (Keys, tokio::task::JoinHandle<(Terminal<TestBackend>, App)>) {
    let (keys, events) = mpsc::unbounded();
    let task = tokio::spawn(async move {
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
        let app = drive(&mut terminal, events, app, shutdown)
            .await
            .expect("loop ends cleanly");
        (terminal, app)
    });
    (keys, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_handles_keys_while_a_request_hangs_and_quits_at_once() {
    let mut server = start_server().await;
    let app = app_for(&server);
    let (keys, task) = spawn_loop(app, std::future::pending());
    arrived(&mut server).await;

    // The teams request is held; these keys must all be handled, and `q` must end the loop.
    send(&keys, KeyCode::Char('2'));
    send(&keys, KeyCode::Char('3'));
    send(&keys, KeyCode::Char('q'));
    let (terminal, app) = tokio::time::timeout(DEADLINE, task)
        .await
        .expect("the loop quit without waiting for the hung request")
        .expect("loop task");
    assert!(app.should_quit());
    assert_eq!(app.state.tab, Tab::Callbacks);
    assert_eq!(
        app.state.tab_state(Tab::Teams).list.load,
        LoadState::Loading,
        "the teams request was still hanging"
    );
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Callbacks · oldest first"), "{screen}");
    server.gate.send_replace(true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_stops_on_shutdown_and_on_ctrl_c() {
    let mut server = start_server().await;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (_keys, task) = spawn_loop(app_for(&server), async {
        let _ = stopped.await;
    });
    arrived(&mut server).await;
    // SIGTERM, SIGINT and SIGHUP reach the loop as this future.
    stop.send(()).expect("loop running");
    let (terminal, app) = tokio::time::timeout(DEADLINE, task)
        .await
        .expect("the loop stopped on shutdown")
        .expect("loop task");
    assert!(!app.should_quit(), "stopped by the signal, not by a key");
    assert!(
        terminal
            .backend()
            .to_string()
            .contains("Teams · oldest first")
    );

    let (keys, task) = spawn_loop(app_for(&server), std::future::pending());
    arrived(&mut server).await;
    keys.unbounded_send(Ok(Event::Key(KeyEvent::new(
        KeyCode::Char('c'),
        KeyModifiers::CONTROL,
    ))))
    .expect("loop is listening");
    let (_, app) = tokio::time::timeout(DEADLINE, task)
        .await
        .expect("Ctrl-C ended the loop")
        .expect("loop task");
    assert!(app.should_quit());
    server.gate.send_replace(true);
}

/// A key that arrives at once after a resize (in the same read of the terminal, as under load)
/// is handled at the new size: the resize replaces nothing the key needs. (Below the stream,
/// crossterm's `use-dev-tty` source keeps both: the default one could drop the key's bytes.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_right_after_a_resize_is_handled_at_the_new_size() {
    let server = start_server().await;
    let (keys, task) = spawn_loop(app_for(&server), std::future::pending());
    send(&keys, KeyCode::Char('4'));
    keys.unbounded_send(Ok(Event::Resize(250, 40)))
        .expect("loop is listening");
    send(&keys, KeyCode::Char('5'));
    send(&keys, KeyCode::Char('q'));
    let (terminal, app) = tokio::time::timeout(DEADLINE, task)
        .await
        .expect("the loop quit")
        .expect("loop task");
    assert_eq!(app.state.size, (250, 40));
    assert_eq!(app.state.tab, Tab::Notifications, "{}", terminal.backend());
    let screen = terminal.backend().to_string();
    assert!(screen.contains("Notifications ·"), "{screen}");
}
