//! The console's replay room (`P`), driven with keys against the embedded service on 127.0.0.1:
//! a real recorded delivery is previewed (headers through the redaction policy), sent to a
//! loopback receiver that records what it got and checks the signature with its own HMAC, and
//! the answer is shown marked *replayed locally*; a receiver answering 500, a read-only profile
//! refused a target beyond this machine, a bad URL and a failed lookup, all on the rendered screen.
use crate::common;

use std::time::Duration;

use common::deliveries::{fixed_clock, redact, settle};
use common::replay::{World, got, receiver, short_receiver, verify_independently, world};
use common::service::eventually;
use common::{ch, ctrl, key, screen, scroll_range, typed};
use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::console::replay::Stage;
use switchboard::console::{App, Msg, State};

/// A console on the service, `w`×`h`, with the notification's detail open (`:goto`).
async fn console(w: &World, width: u16, height: u16, read_only: bool) -> App {
    let mut state = State::new("test", w.t.svc.base_url.clone(), fixed_clock());
    state.read_only = read_only;
    let mut app = App::with_client(state, w.t.client.clone());
    app.apply(Msg::Resize(width, height));
    app.start();
    settle(&mut app).await;
    app.apply(ch(':'));
    typed(&mut app, &format!("goto {}", w.n.id));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app
}

/// `P`, the target typed over the prefilled one, Enter, and the plan awaited.
async fn preview(app: &mut App, target: &str) {
    app.apply(ch('P'));
    app.apply(ctrl('u'));
    typed(app, target);
    app.apply(key(KeyCode::Enter));
    settle(app).await;
}

fn stage(app: &App) -> Option<&Stage> {
    app.state.replay.room.as_ref().map(|r| &r.stage)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preview_send_and_answer_replayed_locally() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 100, 30, false).await;

    // P opens the room, prefilled with the default target for a profile that replayed nothing.
    app.apply(ch('P'));
    let s = screen(&app);
    assert!(s.contains("http://localhost:3000/webhooks"), "{s}");
    assert!(s.contains("local, never recorded"), "{s}");
    app.apply(key(KeyCode::Esc));
    assert!(app.state.replay.room.is_none());

    let target = format!("{rx}/replayed");
    preview(&mut app, &target).await;
    assert!(
        matches!(stage(&app), Some(Stage::Preview { .. })),
        "{}",
        screen(&app)
    );
    let s = screen(&app);
    assert!(s.contains("Preview · nothing sent yet"), "{s}");
    assert!(s.contains(&format!("POST {target}")), "{s}");
    assert!(
        s.contains("fresh, with the signing secret of Receiver under repair"),
        "{s}"
    );
    assert!(
        s.contains(&format!("metorial-notification-id: {}", w.n.id)),
        "{s}"
    );
    assert!(s.contains("metorial-signature: i="), "{s}");
    assert!(
        !s.contains(&w.secret),
        "the signing secret never shows: {s}"
    );
    // Every header shown is the redaction policy's value.
    let Some(Stage::Preview { plan, headers }) = stage(&app) else {
        panic!("preview");
    };
    for (k, v) in headers {
        let policy = switchboard::text::redact::header_value(k, v, false);
        assert_eq!(v, policy, "{k} as the policy shows it");
    }
    let recorded_body = plan.body.clone();
    assert_eq!(
        Some(recorded_body.as_str()),
        w.n.attempts[0]
            .webhook_request
            .as_ref()
            .and_then(|r| r.request_body.as_deref()),
        "the plan carries the recorded body"
    );
    assert!(
        got(&log, "replayed").is_empty(),
        "nothing sent by a preview"
    );

    // Snapshot of the preview at 100×30, volatile parts blanked.
    let volatile: Vec<String> = vec![
        w.n.id.clone(),
        w.dest.clone(),
        w.callback.clone(),
        rx.trim_start_matches("http://").to_string(),
        w.t.svc.base_url.trim_start_matches("http://").to_string(),
    ]
    .into_iter()
    .chain(volatile_of_body(&recorded_body))
    .collect();
    insta::assert_snapshot!("replay_preview_100x30", redact(&screen(&app), &volatile));
    // The preview scrolls within what it holds: `G` reaches its end, one `k` moves at once.
    app.apply(ch('G'));
    let (_, b, n) = scroll_range(&screen(&app)).expect("the preview scrolls at 100×30");
    assert_eq!(b, n);
    app.apply(ch('k'));
    assert_eq!(
        scroll_range(&screen(&app)).map(|(_, b, n)| (b, n)),
        Some((n - 1, n))
    );
    app.apply(ch('g'));

    // Enter sends on the worker; the receiver gets the body byte for byte, freshly signed.
    app.apply(key(KeyCode::Enter));
    assert!(matches!(stage(&app), Some(Stage::Sending(_))));
    settle(&mut app).await;
    let sent = got(&log, "replayed");
    assert_eq!(sent.len(), 1, "one replay arrived");
    assert_eq!(sent[0].body, recorded_body.as_bytes(), "byte for byte");
    verify_independently(&w.secret, &sent[0].headers, &sent[0].body);
    assert_eq!(
        sent[0]
            .headers
            .get("metorial-notification-id")
            .and_then(|v| v.to_str().ok()),
        Some(w.n.id.as_str())
    );
    let s = screen(&app);
    assert!(s.contains("REPLAYED LOCALLY"), "{s}");
    assert!(s.contains("not a recorded attempt"), "{s}");
    assert!(s.contains("HTTP 200"), "{s}");
    assert!(s.contains("thanks"), "{s}");
    assert!(
        s.contains("Replays of profile test this session (1, newest first)"),
        "{s}"
    );

    // The history: the replay is there, and picking it shows its answer again.
    app.apply(key(KeyCode::Esc));
    assert!(matches!(stage(&app), Some(Stage::Editing)));
    assert!(screen(&app).contains(&target), "the target is kept");
    app.apply(ch('h')); // typed into the target, not a command
    app.apply(key(KeyCode::Backspace));
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Tab));
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("REPLAYED LOCALLY"), "{s}");
    assert!(s.contains("HTTP 200"), "{s}");

    // The next time, the target is prefilled with the last one of this profile.
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Esc));
    assert!(app.state.replay.room.is_none(), "{}", screen(&app));
    app.apply(ch('P'));
    assert!(screen(&app).contains(&target));
}

/// Fields of the recorded body that change with every run (ids and times).
fn volatile_of_body(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if let Value::String(s) = x
                        && (k.ends_with("Id") || k.ends_with("id") || k.ends_with("At"))
                    {
                        out.push(s.clone());
                    }
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        walk(&v, &mut out);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_500_answer_is_shown_masked_and_sanitised() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 120, 40, false).await;
    preview(&mut app, &format!("{rx}/fail")).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert_eq!(got(&log, "fail").len(), 1);
    let s = screen(&app);
    assert!(s.contains("REPLAYED LOCALLY"), "{s}");
    assert!(s.contains("HTTP 500"), "{s}");
    assert!(s.contains("set-cookie: ••••••••"), "{s}");
    assert!(!s.contains("RECEIVER_SECRET_42"), "{s}");
    assert!(s.contains("boom"), "{s}");
    assert!(!s.contains('\u{1b}') && !s.contains('\u{7}'), "{s:?}");
    // Fixed: replay again to the healthy path and compare the two answers in the history.
    app.apply(key(KeyCode::Esc));
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/fixed"));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let s = screen(&app);
    assert!(s.contains("HTTP 200"), "{s}");
    assert!(s.contains("(2, newest first)"), "{s}");
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(" #1 · ") && l.contains(" ms "))
        .collect();
    assert_eq!(rows.len(), 2, "{s}");
    assert!(
        rows[0].contains(" 200 ") && rows[0].contains("/fixed"),
        "newest first: {s}"
    );
    assert!(
        rows[1].contains(" 500 ") && rows[1].contains("/fail"),
        "{s}"
    );
    app.apply(ch('h'));
    app.apply(key(KeyCode::Down));
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("HTTP 500") && !s.contains("HTTP 200"), "{s}");
    // Recorded attempts are untouched: the notification still has its one attempt.
    let n = w.t.client.get_notification(&w.n.id).await.expect("get");
    assert_eq!(n.attempts.len(), w.n.attempts.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2xx_cut_short_is_shown_failed() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 120, 40, false).await;
    let short = short_receiver(log.clone()).await;
    preview(&mut app, &short).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert_eq!(got(&log, "short").len(), 1);
    let Some(Stage::Answer(e)) = stage(&app) else {
        panic!("an answer: {}", screen(&app));
    };
    assert_eq!(e.result.status, Some(200));
    assert!(e.result.error.is_some(), "the body did not arrive whole");
    assert!(!e.result.is_success(), "as the delivery engine counts it");
    let s = screen(&app);
    assert!(
        s.contains("HTTP 200 · FAILED: the answer did not arrive whole"),
        "{s}"
    );
    assert!(s.contains("Error "), "{s}");
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(" #1 · ") && l.contains(" ms "))
        .collect();
    assert_eq!(rows.len(), 1, "{s}");
    assert!(
        rows[0].contains("200✗"),
        "marked failed in the history: {s}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_stay_live_while_a_receiver_never_answers() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 100, 30, false).await;
    preview(&mut app, &format!("{rx}/hang")).await;
    app.apply(key(KeyCode::Enter));
    assert!(matches!(stage(&app), Some(Stage::Sending(_))));
    assert_eq!(app.state.in_flight(), 1);
    eventually(Duration::from_secs(10), || async {
        (!got(&log, "hang").is_empty()).then_some(())
    })
    .await;
    // Still waiting for the answer; the keys answer at once.
    app.apply(key(KeyCode::Down));
    assert!(matches!(stage(&app), Some(Stage::Sending(_))));
    app.apply(key(KeyCode::Esc));
    assert!(matches!(stage(&app), Some(Stage::Preview { .. })));
    assert_eq!(app.state.in_flight(), 0);
    assert!(screen(&app).contains("Stopped waiting"), "{}", screen(&app));
    assert!(
        app.state.replay.history("test").is_none(),
        "no answer recorded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_profiles_replay_only_to_this_machine() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 100, 30, true).await;
    app.apply(ch('P'));
    app.apply(ctrl('u'));
    typed(&mut app, "https://hooks.example/in");
    app.apply(key(KeyCode::Enter));
    assert_eq!(app.state.in_flight(), 0, "nothing asked of the worker");
    let s = screen(&app);
    assert!(
        s.contains("refused: a read-only profile replays only to this machine"),
        "{s}"
    );
    assert!(
        s.contains("https://hooks.example/in"),
        "the target is kept: {s}"
    );
    assert!(matches!(stage(&app), Some(Stage::Editing)));

    // Loopback is allowed.
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/local"));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert_eq!(got(&log, "local").len(), 1);
    assert!(screen(&app).contains("HTTP 200"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_targets_remote_hosts_and_lookup_failures_lose_nothing() {
    let (rx, log) = receiver().await;
    let w = world(&rx).await;
    let mut app = console(&w, 100, 30, false).await;

    // Not a URL: the problem beside the field, the text kept, nothing asked.
    app.apply(ch('P'));
    app.apply(ctrl('u'));
    typed(&mut app, "localhost:3000/in");
    app.apply(key(KeyCode::Enter));
    assert_eq!(app.state.in_flight(), 0);
    let s = screen(&app);
    assert!(s.contains("✗ target"), "{s}");
    assert!(s.contains("localhost:3000/in"), "{s}");

    // Beyond this machine: the preview, then the host must be typed before anything is sent.
    app.apply(ctrl('u'));
    typed(&mut app, "https://hooks.example/in");
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert!(
        matches!(stage(&app), Some(Stage::Preview { .. })),
        "{}",
        screen(&app)
    );
    app.apply(key(KeyCode::Enter));
    let s = screen(&app);
    assert!(s.contains("Type “hooks.example” to send"), "{s}");
    assert!(s.contains("destination's real signing secret:"), "{s}");
    assert!(s.contains("could relay it to the real destination"), "{s}");
    assert!(s.contains("Prefer Unsigned for hosts you do not"), "{s}");
    // The footer shows the room's keys, not the list's behind it.
    let footer = s.lines().last().unwrap_or_default();
    assert!(footer.contains("Enter confirm"), "{s}");
    assert!(!footer.contains("reload"), "{s}");
    typed(&mut app, "hooks.exampel");
    app.apply(key(KeyCode::Enter));
    assert!(screen(&app).contains("exactly to send"));
    assert_eq!(app.state.in_flight(), 0, "a wrong host sends nothing");
    app.apply(key(KeyCode::Esc));
    assert!(matches!(stage(&app), Some(Stage::Preview { .. })));
    app.apply(key(KeyCode::Esc));

    // The destination is gone: its secret is unknown, said with the lookup's message.
    w.t.client
        .delete_destination(&w.dest)
        .await
        .expect("delete");
    app.apply(ctrl('u'));
    typed(&mut app, &format!("{rx}/after-delete"));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert!(matches!(stage(&app), Some(Stage::Editing)));
    let s = screen(&app);
    assert!(s.contains("no active destination with this URL"), "{s}");
    assert!(
        s.contains(&format!("{rx}/after-delete")),
        "the target is kept: {s}"
    );
    // Unsigned still works without the secret.
    app.apply(key(KeyCode::Tab));
    app.apply(ch(' '));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    assert!(screen(&app).contains("none (unsigned)"), "{}", screen(&app));
    app.apply(key(KeyCode::Enter));
    settle(&mut app).await;
    let sent = got(&log, "after-delete");
    assert_eq!(sent.len(), 1);
    assert!(sent[0].headers.get("metorial-signature").is_none());
}

/// The Prepare request the room sent: (notification id, attempt), the requests answered.
fn prepared(app: &mut App) -> Option<(String, Option<i64>)> {
    app.take_requests().into_iter().find_map(|r| match r.cmd {
        switchboard::console::ApiCmd::Replay(cmd) => match *cmd {
            switchboard::console::replay::ReplayCmd::Prepare { id, attempt, .. } => {
                Some((id, attempt))
            }
            switchboard::console::replay::ReplayCmd::PrepareCallback { id, .. } => Some((id, None)),
            switchboard::console::replay::ReplayCmd::PrepareDelivery { id, attempt, .. } => {
                Some((id, attempt))
            }
            switchboard::console::replay::ReplayCmd::SignEdited { .. }
            | switchboard::console::replay::ReplayCmd::Send(_) => None,
        },
        _ => None,
    })
}

#[test]
fn p_replays_the_selected_notification_or_the_open_attempt() {
    let mut app = common::started_app(120, 40);
    common::answer_all(&mut app);
    // Elsewhere than on a notification, P says where it works.
    app.apply(ch('P'));
    assert!(app.state.replay.room.is_none());
    assert!(screen(&app).contains("P replays a notification"));
    app.apply(ch('5'));
    common::answer_all(&mut app);
    let first = common::shown_ids(&app)[0].clone();

    // On the selected row: the latest recorded attempt.
    app.apply(ch('P'));
    app.apply(key(KeyCode::Enter));
    assert_eq!(prepared(&mut app), Some((first.clone(), None)));
    assert_eq!(
        app.state.in_flight(),
        1,
        "the spinner counts the room's request"
    );
    app.apply(key(KeyCode::Esc)); // stop waiting
    app.apply(key(KeyCode::Esc)); // close
    assert!(app.state.replay.room.is_none());

    // In the detail: the attempt under its cursor (shown counted from 1).
    app.apply(key(KeyCode::Enter));
    common::answer_all(&mut app);
    app.apply(key(KeyCode::Down));
    app.apply(ch('P'));
    assert!(screen(&app).contains("attempt #2"), "{}", screen(&app));
    app.apply(key(KeyCode::Enter));
    assert_eq!(prepared(&mut app), Some((first.clone(), Some(1))));
    app.apply(key(KeyCode::Esc)); // stop waiting
    app.apply(key(KeyCode::Esc)); // close
    app.apply(key(KeyCode::Up));
    app.apply(ch('P'));
    assert!(screen(&app).contains("attempt #1"), "{}", screen(&app));
    app.apply(key(KeyCode::Enter));
    assert_eq!(prepared(&mut app), Some((first.clone(), Some(0))));
    app.apply(key(KeyCode::Esc));
    app.apply(key(KeyCode::Esc));
    assert!(app.state.replay.room.is_none());

    // On an open attempt: that attempt.
    app.apply(key(KeyCode::Down));
    app.apply(key(KeyCode::Enter));
    assert!(app.state.deliveries.attempt.is_some(), "{}", screen(&app));
    app.apply(ch('P'));
    assert!(screen(&app).contains("attempt #2"), "{}", screen(&app));
    app.apply(key(KeyCode::Enter));
    assert_eq!(prepared(&mut app), Some((first, Some(1))));

    // Another profile: the room is not its, and its history is its own.
    app.state.profile = "other".into();
    assert!(!screen(&app).contains("never recorded"));
    app.apply(key(KeyCode::Esc));
    assert!(app.state.replay.room.is_none());
    assert!(app.state.replay.history("other").is_none());
}
