//! Token import forms: create (exactly one of deployment or connection, masked tokens) and edit
//! (every field optional; an empty token keeps the current one).
use serde_json::Value;

use crate::api::ApiRequest;
use crate::api::model::time::parse_expires_at;
use crate::api::model::{ProviderOauthImport, time};
use crate::console::forms::checks::{check_metadata, parse_metadata};
use crate::console::forms::field::Field;
use crate::console::forms::ops::Lookup;
use crate::console::forms::picker::Picker;
use crate::console::forms::{Dialog, Kind};
use crate::console::keymap::Action;

/// The choice of what the token belongs to.
const TARGETS: [&str; 2] = ["connection", "server deployment"];

/// `expires_at` as typed: ISO 8601 or `+90d`; the note shows the resolved time.
fn check_expiry(s: &str) -> Result<Option<String>, String> {
    parse_expires_at(s).map(|t| Some(format!("→ {t}")))
}

fn common_fields(
    note: &str,
    metadata: Vec<String>,
    expires: &str,
    scope: &str,
    tt: &str,
) -> Vec<Field> {
    vec![
        Field::text("Note", "note", note),
        Field::lines("Metadata", "metadata", metadata)
            .checked(check_metadata)
            .noted("key=value, Enter for another line"),
        Field::text("Expires at", "expires_at", expires)
            .checked(check_expiry)
            .noted("ISO 8601 or +90d"),
        Field::text("Scope", "scope", scope),
        Field::text("Token type", "token_type", tt),
    ]
}

/// `c` on Imports.
pub(crate) fn create() -> Dialog {
    let mut fields = vec![
        Field::choice("Belongs to", "target", TARGETS.to_vec()),
        // The connections in use are offered; any other id (a deployment's) is typed.
        Field::picker("Id", "connection_id", Picker::loading(false))
            .required()
            .entities(&["server_deployment_id", "connection", "server-deployment"])
            .noted("pick a connection in use, or type poc_… / svd_…"),
        Field::secret("Access token", "access_token").required(),
        Field::secret("ID token", "id_token"),
    ];
    fields.extend(common_fields("", Vec::new(), "", "", ""));
    Dialog::new(
        "New token import",
        Kind::Write(Action::CREATE, None),
        fields,
    )
    .lookup(Lookup::Connections, 1)
}

/// `e` on an import: tokens start empty (never shown again) and mean "unchanged" when left so.
pub(crate) fn edit(i: &ProviderOauthImport) -> Dialog {
    let metadata = i
        .metadata
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    let expires = i.expires_at.as_ref().map(time::format).unwrap_or_default();
    let mut fields = vec![
        Field::secret("Access token", "access_token").noted("empty keeps the current token"),
        Field::secret("ID token", "id_token").noted("empty keeps the current one"),
    ];
    fields.extend(common_fields(
        i.note.as_deref().unwrap_or_default(),
        metadata,
        &expires,
        i.scope.as_deref().unwrap_or_default(),
        i.token_type.as_deref().unwrap_or_default(),
    ));
    Dialog::new(
        format!("Edit token import {}", i.id),
        Kind::Write(Action::EDIT, Some(i.id.clone())),
        fields,
    )
}

/// The request an import form describes, built by the resource (`resource::imports`).
pub(crate) fn build(d: &mut Dialog) -> Option<ApiRequest> {
    use crate::resource::imports::{self as w, ImportDetails, ImportTarget};
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let metadata = match parse_metadata(&d.text("metadata")) {
        Ok(m) => m,
        Err(e) => {
            d.fail("metadata", e);
            return None;
        }
    };
    let expires = d.text("expires_at");
    let expires_at = if expires.is_empty() {
        None
    } else {
        match parse_expires_at(&expires) {
            Ok(t) => Some(t),
            Err(e) => {
                d.fail("expires_at", e);
                return None;
            }
        }
    };
    match d.kind.clone() {
        Kind::Write(Action::CREATE, _) => {
            let deployment = d.field("target").map(Field::choice_index) == Some(1);
            let id = d.text("connection_id");
            // The form holds one id; a prefix of the other kind means the wrong choice.
            let wrong = if deployment { "poc_" } else { "svd_" };
            if id.starts_with(wrong) {
                let other = if deployment { TARGETS[0] } else { TARGETS[1] };
                d.fail(
                    "connection_id",
                    format!("this is a {other} id: change “Belongs to”"),
                );
                return None;
            }
            let target = if deployment {
                ImportTarget::Deployment(id)
            } else {
                ImportTarget::Connection(id)
            };
            let details = ImportDetails {
                note: opt(d.text("note")),
                metadata: (!metadata.is_empty()).then_some(metadata),
                expires_at,
                id_token: opt(d.text("id_token")),
                scope: opt(d.text("scope")),
                token_type: opt(d.text("token_type")),
            };
            Some((w::CREATE.request)(target, d.text("access_token"), details))
        }
        Kind::Write(Action::EDIT, Some(id)) => {
            let changed = |k: &str| d.field(k).is_some_and(Field::is_dirty);
            if changed("expires_at") && expires_at.is_none() {
                // The API takes no null here: an expiry can be moved, not removed.
                d.fail("expires_at", "cannot be removed, only changed");
                return None;
            }
            let details = ImportDetails {
                note: changed("note").then(|| d.text("note")),
                metadata: changed("metadata").then_some(metadata),
                expires_at: if changed("expires_at") {
                    expires_at
                } else {
                    None
                },
                id_token: opt(d.text("id_token")),
                scope: changed("scope").then(|| d.text("scope")),
                token_type: changed("token_type").then(|| d.text("token_type")),
            };
            let req = (w::UPDATE.request)(&id, opt(d.text("access_token")), details);
            if req.is_none() {
                d.message = Some("Nothing changed".into());
            }
            req
        }
        _ => None,
    }
}
