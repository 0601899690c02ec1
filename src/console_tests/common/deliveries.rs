//! Shared helpers of the deliveries console tests: a receiver with secret response headers, a
//! demo service with two test destinations and real deliveries, and screen helpers.
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use chrono::TimeZone;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use switchboard::api::model::{
    CallbackType, CallbacksInput, CreateDestination, Notification, NotificationStatus,
};
use switchboard::api::{ListQuery, NotificationFilter};
use switchboard::console::record::Item;
use switchboard::console::{App, Clock, State};
use switchboard::service::{Seed, ServiceConfig};

use super::service::{TestService, eventually, http, start_with};

/// The secret a test receiver puts in its response headers.
pub const RECEIVER_KEY: &str = "rk_live_do_not_show_me";

/// A loopback receiver: `/ok` answers 200 with secret-bearing headers, `/down` 503.
pub async fn receiver() -> String {
    let ok = || async {
        (
            StatusCode::OK,
            [
                ("set-cookie", "session=abc123; HttpOnly"),
                ("x-api-key", RECEIVER_KEY),
                ("content-type", "application/json"),
            ],
            r#"{"received":true,"queue":"orders"}"#,
        )
    };
    let down = || async { (StatusCode::SERVICE_UNAVAILABLE, "maintenance") };
    let app = Router::new()
        .route("/ok", post(ok))
        .route("/down", post(down));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// A demo service with two destinations of the first `webhook_manual` callback.
pub struct World {
    /// The service.
    pub t: TestService,
    /// The receiver's base URL.
    pub receiver: String,
    /// The callback.
    pub callback: String,
    /// Its hook URL.
    pub hook: String,
    /// The healthy destination's id.
    pub healthy: String,
    /// The down destination's id.
    pub down: String,
}

/// Starts the world; retries wait long, so that failed deliveries stay `retrying`.
pub async fn world() -> World {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    cfg.retry_base = Duration::from_secs(600);
    let t = start_with(cfg).await;
    let receiver = receiver().await;
    let cb = super::service::manual_callback(&t.client).await;
    let mut ids = Vec::new();
    for (name, path) in [("Orders healthy", "ok"), ("Orders down", "down")] {
        let d = t
            .client
            .create_destination(&CreateDestination {
                name: name.into(),
                description: None,
                url: format!("{receiver}/{path}"),
                callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
            })
            .await
            .expect("destination");
        ids.push(d.id);
    }
    World {
        hook: cb.url.clone().expect("hook url"),
        callback: cb.id,
        healthy: ids[0].clone(),
        down: ids[1].clone(),
        receiver,
        t,
    }
}

impl World {
    /// Posts one event and waits until both test destinations have tried it once.
    pub async fn fire(&self, n: u32) -> String {
        let r = http()
            .post(&self.hook)
            .json(&json!({"type": "order.created", "order": n}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.expect("json");
        let event = body["event_id"].as_str().expect("event id").to_string();
        for dest in [&self.healthy, &self.down] {
            let f = NotificationFilter {
                event_ids: vec![event.clone()],
                destination_ids: vec![dest.clone()],
                ..Default::default()
            };
            eventually(Duration::from_secs(10), || async {
                let p = self
                    .t
                    .client
                    .list_notifications(&ListQuery::default(), &f)
                    .await
                    .ok()?;
                p.items
                    .first()
                    .filter(|n| !n.attempts.is_empty() && n.status != NotificationStatus::Pending)
                    .map(|_| ())
            })
            .await;
        }
        event
    }

    /// The notifications of a destination, newest first.
    pub async fn notifications_of(&self, dest: &str) -> Vec<Notification> {
        let f = NotificationFilter {
            destination_ids: vec![dest.into()],
            ..Default::default()
        };
        self.t
            .client
            .list_notifications(&ListQuery::default(), &f)
            .await
            .expect("notifications")
            .items
    }

    /// A console on this service, its first list loaded.
    pub async fn app(&self) -> App {
        let state = State::new("test", self.t.svc.base_url.clone(), fixed_clock());
        let mut app = App::with_client(state, self.t.client.clone());
        app.apply(switchboard::console::Msg::Resize(120, 40));
        app.start();
        settle(&mut app).await;
        app
    }
}

/// 2030-01-01 12:00 UTC, shown at UTC.
pub fn fixed_clock() -> Clock {
    Clock::Fixed {
        now: chrono::Utc
            .with_ymd_and_hms(2030, 1, 1, 12, 0, 0)
            .single()
            .expect("time"),
        offset: chrono::FixedOffset::east_opt(0).expect("offset"),
    }
}

pub use super::offline::settle;

/// Pins times and durations of every loaded notification, so that screens are comparable.
pub fn normalize(state: &mut State) {
    let at = chrono::Utc
        .with_ymd_and_hms(2030, 1, 1, 11, 58, 0)
        .single()
        .expect("time");
    let fix = |n: &mut Notification| {
        n.created_at = at;
        for a in &mut n.attempts {
            a.created_at = at;
            if let Some(r) = a.webhook_request.as_mut() {
                r.created_at = at;
                r.duration = 7;
            }
        }
    };
    for ts in &mut state.tabs {
        let detail = ts.detail.as_mut().and_then(|d| d.record.as_mut());
        for r in ts.list.rows.iter_mut().chain(detail) {
            match &mut r.item {
                Item::Notification(n) => fix(std::sync::Arc::make_mut(n)),
                Item::Destination(d) => std::sync::Arc::make_mut(d).created_at = at,
                _ => {}
            }
        }
    }
    if let Some(v) = state.deliveries.attempt.as_mut() {
        fix(&mut v.notification);
    }
    if let Some(h) = state.deliveries.health.as_mut() {
        h.items.iter_mut().for_each(fix);
    }
    // The destination's health: its latency is the machine's, like the durations above.
    if let Some((_, Some(Ok(s)))) = state.deliveries.stats.as_mut() {
        let l = &mut s.latency_ms;
        for p in [&mut l.p50, &mut l.p95, &mut l.p99].into_iter().flatten() {
            *p = 7;
        }
    }
    for h in state.caches.glance.values_mut() {
        for d in &mut h.deliveries {
            d.at = at;
            d.duration_ms = d.duration_ms.map(|_| 7);
        }
    }
}

pub(crate) use super::screen;

/// Replaces each `secret` by a same-length placeholder, and blanks values after `date: ` and
/// `metorial-signature: ` (they change with every run) up to the pane border, and the rows a
/// signature wraps onto.
pub fn redact(text: &str, volatile: &[String]) -> String {
    let mut s = text.to_string();
    // Chips show ids cut to 12 characters and `…`, an ID column to its width: every cut from
    // the longest, so that no shorter one leaves a tail of a longer one.
    let cut: Vec<String> = volatile
        .iter()
        .filter(|v| v.chars().count() > 13)
        .flat_map(|v| {
            (12..v.chars().count())
                .rev()
                .map(|n| v.chars().take(n).collect())
        })
        .collect();
    // Longest first across every value, not per value: two ids made in the same instant share
    // their first 12 characters, and one's short cut must not eat into the other's longer one.
    let mut all: Vec<&String> = volatile
        .iter()
        .chain(&cut)
        .filter(|v| !v.is_empty())
        .collect();
    all.sort_by_key(|v| std::cmp::Reverse(v.chars().count()));
    for v in all {
        let keep = v.find('_').map_or(0, |i| i + 1);
        let placeholder: String = v
            .chars()
            .enumerate()
            .map(|(i, c)| if i < keep { c } else { '•' })
            .collect();
        s = s.replace(v.as_str(), &placeholder);
    }
    // A signature wraps under its label: its continuation rows are blanked too.
    let mut in_signature = false;
    s.lines()
        .map(|line| {
            let mut line = line.to_string();
            let inner = line.trim_matches('"').trim_matches('│');
            let continues = in_signature
                && inner.starts_with("  ")
                && !inner.trim().is_empty()
                && inner.trim().chars().all(|c| c.is_ascii_hexdigit());
            if continues {
                line = line
                    .chars()
                    .map(|c| if c.is_ascii_hexdigit() { '*' } else { c })
                    .collect();
            }
            in_signature = continues;
            for label in ["date: ", "metorial-signature: ", "Date: "] {
                if let Some(i) = line.find(label) {
                    let start = i + label.len();
                    let rest = &line[start..];
                    let end = rest.find(['│', '"']).unwrap_or(rest.len());
                    let blank = "*".repeat(rest[..end].chars().count());
                    line = format!("{}{}{}", &line[..start], blank, &rest[end..]);
                    in_signature |= label == "metorial-signature: ";
                }
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}
