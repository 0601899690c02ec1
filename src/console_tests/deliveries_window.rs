//! `:view today` on event-destinations' Deliveries (issue 38) over real HTTP: the platform's list
//! has no time filter, so the worker reads it newest first up to the first delivery created before
//! midnight (the console's clock) and the list shows exactly those, the window said in the title
//! as on pulsar's Notifications; `l` cycling the server's status back to "all" closes it.
use crossterm::event::KeyCode;
use serde_json::Value;
use switchboard::api::generation::Generation;
use switchboard::api::newer_requests::DeliveryFilter;
use switchboard::api::{ApiRequest, Client, ListQuery, Order, Page};
use switchboard::console::harness::Harness;
use switchboard::console::{Clock, Tab};

use super::search_generations::{client, service};

/// Every delivery, newest first (the list's ids follow creation time).
async fn newest_first(c: &Client) -> Vec<(String, chrono::DateTime<chrono::Utc>, String)> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let q = ListQuery {
            limit: Some(100),
            after: after.clone(),
            order: Some(Order::Desc),
            ..ListQuery::default()
        };
        let raw = c
            .send(&ApiRequest::list_deliveries(&q, &DeliveryFilter::default()))
            .await
            .expect("a page");
        let page: Page<Value> = serde_json::from_str(&raw.body).expect("JSON");
        for v in &page.items {
            let id = v["id"].as_str().expect("id").to_string();
            let at = v["created_at"]
                .as_str()
                .and_then(|t| t.parse().ok())
                .expect("created_at");
            let status = v["status"].as_str().unwrap_or_default().to_string();
            out.push((id, at, status));
        }
        match page.items.last() {
            Some(v) if page.pagination.has_more_after => {
                after = v["id"].as_str().map(str::to_string);
            }
            _ => return out,
        }
    }
}

fn title(app: &Harness) -> String {
    app.screen()
        .lines()
        .find(|l| l.contains("Deliveries ·"))
        .unwrap_or_default()
        .to_string()
}

/// The delivery ids drawn in the list's rows (left of the preview), top to bottom.
fn drawn_ids(app: &Harness) -> Vec<String> {
    app.screen()
        .lines()
        .filter_map(|l| {
            // A row of the list, not the preview beside it nor a title.
            let l = l.trim_start_matches('"').strip_prefix('│')?;
            let l = l.split("││").next()?;
            let at = l.find("evdi_")?;
            let id: String = l[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            Some(id)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_today_view_windows_event_destinations_deliveries_on_the_worker() {
    // Four weeks of history: a past midnight puts some deliveries before "today", some after.
    let svc = service(Generation::EventDestinations, 60).await;
    let c = client(&svc, 200);
    let all = newest_first(&c).await;
    let now = chrono::Utc::now();
    // A day whose midnight leaves a screenful or less after it, and some history before.
    let (midnight, inside) = (1..27)
        .map(|d| {
            let m = (now - chrono::Duration::days(d))
                .date_naive()
                .and_hms_opt(0, 0, 0)
                .expect("midnight")
                .and_utc();
            let inside: Vec<String> = all
                .iter()
                .filter(|(_, at, _)| *at >= m)
                .map(|(id, _, _)| id.clone())
                .collect();
            (m, inside)
        })
        .filter(|(_, inside)| inside.len() < all.len() && inside.len() <= 15)
        .max_by_key(|(_, inside)| inside.len())
        .expect("a midnight between deliveries");
    assert!(!inside.is_empty(), "the demo's deliveries are recent");

    // The console's clock on that day: its "today" starts at that midnight.
    let clock = Clock::Fixed {
        now: midnight + chrono::Duration::hours(13),
        offset: chrono::FixedOffset::east_opt(0).expect("offset"),
    };
    let mut app = Harness::with_client("gen", c.clone(), clock, (220, 40));
    app.show_generation(Generation::EventDestinations);
    app.settle().await.expect("idle");
    app.ch(':').type_text("view today").key(KeyCode::Enter);
    app.settle().await.expect("idle");
    assert_eq!(app.tab(), Tab::Deliveries, "{}", app.screen());
    let day = midnight.format("%Y-%m-%d 00:00").to_string();
    assert!(
        title(&app).contains(&format!("[since {day}]")),
        "{}",
        app.screen()
    );
    assert_eq!(drawn_ids(&app), inside, "{}", app.screen());
    assert!(
        all.len() > inside.len() + 20,
        "older ones exist to leave out"
    );

    // `l` cycles the status the platform filters, the window kept: today's delivered ones.
    let statuses = switchboard::resource::deliveries::STATUSES;
    let delivered = statuses
        .iter()
        .position(|s| *s == "delivered")
        .expect("delivered");
    for _ in 0..=delivered {
        app.ch('l');
        app.settle().await.expect("idle");
    }
    let kept: Vec<String> = all
        .iter()
        .filter(|(id, _, st)| inside.contains(id) && st == "delivered")
        .map(|(id, _, _)| id.clone())
        .collect();
    assert!(title(&app).contains("since"), "{}", app.screen());
    assert_eq!(drawn_ids(&app), kept, "{}", app.screen());

    // Back to "all" closes the window: a page of the whole list.
    for _ in delivered + 1..=statuses.len() {
        app.ch('l');
        app.settle().await.expect("idle");
    }
    assert!(!title(&app).contains("since"), "{}", app.screen());
    assert!(drawn_ids(&app).len() > inside.len(), "{}", app.screen());
    svc.shutdown().await;
}
