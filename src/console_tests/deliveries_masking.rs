//! Header masking fails closed: unit cases (name case, unknown headers, the safe list) and
//! properties over the function and over the rendered attempt view.

use crate::common::{answer_all, ch, fixed_clock, key};
use crossterm::event::KeyCode;
use proptest::prelude::*;
use switchboard::console::record::Item;
use switchboard::console::{App, Msg, State, Tab};
use switchboard::text::redact::MASKED;
use switchboard::text::redact::{header_is_safe as is_safe, header_value as shown};

#[test]
fn safe_list_in_any_case() {
    for h in [
        "content-type",
        "Content-Type",
        "USER-AGENT",
        "Date",
        "Metorial-Version",
        "metorial-event-id",
        "Metorial-Callback-Id",
        "METORIAL-NOTIFICATION-ID",
        "metorial-signature",
    ] {
        assert!(is_safe(h), "{h} is safe");
        assert_eq!(shown(h, "v", false), "v");
    }
}

#[test]
fn secrets_and_unknown_headers_are_masked() {
    for h in [
        "Authorization",
        "AUTHORIZATION",
        "Proxy-Authorization",
        "Cookie",
        "Set-Cookie",
        "X-Api-Key",
        "x-auth-token",
        "X-Webhook-Secret",
        "metorial-api-key-id",
        "x-totally-unknown",
        "metorial-",
        "metorial--id",
    ] {
        assert!(!is_safe(h), "{h} must be masked");
        assert_eq!(shown(h, "sensitive", false), MASKED);
    }
}

proptest! {
    #[test]
    fn names_with_secret_words_are_never_shown(
        pre in "[a-zA-Z-]{0,8}",
        word in prop::sample::select(vec!["token", "secret", "key", "auth", "cookie", "password"]),
        upper in any::<bool>(),
        post in "[a-zA-Z-]{0,8}",
        value in "[a-zA-Z0-9]{1,40}",
    ) {
        let word = if upper { word.to_uppercase() } else { word.to_string() };
        let name = format!("{pre}{word}{post}");
        prop_assume!(!name.eq_ignore_ascii_case("metorial-signature"));
        prop_assert_eq!(shown(&name, &value, false), MASKED);
    }

    #[test]
    fn unsafe_headers_never_show_their_value(name in "[ -~]{0,30}", value in "[a-zA-Z0-9]{1,40}") {
        if !is_safe(&name) {
            prop_assert_eq!(shown(&name, &value, false), MASKED);
        }
    }
}

/// An offline app with the notification fixture's detail open and its first attempt carrying
/// an extra response header.
fn attempt_with_header(name: &str, value: &str) -> App {
    let mut app = App::offline(State::new("test", "http://127.0.0.1:9", fixed_clock()));
    app.apply(Msg::Resize(160, 60));
    app.start();
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    answer_all(&mut app);
    let detail = app.state.tab_state_mut(Tab::Notifications).detail.as_mut();
    let record = detail.and_then(|d| d.record.as_mut()).expect("detail open");
    if let Item::Notification(n) = &mut record.item {
        for a in &mut std::sync::Arc::make_mut(n).attempts {
            if let Some(r) = a.webhook_request.as_mut() {
                r.response_headers.insert(name.into(), value.into());
                r.request_headers.insert(name.into(), value.into());
            }
        }
    }
    app.apply(key(KeyCode::Enter));
    app
}

fn screen(app: &App) -> String {
    crate::common::screen_sized(app, 160, 60)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_attempt_view_never_shows_an_unsafe_value(
        name in "[a-zA-Z][a-zA-Z0-9-]{0,20}",
        value in "zq[a-zA-Z0-9]{10,30}",
    ) {
        prop_assume!(!is_safe(&name));
        let app = attempt_with_header(&name, &value);
        let s = screen(&app);
        prop_assert!(app.state.deliveries.attempt.is_some());
        prop_assert!(s.contains(MASKED));
        prop_assert!(!s.contains(&value), "value of {} shown", name);
    }
}

#[test]
fn reveal_shows_values_only_after_yes() {
    let app_value = "zqREVEALME123456";
    let mut app = attempt_with_header("Authorization", app_value);
    assert!(!screen(&app).contains(app_value));
    app.apply(ch('R'));
    assert!(screen(&app).contains("Reveal secrets"));
    app.apply(key(KeyCode::Esc));
    assert!(!screen(&app).contains(app_value));
    app.apply(ch('R'));
    app.apply(ch('y'));
    assert!(screen(&app).contains(app_value));
}

#[test]
fn debug_output_of_the_state_hides_recorded_headers() {
    let value = "zqDEBUGSECRET987654";
    let mut app = attempt_with_header("x-api-key", value);
    app.apply(ch('R'));
    app.apply(ch('y'));
    assert!(screen(&app).contains(value), "revealed on screen");
    let debug = format!("{:?}", app.state);
    assert!(!debug.contains(value), "Debug must not carry header values");
}

/// A destination URL's userinfo password and secret query values are masked by the one policy
/// in the destinations list and detail and in the notifications list and detail (the delivery
/// itself still sends the userinfo as basic auth).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_in_destination_urls_are_masked_in_lists_and_details() {
    use switchboard::api::model::{CallbacksInput, CreateDestination};
    let w = crate::common::deliveries::world().await;
    let url = format!(
        "{}/ok?token=URLSECRET7",
        w.receiver.replacen("http://", "http://alice:PASSW0RDX@", 1)
    );
    w.t.client
        .create_destination(&CreateDestination {
            name: "Creds in URL".into(),
            description: None,
            url,
            callbacks: CallbacksInput::selected(vec![w.callback.clone()]),
        })
        .await
        .expect("destination");
    w.fire(1).await;
    let mut app = w.app().await;
    app.apply(Msg::Resize(200, 50));
    let mut seen = 0;
    for tab in ['4', '5'] {
        app.apply(ch(tab));
        crate::common::deliveries::settle(&mut app).await;
        app.apply(key(KeyCode::Char('g')));
        for _ in 0..6 {
            app.apply(key(KeyCode::Enter));
            crate::common::deliveries::settle(&mut app).await;
            let s = crate::common::screen_sized(&app, 200, 50);
            assert!(!s.contains("PASSW0RDX"), "a URL password on screen:\n{s}");
            assert!(
                !s.contains("URLSECRET7"),
                "a secret query value on screen:\n{s}"
            );
            seen += usize::from(s.contains("alice:"));
            app.apply(key(KeyCode::Esc));
            app.apply(key(KeyCode::Char('j')));
        }
    }
    assert!(seen > 0, "the masked URL was on screen at least once");
}
