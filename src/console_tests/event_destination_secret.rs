//! The newest generation's rotated signing secret behind the masking policy: shown masked in
//! rotate's answer, revealed by `R` after asking, copied by `y` only while revealed, and gone
//! once the detail is read again (`serve --generation event-destinations` over loopback HTTP).
use crossterm::event::KeyCode;
use switchboard::api::generation::Generation;
use switchboard::api::{ApiRequest, Client, ListQuery};
use switchboard::console::Tab;
use switchboard::console::harness::Harness;
use switchboard::service::{Seed, ServiceConfig, start};

use crate::common::fixed_clock;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rotated_secret_is_revealed_after_asking_and_copied_only_while_revealed() {
    let cfg = ServiceConfig {
        seed: Seed::Demo,
        generation: Generation::EventDestinations,
        ..ServiceConfig::ephemeral()
    };
    let svc = start(cfg).await.expect("service starts");
    let client = Client::new(svc.client_options()).expect("client");
    let mut app = Harness::with_client("ed", client.clone(), fixed_clock(), (200, 50));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    let out = app.capture_clipboard();
    let raw = client
        .send(&ApiRequest::list_event_destinations(
            &ListQuery::default(),
            &Default::default(),
        ))
        .await
        .expect("list");
    let page: switchboard::api::Page<serde_json::Value> =
        serde_json::from_str(&raw.body).expect("a page");
    let dest = page
        .items
        .iter()
        .find(|d| d["status"] == "active")
        .expect("an active destination")
        .clone();
    let (id, name) = (
        dest["id"].as_str().unwrap_or_default().to_string(),
        dest["name"].as_str().unwrap_or_default().to_string(),
    );
    app.ch(':')
        .type_text(&format!("goto {id}"))
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::EventDestinations);

    // Nothing to reveal before a rotation: the secret is not returned.
    app.ch('R');
    app.settle().await.expect("idle");
    assert!(
        !app.screen().contains("Reveal signing secret"),
        "{}",
        app.screen()
    );

    app.ch('K')
        .key(KeyCode::Backspace)
        .type_text(&name)
        .key(KeyCode::Enter);
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("shown in this answer only"), "{s}");
    let masked = s
        .lines()
        .find(|l| l.contains("shown in this answer only"))
        .unwrap_or_default()
        .to_string();
    assert!(masked.contains('…'), "masked: {masked}");
    assert!(!s.contains("REVEALED"), "{s}");

    // Masked, `y` copies the id, never the secret.
    app.ch('y');
    app.settle().await.expect("idle");
    let copied = String::from_utf8_lossy(&out.lock().expect("lock")).to_string();
    assert_eq!(copied.as_bytes(), switchboard_osc52(&id).as_slice());
    out.lock().expect("lock").clear();

    // `R` asks; `n` keeps the mask; `R` `y` reveals.
    app.ch('R');
    app.settle().await.expect("idle");
    assert!(
        app.screen().contains("Reveal signing secret"),
        "{}",
        app.screen()
    );
    app.ch('n');
    app.settle().await.expect("idle");
    assert!(!app.screen().contains("REVEALED"), "{}", app.screen());
    app.ch('R').ch('y');
    app.settle().await.expect("idle");
    let s = app.screen();
    let line = s
        .lines()
        .find(|l| l.contains("REVEALED"))
        .unwrap_or_else(|| panic!("revealed: {s}"))
        .to_string();
    assert!(!line.contains('…'), "in full: {line}");
    // The secret in full is what `y` copies now.
    app.ch('y');
    app.settle().await.expect("idle");
    let secret = line
        .split(" (REVEALED)")
        .next()
        .and_then(|p| p.split_whitespace().last())
        .unwrap_or_default()
        .to_string();
    assert!(secret.len() > 16, "{line}");
    let copied = out.lock().expect("lock").clone();
    assert_eq!(copied, switchboard_osc52(&secret), "the secret, not the id");

    // Read again, the answer is gone and nothing is left to reveal.
    app.ch('r');
    app.settle().await.expect("idle");
    let s = app.screen();
    assert!(s.contains("not returned") && !s.contains("REVEALED"), "{s}");
    svc.shutdown().await;
}

fn switchboard_osc52(text: &str) -> Vec<u8> {
    crate::console::clipboard::osc52(text)
}
