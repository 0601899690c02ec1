//! The Samples room (issue 39), driven with keys against the embedded service on 127.0.0.1 and
//! a loopback receiver: a kept sample is listed, sent signed afresh (checked with the receiver's
//! own HMAC), a host beyond this machine is asked for and nothing goes without it, and a removal
//! takes a yes.
use crate::common;

use common::deliveries::{fixed_clock, settle};
use common::replay::{World, got, receiver, verify_independently, world};
use common::{ch, ctrl, key, screen, typed};
use crossterm::event::KeyCode;
use switchboard::api::replay::{destination_for, recorded_request};
use switchboard::api::samples::{Library, Sample};
use switchboard::console::{App, Msg, State};

/// Keeps the world's notification as `name` in the library of profile `test` under `data`.
async fn keep(w: &World, data: &std::path::Path, name: &str) -> Sample {
    let (_, recorded) = recorded_request(&w.n, None).expect("a recorded request");
    let dest = destination_for(&w.t.client, &w.n, recorded)
        .await
        .expect("the destination");
    let sample = Sample::from_notification(name, &w.n, None, None, Some(&dest)).expect("a sample");
    Library::for_profile(data, "test")
        .expect("library")
        .save(&sample, false)
        .expect("saved");
    sample
}

/// A console on the service whose data directory is `data`, the Samples room opened by `:samples`.
async fn console(w: &World, data: &std::path::Path) -> App {
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    state.settings.data_dir = Some(data.to_path_buf());
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, "samples");
    app.apply(key(KeyCode::Enter));
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_sample_is_listed_sent_signed_and_removed_after_a_yes() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let data = tempfile::tempdir().expect("data dir");
    let sample = keep(&w, data.path(), "build-42").await;
    let mut app = console(&w, data.path()).await;
    let s = screen(&app);
    assert!(s.contains("Samples · test"), "{s}");
    assert!(
        s.contains("build-42") && s.contains("Receiver under repair"),
        "{s}"
    );
    assert!(
        s.contains("s/Enter send"),
        "the room's keys in the footer: {s}"
    );

    app.apply(ch('s'));
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/again"));
    assert!(got(&log, "again").is_empty(), "nothing sent before Enter");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let sent = got(&log, "again");
    assert_eq!(sent.len(), 1, "sent once");
    assert_eq!(sent[0].body, sample.body.as_bytes(), "the kept bytes");
    verify_independently(&w.secret, &sent[0].headers, &sent[0].body);
    let s = screen(&app);
    assert!(s.contains("SENT build-42 → 200"), "{s}");
    assert!(s.contains("signed with its destination's secret"), "{s}");

    // A removal asks first: no keeps the file, yes removes it.
    app.apply(key(KeyCode::Esc));
    app.apply(ch('d'));
    assert!(
        screen(&app).contains("Delete sample build-42"),
        "{}",
        screen(&app)
    );
    app.apply(ch('n'));
    let file = data.path().join("samples/test/build-42.json");
    assert!(file.exists(), "kept on no");
    app.apply(ch('d'));
    app.apply(ch('y'));
    assert!(!file.exists(), "removed on yes");
    let s = screen(&app);
    assert!(s.contains("Removed sample build-42"), "{s}");
    assert!(s.contains("No samples yet"), "{s}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_beyond_this_machine_is_asked_and_nothing_goes_without_it() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let data = tempfile::tempdir().expect("data dir");
    keep(&w, data.path(), "build-42").await;
    let mut app = console(&w, data.path()).await;
    app.apply(key(KeyCode::Enter));
    app.apply(ctrl('u'));
    // Never answered yes: the test reaches nothing beyond loopback.
    typed(&mut app, "http://receiver.example/hook");
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("Send beyond this machine?"), "{s}");
    assert!(s.contains("receiver.example is not this machine"), "{s}");
    app.apply(key(KeyCode::Esc));
    let room = app.state.samples.room.as_ref().expect("the room");
    assert!(room.pending.is_none(), "nothing sent on no");
    assert!(!screen(&app).contains("Send beyond this machine?"));
    assert!(got(&log, "hook").is_empty());

    // Read-only: refused outright.
    app.state.read_only = true;
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(
        s.contains("refused: a read-only profile sends only to this machine"),
        "{s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_palette_opens_the_room() {
    let (rx, _log) = receiver().await;
    let w = world(&rx).await;
    let data = tempfile::tempdir().expect("data dir");
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    state.settings.data_dir = Some(data.path().to_path_buf());
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ctrl('p'));
    typed(&mut app, "samples");
    assert!(screen(&app).contains("samples"), "{}", screen(&app));
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(
        s.contains("Samples · test") && s.contains("No samples yet"),
        "{s}"
    );
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains("Samples · test"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_on_a_notification_keeps_it_under_the_name_typed() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let data = tempfile::tempdir().expect("data dir");
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    state.settings.data_dir = Some(data.path().to_path_buf());
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(120, 40));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.n.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;

    app.apply(ch('B'));
    let s = screen(&app);
    assert!(s.contains(&format!("Keep {}", w.n.id)), "{s}");
    // A name that cannot be a file's is said before anything is read.
    typed(&mut app, "../x");
    app.apply(key(KeyCode::Enter));
    assert!(
        screen(&app).contains("a sample's name is 1 to 64"),
        "{}",
        screen(&app)
    );
    for _ in 0..4 {
        app.apply(key(KeyCode::Backspace));
    }
    typed(&mut app, "incident.1");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen(&app);
    assert!(s.contains("Kept sample incident.1"), "{s}");
    let kept = Library::for_profile(data.path(), "test")
        .expect("library")
        .load("incident.1")
        .expect("kept on disk");
    assert_eq!(kept.notification_id, w.n.id);
    assert!(kept.body.contains("\"build\":42") || kept.body.contains("\"build\": 42"));

    // Kept under a taken name: refused, the first one left as it was.
    app.apply(key(KeyCode::Esc));
    app.apply(ch('B'));
    typed(&mut app, "incident.1");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert!(screen(&app).contains("incident.1"), "{}", screen(&app));
    assert!(got(&log, "again").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn e_edits_a_sample_sends_it_signed_keeps_the_edit_and_compares_with_the_recorded_answer() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let data = tempfile::tempdir().expect("data dir");
    let sample = keep(&w, data.path(), "build-42").await;
    assert_eq!(
        sample.answer.as_ref().and_then(|a| a.status),
        Some(200),
        "the recorded answer is kept with the sample"
    );
    let mut app = console(&w, data.path()).await;
    assert!(screen(&app).contains("e edit & send"), "{}", screen(&app));

    // A body no longer JSON: said, nothing sent.
    app.apply(ch('e'));
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/fail"));
    app.apply(key(KeyCode::Enter));
    let given = app.take_editor().expect("the editor is asked for");
    assert_eq!(given, sample.body, "the kept body goes to the editor");
    assert!(
        screen(&app).contains("Editing build-42"),
        "{}",
        screen(&app)
    );
    app.apply(Msg::Edited(Ok("{\"build\": ".into())));
    assert!(screen(&app).contains("not JSON"), "{}", screen(&app));
    assert!(got(&log, "fail").is_empty(), "nothing sent");

    app.apply(ch('e'));
    app.apply(key(KeyCode::Enter));
    let mut body: serde_json::Value =
        serde_json::from_str(&app.take_editor().expect("the editor again")).expect("JSON");
    assert_eq!(body["payload"]["build"], 42);
    body["payload"]["build"] = 43.into();
    let edited = body.to_string();
    app.apply(Msg::Edited(Ok(edited.clone())));
    settle(&mut app).await;
    let sent = got(&log, "fail");
    assert_eq!(sent.len(), 1, "sent once");
    assert_eq!(sent[0].body, edited.as_bytes(), "the edited bytes");
    verify_independently(&w.secret, &sent[0].headers, &sent[0].body);

    // Kept with its answer in the replay history.
    let history = app.state.replay.history("test").expect("a history");
    let entry = history.newest_first().next().expect("an entry");
    assert_eq!(entry.edited_body.as_deref(), Some(edited.as_str()));
    assert_eq!(entry.notification_id, w.n.id);
    assert_eq!(entry.result.status, Some(500));

    // Compare opens at once: the recorded answer (200) beside the new one (500), the new
    // answer's cookie masked by its one verdict.
    let o = app.state.compare.overlay.as_ref().expect("compare opens");
    let shown = o.shown.as_ref().expect("the comparison is shown at once");
    assert_eq!(shown.left.status, Some(200));
    assert_eq!(shown.right.status, Some(500));
    let s = screen(&app);
    assert!(s.contains("recorded attempt #1"), "{s}");
    assert!(s.contains("edited sample build-42"), "{s}");
    assert!(!s.contains("RECEIVER_SECRET_42"), "{s}");
    assert!(
        !s.contains('\u{1b}'),
        "no escape sequence reaches the screen: {s}"
    );

    // Back in the room: the answer, and `c` compares again.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Esc));
    let s = screen(&app);
    assert!(s.contains("SENT edited build-42 → 500"), "{s}");
    assert!(s.contains("c/= compare"), "{s}");
    app.apply(ch('c'));
    assert!(app.state.compare.overlay.is_some());
    assert!(screen(&app).contains("recorded attempt #1"));
}
