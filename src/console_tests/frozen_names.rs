//! What users and agents have written down must not move while the inside moves: every `[keys]`
//! config name, every MCP tool (its name, whether it writes, its input's property names and the
//! ones it requires) and every headless verb and flag, as of `2aacf65`. New ones may appear; none
//! may disappear or change.
use std::collections::BTreeSet;

use crate::console::keymap::Action;
use crate::mcp::TOOLS;

/// Every `[keys]` name at `2aacf65`.
const CONFIG_NAMES: &[&str] = &[
    "quit",
    "help",
    "back",
    "open",
    "down",
    "up",
    "first",
    "last",
    "next_page",
    "prev_page",
    "toggle_order",
    "reload",
    "next_tab",
    "prev_tab",
    "tab_teams",
    "tab_imports",
    "tab_callbacks",
    "tab_destinations",
    "tab_notifications",
    "command",
    "filter",
    "sort",
    "sort_flip",
    "raw_json",
    "copy_id",
    "copy_json",
    "next_match",
    "prev_match",
    "create",
    "edit",
    "delete",
    "set_project",
    "remove_project",
    "add_member",
    "remove_member",
    "follow_destinations",
    "follow_notifications",
    "notification_filter",
    "watch",
    "reveal",
    "local_status",
    "clear_filters",
    "replay",
    "mark",
    "mark_range",
    "mark_all",
    "recover",
    "forward",
    "compare",
];

/// Every MCP tool at `2aacf65`: name, writes, property names, required properties.
const TOOLS_AT: &[(&str, bool, &[&str], &[&str])] = &[
    (
        "list_teams",
        false,
        &["after", "before", "limit", "order"],
        &[],
    ),
    ("get_team", false, &["id"], &["id"]),
    (
        "list_members",
        false,
        &["after", "before", "limit", "order"],
        &[],
    ),
    (
        "list_imports",
        false,
        &["after", "before", "limit", "order"],
        &[],
    ),
    ("get_import", false, &["id"], &["id"]),
    (
        "list_callbacks",
        false,
        &["after", "before", "limit", "order"],
        &[],
    ),
    ("get_callback", false, &["id"], &["id"]),
    (
        "list_destinations",
        false,
        &["after", "before", "callback_ids", "limit", "order"],
        &[],
    ),
    ("get_destination", false, &["id"], &["id"]),
    (
        "list_notifications",
        false,
        &[
            "after",
            "before",
            "callback_ids",
            "destination_ids",
            "event_ids",
            "limit",
            "order",
        ],
        &[],
    ),
    ("get_notification", false, &["id"], &["id"]),
    (
        "get_attempt",
        false,
        &["attempt", "notification_id"],
        &["notification_id"],
    ),
    (
        "destination_stats",
        false,
        &["destination_id", "window"],
        &["destination_id"],
    ),
    (
        "verify_signature",
        false,
        &["attempt", "notification_id"],
        &["notification_id"],
    ),
    // A write since issue 36 (it sends signed requests, so it is offered only with writes allowed).
    (
        "replay_locally",
        true,
        &["attempt", "notification_id", "to", "unsigned"],
        &["notification_id", "to"],
    ),
    ("create_team", true, &["description", "name"], &["name"]),
    ("update_team", true, &["description", "id", "name"], &["id"]),
    (
        "create_destination",
        true,
        &[
            "all_callbacks",
            "callback_ids",
            "description",
            "name",
            "url",
        ],
        &["name", "url"],
    ),
    (
        "update_destination",
        true,
        &["description", "id", "name"],
        &["id"],
    ),
    ("delete_destination", true, &["id"], &["id"]),
];

#[test]
fn every_config_name_of_2aacf65_still_names_its_action() {
    let now: BTreeSet<&str> = Action::all().into_iter().map(Action::config_name).collect();
    let gone: Vec<&&str> = CONFIG_NAMES.iter().filter(|n| !now.contains(**n)).collect();
    assert!(gone.is_empty(), "[keys] names that disappeared: {gone:?}");
    for name in CONFIG_NAMES {
        let action = Action::from_config_name(name);
        assert_eq!(
            action.map(Action::config_name),
            Some(*name),
            "[keys] {name} no longer round-trips"
        );
    }
}

#[test]
fn every_mcp_tool_of_2aacf65_keeps_its_name_and_input_schema() {
    for (name, write, props, required) in TOOLS_AT {
        let Some(def) = TOOLS.iter().find(|t| t.name == *name) else {
            panic!("MCP tool {name} disappeared");
        };
        assert_eq!(def.write, *write, "{name}: writes changed");
        let schema = def.input_schema();
        let got: BTreeSet<&str> = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let want: BTreeSet<&str> = props.iter().copied().collect();
        // A property may be added (an agent's old call still fits); none may go or be renamed.
        assert!(
            got.is_superset(&want),
            "{name}: input properties removed or renamed: had {want:?}, now {got:?}"
        );
        let req: BTreeSet<&str> = schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let want_req: BTreeSet<&str> = required.iter().copied().collect();
        assert_eq!(req, want_req, "{name}: required properties changed");
    }
}

/// `resource verb --flag …` for every headless verb, walked from the clap grammar.
fn headless_grammar() -> BTreeSet<String> {
    use clap::Subcommand;
    let root = crate::headless::Resource::augment_subcommands(clap::Command::new("switchboard"));
    let mut out = BTreeSet::new();
    for res in root.get_subcommands() {
        for verb in res.get_subcommands() {
            let mut line = format!("{} {}", res.get_name(), verb.get_name());
            let mut args: Vec<String> = verb
                .get_arguments()
                .map(|a| match a.get_long() {
                    Some(l) => format!("--{l}"),
                    None => a.get_id().to_string().to_uppercase(),
                })
                .collect();
            args.sort();
            for a in args {
                line.push(' ');
                line.push_str(&a);
            }
            out.insert(line);
        }
    }
    out
}

#[test]
fn every_headless_verb_and_flag_of_2aacf65_is_still_there() {
    let now = headless_grammar();
    for line in HEADLESS_AT {
        let mut words = line.split(' ');
        let head = format!(
            "{} {}",
            words.next().unwrap_or_default(),
            words.next().unwrap_or_default()
        );
        let Some(found) = now
            .iter()
            .find(|l| l.split(' ').take(2).collect::<Vec<_>>().join(" ") == head)
        else {
            panic!("headless verb {head} disappeared");
        };
        let have: BTreeSet<&str> = found.split(' ').skip(2).collect();
        for w in words {
            assert!(have.contains(w), "{head}: {w} disappeared (now: {found})");
        }
    }
}

/// Every headless verb with its arguments at `2aacf65`.
const HEADLESS_AT: &[&str] = &[
    "callbacks get ID",
    "callbacks list --after --all --before --cursor --limit --order",
    "destinations create --all-callbacks --callback --description --name --url",
    "destinations delete --yes ID",
    "destinations get ID",
    "destinations list --after --all --before --callback --cursor --limit --order",
    "destinations stats --window ID",
    "destinations update --clear-description --description --name ID",
    "imports create --access-token-env --access-token-stdin --connection --expires-at --id-token-env --metadata --note --scope --server-deployment --token-type",
    "imports get ID",
    "imports list --after --all --before --cursor --limit --order",
    "imports update --access-token-env --access-token-stdin --expires-at --id-token-env --metadata --note --scope --token-type ID",
    "members list --after --all --before --cursor --limit --order --team",
    "notifications diff --attempt --with-attempt --with-replay ID",
    "notifications forward --callback --destination --event-type --from --interval --resume --since --to --unsigned --yes",
    "notifications get ID",
    "notifications list --after --all --before --callback --cursor --destination --event --interval --limit --order --watch",
    "notifications recover --again --callback --concurrency --destination --dry-run --event --event-type --retried --since --status --to --until --yes",
    "notifications replay --attempt --to --unsigned --yes ID",
    "notifications wait --callback --count --destination --event --event-type --for --interval --retried --since --status --timeout --until",
    "projects list --after --all --before --cursor --limit --order",
    "team-roles list --after --all --before --cursor --limit --order",
    "teams add-member ID MEMBER",
    "teams create --description --name",
    "teams get ID",
    "teams list --after --all --before --cursor --limit --order",
    "teams remove-member ID MEMBER",
    "teams remove-project ID PROJECT",
    "teams set-project --project --role ID",
    "teams update --description --name ID",
];
