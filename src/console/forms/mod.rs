//! The generic dialog machinery every write uses. This file holds the dialog model (fields,
//! focus, phases); `update` its keys and the server's answers, `view` and `confirm` its drawing,
//! `field`, `picker` and `checks` the fields. Each resource's dialogs (their fields and the
//! request they build, through its resource module) live in its console module,
//! `console/views/<resource>/dialogs.rs`.
pub(crate) mod checks;
pub(crate) mod confirm;
pub(crate) mod field;
pub(crate) mod ops;
pub(crate) mod picker;
pub(crate) mod update;
pub(crate) mod view;

use self::field::Field;
use self::ops::Lookup;
use crate::api::Error;
use crate::console::keymap::Action;

/// What the forms add to the console state.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FormsState {
    /// The open dialog, which takes the keyboard.
    pub(crate) dialog: Option<Dialog>,
    /// An item the cursor should land on when its tab's list arrives (after a write).
    pub(crate) land_on: Option<(crate::console::tab::Tab, String)>,
}

impl FormsState {
    /// The open dialog's requests awaited: its write and its pickers' lookups.
    pub(crate) fn in_flight(&self) -> usize {
        self.dialog.as_ref().map_or(0, |d| {
            d.lookups.len() + usize::from(matches!(d.phase, Phase::Submitting(_)))
        })
    }
}

/// What the forms read of the power room, chosen at the router: how a write is confirmed, and
/// the profile a switch is going to (nothing is sent meanwhile).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asking<'a> {
    /// `confirm` of the profile: yes/no or the name typed.
    pub(crate) mode: crate::console::power::ConfirmMode,
    /// The profile being switched to, while a switch resolves.
    pub(crate) switching: Option<&'a str>,
}

/// Which write a dialog makes. No resource is named here: what differs between writes is asked
/// of the resource's console module (`DetailView::write_spec`) or its typed operation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A write its resource's console module builds from the fields: the write key that opened
    /// it (create, edit, delete, or a sub-operation such as a team's set project) and the item
    /// it concerns (`None`: a new one).
    Write(Action, Option<String>),
    /// A resource's operation (`resource::ops`), with the request it makes once confirmed.
    Op(crate::resource::ops::OpId, crate::api::ApiRequest),
    /// A resource's operation that takes inputs first (its console module's fields), on its
    /// subject; the fields' values are the operation's named inputs.
    OpForm(
        crate::resource::ops::OpId,
        Box<crate::console::record::Record>,
    ),
}

/// What a write does besides its request: its toast, its question, what follows its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteSpec {
    /// Past tense for the success toast (`saved`).
    pub(crate) done: &'static str,
    /// Whether it is asked about once more after its fields.
    pub(crate) asks: bool,
    /// Whether the item leaves its list: the detail closes and the shown page loads again.
    pub(crate) removes: bool,
    /// Whether the item is gone for good: wherever it is named (chips, a notification's
    /// destination), it shows as deleted.
    pub(crate) gone: bool,
    /// Whether it picks among the organization's members (filled from their cache, which it
    /// refreshes once done).
    pub(crate) members: bool,
    /// Whether its answer holds what no later read gives (a new secret): the detail keeps it.
    pub(crate) keeps_reply: bool,
}

impl WriteSpec {
    /// A write that saves what its fields say, with this toast word.
    pub(crate) const fn saves(done: &'static str) -> Self {
        Self {
            done,
            asks: false,
            removes: false,
            gone: false,
            members: false,
            keeps_reply: false,
        }
    }

    /// A write asked about once more first, with this toast word.
    pub(crate) const fn asked(done: &'static str) -> Self {
        Self {
            asks: true,
            ..Self::saves(done)
        }
    }

    /// A removal (asked first; the item leaves its list), with this toast word.
    pub(crate) const fn removal(done: &'static str) -> Self {
        Self {
            removes: true,
            ..Self::asked(done)
        }
    }

    /// A dialog write saving under its verb's toast word (`resource::ops::Verb::done`); a
    /// delete removes.
    pub(crate) fn standard(action: Action) -> Self {
        let done = match action {
            Action::Write(v) => v.done,
            _ => "saved",
        };
        match action {
            Action::DELETE => Self::removal(done),
            _ => Self::saves(done),
        }
    }
}

/// Where a dialog stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Fields take keys.
    Editing,
    /// "Discard what was typed?" after Esc.
    Discard,
    /// "Are you sure?": the confirmation layer asks (`Core::confirm`), the dialog waits.
    Confirm,
    /// The write is in flight (its request id).
    Submitting(u64),
}

/// An open form dialog.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Dialog {
    /// Title of the box.
    pub(crate) title: String,
    /// The write it makes.
    pub(crate) kind: Kind,
    /// The fields, top to bottom.
    pub(crate) fields: Vec<Field>,
    /// The focused field.
    pub(crate) focus: usize,
    /// Where it stands.
    pub(crate) phase: Phase,
    /// The question asked in the confirm phase.
    pub(crate) confirm: String,
    /// The server's (or the form's) message about the last attempt.
    pub(crate) message: Option<String>,
    /// Lookups to start when the dialog opens: (what, field index).
    pub(crate) wanted: Vec<(Lookup, usize)>,
    /// Lookups in flight: (request id, field index).
    pub(crate) lookups: Vec<(u64, usize)>,
    /// What its resource's console module keeps with it between keys (a team's projects and
    /// the one last seen); the machinery never reads it.
    pub(crate) memo: serde_json::Value,
    /// The item's name, typed to confirm under `confirm = "type-name"`.
    pub(crate) confirm_name: String,
    /// The resource whose console module opened it (and builds its write).
    pub(crate) resource: Option<crate::console::tab::Tab>,
    /// The name is typed to confirm whatever `confirm` says (the operation asks for it).
    pub(crate) typed: bool,
}

impl Dialog {
    /// A dialog for `kind` with these fields.
    pub(crate) fn new(title: impl Into<String>, kind: Kind, fields: Vec<Field>) -> Self {
        Self {
            title: title.into(),
            kind,
            fields,
            focus: 0,
            phase: Phase::Editing,
            confirm: String::new(),
            message: None,
            wanted: Vec::new(),
            lookups: Vec::new(),
            memo: serde_json::Value::Null,
            confirm_name: String::new(),
            resource: None,
            typed: false,
        }
    }

    /// Fills the picker of field `at` from a lookup when the dialog opens.
    pub(crate) fn lookup(mut self, what: Lookup, at: usize) -> Self {
        self.wanted.push((what, at));
        self
    }

    /// Whether anything was typed or chosen.
    pub(crate) fn is_dirty(&self) -> bool {
        self.fields.iter().any(Field::is_dirty)
    }

    /// The field with a body key.
    pub(crate) fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.key == key)
    }

    /// The trimmed text of the field with a body key (empty when missing).
    pub(crate) fn text(&self, key: &str) -> String {
        self.field(key).map(Field::value).unwrap_or_default()
    }

    /// Sets a problem beside the field with a body key.
    pub(crate) fn fail(&mut self, key: &str, msg: impl Into<String>) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.key == key) {
            f.error = Some(msg.into());
        }
    }

    /// Marks empty required fields; true when every field is fine.
    fn check_fields(&mut self) -> bool {
        for f in &mut self.fields {
            if f.required && f.is_empty() {
                f.error = Some("required".into());
            }
        }
        self.fields.iter().all(|f| f.error.is_none())
    }

    /// Moves the focus to the first field with a problem.
    fn focus_first_error(&mut self) {
        if let Some(i) = self.fields.iter().position(|f| f.error.is_some()) {
            self.focus = i;
        }
    }

    /// Shows the server's answer: field problems beside their fields, the rest as the message.
    pub(crate) fn show_error(&mut self, e: &Error) {
        let Some(api) = e.api() else {
            self.message = Some(e.to_string());
            return;
        };
        let mut rest = Vec::new();
        for issue in &api.errors {
            let key = issue.field().unwrap_or_default();
            match self
                .fields
                .iter_mut()
                .find(|f| f.key == key || f.entities.contains(&key))
            {
                Some(f) => f.error = Some(issue.message.clone()),
                None => rest.push(format!("{}: {}", issue.path_string(), issue.message)),
            }
        }
        if let Some(entity) = api.entity.as_deref()
            && let Some(f) = self
                .fields
                .iter_mut()
                .find(|f| f.entities.contains(&entity))
        {
            f.error = Some(api.message.clone());
        }
        let mut msg = format!("{} {}: {}", api.status, api.code, api.message);
        if !rest.is_empty() {
            msg.push_str(&format!(" ({})", rest.join("; ")));
        }
        if let Some(h) = &api.hint {
            msg.push_str(&format!(" — {h}"));
        }
        self.message = Some(msg);
        self.focus_first_error();
    }
}
