//! Dialogs of `callback-destinations`' callbacks on a provider deployment (`generations.md` §6):
//! create with destinations and triggers, edit replacing the destinations set, delete archiving.
//! The requests are the ones headless sends (`ApiRequest::create_deployment_callback`, …).
use crate::api::ApiRequest;
use crate::api::model::{
    CreateDeploymentCallback, DeploymentCallback, TriggerInput, UpdateDeploymentCallback,
};
use crate::console::forms::field::Field;
use crate::console::forms::ops::{Lookup, WriteOp};
use crate::console::forms::picker::Picker;
use crate::console::forms::{Dialog, Kind, Phase};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// Triggers: one `ID` or `ID=type,type` per line.
fn check_triggers(s: &str) -> Result<Option<String>, String> {
    triggers(s).map(|_| None)
}

fn triggers(s: &str) -> Result<Vec<TriggerInput>, String> {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(n, l)| TriggerInput::parse(l).map_err(|e| format!("line {}: {e}", n + 1)))
        .collect()
}

fn destinations_field(chosen: Vec<String>) -> Field {
    let mut p = Picker::loading(true);
    p.chosen = chosen;
    Field::picker("Destinations", "destination_ids", p)
        .entities(&[
            "callback.destination",
            "callback_destination",
            "destination",
        ])
        .noted("Space toggles; the set is replaced")
}

/// `c` on Callbacks: the deployment from those the callbacks use (or typed), destinations from
/// the destinations list.
pub(crate) fn create_callback() -> Dialog {
    let fields = vec![
        Field::picker(
            "Deployment",
            "provider_deployment_id",
            Picker::loading(false),
        )
        .required()
        .entities(&["provider_deployment"])
        .noted("pick one in use, or type pde_…"),
        Field::text("Name", "name", "").required(),
        Field::text("Description", "description", ""),
        destinations_field(Vec::new()),
        Field::lines("Triggers", "triggers", Vec::new())
            .checked(check_triggers)
            .noted("ID or ID=type,type; Enter for another line"),
    ];
    Dialog::new("New callback", Kind::Write(Action::CREATE, None), fields)
        .lookup(Lookup::Deployments, 0)
        .lookup(Lookup::Items(Tab::CallbackDestinations), 3)
}

/// `e` on a callback: name, description and its destinations (pre-chosen; the set sent whole
/// when changed).
pub(crate) fn edit_callback(c: &DeploymentCallback) -> Dialog {
    let chosen = c.destinations.iter().map(|d| d.id.clone()).collect();
    let name = c.name.clone().unwrap_or_default();
    let fields = vec![
        Field::text("Name", "name", &name).required(),
        Field::text(
            "Description",
            "description",
            c.description.as_deref().unwrap_or(""),
        ),
        destinations_field(chosen),
    ];
    let title = if name.is_empty() { c.id.clone() } else { name };
    Dialog::new(
        format!("Edit callback {title}"),
        Kind::Write(Action::EDIT, Some(c.id.clone())),
        fields,
    )
    .lookup(Lookup::Items(Tab::CallbackDestinations), 2)
}

/// `d` on a callback: the platform archives it; a confirmation that defaults to No.
pub(crate) fn delete_callback(c: &DeploymentCallback) -> Dialog {
    let name = c.name.clone().unwrap_or_else(|| c.id.clone());
    let mut d = Dialog::new(
        "Archive callback",
        Kind::Write(Action::DELETE, Some(c.id.clone())),
        Vec::new(),
    );
    d.confirm = format!(
        "Archive callback “{name}” ({})? It stops taking events and notifying its destinations.",
        c.id
    );
    d.confirm_name = name;
    d.phase = Phase::Confirm;
    d
}

/// The write a callback form describes.
pub(crate) fn build_callback(d: &mut Dialog) -> Option<WriteOp> {
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let changed = |d: &Dialog, k: &str| d.field(k).is_some_and(Field::is_dirty);
    let chosen = d
        .field("destination_ids")
        .and_then(Field::picker_ref)
        .map(Picker::values)
        .unwrap_or_default();
    let req = match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            let triggers = match triggers(&d.text("triggers")) {
                Ok(t) => t,
                Err(e) => {
                    d.fail("triggers", e);
                    return None;
                }
            };
            let b = CreateDeploymentCallback {
                provider_deployment_id: d.text("provider_deployment_id"),
                name: d.text("name"),
                description: opt(d.text("description")),
                destination_ids: (!chosen.is_empty()).then_some(chosen),
                triggers: (!triggers.is_empty()).then_some(triggers),
                ..CreateDeploymentCallback::default()
            };
            ApiRequest::create_deployment_callback(&b)
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let b = UpdateDeploymentCallback {
                name: changed(d, "name").then(|| d.text("name")),
                description: changed(d, "description").then(|| d.text("description")),
                destination_ids: changed(d, "destination_ids").then_some(chosen),
                ..UpdateDeploymentCallback::default()
            };
            if b == UpdateDeploymentCallback::default() {
                d.message = Some("Nothing changed".into());
                return None;
            }
            ApiRequest::update_deployment_callback(&id, &b)
        }
        Kind::Write(Action::DELETE, Some(id)) => ApiRequest::delete_callback(&id),
        _ => return None,
    };
    Some(WriteOp::Op(Tab::DeploymentCallbacks, req))
}
