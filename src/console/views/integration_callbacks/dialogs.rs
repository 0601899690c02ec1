//! Callback forms of `event-destinations` (`generations.md` §7): create on an integration and
//! its provider (pickers of those the callbacks use, or typed), edit (name, description) and
//! delete (a confirmation; a non-active callback is refused by the platform, its message
//! shown). The requests are `ApiRequest::create_integration_callback`, `update_integration_callback`
//! and `delete_callback`.
use crate::api::ApiRequest;
use crate::api::model::{
    CreateIntegrationCallback, IntegrationCallback, UpdateIntegrationCallback,
};
use crate::console::forms::field::Field;
use crate::console::forms::ops::{Lookup, WriteOp};
use crate::console::forms::picker::Picker;
use crate::console::forms::{Dialog, Kind, Phase};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// `c` on Callbacks.
pub(crate) fn create() -> Dialog {
    let fields = vec![
        Field::picker("Integration", "integration_id", Picker::loading(false))
            .required()
            .entities(&["integration"])
            .noted("pick one in use, or type its id"),
        Field::picker(
            "Provider",
            "integration_provider_id",
            Picker::loading(false),
        )
        .required()
        .entities(&["integration_provider"])
        .noted("the integration's provider"),
        Field::text("Name", "name", ""),
        Field::text("Description", "description", ""),
    ];
    Dialog::new("New callback", Kind::Write(Action::CREATE, None), fields)
        .lookup(Lookup::Integrations, 0)
        .lookup(Lookup::IntegrationProviders, 1)
}

/// `e` on a callback.
pub(crate) fn edit(c: &IntegrationCallback) -> Dialog {
    let name = c.name.clone().unwrap_or_default();
    let fields = vec![
        Field::text("Name", "name", &name),
        Field::text(
            "Description",
            "description",
            c.description.as_deref().unwrap_or(""),
        ),
    ];
    let title = if name.is_empty() { c.id.clone() } else { name };
    Dialog::new(
        format!("Edit callback {title}"),
        Kind::Write(Action::EDIT, Some(c.id.clone())),
        fields,
    )
}

/// `d` on a callback: a confirmation that defaults to No.
pub(crate) fn delete(c: &IntegrationCallback) -> Dialog {
    let name = c.name.clone().unwrap_or_else(|| c.id.clone());
    let mut d = Dialog::new(
        "Delete callback",
        Kind::Write(Action::DELETE, Some(c.id.clone())),
        Vec::new(),
    );
    d.confirm = format!(
        "Delete callback “{name}” ({})? Listeners bound to it get nothing more from it.",
        c.id
    );
    d.confirm_name = name;
    d.phase = Phase::Confirm;
    d
}

/// The write a callback form describes.
pub(crate) fn build(d: &mut Dialog) -> Option<WriteOp> {
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let req = match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            ApiRequest::create_integration_callback(&CreateIntegrationCallback {
                integration_id: d.text("integration_id"),
                integration_provider_id: d.text("integration_provider_id"),
                name: opt(d.text("name")),
                description: opt(d.text("description")),
            })
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            let b = UpdateIntegrationCallback {
                name: changed("name").then(|| d.text("name")),
                description: changed("description").then(|| d.text("description")),
                metadata: None,
            };
            if b == UpdateIntegrationCallback::default() {
                d.message = Some("Nothing changed".into());
                return None;
            }
            ApiRequest::update_integration_callback(&id, &b)
        }
        Kind::Write(Action::DELETE, Some(id)) => ApiRequest::delete_callback(&id),
        _ => return None,
    };
    Some(WriteOp::Op(Tab::IntegrationCallbacks, req))
}
