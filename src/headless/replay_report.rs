//! What a replay prints: the request sent and the receiver's answer, as a table or as JSON
//! (header values through the one redaction policy, text through the one sanitizer). Used by
//! `replay`, `replay --edit` and `samples send`.
use serde_json::{Map, Value, json};

use crate::api::replay::{
    MAX_RESPONSE_BODY, MAX_RESPONSE_HEADER_BYTES, MAX_RESPONSE_HEADERS, ReplayPlan, ReplayResult,
    masked_headers,
};
use crate::text::sanitize::{line, lines};

/// Headers already through the redaction policy, as an object (repeated names joined by `, `).
fn headers_json(headers: &[(String, String)]) -> Value {
    let mut m = Map::new();
    for (k, v) in headers {
        let v = v.as_str();
        match m.get_mut(k) {
            Some(Value::String(prev)) => {
                prev.push_str(", ");
                prev.push_str(v);
            }
            _ => {
                m.insert(k.clone(), Value::String(v.to_string()));
            }
        }
    }
    Value::Object(m)
}

/// `-o json`: what was sent (headers masked, body as recorded) and the answer (headers masked).
/// A replay as JSON: what was sent (headers masked) and the answer (`-o json`, and the MCP
/// server's `replay_locally`).
pub fn to_json(plan: &ReplayPlan, r: &ReplayResult) -> Value {
    json!({
        "object": "switchboard.replay",
        "replayed_locally": true,
        "notification_id": plan.notification_id,
        // `attempt` counts from 1 as everywhere shown; `attempt_index` is the API's, from 0.
        "attempt": plan.attempt_index.saturating_add(1),
        "attempt_index": plan.attempt_index,
        "destination": plan.destination,
        "signed": signed(plan),
        "request": {
            "method": plan.method,
            "url": plan.target.as_str(),
            "headers": headers_json(&masked_headers(&r.sent_headers)),
            "body": plan.body,
            "sent_at": r.sent_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        },
        "response": {
            "ok": r.is_success(),
            "status": r.status,
            "headers": headers_json(&masked_headers(&r.headers)),
            "headers_truncated": r.headers_truncated,
            "body": r.body,
            "body_truncated": r.body_truncated,
            "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
            "error": r.error.as_ref().map(ToString::to_string),
        },
    })
}

fn indented(out: &mut Vec<String>, text: &str) {
    if text.is_empty() {
        out.push("  (empty)".into());
    }
    for l in lines(text) {
        out.push(format!("  {l}"));
    }
}

fn header_lines(out: &mut Vec<String>, headers: &[(String, String)]) {
    for (k, v) in headers {
        out.push(format!("  {}: {}", line(k), line(v)));
    }
}

/// Whether `plan` is signed: by pulsar's [`crate::api::replay::Signing`], or by a `t=…,v1=…`
/// signature the newer generations put in the headers when the plan is made.
pub(super) fn signed(plan: &ReplayPlan) -> bool {
    plan.signing.is_some() || crate::api::callback_gen::signed_in_headers(&plan.headers)
}

/// The request part of the table: title, method and URL, masked headers, body.
pub(super) fn request_lines(plan: &ReplayPlan, headers: &[(String, String)]) -> Vec<String> {
    let signed = match (signed(plan), &plan.destination) {
        // event-destinations knows only the destination's id when it signs.
        (true, Some(d)) if d.name.is_empty() => {
            format!("signed with the signing secret of {}", line(&d.id))
        }
        (true, Some(d)) => format!(
            "signed with the signing secret of {} ({})",
            line(&d.name),
            line(&d.id)
        ),
        (true, None) => "signed".into(),
        (false, Some(d)) => format!(
            "unsigned (--unsigned); destination {} ({})",
            line(&d.name),
            line(&d.id)
        ),
        (false, None) => "unsigned (--unsigned)".into(),
    };
    let mut out = vec![
        format!(
            "REPLAYED LOCALLY  {} attempt #{} (not a recorded attempt)",
            line(&plan.notification_id),
            plan.attempt_index.saturating_add(1)
        ),
        format!("SIGNATURE         {signed}"),
        format!(
            "REQUEST           {} {}",
            plan.method,
            line(plan.target.as_str())
        ),
    ];
    header_lines(&mut out, headers);
    out.push("REQUEST BODY".into());
    indented(&mut out, &plan.body);
    out
}

/// `-o table`: what was sent (masked) and the answer (masked and sanitised).
pub fn to_table(plan: &ReplayPlan, r: &ReplayResult) -> String {
    let mut out = request_lines(plan, &masked_headers(&r.sent_headers));
    let ms = r.duration.as_millis();
    out.push(match r.status {
        // Headers came but the body was reset or stalled: failed, as the delivery engine counts it.
        Some(s) if r.is_2xx() && !r.is_success() => {
            format!(
                "RESPONSE          HTTP {s} in {ms} ms, FAILED: the answer did not arrive whole"
            )
        }
        Some(s) => format!("RESPONSE          HTTP {s} in {ms} ms"),
        None => format!("RESPONSE          none after {ms} ms"),
    });
    header_lines(&mut out, &masked_headers(&r.headers));
    if r.headers_truncated {
        out.push(format!(
            "  (more headers not kept: at most {MAX_RESPONSE_HEADERS} headers, {} KiB)",
            MAX_RESPONSE_HEADER_BYTES / 1024
        ));
    }
    if let Some(body) = &r.body {
        out.push("RESPONSE BODY".into());
        indented(&mut out, body);
        if r.body_truncated {
            out.push(format!("  (truncated at {} KiB)", MAX_RESPONSE_BODY / 1024));
        }
    }
    if let Some(e) = &r.error {
        out.push(format!("ERROR             {}", line(&e.to_string())));
    }
    out.join("\n")
}
