//! Issue 37 item 12: a destination deleted since is named "(deleted)" in a notification's detail
//! reached by a bare `:goto cbn_…`, on a real local service after real deliveries. A pulsar
//! notification names no destination: the console finds it by URL, callback and signature among
//! the active ones, asks whether the one found is still active, and when none can have sent it
//! (URL and callbacks never change) says the one it went to was deleted.
use crate::common;

use common::deliveries::{World, screen, settle, world};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use switchboard::console::App;

async fn press(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    settle(app).await;
}

/// `:goto ID` Enter.
async fn goto(app: &mut App, id: &str) {
    press(app, KeyCode::Char(':')).await;
    common::typed(app, &format!("goto {id}"));
    settle(app).await;
    press(app, KeyCode::Enter).await;
}

/// The detail's `Destination` line (and the one after, where it wraps).
fn destination_line(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("│Destination  "))
        .unwrap_or_else(|| panic!("a Destination line:\n{s}"));
    lines[at..(at + 2).min(lines.len())].join("\n")
}

async fn fired() -> World {
    let w = world().await;
    w.fire(1).await;
    w
}

/// Deleted before the console started: no list names it any more and the notification names no
/// destination, so its name is not known; the detail says it was deleted (it said "— (not known
/// to the console)").
#[tokio::test]
async fn a_destination_deleted_before_the_console_started_reads_deleted() {
    let w = fired().await;
    let down = w.notifications_of(&w.down).await;
    let healthy = w.notifications_of(&w.healthy).await;
    w.t.client
        .delete_destination(&w.down)
        .await
        .expect("deleted");
    let mut app = w.app().await;
    goto(&mut app, &down[0].id).await;
    let s = screen(&app);
    assert!(s.contains(&down[0].id), "the notification is open:\n{s}");
    let line = destination_line(&s);
    assert!(line.contains("(deleted)"), "{line}\n{s}");
    assert!(!s.contains("not known to the console"), "{s}");
    // The attempt view says why the signature cannot be checked.
    press(&mut app, KeyCode::Enter).await;
    let s = screen(&app);
    assert!(s.contains("its destination was deleted"), "{s}");
    press(&mut app, KeyCode::Esc).await;
    press(&mut app, KeyCode::Esc).await;
    // The other destination's notification names it, not deleted.
    goto(&mut app, &healthy[0].id).await;
    let line = destination_line(&screen(&app));
    assert!(
        line.contains("Orders healthy") && !line.contains("(deleted)"),
        "{line}"
    );
}

/// Deleted after the console read the destinations: the one the notification is attributed to is
/// asked about again when the detail opens, and named "(deleted)".
#[tokio::test]
async fn a_destination_deleted_after_the_console_started_is_named_deleted() {
    let w = fired().await;
    let down = w.notifications_of(&w.down).await;
    let mut app = w.app().await;
    // The console has read every active destination (Orders down among them).
    press(&mut app, KeyCode::Char('5')).await;
    assert!(
        app.state.deliveries.destinations.contains_key(&w.down),
        "the destinations were read"
    );
    w.t.client
        .delete_destination(&w.down)
        .await
        .expect("deleted");
    goto(&mut app, &down[0].id).await;
    let line = destination_line(&screen(&app));
    assert!(line.contains("Orders down (deleted)"), "{line}");
}
