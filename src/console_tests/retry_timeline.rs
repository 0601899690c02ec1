//! The retry timeline in a notification's detail (issue 38): the attempt to come, when it is due
//! and when the platform gives up, by pulsar's rule, marked as estimates, on the rendered screen.
use crate::common;

use common::*;
use crossterm::event::KeyCode;
use switchboard::console::record::decode_item_body;
use switchboard::console::{ApiCmd, ApiReply, Msg, Tab};

/// The fixture's notification retrying after nine failed attempts, the last at 16:04:50 UTC
/// taking 10 s (the fixed clock says 16:05:00 UTC, shown at UTC+2).
fn retrying() -> String {
    let mut n: serde_json::Value =
        serde_json::from_str(&fixture("notification.json")).expect("fixture");
    let first = n["attempts"][0].clone();
    let attempts: Vec<serde_json::Value> = (0..9)
        .map(|i| {
            let mut a = first.clone();
            a["index"] = i.into();
            a["created_at"] = "2025-10-24T16:04:50.160Z".into();
            a["webhook_request"]["created_at"] = "2025-10-24T16:04:50.160Z".into();
            a
        })
        .collect();
    n["attempts"] = attempts.into();
    n["status"] = "retrying".into();
    n.to_string()
}

#[test]
fn the_detail_says_which_attempt_comes_when_and_when_it_gives_up() {
    // The preview beside the list as wide as it was at 300 columns before the list kept its
    // columns whole (issue 37 item 12).
    let mut app = started_app(340, 50);
    answer_all(&mut app);
    app.apply(ch('5'));
    answer_all(&mut app);
    app.apply(key(KeyCode::Enter));
    let body = retrying();
    for r in app.take_requests() {
        if let ApiCmd::Get { tab, .. } = &r.cmd {
            assert_eq!(*tab, Tab::Notifications);
            let item = decode_item_body(*tab, 200, &body).expect("decodes");
            app.apply(Msg::Api {
                req_id: r.req_id,
                pane: r.pane,
                result: Ok(ApiReply::Item(item)),
            });
        }
    }
    let s = screen(&app);
    // Nine failed: the tenth waits 2^9 s from 16:05:00.163 (16:13:32 UTC, 18:13 shown); the
    // twentieth follows 2^10 s and nine half hours later (21:00:36 UTC, 23:00 shown).
    let line = s
        .lines()
        .find(|l| l.contains("Retries"))
        .unwrap_or_else(|| panic!("a retry line:\n{s}"));
    assert!(
        line.contains(
            "attempt 10 of 20, next ≈ 2025-10-24 18:13 (in 9 min), gives up ≈ 2025-10-24 23:00 (in 4 h) (≈: estimated"
        ),
        "{line}"
    );
}
