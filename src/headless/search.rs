//! `notifications search EXPR [selection] [--max-pages N]` (issue 38): find deliveries by what
//! they carried. EXPR is a jq expression run by the built-in jq ([`super::jq`], its bounds and an
//! empty `env`) on each selected notification's latest recorded attempt: `.` is the delivered
//! body (`null` when not JSON), `$headers` the request headers and `$response` `{status, headers,
//! body}`, headers masked by the one redaction policy. A notification matches when EXPR yields
//! `true`. The selection is walked newest first page by page within the walk's budget
//! ([`crate::api::lookup::walk`]); matches are printed as they are found (the API's notification
//! object: NDJSON when piped or under `-o json`, table rows on a terminal), progress and the
//! summary go to stderr.
use std::io::IsTerminal;
use std::sync::mpsc;

use clap::Args;
use serde::Deserialize;
use serde_json::Value;

use super::HeadlessError;
use super::columns;
use super::jq::{Bounds, Doc, Jq, RunError, Verdict};
use super::output::{self, Output, OutputFormat, emit};
use super::selection::SelectionArgs;
use crate::api::model::Notification;
use crate::api::search::{self, Tally};
use crate::api::selection::{PAGE, Selection};
use crate::api::{ApiRequest, Client, Error, ListQuery, Order};

use crate::api::search::VARS;
#[cfg(test)]
use crate::api::search::doc_of;

/// `notifications search`.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// A jq expression, `true` for what you look for: `.` is the delivered body (null when not
    /// JSON), `$headers` the request headers (masked), `$response` `{status, headers, body}`
    /// of the same (latest recorded) attempt. Checked before any request. On
    /// callback-destinations `$response` is null: that generation keeps no receiver's answer.
    #[arg(value_name = "EXPR", value_parser = parse_expr)]
    pub expr: Jq,
    /// Which notifications (`--since` bounds how far back; `--max-pages N` how many pages).
    #[command(flatten)]
    pub selection: SelectionArgs,
}

/// EXPR as given: a usage error (exit 2) before any request when it does not compile.
fn parse_expr(expr: &str) -> Result<Jq, String> {
    Jq::with_vars(expr, VARS)
}

/// What a search's filter does past its bounds: it cannot be stopped from outside, so the
/// command ends here with the error (exit 2).
fn past_bounds(why: &str) {
    let e = HeadlessError::Usage(format!("search: {why}"));
    eprintln!("{}", output::error_json(&e));
    std::process::exit(e.exit_code());
}

/// Runs a search and prints what it finds as it finds it.
///
/// # Errors
/// Usage (a window that ends before it starts), the API's error, the walk's budget (exit 3,
/// after the matches found and the summary, naming the `--after` id to continue from), an
/// output error.
pub async fn run(client: &Client, out: &Output, args: SearchArgs) -> Result<(), HeadlessError> {
    let selection: Selection = args.selection.selection()?;
    let progress = std::io::stderr().is_terminal();
    // The filter runs on a thread of its own (jaq's values are not `Send`), fed a page at a time.
    let (docs, docs_rx) = mpsc::channel::<Doc>();
    let (verdicts_tx, verdicts) = mpsc::channel::<Verdict>();
    let jq = args.expr.clone();
    let filter = std::thread::Builder::new()
        .name("search".into())
        .spawn(move || {
            jq.test(
                docs_rx.into_iter(),
                move |v| verdicts_tx.send(v).is_ok(),
                Bounds::default(),
                &past_bounds,
            )
        })
        .map_err(HeadlessError::Io)?;
    // Matches leave as NDJSON lines (through `--jq` when given) unless a table is wanted.
    let lines = Output {
        format: OutputFormat::Ndjson,
        ..out.clone()
    };
    let mut tally = Tally::default();
    let mut header = true;
    let mut failed: Option<HeadlessError> = None;
    let q = ListQuery {
        limit: Some(PAGE),
        order: Some(Order::Desc),
        ..ListQuery::default()
    };
    let filter_api = selection.filter();
    let walked = crate::api::lookup::walk(
        client,
        q,
        |q| ApiRequest::list_notifications(q, &filter_api),
        |items: Vec<Value>| {
            let examined = search::examine(items, &selection, &mut tally);
            let mut ended = examined.ended;
            let mut asked: Vec<Value> = Vec::new();
            for (v, doc) in examined.asked {
                if docs.send(doc).is_err() {
                    ended = true;
                    break;
                }
                asked.push(v);
            }
            let mut found = Vec::new();
            for v in asked {
                match verdicts.recv() {
                    Ok(verdict) => {
                        if search::count(&mut tally, verdict) {
                            found.push(v);
                        }
                    }
                    // The filter stopped (its error is read when it is joined).
                    Err(_) => return false,
                }
            }
            if progress && !found.is_empty() {
                // The progress line goes before rows are printed where it stood.
                eprint!("\r\x1b[K");
            }
            if let Err(e) = print(out, &lines, &found, &mut header) {
                failed = Some(e);
                return false;
            }
            if progress {
                eprint!("\r\x1b[K{}", tally.line());
            }
            !ended
        },
    )
    .await;
    drop(docs);
    let ran = filter
        .join()
        .unwrap_or_else(|_| Err(RunError::Filter("the filter failed".into())));
    if progress {
        eprint!("\r\x1b[K");
    }
    eprintln!("{}", tally.line());
    if tally.failed > 0 {
        eprintln!(
            "EXPR failed on {} deliveries (not counted as matches); the first: {}",
            tally.failed,
            tally.first_failure.as_deref().unwrap_or("-")
        );
    }
    if let Some(e) = failed {
        return Err(e);
    }
    match ran {
        Ok(()) => {}
        Err(RunError::Filter(m)) => return Err(HeadlessError::Usage(format!("search: {m}"))),
        Err(RunError::Write(e)) => return Err(output::output_error(e)),
    }
    match walked {
        Ok(()) => Ok(()),
        Err(e @ Error::TooManyPages { .. }) => Err(e.into()),
        Err(e) => Err(e.into()),
    }
}

/// One page's matches: table rows (the header once) on a terminal or under `-o table`, else
/// NDJSON lines (through `--jq` when given).
fn print(
    out: &Output,
    lines: &Output,
    found: &[Value],
    header: &mut bool,
) -> Result<(), HeadlessError> {
    if found.is_empty() {
        return Ok(());
    }
    if !out.table() {
        return lines.items(found);
    }
    if let Some(fields) = &out.fields {
        return out.field_table(fields, found);
    }
    let typed: Vec<Notification> = found
        .iter()
        .filter_map(|v| Notification::deserialize(v).ok())
        .collect();
    let first = std::mem::replace(header, false);
    emit(|w| {
        columns::write_batch(w, &typed, first)?;
        w.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::redact;
    use serde_json::json;

    fn notification(headers: Value, response_headers: Value, body: &str) -> Notification {
        let attempts: Vec<Value> = [r#"{"old":true}"#, body]
            .iter()
            .enumerate()
            .map(|(i, b)| {
                json!({"id": format!("cbna_{i}"), "status": "failed", "index": i,
                "created_at": "2026-01-01T00:00:00Z",
                "webhook_request": {"id": "r", "url": "http://r/in", "request_method": "POST",
                    "request_body": b, "request_headers": headers,
                    "response_headers": response_headers, "response_status": 503,
                    "response_body": "busy", "duration": 1, "created_at": "2026-01-01T00:00:00Z"}})
            })
            .collect();
        serde_json::from_value(json!({
            "id": "cbn_1", "type": "webhook_http", "status": "failed", "url": "http://r/in",
            "created_at": "2026-01-01T00:00:00Z",
            "attempts": attempts,
        }))
        .expect("notification")
    }

    fn verdict(expr: &str, n: &Notification) -> Verdict {
        let jq = Jq::with_vars(expr, VARS).expect("valid");
        let mut got = Vec::new();
        jq.test(
            doc_of(n).into_iter(),
            |v| {
                got.push(v);
                true
            },
            Bounds::default(),
            &|m| panic!("{m}"),
        )
        .expect("runs");
        got.pop().expect("one verdict")
    }

    #[test]
    fn expr_sees_the_latest_body_and_masked_headers() {
        let n = notification(
            json!({"authorization": "Bearer hunter2", "metorial-event-id": "cbe_1"}),
            json!({"set-cookie": "session=abc", "retry-after": "5"}),
            r#"{"order":{"id":"o-42"}}"#,
        );
        assert_eq!(verdict(r#".order.id == "o-42""#, &n), Verdict::True);
        assert_eq!(
            verdict(".old", &n),
            Verdict::NotTrue,
            "the latest attempt only"
        );
        assert_eq!(
            verdict(r#"$headers["metorial-event-id"] == "cbe_1""#, &n),
            Verdict::True
        );
        for secret in [
            r#"$headers.authorization | contains("hunter2")"#,
            r#"$response.headers["set-cookie"] | contains("abc")"#,
        ] {
            assert_eq!(verdict(secret, &n), Verdict::NotTrue, "{secret}");
        }
        assert_eq!(
            verdict(
                &format!("$headers.authorization == \"{}\"", redact::MASKED),
                &n
            ),
            Verdict::True
        );
        assert_eq!(
            verdict(
                r#"$response == {status: 503, headers: {"set-cookie": $response.headers["set-cookie"], "retry-after": "5"}, body: "busy"}"#,
                &n
            ),
            Verdict::True
        );
        // Not JSON: `.` is null. A failure is the delivery's, not the search's.
        let text = notification(json!({}), json!({}), "plain text");
        assert_eq!(verdict(". == null", &text), Verdict::True);
        assert!(
            matches!(verdict(".order.id.x", &n), Verdict::Failed(m) if m.contains("cannot index"))
        );
        assert!(parse_expr(".order.id ==").is_err());
        assert!(parse_expr("$nosuch").is_err());
    }
}
