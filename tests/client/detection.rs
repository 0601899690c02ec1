//! Detection of a deployment's generation (contract §2) against stand-ins over real HTTP: by the
//! versions list (pulsar), by introspection (the newer generations, the transitional one), by
//! probes when introspection fails; the version each request then carries; the cache (private,
//! reused, redone after an upgrade); a pin the server contradicts.
use std::path::Path;
use std::process::Command;

use switchboard::api::detect::{
    self, Detector, ImportsKind, Method, Pin, PinSource, TeamsKind, WebhooksKind,
};
use switchboard::api::generation::Generation;
use switchboard::api::identity::ServiceIdentity;
use switchboard::api::{ApiRequest, Client, ClientOptions, ListQuery, Secret};

use crate::common::fake::KEY;
use crate::standins::{Kind, StandIn};

fn client(s: &StandIn) -> Client {
    Client::new(ClientOptions {
        base_url: s.base_url.clone(),
        api_key: Secret::new(KEY),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client")
}

fn detector(dir: &Path, s: &StandIn) -> Detector {
    Detector::new(dir, ServiceIdentity::new(&s.base_url, None))
}

/// The `Metorial-Version` each request to `path` carried.
fn versions_sent(seen: &[crate::standins::Seen], path: &str) -> Vec<Option<String>> {
    seen.iter()
        .filter(|r| r.path == path)
        .map(|r| r.version.clone())
        .collect()
}

fn endpoints_asked(seen: &[crate::standins::Seen]) -> usize {
    seen.iter()
        .filter(|r| r.path == "/metorial/introspect/endpoints")
        .count()
}

#[tokio::test]
async fn pulsar_is_named_by_its_versions_list_alone_and_keeps_its_version() {
    let s = StandIn::start(Kind::Pulsar);
    let c = client(&s);
    let d = c.detect(true).await.expect("detects");
    assert_eq!(d.generation, Some(Generation::Pulsar));
    assert_eq!(d.method, Method::Versions);
    assert_eq!(
        (d.teams, d.imports, d.webhooks),
        (TeamsKind::Projects, ImportsKind::Old, WebhooksKind::Pulsar)
    );
    let seen = s.take();
    assert_eq!(seen.len(), 1, "the versions list alone: {seen:?}");
    c.send(&ApiRequest::list_teams(&ListQuery::default()))
        .await
        .expect("teams");
    c.send(&ApiRequest::list_notifications(
        &ListQuery::default(),
        &Default::default(),
    ))
    .await
    .expect("notifications");
    for r in s.take() {
        assert_eq!(r.version.as_deref(), Some("mt_2025_01_01_pulsar"), "{r:?}");
    }
}

#[tokio::test]
async fn event_destinations_are_introspected_and_each_path_carries_its_version() {
    let s = StandIn::start(Kind::EventDestinations);
    let c = client(&s);
    let d = c.detect(true).await.expect("detects");
    assert_eq!(d.generation, Some(Generation::EventDestinations));
    assert_eq!(d.method, Method::Introspection);
    assert_eq!(
        (d.teams, d.imports),
        (TeamsKind::Policies, ImportsKind::New)
    );
    assert!(
        d.found
            .webhooks
            .contains(&"/organization/event-destinations".to_string()),
        "{:?}",
        d.found
    );
    let seen = s.take();
    assert_eq!(endpoints_asked(&seen), 2, "magnetar and dashboard");
    assert!(
        seen.iter().all(|r| !r.keyed),
        "introspection needs no key: {seen:?}"
    );

    let q = ListQuery::default();
    c.send(&ApiRequest::list_teams(&q)).await.expect("teams");
    c.send(&ApiRequest::list_deliveries(&q, &Default::default()))
        .await
        .expect("deliveries");
    c.send(&ApiRequest::list_event_types())
        .await
        .expect("event types");
    let seen = s.take();
    for path in ["/organization/teams", "/organization/event-deliveries"] {
        assert_eq!(
            versions_sent(&seen, path),
            [Some("mt_2025_01_01_dashboard".to_string())],
            "{path}"
        );
    }
    assert_eq!(
        versions_sent(&seen, "/organization/webhook-events"),
        [Some("mt_2026_01_01_magnetar".to_string())],
        "only magnetar lists it"
    );

    // Without an explicit detection a client keeping a cache learns the same on its first call.
    let dir = tempfile::tempdir().expect("tempdir");
    let fresh = client(&s).with_detector(detector(dir.path(), &s));
    fresh
        .send(&ApiRequest::list_event_types())
        .await
        .expect("event types");
    let seen = s.take();
    assert_eq!(endpoints_asked(&seen), 2);
    assert_eq!(
        versions_sent(&seen, "/organization/webhook-events"),
        [Some("mt_2026_01_01_magnetar".to_string())]
    );
}

#[tokio::test]
async fn callback_destinations_are_named_by_their_paths() {
    let s = StandIn::start(Kind::CallbackDestinations);
    let d = client(&s).detect(true).await.expect("detects");
    assert_eq!(d.generation, Some(Generation::CallbackDestinations));
    assert_eq!(d.webhooks, WebhooksKind::CallbackDestinations);
    assert_eq!(
        (d.teams, d.imports),
        (TeamsKind::Policies, ImportsKind::New)
    );
}

#[tokio::test]
async fn a_deployment_that_fails_introspection_is_probed() {
    let s = StandIn::start(Kind::Unintrospectable);
    let c = client(&s);
    assert!(
        c.detect(false).await.is_err(),
        "without probes nothing is decided"
    );
    s.take();
    let d = c.detect(true).await.expect("probes decide");
    assert_eq!(d.method, Method::Probe);
    assert_eq!(d.generation, Some(Generation::EventDestinations));
    assert_eq!(
        (d.teams, d.imports),
        (TeamsKind::Policies, ImportsKind::New)
    );
    assert_eq!(d.routes, None);
    let seen = s.take();
    let probes: Vec<_> = seen
        .iter()
        .filter(|r| !r.path.starts_with("/metorial/"))
        .collect();
    assert!(!probes.is_empty());
    for p in &probes {
        assert_eq!(p.query.as_deref(), Some("limit=1"), "{p:?}");
        assert_eq!(
            p.version.as_deref(),
            Some("mt_2025_01_01_dashboard"),
            "{p:?}"
        );
    }
    assert!(
        probes
            .iter()
            .any(|p| p.path == "/organization/access-policies")
    );
    assert!(
        !d.found
            .webhooks
            .contains(&"/callback-destinations".to_string()),
        "a 404 endpoint is absent: {:?}",
        d.found
    );
}

#[tokio::test]
async fn the_transitional_webhook_destinations_are_reported_unsupported() {
    let s = StandIn::start(Kind::Transitional);
    let d = client(&s).detect(true).await.expect("detects");
    assert_eq!(d.webhooks, WebhooksKind::TransitionalUnsupported);
    assert_eq!(d.generation, None);
    assert_eq!(
        (d.teams, d.imports),
        (TeamsKind::Policies, ImportsKind::New)
    );
    let said = detect::served(&d);
    assert!(
        said.contains("/webhook-destinations") && said.contains("not support"),
        "{said}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn the_cache_is_private_and_reused() {
    use std::os::unix::fs::PermissionsExt;
    let s = StandIn::start(Kind::EventDestinations);
    let dir = tempfile::tempdir().expect("tempdir");
    let det = detector(dir.path(), &s);
    let d = client(&s)
        .with_detector(detector(dir.path(), &s))
        .detect(true)
        .await
        .expect("detects");
    let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(det.path()), 0o600);
    assert_eq!(mode(det.path().parent().expect("folder")), 0o700);
    assert_eq!(
        det.path().file_name().and_then(|n| n.to_str()),
        Some(format!("{}.json", ServiceIdentity::new(&s.base_url, None).key()).as_str())
    );
    assert_eq!(det.cached().map(|c| c.generation), Some(d.generation));
    s.take();

    // A new client (another command) reads the cache instead of introspecting again.
    let again = client(&s).with_detector(detector(dir.path(), &s));
    again
        .send(&ApiRequest::list_event_types())
        .await
        .expect("event types");
    let seen = s.take();
    assert_eq!(endpoints_asked(&seen), 0, "reused: {seen:?}");
    assert_eq!(
        versions_sent(&seen, "/organization/webhook-events"),
        [Some("mt_2026_01_01_magnetar".to_string())]
    );
    // Another instance of the same base URL has a cache of its own.
    let other = Detector::new(dir.path(), ServiceIdentity::new(&s.base_url, Some("ins_2")));
    assert!(other.cached().is_none());
}

#[tokio::test]
async fn a_404_endpoint_after_an_upgrade_detects_again() {
    let s = StandIn::start(Kind::CallbackDestinations);
    let dir = tempfile::tempdir().expect("tempdir");
    let det = detector(dir.path(), &s);
    client(&s)
        .with_detector(detector(dir.path(), &s))
        .detect(true)
        .await
        .expect("detects");
    assert_eq!(
        det.cached().and_then(|d| d.generation),
        Some(Generation::CallbackDestinations)
    );

    // The deployment upgrades; its versions list reads the same, so the cache is trusted...
    s.upgrade(Kind::EventDestinations);
    s.take();
    let c = client(&s).with_detector(detector(dir.path(), &s));
    let e = c
        .send(&ApiRequest::list_callback_destinations(
            &ListQuery::default(),
            &[],
        ))
        .await
        .expect_err("no such path any more");
    assert_eq!(e.api().and_then(|a| a.entity.as_deref()), Some("endpoint"));
    // ...until a path it said exists answers 404 endpoint: detected again, cache rewritten.
    assert_eq!(endpoints_asked(&s.take()), 2, "introspected again");
    assert_eq!(
        det.cached().and_then(|d| d.generation),
        Some(Generation::EventDestinations)
    );
    assert_eq!(
        c.detection().await.and_then(|d| d.generation),
        Some(Generation::EventDestinations)
    );
    // A 404 endpoint from a path the detection never claimed changes nothing.
    let e = c
        .send(&ApiRequest::list_callback_destinations(
            &ListQuery::default(),
            &[],
        ))
        .await
        .expect_err("still absent");
    assert!(e.api().is_some());
    assert_eq!(endpoints_asked(&s.take()), 0);
}

#[tokio::test]
async fn a_cache_from_before_an_upgrade_away_from_pulsar_is_not_trusted() {
    let s = StandIn::start(Kind::Pulsar);
    let dir = tempfile::tempdir().expect("tempdir");
    let det = detector(dir.path(), &s);
    client(&s)
        .with_detector(detector(dir.path(), &s))
        .detect(true)
        .await
        .expect("detects");
    s.upgrade(Kind::EventDestinations);
    let c = client(&s).with_detector(detector(dir.path(), &s));
    c.send(&ApiRequest::list_event_types())
        .await
        .expect("event types");
    assert_eq!(
        det.cached().and_then(|d| d.generation),
        Some(Generation::EventDestinations),
        "the versions list changed: detected again"
    );
}

#[tokio::test]
async fn a_pin_the_server_contradicts_is_reported_and_not_obeyed() {
    let s = StandIn::start(Kind::EventDestinations);
    let pin = Pin {
        generation: Generation::Pulsar,
        source: PinSource::Profile,
    };
    let c = Client::new(ClientOptions {
        base_url: s.base_url.clone(),
        api_key: Secret::new(KEY),
        pin: Some(pin),
        ..ClientOptions::default()
    })
    .expect("client");
    let d = c.detect(true).await.expect("detects");
    let chosen = detect::choose(Some(pin), Some(&d));
    assert_eq!(chosen.generation, Some(Generation::EventDestinations));
    let note = chosen.note.expect("reported");
    assert!(
        note.contains("pins generation pulsar") && note.contains("event-destinations"),
        "{note}"
    );
    // Requests follow the server, not the pin.
    s.take();
    c.send(&ApiRequest::list_teams(&ListQuery::default()))
        .await
        .expect("teams");
    assert_eq!(
        versions_sent(&s.take(), "/organization/teams"),
        [Some("mt_2025_01_01_dashboard".to_string())]
    );
}

/// The binary with an isolated home, the key in the environment only.
fn run_bin(home: &Path, s: &StandIn, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--base-url", &s.base_url])
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("SWITCHBOARD_API_KEY", KEY)
        .output()
        .expect("run switchboard");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_versions_prints_the_detection_and_info_shows_the_cached_generation() {
    let s = StandIn::start(Kind::EventDestinations);
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out, err) = run_bin(
        home.path(),
        &s,
        &["--generation", "pulsar", "info", "--versions"],
    );
    assert_eq!(code, 0, "{out}{err}");
    for want in [
        "API versions      mt_2025_01_01_dashboard (current) and mt_2026_01_01_magnetar",
        "detected by       the endpoints introspection",
        "teams             policies",
        "imports           new  (/provider-auth-config-imports)",
        "webhooks          event-destinations",
        "--generation pins generation pulsar, but the server serves event-destinations",
    ] {
        assert!(out.contains(want), "{want:?} not in:\n{out}");
    }
    let gen_line = out
        .lines()
        .find(|l| l.starts_with("generation "))
        .expect("a generation line");
    assert!(
        gen_line.contains("event-destinations (detected "),
        "{gen_line}"
    );

    let (code, out, _) = run_bin(home.path(), &s, &["-o", "json", "info", "--versions"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["generation"], "event-destinations");
    assert_eq!(v["detection"]["webhooks"], "event-destinations");
    assert_eq!(v["detection"]["method"], "introspection");
    assert_eq!(v["detection"]["versions"][1], "mt_2026_01_01_magnetar");

    // Plain `info` shows the cached generation and asks the server nothing.
    s.take();
    let (code, out, _) = run_bin(home.path(), &s, &["info"]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .any(|l| l.starts_with("generation ") && l.contains("event-destinations")),
        "{out}"
    );
    assert!(s.take().is_empty(), "plain info makes no request");
}
