//! Team forms: create, edit, set a project's roles, remove a project, add and remove members.
use crate::api::ApiRequest;
use crate::api::model::Team;
use crate::console::forms::field::Field;
use crate::console::forms::ops::Lookup;
use crate::console::forms::picker::{PickItem, Picker};
use crate::console::forms::{Dialog, Kind, WriteSpec};
use crate::console::keymap::Action;
use crate::console::views::WritePlace;
use crate::resource::ops::Verb;

/// `p`: a team's project roles (`resource::teams::SET_PROJECT`), as the keymap binds it.
pub(crate) const SET_PROJECT: Action = Action::Write(crate::resource::teams::SET_PROJECT.verb);
/// `x`: a project removed.
pub(crate) const REMOVE_PROJECT: Action =
    Action::Write(crate::resource::teams::REMOVE_PROJECT.verb);
/// `m`: a member added.
pub(crate) const ADD_MEMBER: Action = Action::Write(crate::resource::teams::ADD_MEMBER.verb);
/// `M`: a member removed.
pub(crate) const REMOVE_MEMBER: Action = Action::Write(crate::resource::teams::REMOVE_MEMBER.verb);

fn name_fields(name: &str, description: &str) -> Vec<Field> {
    vec![
        Field::text("Name", "name", name).required(),
        Field::text("Description", "description", description),
    ]
}

/// `c` on Teams.
pub(crate) fn create() -> Dialog {
    Dialog::new(
        "New team",
        Kind::Write(Action::CREATE, None),
        name_fields("", ""),
    )
}

/// `e` on a team.
pub(crate) fn edit(t: &Team) -> Dialog {
    edit_of(&t.id, &t.name, t.description.as_deref())
}

/// `e` on a team of any generation: its id, name and description.
pub(crate) fn edit_of(id: &str, name: &str, description: Option<&str>) -> Dialog {
    let fields = name_fields(name, description.unwrap_or_default());
    Dialog::new(
        format!("Edit team {name}"),
        Kind::Write(Action::EDIT, Some(id.to_string())),
        fields,
    )
}

/// `p` in a team: a project and the team's roles on it.
pub(crate) fn set_project(t: &Team) -> Dialog {
    let assigned = t
        .projects
        .iter()
        .map(|p| {
            let roles = p.roles.iter().map(|r| r.role.id.clone()).collect();
            (p.project.id.clone(), roles)
        })
        .collect();
    let fields = vec![
        Field::picker("Project", "project_id", Picker::loading(false))
            .required()
            .entities(&["project"]),
        // A project with no roles gives the team nothing there (headless asks `--role` too).
        Field::picker("Roles", "team_role_ids", Picker::loading(true))
            .required()
            .entities(&["team-roles"])
            .noted("Space toggles; the chosen set replaces the current one"),
    ];
    let mut d = Dialog::new(
        format!("Set project roles · {}", t.name),
        Kind::Write(SET_PROJECT, Some(t.id.clone())),
        fields,
    )
    .lookup(Lookup::Projects, 0)
    .lookup(Lookup::TeamRoles, 1);
    ProjectMemo {
        assigned,
        last_project: None,
    }
    .keep(&mut d);
    d
}

/// `x` in a team: pick one of its projects.
pub(crate) fn remove_project(t: &Team) -> Dialog {
    let items = t
        .projects
        .iter()
        .map(|p| PickItem {
            id: p.project.id.clone(),
            label: p.project.name.clone(),
            detail: p
                .roles
                .iter()
                .map(|r| r.role.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    let fields = vec![
        Field::picker("Project", "project_id", Picker::ready(false, items))
            .required()
            .entities(&["project"]),
    ];
    Dialog::new(
        format!("Remove a project · {}", t.name),
        Kind::Write(REMOVE_PROJECT, Some(t.id.clone())),
        fields,
    )
}

fn member_dialog(title: String, action: Action, team: &str) -> Dialog {
    let fields = vec![
        Field::picker("Member", "actor_id", Picker::loading(false))
            .required()
            .entities(&["organization-actor", "actor"])
            .noted("type to search, or type an actor id (oac_…)"),
    ];
    // Filled from the members loaded in the background (`console::members`), not a lookup of
    // its own: the add dialog offers the non-members, the remove dialog the members.
    Dialog::new(title, Kind::Write(action, Some(team.to_string())), fields)
}

/// `m` in a team.
pub(crate) fn add_member(t: &Team) -> Dialog {
    add_member_to(&t.id, &t.name)
}

/// `m` in a team of any generation (its id and name).
pub(crate) fn add_member_to(id: &str, name: &str) -> Dialog {
    member_dialog(format!("Add a member · {name}"), ADD_MEMBER, id)
}

/// `M` in a team.
pub(crate) fn remove_member(t: &Team) -> Dialog {
    remove_member_from(&t.id, &t.name)
}

/// `M` in a team of any generation (its id and name).
pub(crate) fn remove_member_from(id: &str, name: &str) -> Dialog {
    member_dialog(format!("Remove a member · {name}"), REMOVE_MEMBER, id)
}

/// Keeps a set-project form's roles in step with its project: choosing a project the team has
/// pre-selects the roles it holds there.
pub(crate) fn after_change(d: &mut Dialog) {
    if !matches!(d.kind, Kind::Write(SET_PROJECT, _)) {
        return;
    }
    let Some(mut memo) = ProjectMemo::of(d) else {
        return;
    };
    let project = d.fields.first().and_then(|f| f.picker_ref()?.value());
    if project == memo.last_project {
        return;
    }
    let roles = project
        .as_ref()
        .and_then(|p| memo.assigned.iter().find(|(id, _)| id == p))
        .map(|(_, r)| r.clone())
        .unwrap_or_default();
    if let Some(p) = d.fields.get_mut(1).and_then(Field::picker_mut) {
        p.chosen = roles;
    }
    memo.last_project = project;
    memo.keep(d);
}

/// What a set-project dialog keeps between keys: the team's assignments (project id, role
/// ids) to pre-select from, and the project last seen, so that only a change of project
/// replaces the chosen roles.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct ProjectMemo {
    assigned: Vec<(String, Vec<String>)>,
    last_project: Option<String>,
}

impl ProjectMemo {
    /// The memo the dialog keeps, if it keeps one.
    fn of(d: &Dialog) -> Option<Self> {
        serde_json::from_value(d.memo.clone()).ok()
    }

    /// Keeps it with the dialog.
    fn keep(self, d: &mut Dialog) {
        // Strings and lists of strings always serialise.
        d.memo = serde_json::to_value(self).unwrap_or_default();
    }
}

/// What a team write does besides its request (its toast word is its verb's; a question,
/// members refreshed).
pub(crate) fn write_spec(action: Action) -> WriteSpec {
    let spec = WriteSpec::standard(action);
    match action {
        REMOVE_PROJECT => WriteSpec { asks: true, ..spec },
        // The picker pre-selects a member: Enter alone must not add one unasked.
        ADD_MEMBER | REMOVE_MEMBER => WriteSpec {
            asks: true,
            members: true,
            ..spec
        },
        _ => spec,
    }
}

/// Where a team write shows in the footer: adding a member or setting a project's roles beside
/// its removing partner, the others where they usually are.
pub(crate) fn write_place(verb: Verb) -> Option<WritePlace> {
    match Action::Write(verb) {
        ADD_MEMBER => WritePlace::paired(6, verb, crate::resource::teams::REMOVE_MEMBER.verb),
        SET_PROJECT => WritePlace::paired(7, verb, crate::resource::teams::REMOVE_PROJECT.verb),
        // Shown with the write it removes.
        REMOVE_MEMBER | REMOVE_PROJECT => None,
        _ => WritePlace::standard(verb),
    }
}

/// Whether the dialog's question names what its picker chose (a project or a member).
pub(crate) fn picked(d: &Dialog) -> bool {
    matches!(
        d.kind,
        Kind::Write(REMOVE_PROJECT | ADD_MEMBER | REMOVE_MEMBER, _)
    )
}

/// The team a member dialog concerns and whether it adds (else removes), if it is one.
pub(crate) fn member_dialog_of(d: &Dialog) -> Option<(&str, bool)> {
    match &d.kind {
        Kind::Write(ADD_MEMBER, Some(t)) => Some((t, true)),
        Kind::Write(REMOVE_MEMBER, Some(t)) => Some((t, false)),
        _ => None,
    }
}

/// The request a team form describes, built by the resource (`resource::teams`).
pub(crate) fn build(d: &mut Dialog) -> Option<ApiRequest> {
    use crate::resource::teams as w;
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let Kind::Write(action, id) = d.kind.clone() else {
        return None;
    };
    match (action, id) {
        (Action::CREATE, _) => Some((w::CREATE.request)(
            d.text("name"),
            opt(d.text("description")),
        )),
        (Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            // The API refuses null: clearing sends an empty description.
            let req = (w::UPDATE.request)(
                &id,
                changed("name").then(|| d.text("name")),
                changed("description").then(|| d.text("description")),
            );
            if req.is_none() {
                d.message = Some("Nothing changed".into());
            }
            req
        }
        (SET_PROJECT, Some(id)) => {
            let roles = d
                .field("team_role_ids")
                .and_then(Field::picker_ref)
                .map(Picker::values)
                .unwrap_or_default();
            let req = (w::SET_PROJECT.request)(&id, d.text("project_id"), roles);
            if req.is_none() {
                d.fail("team_role_ids", "choose at least one role (Space toggles)");
            }
            req
        }
        (REMOVE_PROJECT, Some(id)) => Some((w::REMOVE_PROJECT.request)(&id, &d.text("project_id"))),
        (ADD_MEMBER, Some(id)) => Some((w::ADD_MEMBER.request)(&id, &d.text("actor_id"))),
        (REMOVE_MEMBER, Some(id)) => Some((w::REMOVE_MEMBER.request)(&id, &d.text("actor_id"))),
        _ => None,
    }
}

/// The name typed to confirm a removal: the picked item's label, else its id.
pub(crate) fn confirm_name(d: &Dialog) -> String {
    let Some(f) = d.fields.first() else {
        return String::new();
    };
    let id = f.value();
    f.picker_ref()
        .and_then(|p| p.label_of(&id))
        .map(str::to_string)
        .unwrap_or(id)
}

/// The question before a removal (or an addition), naming what it concerns: the typed write's
/// (`resource::teams`).
pub(crate) fn confirm_text(d: &Dialog) -> String {
    use crate::resource::teams as w;
    let Some(f) = d.fields.first() else {
        return String::new();
    };
    let id = f.value();
    let label = f
        .picker_ref()
        .and_then(|p| p.label_of(&id))
        .map(|l| format!("{l} ({id})"))
        .unwrap_or_else(|| id.clone());
    let question = match d.kind {
        Kind::Write(REMOVE_PROJECT, _) => w::REMOVE_PROJECT.question,
        Kind::Write(ADD_MEMBER, _) => w::ADD_MEMBER.question,
        _ => w::REMOVE_MEMBER.question,
    };
    question.map(|q| q(&label)).unwrap_or_default()
}
