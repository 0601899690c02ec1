//! Teams: name, slug, projects with their roles.
pub(crate) mod dialogs;

use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use ratatui::text::{Line, Span};

use super::kit::ViewCtx;
use crate::api::model::{Member, Team};
use crate::console::widgets::fields::Fields;

pub(crate) use dialogs::{ADD_MEMBER, REMOVE_MEMBER, REMOVE_PROJECT, SET_PROJECT};

/// Detail lines: fields, then each project with its roles and their permissions.
pub(crate) fn detail(t: &Team, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.field("Name", t.name.clone())
        .field("Slug", t.slug.clone())
        .field("ID", t.id.clone())
        .field("Organization", t.organization_id.clone())
        .opt("Description", t.description.as_deref())
        .field("Created", ctx.when(&t.created_at))
        .field("Updated", ctx.when(&t.updated_at));
    f.section(format!("Projects ({})", t.projects.len()));
    if t.projects.is_empty() {
        f.line(
            2,
            vec![Span::styled("no project assigned", ctx.theme.muted)],
        );
    }
    for tp in &t.projects {
        let p = &tp.project;
        f.line(
            2,
            vec![
                Span::styled(p.name.clone(), ctx.theme.header),
                Span::styled(
                    format!("  {} · {} · {}", p.slug, p.id, p.status),
                    ctx.theme.muted,
                ),
            ],
        );
        if tp.roles.is_empty() {
            f.line(4, vec![Span::styled("no roles", ctx.theme.muted)]);
        }
        for ra in &tp.roles {
            let r = &ra.role;
            f.line(4, vec![Span::raw(format!("{} ({})", r.name, r.slug))]);
            // One per line: wrapped lists would lose their indentation.
            for p in &r.permissions {
                f.line(6, vec![Span::styled(p.clone(), ctx.theme.muted)]);
            }
        }
    }
    f.finish()
}

/// Where the members shown in a team's detail stand.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MembersNow<'a> {
    /// Loaded: the team's members (a refresh may be under way).
    Loaded(&'a [&'a Member]),
    /// The first load is under way.
    Loading,
    /// The load failed.
    Failed(&'a str),
}

/// The detail's members section: a count, then one line each (name, email, role).
pub(crate) fn member_lines(now: MembersNow<'_>, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    match now {
        MembersNow::Loaded(members) => {
            f.section(format!("Members ({})", members.len()));
            if members.is_empty() {
                f.line(
                    2,
                    vec![Span::styled("no members · m adds one", ctx.theme.muted)],
                );
            }
            // In columns: names and emails padded to the widest (measured as drawn, sanitised).
            let cells: Vec<(String, String)> = members
                .iter()
                .map(|m| {
                    (
                        crate::text::line(m.display_name()).into_owned(),
                        crate::text::line(m.contact_email().unwrap_or("—")).into_owned(),
                    )
                })
                .collect();
            let widest = |get: fn(&(String, String)) -> &String| {
                cells
                    .iter()
                    .map(|c| crate::resource::display_width(get(c)))
                    .max()
                    .unwrap_or(0)
            };
            let (name_w, email_w) = (widest(|c| &c.0), widest(|c| &c.1));
            let pad = |s: &str, w: usize| {
                format!("{s}{}", " ".repeat(w - crate::resource::display_width(s)))
            };
            for (m, (name, email)) in members.iter().zip(&cells) {
                f.line(
                    2,
                    vec![
                        Span::styled(pad(name, name_w), ctx.theme.header),
                        Span::raw(format!("  {}", pad(email, email_w))),
                        Span::styled(format!("  {}", m.role.as_str()), ctx.theme.muted),
                    ],
                );
            }
        }
        MembersNow::Loading => {
            f.section("Members");
            f.line(2, vec![Span::styled("loading…", ctx.theme.muted)]);
        }
        MembersNow::Failed(e) => {
            f.section("Members");
            f.line(
                2,
                vec![Span::styled(format!("not listed: {e}"), ctx.theme.warn)],
            );
        }
    }
    f.finish()
}

impl super::DetailView for crate::resource::teams::Teams {
    fn detail(item: &Team, ctx: &ViewCtx) -> Vec<Line<'static>> {
        detail(item, ctx)
    }

    fn dialog(action: Action, item: Option<&Team>) -> Option<Dialog> {
        use crate::console::views::teams::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(t)) => Some(f::edit(t)),
            (crate::console::views::teams::SET_PROJECT, Some(t)) => Some(f::set_project(t)),
            (crate::console::views::teams::REMOVE_PROJECT, Some(t)) => Some(f::remove_project(t)),
            (crate::console::views::teams::ADD_MEMBER, Some(t)) => Some(f::add_member(t)),
            (crate::console::views::teams::REMOVE_MEMBER, Some(t)) => Some(f::remove_member(t)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::teams::dialogs::build(d)
            .map(|req| WriteOp::Op(<Self as crate::resource::Resource>::KIND, req))
    }

    fn write_spec(action: Action) -> crate::console::forms::WriteSpec {
        crate::console::views::teams::dialogs::write_spec(action)
    }

    fn write_place(verb: crate::resource::ops::Verb) -> Option<super::WritePlace> {
        dialogs::write_place(verb)
    }

    fn confirm_text(d: &Dialog) -> Option<String> {
        dialogs::picked(d).then(|| crate::console::views::teams::dialogs::confirm_text(d))
    }

    fn confirm_name(d: &Dialog) -> Option<String> {
        dialogs::picked(d).then(|| crate::console::views::teams::dialogs::confirm_name(d))
    }

    fn after_change(d: &mut Dialog) {
        crate::console::views::teams::dialogs::after_change(d);
    }
}
