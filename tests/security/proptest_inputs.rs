//! Property tests over everything that parses outside input: decoding every response type from
//! arbitrary and mutated JSON, the client's error parsing, the console's page decoding, the
//! service's query parsing (Union forms, paging, cursors), secret masking and the time parsers.
use crate::common;

use common::{fixture, fixtures_of};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use switchboard::api::client::{decode, parse_error_body};
use switchboard::api::model::*;
use switchboard::api::secret::{mask, mask_url_key};
use switchboard::api::{ApiError, ApiRequest, Page, Secret};
use switchboard::console::Tab;
use switchboard::console::harness::{decode_item, decode_page};
use switchboard::headless::parse_expires_at;
use switchboard::service::paging::{Anchor, ListParams, encode_cursor, parse_pairs, union};

const FIXTURES: [&str; 19] = [
    "callback-list.json",
    "callback.json",
    "destination-list.json",
    "destination.json",
    "error-bad-request.json",
    "error-invalid-data.json",
    "error-not-found.json",
    "error-rate-limited.json",
    "error-unauthorized.json",
    "import-created.json",
    "import-list.json",
    "import.json",
    "member-list.json",
    "notification-list.json",
    "notification.json",
    "project-list.json",
    "team-list.json",
    "team-role-list.json",
    "team.json",
];

/// Decodes `body` as every response type; any outcome but a panic is fine.
fn decode_all(status: u16, body: &str) {
    fn one<T: DeserializeOwned>(status: u16, body: &str) {
        let _ = decode::<T>(status, body);
    }
    one::<Page<Team>>(status, body);
    one::<Page<ProviderOauthImport>>(status, body);
    one::<Page<Callback>>(status, body);
    one::<Page<Destination>>(status, body);
    one::<Page<Notification>>(status, body);
    one::<Page<Member>>(status, body);
    one::<Page<Project>>(status, body);
    one::<Page<TeamRole>>(status, body);
    one::<Team>(status, body);
    one::<ProviderOauthImport>(status, body);
    one::<Callback>(status, body);
    one::<Destination>(status, body);
    one::<Notification>(status, body);
    one::<ApiError>(status, body);
    one::<serde_json::Value>(status, body);
    for tab in Tab::ALL {
        let _ = decode_page(tab, status, body);
        let _ = decode_item(tab, status, body);
    }
}

/// One edit of a fixture: cut it, drop a span, repeat a span or overwrite bytes.
#[derive(Debug, Clone)]
enum Edit {
    Truncate(usize),
    Remove(usize, usize),
    Duplicate(usize, usize),
    Overwrite(usize, String),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Remove(a, n)),
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (
            any::<usize>(),
            prop_oneof![
                Just("null".to_string()),
                Just("\"\"".to_string()),
                Just("-1e999".to_string()),
                Just("[".to_string()),
                Just("{}".to_string()),
                Just("\"\\ud800\"".to_string()),
                Just("18446744073709551616".to_string()),
                "[ -~]{0,8}",
                "\\PC{0,4}",
            ]
        )
            .prop_map(|(a, s)| Edit::Overwrite(a, s)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Truncate(i) => b.truncate(at(*i, b.len())),
            Edit::Remove(i, n) => {
                let s = at(*i, b.len());
                let end = (s + n).min(b.len());
                b.drain(s..end);
            }
            Edit::Duplicate(i, n) => {
                let s = at(*i, b.len());
                let end = (s + n).min(b.len());
                let span = b[s..end].to_vec();
                b.splice(s..s, span);
            }
            Edit::Overwrite(i, t) => {
                let s = at(*i, b.len());
                let end = (s + t.len()).min(b.len());
                b.splice(s..end, t.bytes());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Any JSON value, nested a few levels.
fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("2025-10-24T15:30:00Z"),
            Just("active"),
            Just("webhook"),
            Just("tem_1")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z_]{1,10}",
                        Just("items".to_string()),
                        Just("id".to_string()),
                        Just("status".to_string()),
                        Just("pagination".to_string()),
                        Just("created_at".to_string()),
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn mutated_fixtures_never_panic(
        idx in 0..FIXTURES.len(),
        edits in prop::collection::vec(edit(), 1..4),
        status in prop_oneof![Just(200u16), Just(201), Just(400), Just(404), 100u16..600],
    ) {
        let body = apply(&fixture(FIXTURES[idx]), &edits);
        decode_all(status, &body);
        let _ = parse_error_body(status, &body);
    }

    #[test]
    fn arbitrary_json_never_panics(v in json()) {
        let body = v.to_string();
        decode_all(200, &body);
        // Also as the items of a page.
        let page = serde_json::json!({ "items": [v.clone(), v], "pagination": { "has_more_after": true } });
        decode_all(200, &page.to_string());
    }

    #[test]
    fn arbitrary_text_never_panics(body in "\\PC{0,200}") {
        decode_all(200, &body);
    }

    #[test]
    fn error_parsing_keeps_the_status_and_stays_short(status in 100u16..1000, body in "\\PC{0,600}") {
        let e = parse_error_body(status, &body);
        if serde_json::from_str::<ApiError>(&body).is_err() {
            prop_assert_eq!(e.status, status);
            prop_assert!(e.message.chars().count() < 260, "{}", e.message);
            prop_assert!(!e.code.is_empty());
        }
    }

    #[test]
    fn secrets_never_print_whole(s in "\\PC{1,64}") {
        let secret = Secret::new(s.clone());
        let masked = secret.masked();
        prop_assert_eq!(&masked, &mask(&s));
        prop_assert_eq!(format!("{secret}"), masked.clone());
        prop_assert_eq!(format!("{secret:?}"), format!("Secret({masked})"));
        // At most 5 characters of the value, none of a short one, about a third of a longer one.
        let n = s.chars().count();
        let shown = masked.strip_suffix('…').expect("ends with an ellipsis");
        prop_assert!(s.starts_with(shown));
        let kept = shown.chars().count();
        prop_assert!(kept <= 5.min(n * 5 / 16), "{kept} of {n}");
    }

    #[test]
    fn hook_url_keys_never_print_whole(
        host in "[a-z0-9.]{1,20}(:[0-9]{1,5})?",
        path in "(/[a-z_]{1,8}){0,3}",
        key in "[A-Za-z0-9]{8,64}",
        slash in any::<bool>(),
    ) {
        let url = format!("https://{host}{path}/{key}{}", if slash { "/" } else { "" });
        let shown = mask_url_key(&url);
        // The address stays recognisable; the key shows at most its first 5 characters.
        prop_assert!(shown.starts_with(&format!("https://{host}{path}/")), "{shown}");
        prop_assert!(!shown.contains(&key), "{shown}");
        prop_assert_eq!(shown, format!("https://{host}{path}/{}", mask(&key)));
    }

    #[test]
    fn query_parsing_never_panics(raw in "[a-z_\\[\\]0-9=&%+.-]{0,80}|\\PC{0,40}") {
        let pairs = parse_pairs(Some(&raw));
        for key in ["status", "callback_id", "event_type", "limit"] {
            let _ = union(&pairs, key);
        }
        let _ = ListParams::from_pairs(&pairs).is_ok();
    }

    #[test]
    fn union_reads_every_form(values in prop::collection::vec("[a-z0-9_]{1,8}", 1..5), form in 0usize..4) {
        let key = "callback_id";
        let raw = values
            .iter()
            .enumerate()
            .map(|(i, v)| match (form, i) {
                (0, 0) => format!("{key}={v}"),
                (0, _) | (1, _) => format!("{key}={v}"),
                (2, _) => format!("{key}%5B%5D={v}"),
                _ => format!("{key}%5B{i}%5D={v}"),
            })
            .collect::<Vec<_>>()
            .join("&");
        let raw = if form == 0 { format!("{key}={}", values[0]) } else { raw };
        let want: Vec<String> = if form == 0 { vec![values[0].clone()] } else { values.clone() };
        let pairs = parse_pairs(Some(&format!("{raw}&{key}x=zz&limit=5")));
        prop_assert_eq!(union(&pairs, key), want);
    }

    #[test]
    fn paging_limits_are_validated(
        limit in prop_oneof![-5i64..130, any::<i64>()],
        order in prop_oneof![Just("asc"), Just("desc"), Just("ASC"), Just("up")],
    ) {
        let pairs = parse_pairs(Some(&format!("limit={limit}&order={order}")));
        let valid = (1..=100).contains(&limit) && (order == "asc" || order == "desc");
        match ListParams::from_pairs(&pairs) {
            Ok(p) => {
                prop_assert!(valid);
                prop_assert_eq!(p.limit as i64, limit);
            }
            Err(_) => prop_assert!(!valid),
        }
    }

    #[test]
    fn cursors_round_trip(id in "[A-Za-z0-9_]{1,30}", after in any::<bool>()) {
        let anchor = if after { Anchor::After(id) } else { Anchor::Before(id) };
        let cursor = encode_cursor(&anchor).expect("an id anchor has a cursor");
        prop_assert!(cursor.starts_with("cur_"));
        let pairs = parse_pairs(Some(&format!("cursor={cursor}")));
        let p = ListParams::from_pairs(&pairs).expect("own cursor accepted");
        prop_assert_eq!(p.anchor, anchor);
    }

    #[test]
    fn time_parsers_never_panic(s in "\\PC{0,40}|\\+[0-9]{0,5}[mhdwx]?|[0-9T:Z.+-]{0,30}") {
        if let Ok(t) = parse_expires_at(&s) {
            // What it returns is itself a valid timestamp.
            prop_assert!(switchboard::api::model::time::parse(&t).is_some(), "{t}");
        }
        let _ = switchboard::api::model::time::parse(&s);
    }
}

#[test]
fn huge_relative_times_never_panic() {
    for s in [
        "+3000000d",
        "+99999999999w",
        "+9223372036854775807m",
        "+-1d",
        "+d",
        "+",
    ] {
        let _ = parse_expires_at(s);
    }
}

/// Found by `time_parsers_never_panic`: `+3000000d` yields year 10240, written as
/// `+10240-08-12T…Z`, which `time::parse` (and the API) cannot read back.
#[test]
fn relative_expiry_stays_readable() {
    if let Ok(t) = parse_expires_at("+3000000d") {
        assert!(
            switchboard::api::model::time::parse(&t).is_some(),
            "{t} is not a timestamp the API takes"
        );
    }
}

#[test]
fn every_fixture_list_decodes_as_its_tab() {
    // The mutated-fixture property starts from valid inputs: check that they are.
    for tab in Tab::ALL {
        let (list, item) = fixtures_of(tab);
        assert!(decode_page(tab, 200, &fixture(list)).is_ok(), "{list}");
        assert!(decode_item(tab, 200, &fixture(item)).is_ok(), "{item}");
    }
}

/// Every operation that takes ids, as (name, fixed segments with `{}` where an id goes, builder).
#[allow(clippy::type_complexity)]
fn id_operations() -> Vec<(
    &'static str,
    Vec<&'static str>,
    Box<dyn Fn(&str) -> ApiRequest>,
)> {
    use switchboard::api::ApiRequest as R;
    vec![
        (
            "get_team",
            vec!["organization", "teams", "{}"],
            Box::new(R::get_team),
        ),
        (
            "update_team",
            vec!["organization", "teams", "{}"],
            Box::new(|id| R::update_team(id, &UpdateTeam::default())),
        ),
        (
            "set_team_project",
            vec!["organization", "teams", "{}", "projects"],
            Box::new(|id| R::set_team_project(id, &SetTeamProject::default())),
        ),
        (
            "remove_team_project (team)",
            vec!["organization", "teams", "{}", "projects", "prj_1"],
            Box::new(|id| R::remove_team_project(id, "prj_1")),
        ),
        (
            "remove_team_project (project)",
            vec!["organization", "teams", "tm_1", "projects", "{}"],
            Box::new(|id| R::remove_team_project("tm_1", id)),
        ),
        (
            "add_team_member",
            vec!["organization", "teams", "{}", "members"],
            Box::new(|id| R::add_team_member(id, "oac_1")),
        ),
        (
            "remove_team_member (team)",
            vec!["organization", "teams", "{}", "members", "oac_1"],
            Box::new(|id| R::remove_team_member(id, "oac_1")),
        ),
        (
            "remove_team_member (actor)",
            vec!["organization", "teams", "tm_1", "members", "{}"],
            Box::new(|id| R::remove_team_member("tm_1", id)),
        ),
        (
            "get_import",
            vec!["provider-oauth", "token-imports", "{}"],
            Box::new(R::get_import),
        ),
        (
            "update_import",
            vec!["provider-oauth", "token-imports", "{}"],
            Box::new(|id| R::update_import(id, &UpdateImport::default())),
        ),
        (
            "get_callback",
            vec!["callbacks", "{}"],
            Box::new(R::get_callback),
        ),
        (
            "get_destination",
            vec!["callbacks-destinations", "{}"],
            Box::new(R::get_destination),
        ),
        (
            "update_destination",
            vec!["callbacks-destinations", "{}"],
            Box::new(|id| R::update_destination(id, &UpdateDestination::default())),
        ),
        (
            "delete_destination",
            vec!["callbacks-destinations", "{}"],
            Box::new(R::delete_destination),
        ),
        (
            "get_notification",
            vec!["callbacks-notifications", "{}"],
            Box::new(R::get_notification),
        ),
    ]
}

/// Percent-decoding of one path segment, written here rather than taken from the library.
fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).expect("ascii");
            out.push(u8::from_str_radix(hex, 16).expect("hex"));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Ids worth trying: dot segments and URL structure characters mixed into anything.
fn hostile_id() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(".".to_string()),
        Just("..".to_string()),
        "[./%?#\\\\;a-zA-Z0-9 +&=@:~-]{0,8}",
        "(%2e|%2E|\\.|/|\\\\|%2f|%00|\\?|#){1,4}",
        "\\PC{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the id, every operation either refuses it (empty, `.`, `..`: exit 2) or sends
    /// exactly its own path with the id as one segment that decodes back to the id, under a base
    /// URL with a path of its own, with no query or fragment appearing.
    #[test]
    fn every_id_is_exactly_one_path_segment(id in hostile_id(), base_path in prop_oneof![Just(""), Just("/"), Just("/v1/")]) {
        let base = url::Url::parse(&format!("https://api.example.com{base_path}")).expect("base");
        let prefix: Vec<&str> = base.path_segments().into_iter().flatten().filter(|s| !s.is_empty()).collect();
        for (name, shape, build) in id_operations() {
            let req = build(&id);
            let got = req.url(&base);
            if matches!(id.as_str(), "" | "." | "..") {
                let e = got.expect_err(name);
                prop_assert_eq!(e.exit_code(), 2, "{}", name);
                continue;
            }
            let u = got.map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
            // What a server parses from the request line is what was built.
            let reparsed = url::Url::parse(u.as_str()).expect("reparses");
            prop_assert_eq!(reparsed.query(), None, "{}", name);
            prop_assert_eq!(reparsed.fragment(), None, "{}", name);
            prop_assert_eq!(reparsed.host_str(), Some("api.example.com"));
            let segs: Vec<&str> = reparsed.path_segments().expect("segments").collect();
            let want: Vec<Vec<u8>> = prefix.iter().map(|s| s.as_bytes().to_vec())
                .chain(shape.iter().map(|s| if *s == "{}" { id.as_bytes().to_vec() } else { s.as_bytes().to_vec() }))
                .collect();
            let decoded: Vec<Vec<u8>> = segs.iter().map(|s| percent_decode(s)).collect();
            prop_assert_eq!(decoded, want, "{} {:?} → {}", name, id, u);
        }
    }
}
