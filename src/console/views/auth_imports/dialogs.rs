//! Provider auth import form of the newer generations (`generations.md` §5): create only (an
//! import is an immutable record: "import again"). The value is a secret, typed into a masked
//! field and never echoed; the request is headless's (`ApiRequest::create_auth_import`).
use crate::api::ApiRequest;
use crate::api::model::{CreateAuthImport, CredentialValue};
use crate::console::forms::checks::{check_metadata, parse_metadata};
use crate::console::forms::field::Field;
use crate::console::forms::ops::WriteOp;
use crate::console::forms::{Dialog, Kind};
use crate::console::keymap::Action;
use crate::console::tab::Tab;

/// The value's check: a JSON object; the message never quotes it.
fn check_value(s: &str) -> Result<Option<String>, String> {
    CredentialValue::parse(s).map(|v| Some(format!("keys: {}", v.keys().join(", "))))
}

/// `c` on Imports.
pub(crate) fn create() -> Dialog {
    let fields = vec![
        Field::text("Note", "note", "").required(),
        Field::secret("Value", "value")
            .required()
            .checked(check_value)
            .noted("{\"access_token\": \"…\"}"),
        Field::text("Provider", "provider_id", "").entities(&["provider"]),
        Field::text("Deployment", "provider_deployment_id", "").entities(&["provider_deployment"]),
        Field::text("Auth config", "provider_auth_config_id", "")
            .entities(&["provider_auth_config"]),
        Field::text("Auth method", "provider_auth_method_id", "")
            .entities(&["provider_auth_method"]),
        Field::lines("Metadata", "metadata", Vec::new())
            .checked(check_metadata)
            .noted("key=value, Enter for another line"),
    ];
    Dialog::new("New auth import", Kind::Write(Action::CREATE, None), fields)
}

/// The write the import form describes.
pub(crate) fn build(d: &mut Dialog) -> Option<WriteOp> {
    let opt = |s: String| (!s.is_empty()).then_some(s);
    if !matches!(d.kind, Kind::Write(Action::CREATE, _)) {
        return None;
    }
    let value = match CredentialValue::parse(&d.text("value")) {
        Ok(v) => v,
        Err(e) => {
            d.fail("value", e);
            return None;
        }
    };
    let metadata = match parse_metadata(&d.text("metadata")) {
        Ok(m) => m,
        Err(e) => {
            d.fail("metadata", e);
            return None;
        }
    };
    let b = CreateAuthImport {
        note: d.text("note"),
        value,
        metadata: (!metadata.is_empty()).then_some(metadata),
        provider_id: opt(d.text("provider_id")),
        provider_deployment_id: opt(d.text("provider_deployment_id")),
        provider_auth_config_id: opt(d.text("provider_auth_config_id")),
        provider_auth_method_id: opt(d.text("provider_auth_method_id")),
    };
    Some(WriteOp::Op(
        Tab::AuthImports,
        ApiRequest::create_auth_import(&b),
    ))
}
