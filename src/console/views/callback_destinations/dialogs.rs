//! Dialogs of `callback-destinations`' callback destinations (`generations.md` §6): create and
//! edit (the URL editable). The requests are the ones headless sends
//! (`ApiRequest::create_callback_destination`, …).
use crate::api::ApiRequest;
use crate::api::model::{
    CallbackDestination, CreateCallbackDestination, UpdateCallbackDestination,
};
use crate::console::forms::checks::check_url;
use crate::console::forms::field::Field;
use crate::console::forms::ops::WriteOp;
use crate::console::forms::{Dialog, Kind};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// `c` on Destinations.
pub(crate) fn create_destination() -> Dialog {
    let fields = vec![
        Field::text("Name", "name", "").required(),
        Field::text("URL", "url", "")
            .required()
            .checked(check_url)
            .noted("https://…"),
        Field::text("Description", "description", ""),
    ];
    Dialog::new("New destination", Kind::Write(Action::CREATE, None), fields)
}

/// `e` on a destination: the URL starts empty (it may carry credentials: shown masked beside the
/// field) and means "unchanged" when left so.
pub(crate) fn edit_destination(d: &CallbackDestination) -> Dialog {
    let url = crate::text::redact::mask_url(&d.url);
    let fields = vec![
        Field::text("Name", "name", &d.name).required(),
        Field::text(
            "Description",
            "description",
            d.description.as_deref().unwrap_or(""),
        ),
        Field::text("URL", "url", "")
            .checked(check_url)
            .noted(&format!("empty keeps {url}")),
    ];
    Dialog::new(
        format!("Edit destination {}", d.name),
        Kind::Write(Action::EDIT, Some(d.id.clone())),
        fields,
    )
}

/// The write a callback destination form describes.
pub(crate) fn build_destination(d: &mut Dialog) -> Option<WriteOp> {
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let req = match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            ApiRequest::create_callback_destination(&CreateCallbackDestination {
                name: d.text("name"),
                url: d.text("url"),
                description: opt(d.text("description")),
                metadata: None,
            })
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            let b = UpdateCallbackDestination {
                name: changed("name").then(|| d.text("name")),
                description: changed("description").then(|| d.text("description")),
                metadata: None,
                url: opt(d.text("url")),
            };
            if b == UpdateCallbackDestination::default() {
                d.message = Some("Nothing changed".into());
                return None;
            }
            ApiRequest::update_callback_destination(&id, &b)
        }
        _ => return None,
    };
    Some(WriteOp::Op(Tab::CallbackDestinations, req))
}
