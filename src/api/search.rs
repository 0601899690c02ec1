//! A search by content (issue 38), shared by `notifications search` and the console's `Ctrl-F`:
//! what the jq expression sees of a notification ([`doc_of`]: its latest recorded attempt, headers
//! masked by the one redaction policy) and which items of a page it is asked about ([`examine`]:
//! the selection's window, statuses and event types first). The expression itself runs on
//! [`super::jq`]'s bounded runner, on a thread of its own each face starts.
use serde::Deserialize;
use serde_json::{Value, json};

use super::jq::Doc;
use super::model::{Notification, WebhookRequest, time};
use super::selection::Selection;
use crate::text::redact;

/// The variables EXPR may use besides `.`, in the order each [`Doc`] carries them.
pub const VARS: &[&str] = &["$headers", "$response"];

/// What EXPR sees of a notification: its latest attempt with a recorded request, `None` when it
/// has none (not yet attempted, or no URL).
#[must_use]
pub fn doc_of(n: &Notification) -> Option<Doc> {
    let r: &WebhookRequest = n
        .attempts
        .iter()
        .filter(|a| a.webhook_request.is_some())
        .max_by_key(|a| a.index)?
        .webhook_request
        .as_ref()?;
    let masked = |h: &std::collections::BTreeMap<String, String>| {
        Value::Object(
            h.iter()
                .map(|(k, v)| (k.clone(), json!(redact::header_value(k, v, false))))
                .collect(),
        )
    };
    // Not JSON: the filter sees `null` (the jq runner reads an unreadable document so).
    let input = r.request_body.clone().unwrap_or_else(|| "null".into());
    let response = json!({
        "status": r.has_response().then_some(r.response_status),
        "headers": masked(&r.response_headers),
        "body": r.response_body,
    });
    Some(Doc {
        input,
        vars: vec![masked(&r.request_headers).to_string(), response.to_string()],
    })
}

/// How far a search got.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Notifications examined.
    pub examined: usize,
    /// Those EXPR said `true` of.
    pub matched: usize,
    /// The oldest notification examined.
    pub back_to: Option<String>,
    /// Deliveries EXPR failed on (counted as not matching).
    pub failed: usize,
    /// The first failure's message (no data in it).
    pub first_failure: Option<String>,
}

impl Tally {
    /// `examined N, matched M, back to <time>`.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "examined {}, matched {}, back to {}",
            self.examined,
            self.matched,
            self.back_to.as_deref().unwrap_or("-")
        )
    }
}

/// One page's items to ask EXPR about, with their documents, and whether the walk ends here
/// (newest first, an item older than the window: nothing after it is in it).
#[derive(Debug, Default)]
pub struct Examined {
    /// The items selected that have a recorded attempt, as received, with what EXPR sees.
    pub asked: Vec<(Value, Doc)>,
    /// The window ended on this page.
    pub ended: bool,
}

/// Counts a page's items in `tally` and picks those EXPR is to be asked about.
#[must_use]
pub fn examine(items: Vec<Value>, selection: &Selection, tally: &mut Tally) -> Examined {
    let mut out = Examined::default();
    for v in items {
        // An item of a shape the model does not read is examined, never a match.
        let n = Notification::deserialize(&v).ok();
        if n.as_ref().is_some_and(|n| selection.before_window(n)) {
            out.ended = true;
            break;
        }
        tally.examined += 1;
        if let Some(n) = &n {
            tally.back_to = Some(time::format(&n.created_at));
        }
        if let Some(doc) = n.filter(|n| selection.matches(n)).as_ref().and_then(doc_of) {
            out.asked.push((v, doc));
        }
    }
    out
}

/// Counts a verdict in `tally`; whether it is a match.
pub fn count(tally: &mut Tally, verdict: super::jq::Verdict) -> bool {
    match verdict {
        super::jq::Verdict::True => {
            tally.matched += 1;
            true
        }
        super::jq::Verdict::NotTrue => false,
        super::jq::Verdict::Failed(m) => {
            tally.failed += 1;
            tally.first_failure.get_or_insert(m);
            false
        }
    }
}
