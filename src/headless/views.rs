//! `--view NAME` on every `list` (issue 38): a saved view's order, filters, status and columns
//! applied to the command before it runs, each only where the command line left it unset (a flag
//! given wins). A view's status filter applies as `notifications list --status` does (looked for
//! page by page within the walk's budget), `since` bounds the same walk, its columns become
//! `--fields`. A view is for one resource: applied to another's list it is a usage error.
use chrono::{DateTime, Utc};

use super::HeadlessError;
use super::args::{
    CallbacksCmd, DestinationsCmd, EventsCmd, ImportsCmd, ListArgs, ListenersCmd, LookupCmd,
    MembersCmd, NotificationsCmd, PoliciesCmd, Resource, TeamsCmd,
};
use crate::config::views::View;

/// The list a command prints and the resource it lists (the view's `tab`), if it is a list.
fn list_of(cmd: &mut Resource) -> Option<(&mut ListArgs, &'static str)> {
    Some(match cmd {
        Resource::Teams(TeamsCmd::List(l)) => (l, "teams"),
        Resource::Imports(ImportsCmd::List(l)) => (l, "imports"),
        Resource::Callbacks(CallbacksCmd::List(l)) => (l, "callbacks"),
        Resource::Callbacks(CallbacksCmd::Events { list, .. }) => (list, "events"),
        Resource::Callbacks(CallbacksCmd::Instances { list, .. }) => (list, "instances"),
        Resource::Destinations(DestinationsCmd::List { list, .. }) => (list, "destinations"),
        Resource::Notifications(NotificationsCmd::List { list, .. }) => (list, "notifications"),
        Resource::Members(MembersCmd::List { list, .. }) => (list, "members"),
        Resource::Projects(LookupCmd::List(l)) => (l, "projects"),
        Resource::TeamRoles(LookupCmd::List(l)) => (l, "team-roles"),
        Resource::Policies(PoliciesCmd::List(l)) => (l, "policies"),
        Resource::Listeners(ListenersCmd::List { list, .. }) => (list, "listeners"),
        Resource::Events(EventsCmd::List { list, .. }) => (list, "events"),
        _ => return None,
    })
}

/// The `--view` the command was given.
pub fn view_name(cmd: &mut Resource) -> Option<String> {
    list_of(cmd).and_then(|(l, _)| l.view.clone())
}

/// Where `today` starts: midnight UTC.
fn today(now: DateTime<Utc>) -> DateTime<Utc> {
    now.date_naive()
        .and_hms_opt(0, 0, 0)
        .map_or(now, |t| t.and_utc())
}

/// Applies `view` (named `name`) to the command; the columns it asks for, for `--fields`.
///
/// # Errors
/// A view of another resource, or a value of it that does not read (named).
pub fn apply(
    cmd: &mut Resource,
    name: &str,
    view: &View,
    now: DateTime<Utc>,
) -> Result<Option<Vec<String>>, HeadlessError> {
    let bad = |what: &str, e: &dyn std::fmt::Display| {
        HeadlessError::Usage(format!("view {name}: {what}: {e}"))
    };
    let Some((list, noun)) = list_of(cmd) else {
        return Err(HeadlessError::Usage(
            "--view applies to list commands".into(),
        ));
    };
    if view.tab() != noun {
        return Err(HeadlessError::Usage(format!(
            "view {name} is for {}, not {noun}",
            view.tab()
        )));
    }
    if list.order.is_none()
        && let Some(o) = &view.order
    {
        list.order = Some(o.parse().map_err(|e: String| bad("order", &e))?);
    }
    let f = &view.filters;
    match cmd {
        Resource::Notifications(NotificationsCmd::List {
            callbacks,
            events,
            destinations,
            scan,
            ..
        }) => {
            fill(callbacks, &f.callbacks);
            fill(events, &f.events);
            fill(destinations, &f.destinations);
            if scan.statuses.is_empty()
                && let Some(s) = &view.status
            {
                let status =
                    super::selection::parse_list_status(s).map_err(|e| bad("status", &e))?;
                scan.statuses.push(status);
            }
            if let Some(since) = &f.since {
                scan.since = Some(if since == "today" {
                    today(now)
                } else {
                    crate::api::selection::parse_time(since, now).map_err(|e| bad("since", &e))?
                });
            }
        }
        Resource::Destinations(DestinationsCmd::List { callbacks, .. })
        | Resource::Callbacks(
            CallbacksCmd::Events { callbacks, .. } | CallbacksCmd::Instances { callbacks, .. },
        ) => fill(callbacks, &f.callbacks),
        _ => {}
    }
    Ok(view.columns.clone())
}

/// A flag's values, or the view's when the flag was not given.
fn fill(given: &mut Vec<String>, view: &[String]) {
    if given.is_empty() {
        given.extend(view.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::views::defaults;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: Resource,
    }

    fn parse(args: &[&str]) -> Resource {
        Cli::try_parse_from(std::iter::once("x").chain(args.iter().copied()))
            .expect("parses")
            .cmd
    }

    #[test]
    fn a_views_status_and_order_apply_where_flags_are_not_given() {
        let now = "2030-01-01T15:00:00Z".parse().expect("time");
        let views = defaults();
        let mut cmd = parse(&["notifications", "list", "--view", "failed"]);
        assert_eq!(view_name(&mut cmd).as_deref(), Some("failed"));
        apply(&mut cmd, "failed", &views["failed"], now).expect("applies");
        let Resource::Notifications(NotificationsCmd::List { list, scan, .. }) = &cmd else {
            panic!("a list");
        };
        assert_eq!(list.order, Some(crate::api::Order::Desc));
        assert_eq!(
            scan.statuses,
            vec![crate::api::model::NotificationStatus::Failed]
        );
        assert!(scan.wanted());

        // A flag given wins over the view.
        let mut cmd = parse(&[
            "notifications",
            "list",
            "--view",
            "failed",
            "--status",
            "succeeded",
        ]);
        apply(&mut cmd, "failed", &views["failed"], now).expect("applies");
        let Resource::Notifications(NotificationsCmd::List { scan, .. }) = &cmd else {
            panic!("a list");
        };
        assert_eq!(
            scan.statuses,
            vec![crate::api::model::NotificationStatus::Succeeded]
        );

        let mut cmd = parse(&["notifications", "list", "--view", "today"]);
        apply(&mut cmd, "today", &views["today"], now).expect("applies");
        let Resource::Notifications(NotificationsCmd::List { scan, .. }) = &cmd else {
            panic!("a list");
        };
        assert_eq!(
            scan.since,
            Some("2030-01-01T00:00:00Z".parse().expect("time"))
        );

        let mut cmd = parse(&["teams", "list", "--view", "failed"]);
        assert!(apply(&mut cmd, "failed", &views["failed"], now).is_err());
    }
}
