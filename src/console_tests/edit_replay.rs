//! `E` (issue 39), driven with keys against the embedded service on 127.0.0.1: the recorded body
//! goes out to the editor (the loop's part is `console::run`'s; here the app's request for it is
//! taken and answered as the editor would), the edited body is previewed, sent signed afresh to
//! a loopback receiver that checks the signature with its own HMAC, kept in the replay history,
//! and compare opens at once with the recorded answer beside the new one. A body that is no
//! longer JSON, and an editor that failed, send nothing.
use crate::common;

use common::deliveries::{fixed_clock, settle};
use common::replay::{World, got, receiver, verify_independently, world};
use common::{ch, ctrl, key, screen, typed};
use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::console::replay::Stage;
use switchboard::console::{App, Msg, State};

/// A console on the service with the notification's detail open (`:goto`).
async fn console(w: &World) -> App {
    let state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.n.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app
}

/// `E`, the target typed, Enter, the plan awaited: the body the editor is given.
async fn to_editor(app: &mut App, target: &str) -> String {
    app.apply(ch('E'));
    app.apply(ctrl('u'));
    typed(app, target);
    app.apply(key(KeyCode::Enter));
    settle(app).await;
    assert!(
        matches!(
            app.state.replay.room.as_ref().map(|r| &r.stage),
            Some(Stage::Editor(_))
        ),
        "{}",
        screen(app)
    );
    assert!(screen(app).contains("Editing the body in $VISUAL / $EDITOR"));
    app.take_editor().expect("the editor is asked for")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_body_replays_signed_kept_in_history_and_compared() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w).await;
    let target = format!("{rx}/fail");

    let recorded = to_editor(&mut app, &target).await;
    let mut body: Value = serde_json::from_str(&recorded).expect("a JSON body");
    assert_eq!(body["payload"]["build"], 42);
    body["payload"]["build"] = 43.into();
    let edited = body.to_string();
    app.apply(Msg::Edited(Ok(edited.clone())));
    let s = screen(&app);
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(
        s.contains("\"build\": 43") && s.contains("as edited"),
        "the edited body is previewed: {s}"
    );
    assert!(got(&log, "fail").is_empty(), "nothing sent before Enter");

    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let sent = got(&log, "fail");
    assert_eq!(sent.len(), 1, "sent once");
    assert_eq!(sent[0].body, edited.as_bytes(), "the edited bytes");
    verify_independently(&w.secret, &sent[0].headers, &sent[0].body);

    // Kept with its answer in the replay history.
    let history = app.state.replay.history("test").expect("a history");
    let entry = history.newest_first().next().expect("an entry");
    assert_eq!(entry.edited_body.as_deref(), Some(edited.as_str()));
    assert_eq!(entry.result.status, Some(500));

    // Compare is open with the recorded answer (200) beside the new one (500).
    let o = app.state.compare.overlay.as_ref().expect("compare opens");
    let shown = o.shown.as_ref().expect("the comparison is shown at once");
    assert_eq!(shown.left.status, Some(200), "{:?}", shown.left.label);
    assert_eq!(shown.right.status, Some(500));
    let s = screen(&app);
    assert!(s.contains("200") && s.contains("500"), "{s}");
    assert!(s.contains("edited replay to"), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_no_longer_json_or_a_failed_editor_sends_nothing() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w).await;
    let target = format!("{rx}/ok-edit");

    to_editor(&mut app, &target).await;
    app.apply(Msg::Edited(Ok("{\"build\": ".into())));
    let s = screen(&app);
    assert!(s.contains("not JSON"), "{s}");
    assert!(
        matches!(
            app.state.replay.room.as_ref().map(|r| &r.stage),
            Some(Stage::Editing)
        ),
        "back on the form"
    );

    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.take_editor().expect("the editor again");
    app.apply(Msg::Edited(Err(
        "the editor exited with exit status: 1".into()
    )));
    assert!(
        screen(&app).contains("the editor exited"),
        "{}",
        screen(&app)
    );
    assert!(got(&log, "ok-edit").is_empty(), "nothing sent");
    assert!(app.state.compare.overlay.is_none());
}
