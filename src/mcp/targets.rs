//! `replay_locally`'s receivers: only those the operator named (`mcp --replay-to URL`, the
//! profile's `mcp_replay_targets`), each on this machine, matched exactly (scheme, host, port,
//! path and query as the URL parser normalises them). An agent never picks a host or a path.
use serde_json::Value;
use url::Url;

use super::envelope::Answer;
use super::tools::{self, Args, ToolError, need, usage};
use crate::api::Client;
use crate::api::replay::{self, SendOptions};

/// The operator's receivers, checked once when the server starts.
///
/// # Errors
/// A target that is not an http(s) URL, or not on this machine (`localhost`, `127.0.0.0/8`,
/// `[::1]`): the text says which.
pub fn replay_targets<'a>(named: impl IntoIterator<Item = &'a String>) -> Result<Vec<Url>, String> {
    let mut out: Vec<Url> = Vec::new();
    for text in named {
        let url = replay::parse_target(text)
            .map_err(|e| format!("mcp replay target: {}", crate::text::line(&e.to_string())))?;
        if !replay::is_loopback(&url) {
            return Err(format!(
                "mcp replay target {}: replay_locally sends to this machine only (localhost, \
                 127.0.0.1, [::1])",
                crate::text::line(&crate::text::redact::mask_url(url.as_str()))
            ));
        }
        if !out.contains(&url) {
            out.push(url);
        }
    }
    Ok(out)
}

/// The target among `allowed` that `to` names exactly.
pub(super) fn allowed_target(to: &str, allowed: &[Url]) -> Result<Url, ToolError> {
    let named = || {
        allowed
            .iter()
            .map(|u| crate::text::redact::mask_url(u.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if allowed.is_empty() {
        return Err(usage(
            "refused: no replay target is configured (the operator names them with \
             `switchboard mcp --replay-to URL` or the profile's mcp_replay_targets)",
        ));
    }
    let url = replay::parse_target(to)?;
    allowed.iter().find(|u| **u == url).cloned().ok_or_else(|| {
        usage(format!(
            "refused: replay_locally sends only to the receivers the operator named: {}",
            named()
        ))
    })
}

/// `replay_locally`: the recorded delivery, signed afresh, to one of `allowed`.
pub async fn replay_locally(
    client: &Client,
    a: &Args,
    allowed: &[Url],
) -> Result<Answer, ToolError> {
    // Refused before anything is read or sent.
    let target = allowed_target(need(a.to.as_deref(), "to")?, allowed)?;
    let (_, n) = tools::notification(client, a.notification()?).await?;
    let plan = replay::prepare(client, &n, a.index()?, target, a.unsigned).await?;
    let result = replay::send(
        &plan,
        &SendOptions {
            timeout: replay::TIMEOUT,
        },
    )
    .await;
    let report: Value = crate::headless::replay_report(&plan, &result);
    Ok(Answer::platform(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_named_receivers_on_this_machine() {
        let named = ["http://localhost:3000/hooks".to_string()];
        let allowed = replay_targets(&named).expect("loopback");
        assert!(allowed_target("http://LOCALHOST:3000/hooks", &allowed).is_ok());
        assert!(allowed_target("http://localhost:3000/./hooks", &allowed).is_ok());
        for other in [
            "http://localhost:3000/admin/users/delete-all",
            "http://localhost:3001/hooks",
            "http://127.0.0.1:3000/hooks",
            "https://localhost:3000/hooks",
            "http://localhost:3000/hooks?x=1",
        ] {
            assert!(allowed_target(other, &allowed).is_err(), "{other}");
        }
        assert!(allowed_target("http://localhost:3000/hooks", &[]).is_err());
        assert!(replay_targets(&["http://example.com/hooks".to_string()]).is_err());
        assert!(replay_targets(&["ftp://localhost/x".to_string()]).is_err());
    }
}
