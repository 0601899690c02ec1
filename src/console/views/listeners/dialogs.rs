//! Listener forms of `event-destinations` (`generations.md` §7): create (a destination and an
//! instance, then event types, or a callback or a provider with triggers), edit (its event types
//! or triggers) and delete (a confirmation). The requests are headless's
//! (`ApiRequest::create_listener`, `update_listener`, `delete_listener`).
use crate::api::ApiRequest;
use crate::api::model::{CreateListener, Listener, ListenerType, UpdateListener};
use crate::console::forms::field::Field;
use crate::console::forms::ops::{Lookup, WriteOp};
use crate::console::forms::picker::Picker;
use crate::console::forms::{Dialog, Kind, Phase};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// What a new listener binds.
const BINDS: [&str; 3] = ["event types", "a callback", "a provider"];

/// Comma- or space-separated words.
fn words(s: &str) -> Vec<String> {
    s.split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// `c` on Listeners.
pub(crate) fn create() -> Dialog {
    let fields = vec![
        Field::picker(
            "Destination",
            "event_destination_id",
            Picker::loading(false),
        )
        .required()
        .entities(&["event_destination", "event.destination"]),
        Field::picker("Instance", "instance_id", Picker::loading(false))
            .required()
            .entities(&["instance"])
            .noted("pick one in use, or type its id"),
        Field::choice("Binds", "type", BINDS.to_vec()),
        Field::text("Event types", "event_types", "").noted("comma-separated; with event types"),
        Field::picker("Callback", "callback_id", Picker::loading(false))
            .entities(&["callback"])
            .noted("with a callback"),
        Field::text("Provider", "provider_id", "")
            .entities(&["provider"])
            .noted("with a provider: pro_…"),
        Field::text("Triggers", "triggers", "").noted("trigger keys, comma-separated"),
    ];
    Dialog::new("New listener", Kind::Write(Action::CREATE, None), fields)
        .lookup(Lookup::Items(Tab::EventDestinations), 0)
        .lookup(Lookup::Instances, 1)
        .lookup(Lookup::Items(Tab::IntegrationCallbacks), 4)
}

/// `e` on a listener: what it takes (its event types, or its triggers).
pub(crate) fn edit(l: &Listener) -> Dialog {
    let events = l.kind == ListenerType::Event || l.kind == ListenerType::Chat;
    let field = if events {
        let types = l.event_types.clone().unwrap_or_default().join(", ");
        Field::text("Event types", "event_types", &types).required()
    } else {
        let triggers = l.triggers.clone().unwrap_or_default().join(", ");
        Field::text("Triggers", "triggers", &triggers)
    };
    let fields = vec![
        Field::text("Type", "fixed_type", &l.kind.to_string())
            .read_only()
            .noted("cannot change: delete and create anew"),
        field.noted("comma-separated"),
    ];
    let mut d = Dialog::new(
        format!("Edit listener {}", l.id),
        Kind::Write(Action::EDIT, Some(l.id.clone())),
        fields,
    );
    d.focus = 1;
    d
}

/// `d` on a listener: a confirmation that defaults to No.
pub(crate) fn delete(l: &Listener) -> Dialog {
    let mut d = Dialog::new(
        "Delete listener",
        Kind::Write(Action::DELETE, Some(l.id.clone())),
        Vec::new(),
    );
    let dest = l
        .event_destination_id
        .as_deref()
        .unwrap_or("its destination");
    d.confirm = format!(
        "Delete listener {} ({})? {dest} stops getting what it binds.",
        l.id, l.kind
    );
    d.confirm_name.clone_from(&l.id);
    d.phase = Phase::Confirm;
    d
}

/// The write a listener form describes.
pub(crate) fn build(d: &mut Dialog) -> Option<WriteOp> {
    let event_types = words(&d.text("event_types"));
    let triggers = words(&d.text("triggers"));
    let req = match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            let binds = d.field("type").map_or(0, Field::choice_index);
            let mut b = CreateListener {
                instance_id: d.text("instance_id"),
                event_destination_id: d.text("event_destination_id"),
                kind: if binds == 0 {
                    ListenerType::Event
                } else {
                    ListenerType::Callback
                },
                event_types: None,
                callback_id: None,
                provider_id: None,
                triggers: (!triggers.is_empty()).then_some(triggers),
                chat_connection_id: None,
            };
            match binds {
                0 if event_types.is_empty() => {
                    d.fail("event_types", "name at least one event type");
                    return None;
                }
                0 => {
                    b.event_types = Some(event_types);
                    b.triggers = None;
                }
                1 => b.callback_id = Some(d.text("callback_id")).filter(|c| !c.is_empty()),
                _ => {
                    let provider = d.text("provider_id");
                    if provider.is_empty() {
                        d.fail("provider_id", "required with a provider");
                        return None;
                    }
                    b.provider_id = Some(provider);
                }
            }
            ApiRequest::create_listener(&b)
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            let b = UpdateListener {
                event_types: changed("event_types").then_some(event_types),
                triggers: changed("triggers").then_some(triggers),
            };
            if b == UpdateListener::default() {
                d.message = Some("Nothing changed".into());
                return None;
            }
            ApiRequest::update_listener(&id, &b)
        }
        Kind::Write(Action::DELETE, Some(id)) => ApiRequest::delete_listener(&id),
        _ => return None,
    };
    Some(WriteOp::Op(Tab::Listeners, req))
}
