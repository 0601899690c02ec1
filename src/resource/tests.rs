//! The descriptions against the issue's complaints: identifying columns keep their width as the
//! terminal widens, every column sorts by what it shows, and `/` matches what is shown.
use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::*;
use crate::api::NameCache;
use crate::api::health::Health;
use crate::api::model::*;

fn page<T: DeserializeOwned>(body: &str) -> Vec<T> {
    let v: serde_json::Value = serde_json::from_str(body).expect("fixture is JSON");
    serde_json::from_value(v["items"].clone()).expect("fixture decodes")
}

fn at(s: &str) -> DateTime<Utc> {
    crate::api::model::time::parse(s).expect("time")
}

/// A notification to a destination: its event type in the body, one attempt per status code
/// (`-1`: no response), the last one deciding the status.
fn notification(id: &str, status: &str, event: &str, codes: &[i64], created: &str) -> Notification {
    let body = json!({"type": event, "eventId": "evt_1"}).to_string();
    let attempts: Vec<_> = codes
        .iter()
        .enumerate()
        .map(|(i, code)| {
            json!({
                "id": format!("cbna_{id}_{i}"), "index": i, "created_at": created,
                "status": if (200..300).contains(code) { "succeeded" } else { "failed" },
                "webhook_request": {
                    "id": "r", "url": "http://x/hook", "request_method": "POST",
                    "request_body": body, "response_status": code,
                    "duration": 40 * (i as i64 + 1) * (id.len() as i64), "created_at": created,
                    "request_error": if *code < 0 { Some("timeout after 10000 ms") } else { None },
                },
            })
        })
        .collect();
    serde_json::from_value(json!({
        "id": id, "type": "webhook_http", "status": status, "url": "http://x/hook",
        "attempts": attempts, "created_at": created,
    }))
    .expect("notification")
}

fn notifications() -> Vec<Notification> {
    vec![
        notification(
            "cbn_a",
            "retrying",
            "pull_request.opened",
            &[503, 503],
            "2026-01-01T10:00:00Z",
        ),
        notification(
            "cbn_bb",
            "succeeded",
            "file.shared",
            &[200],
            "2026-01-01T09:00:00Z",
        ),
        notification(
            "cbn_ccc",
            "failed",
            "issues.labeled",
            &[-1],
            "2026-01-01T11:00:00Z",
        ),
        notification("cbn_d", "pending", "", &[], "2026-01-01T08:00:00Z"),
        notification(
            "cbn_eeeee",
            "succeeded",
            "Issue.created",
            &[500, 201],
            "2026-01-01T12:00:00Z",
        ),
    ]
}

fn relative(t: &DateTime<Utc>) -> String {
    let now = at("2026-01-02T00:00:00Z");
    format!("{} h ago", (now - *t).num_hours())
}

/// Each notification went to a destination named by its id's length (as the console would
/// tell from its names).
fn destination_of(n: &Notification) -> Vec<String> {
    match n.id.len() {
        5 => vec!["Legacy billing".into()],
        6 => vec!["Flaky partner endpoint".into()],
        _ => Vec::new(),
    }
}

/// What a console passes: relative times, names, the deleted and the glance.
struct Faces {
    names: NameCache,
    deleted: BTreeSet<String>,
    health: BTreeMap<String, Health>,
}

impl Faces {
    fn new(destinations: &[Destination]) -> Self {
        let mut names = NameCache::new();
        names.learn_destinations(destinations);
        let mut health = BTreeMap::new();
        for (i, d) in destinations.iter().enumerate() {
            let ns: Vec<Notification> = notifications().into_iter().skip(i).collect();
            health.insert(d.id.clone(), Health::from_notifications(&ns));
        }
        let deleted = destinations.iter().take(1).map(|d| d.id.clone()).collect();
        Self {
            names,
            deleted,
            health,
        }
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            relative: Some(&relative),
            names: Some(&self.names),
            deleted: Some(&self.deleted),
            health: Some(&self.health),
            destinations_of: Some(&destination_of),
        }
    }
}

/// The number a cell shows at its start (`503`, `HTTP 503`, `83% of 12`), in the smallest unit
/// of its kind when it has one (`1.5 s` and `1 min` as ms).
fn shown_number(cell: &str) -> Option<f64> {
    let rest = cell.trim_start_matches("HTTP ");
    let lead: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
        .collect();
    let n: f64 = lead.parse().ok()?;
    let scale = match rest[lead.len()..].trim() {
        "s" => 1e3,
        "min" => 6e4,
        "h" => 3.6e6,
        _ => 1.0,
    };
    Some(n * scale)
}

/// Every sortable column's key is the value its cell shows, and sorting orders the shown cells.
fn sorts_by_what_it_shows<T>(d: &Description<T>, items: &[T], ctx: &Ctx<'_>) {
    for (i, col) in d.columns.iter().enumerate() {
        let Some(key) = col.sort else { continue };
        for it in items {
            let (cell, k) = ((col.cell)(it, ctx), key(it, ctx));
            let ok = match &k {
                SortKey::Text(t) => {
                    cell.to_lowercase() == *t || cell.to_lowercase().starts_with(&format!("{t} "))
                }
                SortKey::Number(_) => shown_number(&cell).is_some(),
                // A next run gone by reads "overdue" in the console: it sorts by its time, all
                // such runs together at the past end.
                SortKey::Time(t) => {
                    cell == ctx.when(t) || (cell == "overdue" && *t < chrono::Utc::now())
                }
                SortKey::Missing => {
                    [DASH, "never", "no deliveries"].contains(&cell.as_str())
                        || cell.ends_with("pending")
                }
            };
            assert!(ok, "{} {}: cell {cell:?} sorts as {k:?}", d.name, col.title);
        }
        for desc in [false, true] {
            let mut view: Vec<usize> = (0..items.len()).collect();
            d.sort(i, desc, items, ctx, &mut view);
            let keys: Vec<SortKey> = view.iter().map(|&j| key(&items[j], ctx)).collect();
            // Numbers as shown come out in order too.
            let shown: Vec<f64> = view
                .iter()
                .filter(|&&j| matches!(key(&items[j], ctx), SortKey::Number(_)))
                .filter_map(|&j| shown_number(&(col.cell)(&items[j], ctx)))
                .collect();
            assert!(
                shown
                    .windows(2)
                    .all(|w| if desc { w[0] >= w[1] } else { w[0] <= w[1] }),
                "{} {} desc={desc}: {shown:?}",
                d.name,
                col.title
            );
            assert!(
                keys.windows(2)
                    .all(|w| w[0].compare(&w[1], desc) != std::cmp::Ordering::Greater),
                "{} {} desc={desc}: {keys:?}",
                d.name,
                col.title
            );
        }
    }
}

/// Each column's shown text, as typed into `/`, keeps its row.
fn filters_by_what_it_shows<T>(d: &Description<T>, items: &[T], ctx: &Ctx<'_>) {
    for it in items {
        let texts = d.filter_texts(it, ctx);
        for col in d.columns {
            let cell = (col.cell)(it, ctx);
            assert!(
                matches(&cell, &texts),
                "{} {}: {cell:?} does not find its row",
                d.name,
                col.title
            );
        }
    }
}

#[test]
fn every_resource_sorts_and_filters_by_what_it_shows() {
    let destinations: Vec<Destination> =
        page(include_str!("../../tests/fixtures/destination-list.json"));
    let faces = Faces::new(&destinations);
    let ctx = faces.ctx();
    let plain = Ctx::default();
    for c in [&ctx, &plain] {
        let ns = notifications();
        sorts_by_what_it_shows(&notifications::NOTIFICATIONS, &ns, c);
        filters_by_what_it_shows(&notifications::NOTIFICATIONS, &ns, c);
        let attempts: Vec<Attempt> = ns.iter().flat_map(|n| n.attempts.clone()).collect();
        sorts_by_what_it_shows(&attempts::ATTEMPTS, &attempts, c);
        filters_by_what_it_shows(&attempts::ATTEMPTS, &attempts, c);
        sorts_by_what_it_shows(&destinations::DESTINATIONS, &destinations, c);
        filters_by_what_it_shows(&destinations::DESTINATIONS, &destinations, c);
        macro_rules! check {
            ($d:expr, $file:literal) => {{
                let items = page(include_str!(concat!("../../tests/fixtures/", $file)));
                sorts_by_what_it_shows(&$d, &items, c);
                filters_by_what_it_shows(&$d, &items, c);
            }};
        }
        check!(teams::TEAMS, "team-list.json");
        check!(teams::PROJECTS, "project-list.json");
        check!(teams::TEAM_ROLES, "team-role-list.json");
        check!(members::MEMBERS, "member-list.json");
        check!(imports::IMPORTS, "import-list.json");
        check!(callbacks::CALLBACKS, "callback-list.json");
        check!(
            provider_deployments::PROVIDER_DEPLOYMENTS,
            "generations/callback-destinations/provider-deployment-list.json"
        );
        check!(
            deployment_callback_events::DEPLOYMENT_CALLBACK_EVENTS,
            "generations/callback-destinations/callback-event-list.json"
        );
    }
}

#[test]
fn notifications_sort_by_the_event_type_shown() {
    let ns = notifications();
    let d = &notifications::NOTIFICATIONS;
    let event = d.columns.iter().position(|c| c.title == "Event");
    let event = event.expect("an Event column");
    let ctx = Ctx::default();
    let mut view: Vec<usize> = (0..ns.len()).collect();
    d.sort(event, false, &ns, &ctx, &mut view);
    let shown: Vec<String> = view
        .iter()
        .map(|&i| (d.columns[event].cell)(&ns[i], &ctx))
        .collect();
    assert_eq!(
        shown,
        [
            "file.shared",
            "Issue.created",
            "issues.labeled",
            "pull_request.opened",
            DASH
        ]
    );
    // The response status sorts as a number, then no response, the missing one last.
    let resp = d
        .columns
        .iter()
        .position(|c| c.title == "Resp")
        .expect("Resp");
    d.sort(resp, false, &ns, &ctx, &mut view);
    let shown: Vec<String> = view
        .iter()
        .map(|&i| (d.columns[resp].cell)(&ns[i], &ctx))
        .collect();
    assert_eq!(shown, ["200", "201", "503", "err", DASH]);
}

#[test]
fn filter_matches_the_shown_event_status_and_destination() {
    let destinations: Vec<Destination> =
        page(include_str!("../../tests/fixtures/destination-list.json"));
    let faces = Faces::new(&destinations);
    let ctx = faces.ctx();
    let d = &notifications::NOTIFICATIONS;
    let ns = notifications();
    let hits = |q: &str| -> Vec<String> {
        ns.iter()
            .filter(|n| matches(q, &d.filter_texts(n, &ctx)))
            .map(|n| n.id.clone())
            .collect()
    };
    assert_eq!(hits("shared"), ["cbn_bb"]);
    assert_eq!(hits("503"), ["cbn_a"]);
    assert_eq!(hits("legacy"), ["cbn_a", "cbn_d"]);
    assert_eq!(hits("flaky 200"), ["cbn_bb"]);
    assert_eq!(hits("2026-01-01 11"), ["cbn_ccc"]);
    // A deleted destination says so where it is named.
    let first = &destinations[0];
    let name = (destinations::DESTINATIONS.columns[0].cell)(first, &ctx);
    assert!(name.ends_with("(deleted)"), "{name}");
}

/// The widest Event and Destination cells of the notifications, at a terminal `total` wide.
fn identifying_widths(total: u16) -> Vec<u16> {
    let destinations: Vec<Destination> =
        page(include_str!("../../tests/fixtures/destination-list.json"));
    let faces = Faces::new(&destinations);
    let d = &notifications::NOTIFICATIONS;
    let w = d.widths(&notifications(), &faces.ctx(), total, 1);
    d.columns
        .iter()
        .zip(w)
        .filter(|(c, _)| c.width.identifying)
        .map(|(_, w)| w)
        .collect()
}

#[test]
fn identifying_columns_get_their_width_first_and_keep_it() {
    // `pull_request.opened` (19) and `Flaky partner endpoint` (22) whole at 80, 120 and 200.
    for total in [80, 120, 200] {
        assert_eq!(identifying_widths(total), [19, 22], "at {total}");
    }
    let mut before = identifying_widths(40);
    for total in 41..=250 {
        let now = identifying_widths(total);
        assert!(
            now.iter().zip(&before).all(|(a, b)| a >= b),
            "{before:?} → {now:?} at {total}"
        );
        before = now;
    }
    // And every description's identifying columns: never narrower on a wider terminal.
    let teams: Vec<Team> = page(include_str!("../../tests/fixtures/team-list.json"));
    let ctx = Ctx::default();
    let mut before = teams::TEAMS.widths(&teams, &ctx, 40, 1);
    for total in 41..=250 {
        let now = teams::TEAMS.widths(&teams, &ctx, total, 1);
        assert!(now.iter().zip(&before).all(|(a, b)| a >= b), "{total}");
        before = now;
    }
}

#[test]
fn ids_and_words_name_their_resource() {
    assert_eq!(resource_of_id("cbn_1"), Some("notifications"));
    assert_eq!(resource_of_id("cbna_1"), Some("attempts"));
    assert_eq!(resource_of_id("cld_x"), Some("destinations"));
    assert_eq!(resource_of_id("cld_"), None);
    assert!(destinations::DESTINATIONS.aliases.contains(&"dest"));
    // Within a generation a word names one resource (`:teams` is each generation's teams).
    for g in crate::api::generation::Generation::ALL {
        let mut words = HashSet::new();
        // The registry's resources first, in its order, then the lookups'.
        for (i, (_, aliases, _)) in words_and_prefixes().into_iter().enumerate() {
            if Kind::ALL.get(i).is_some_and(|k| !k.served_by(g)) {
                continue;
            }
            for a in aliases {
                assert!(words.insert(*a), "{a} names two resources of {g:?}");
            }
        }
    }
}

#[test]
fn a_body_shows_its_start_on_one_line() {
    let body = format!("{{\n  \"error\": \"{}\"\n}}", "漢".repeat(5_000));
    let lines = notifications::body_start(&body);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("{   \"error\""), "{}", lines[0]);
    assert!(display_width(&lines[0]) <= 500 && lines[0].ends_with('…'));
    assert!(lines[1].contains(&format!("{} bytes", body.len())));
    assert_eq!(notifications::body_start("ok\r\nfine"), ["ok  fine"]);
}

/// A resource's own module can build its list and get (`ApiRequest::list_at`/`get_at`) exactly
/// as `api/request.rs`'s named builders do, and its item is described by its registry entry.
#[test]
fn a_resource_builds_its_requests_and_is_described_by_the_registry() {
    use crate::api::{ApiRequest, ListQuery};
    let q = ListQuery {
        limit: Some(5),
        after: Some("clb_1".into()),
        ..ListQuery::default()
    };
    assert_eq!(
        ApiRequest::list_at(&["callbacks"], &q),
        ApiRequest::list_callbacks(&q)
    );
    assert_eq!(
        ApiRequest::get_at(&["callbacks", "clb_1"]),
        ApiRequest::get_callback("clb_1")
    );
    assert!(std::ptr::eq(
        <Callback as Described>::description(),
        &raw const callbacks::CALLBACKS
    ));
    assert!(std::ptr::eq(
        <Destination as Described>::description(),
        &raw const destinations::DESTINATIONS
    ));
}
