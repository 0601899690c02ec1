//! Provider OAuth token imports: status, connection, expiry, metadata. The token is never shown.
pub(crate) mod dialogs;

use crate::console::forms::Dialog;
use crate::console::forms::ops::WriteOp;
use crate::console::keymap::Action;
use ratatui::text::{Line, Span};

use super::kit::{Tone, ViewCtx};
use crate::api::model::{ImportStatus, ProviderOauthImport};
use crate::api::secret::mask;
use crate::console::widgets::fields::Fields;

fn status(i: &ProviderOauthImport, ctx: &ViewCtx) -> Span<'static> {
    let tone = match i.status {
        ImportStatus::Active => Tone::Good,
        ImportStatus::Expired => Tone::Off,
        ImportStatus::Other(_) => Tone::Unknown,
    };
    ctx.status(i.status.as_str(), tone)
}

/// Detail lines: every field, the id token masked, metadata as key = value.
pub(crate) fn detail(i: &ProviderOauthImport, ctx: &ViewCtx) -> Vec<Line<'static>> {
    let mut f = Fields::new(ctx.theme);
    f.field("ID", i.id.clone())
        .field_spans("Status", vec![status(i, ctx)])
        .opt("Note", i.note.as_deref())
        .opt("Connection", i.connection_id.as_deref())
        .opt("Scope", i.scope.as_deref())
        .opt("Token type", i.token_type.as_deref())
        .opt("Identifier", i.identifier.as_deref());
    match &i.id_token {
        Some(t) => f.field("ID token", mask(t)),
        None => f.opt("ID token", None),
    };
    f.field(
        "Access token",
        Span::styled("never returned by the API", ctx.theme.muted),
    )
    .field("Created", ctx.when(&i.created_at));
    match &i.expires_at {
        Some(t) => f.field("Expires", ctx.when(t)),
        None => f.field("Expires", Span::styled("never", ctx.theme.muted)),
    };
    f.section(format!("Metadata ({})", i.metadata.len()));
    if i.metadata.is_empty() {
        f.line(2, vec![Span::styled("none", ctx.theme.muted)]);
    }
    for (k, v) in &i.metadata {
        let v = match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        f.line(
            2,
            vec![
                Span::styled(format!("{k} = "), ctx.theme.muted),
                Span::raw(v),
            ],
        );
    }
    f.finish()
}

impl super::DetailView for crate::resource::imports::Imports {
    fn detail(item: &ProviderOauthImport, ctx: &ViewCtx) -> Vec<Line<'static>> {
        detail(item, ctx)
    }

    fn dialog(action: Action, item: Option<&ProviderOauthImport>) -> Option<Dialog> {
        use crate::console::views::imports::dialogs as f;
        match (action, item) {
            (Action::CREATE, _) => Some(f::create()),
            (Action::EDIT, Some(i)) => Some(f::edit(i)),
            _ => None,
        }
    }

    fn build(d: &mut Dialog) -> Option<WriteOp> {
        crate::console::views::imports::dialogs::build(d)
            .map(|req| WriteOp::Op(<Self as crate::resource::Resource>::KIND, req))
    }
}
