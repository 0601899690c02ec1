//! Destination forms: create (http/https URL, all or selected callbacks), edit (name and
//! description; clearing the description sends null), delete (a confirmation naming it).
use crate::api::ApiRequest;
use crate::api::model::{CallbacksInput, Destination};
use crate::console::forms::checks::check_url;
use crate::console::forms::field::Field;
use crate::console::forms::ops::Lookup;
use crate::console::forms::picker::Picker;
use crate::console::forms::{Dialog, Kind, Phase};
use crate::console::keymap::Action;

/// `c` on Destinations.
pub(crate) fn create() -> Dialog {
    let fields = vec![
        Field::text("Name", "name", "").required(),
        Field::text("Description", "description", ""),
        Field::text("URL", "url", "")
            .required()
            .checked(check_url)
            .noted("https://…"),
        Field::choice("Callbacks", "callbacks", vec!["all", "selected"]),
        Field::picker("Selected", "callback_id", Picker::loading(true))
            .entities(&["callback"])
            .noted("Space toggles; used when Callbacks is “selected”"),
    ];
    Dialog::new("New destination", Kind::Write(Action::CREATE, None), fields)
        .lookup(Lookup::Callbacks, 4)
}

/// What an edit cannot change, said beside the read-only fields.
const FIXED: &str = "cannot change: delete and create anew";

/// `e` on a destination. The URL and the callbacks cannot change (the API takes only name and
/// description): shown read-only, the URL through the redaction policy (it may carry
/// credentials), never pre-filled in full.
pub(crate) fn edit(dest: &Destination) -> Dialog {
    let url = dest
        .webhook_destination
        .as_ref()
        .map(|w| crate::text::redact::mask_url(&w.url))
        .unwrap_or_default();
    let callbacks = match (&dest.callbacks.kind, &dest.callbacks.callback_ids) {
        (crate::api::model::SelectionType::All, _) => "all callbacks".to_string(),
        (_, Some(ids)) => ids.join(", "),
        (_, None) => String::new(),
    };
    let fields = vec![
        Field::text("Name", "name", &dest.name).required(),
        Field::text("Description", "description", &dest.description).noted("empty clears it"),
        Field::text("URL", "fixed_url", &url)
            .read_only()
            .noted(FIXED),
        Field::text("Callbacks", "fixed_callbacks", &callbacks)
            .read_only()
            .noted(FIXED),
    ];
    Dialog::new(
        format!("Edit destination {}", dest.name),
        Kind::Write(Action::EDIT, Some(dest.id.clone())),
        fields,
    )
}

/// `d` on a destination: straight to a confirmation that defaults to No.
pub(crate) fn delete(dest: &Destination) -> Dialog {
    let mut d = Dialog::new(
        "Delete destination",
        Kind::Write(Action::DELETE, Some(dest.id.clone())),
        Vec::new(),
    );
    let named = format!("“{}” ({})", dest.name, dest.id);
    d.confirm = crate::resource::destinations::DELETE
        .question
        .map(|q| q(&named))
        .unwrap_or_default();
    d.confirm_name.clone_from(&dest.name);
    d.phase = Phase::Confirm;
    d
}

/// The request a destination form describes, built by the resource (`resource::destinations`).
pub(crate) fn build(d: &mut Dialog) -> Option<ApiRequest> {
    use crate::resource::destinations as w;
    match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            let selected = d.field("callbacks").map(Field::choice_index) == Some(1);
            let callbacks = if selected {
                let ids = d
                    .field("callback_id")
                    .and_then(Field::picker_ref)
                    .map(Picker::values)
                    .unwrap_or_default();
                if ids.is_empty() {
                    d.fail("callback_id", "choose at least one callback (Space)");
                    return None;
                }
                CallbacksInput::selected(ids)
            } else {
                CallbacksInput::all()
            };
            let description = d.text("description");
            Some((w::CREATE.request)(
                d.text("name"),
                (!description.is_empty()).then_some(description),
                d.text("url"),
                callbacks,
            ))
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            let description = d.text("description");
            let req = (w::UPDATE.request)(
                &id,
                changed("name").then(|| d.text("name")),
                changed("description").then(|| (!description.is_empty()).then_some(description)),
            );
            if req.is_none() {
                d.message = Some("Nothing changed".into());
            }
            req
        }
        Kind::Write(Action::DELETE, Some(id)) => Some((w::DELETE.request)(&id)),
        _ => None,
    }
}
