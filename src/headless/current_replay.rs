//! Client-side sends of `event-destinations` deliveries (issue 34): `notifications replay` of an
//! attempt's recorded request and `notifications recover --to URL`, each freshly signed as the
//! platform signs (generations.md §7: `metorial-signature: t=…,v1=HMAC(secret, "t.body")` with
//! `metorial-timestamp`). The platform shows a destination's secret only when it is created or
//! rotated, so the operator gives it (`--secret-env VAR`), or `replay --unsigned` sends none.
//! `replay --edit | --body-file F` (issue 39) sends a new body signed over its own bytes, then
//! compares the answer with the one the replayed attempt recorded, as pulsar's does.
use std::io::IsTerminal;

use serde_json::{Value, json};

use super::HeadlessError;
use super::output::{self, Output, OutputFormat};
use super::recover::{RecoverArgs, STOPPED};
use super::replay::ReplayArgs;
use crate::api::identity::ServiceIdentity;
use crate::api::journal::{Entry, Journal, Outcome};
use crate::api::platform_retry::{self as retry, Item};
use crate::api::replay::{self, ReplayResult, SendOptions};
use crate::api::{Client, Secret};
use crate::text::sanitize::line;

fn usage(msg: impl Into<String>) -> HeadlessError {
    HeadlessError::Usage(line(&msg.into()).into_owned())
}

/// What an attempt's recorded request holds (moved to `api`, where MCP reads it too).
pub use crate::api::delivery_replay::{Recorded, plan_now};

/// The recorded request of `delivery`'s attempt `number` (from 1), or of its latest attempt.
///
/// # Errors
/// The API's; usage when the delivery has no such attempt or it recorded no request.
pub async fn recorded(
    client: &Client,
    delivery: &str,
    number: Option<i64>,
) -> Result<Recorded, HeadlessError> {
    crate::api::delivery_replay::recorded(client, delivery, number)
        .await
        .map_err(|e| match e {
            crate::api::delivery_replay::RecordedError::Api(e) => HeadlessError::Api(e),
            crate::api::delivery_replay::RecordedError::Missing(why) => usage(why),
        })
}

/// The secret named by `--secret-env`.
fn secret_of(var: Option<&str>) -> Result<Option<Secret>, HeadlessError> {
    var.map(|v| {
        super::input::secret_from_env(v, "the destination's signing secret").map(Secret::new)
    })
    .transpose()
}

/// `notifications replay ID --to URL` on event-destinations; the answer (with an edited body) is
/// kept in `log` for `diff --with-replay`, as pulsar's replay keeps it.
///
/// # Errors
/// Usage (bad target, no secret, nothing recorded), the API's, or the answer's exit (3, 4).
pub async fn replay(
    client: &Client,
    out: &Output,
    args: ReplayArgs,
    read_only: bool,
    log: Option<&crate::api::forward::AnswerLog>,
) -> Result<(), HeadlessError> {
    let edited = args.edit || args.body_file.is_some();
    // Said before anything is asked, as a missing secret is.
    if args.edit && crate::config::editor::editor().is_none() {
        return Err(usage(
            "--edit needs $VISUAL or $EDITOR (or give the body with --body-file F)",
        ));
    }
    if args.attempt.is_some_and(|n| n < 1) {
        return Err(usage(
            "--attempt counts from 1 (#1 is the first attempt, as notifications get shows)",
        ));
    }
    let secret = match (secret_of(args.secret_env.as_deref())?, args.unsigned) {
        (Some(_), true) => {
            return Err(usage(
                "--secret-env signs and --unsigned does not: give one.",
            ));
        }
        (None, false) => {
            return Err(usage(
                "a delivery is signed with its destination's secret, which the platform shows only on create and rotate: give it with --secret-env VAR, or send --unsigned.",
            ));
        }
        (s, _) => s,
    };
    let target = replay::parse_target(&args.to).map_err(|e| usage(e.to_string()))?;
    super::replay::check_target(&target, read_only, args.yes)?;
    let mut recorded = recorded(client, &args.id, args.attempt).await?;
    // The answer the replayed attempt recorded, read before anything is sent.
    let before = if edited {
        Some(recorded_answer(client, &recorded).await?)
    } else {
        None
    };
    if edited {
        // Validated before anything is sent: an invalid edit sends nothing. The signature is
        // then made over these bytes (plan_now signs the body it is given).
        recorded.body = super::edit::new_body(&recorded.body, args.body_file.as_deref())?;
    }
    let plan = plan_now(&recorded, target, secret.as_ref());
    if !replay::is_loopback(&plan.target) && !args.yes {
        super::replay::confirm_remote(&plan)?;
    }
    let result = replay::send(
        &plan,
        &SendOptions {
            timeout: super::replay::timeout(),
        },
    )
    .await;
    if let Some(log) = log
        && let Err(e) = log.append_sent(
            if edited { "edited" } else { "replayed" },
            &plan.notification_id,
            plan.attempt_index,
            &result,
            &plan.target,
            edited.then_some(plan.body.as_str()),
        )
    {
        // The replay happened; only the comparison later lacks it.
        tracing::warn!("the answer is not kept for diff --with-replay: {e}");
    }
    if let Some(before) = before {
        print_edited(out, &plan, &result, &before, secret.is_some())?;
    } else if out.table() {
        let text = super::replay_report::to_table(&plan, &result);
        output::emit(|w| output::write_raw(w, &text, false))?;
    } else {
        let mut v = super::replay_report::to_json(&plan, &result);
        v["signed"] = json!(secret.is_some());
        out.document(&format!("{v:#}"))?;
    }
    super::replay::outcome(&result)
}

/// The answer recorded by the attempt `r` was read from, as [`crate::api::compare`] takes it
/// (the delivery's embedded attempts carry no response body: the attempt is read by its id).
async fn recorded_answer(
    client: &Client,
    r: &Recorded,
) -> Result<crate::api::compare::Answer, HeadlessError> {
    let raw = client
        .send(&crate::api::ApiRequest::get_delivery(&r.delivery))
        .await?;
    let d: Value = crate::api::client::decode(raw.status, &raw.body)?;
    let id = d
        .get("attempts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|a| a.get("attempt_number").and_then(Value::as_i64) == Some(r.attempt_number))
        .and_then(|a| a.get("id").and_then(Value::as_str))
        .ok_or_else(|| {
            usage(format!(
                "delivery {} has no attempt #{} any more: nothing to compare with",
                r.delivery, r.attempt_number
            ))
        })?;
    let raw = client
        .send(&crate::api::ApiRequest::get_delivery_attempt(id))
        .await?;
    let a: Value = crate::api::client::decode(raw.status, &raw.body)?;
    Ok(super::current_deliveries::answer_of(&a))
}

/// An edited replay's answer, then its comparison with `before` (the recorded answer): the
/// replay's table followed by the diff's, or one JSON document (the replay's, with `edited` and
/// `diff`), as pulsar's `replay --edit` prints.
fn print_edited(
    out: &Output,
    plan: &crate::api::replay::ReplayPlan,
    result: &ReplayResult,
    before: &crate::api::compare::Answer,
    signed: bool,
) -> Result<(), HeadlessError> {
    use crate::api::compare::{Answer, compare};
    let new = Answer::from_replay(
        format!("edited replay (to {})", line(plan.target.as_str())),
        result,
    );
    let c = compare(before, &new);
    if out.table() {
        let mut text = super::replay_report::to_table(plan, result);
        text.push_str("\n\n");
        text.push_str(&super::diff::table(&plan.notification_id, &c));
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        let mut v = super::replay_report::to_json(plan, result);
        v["signed"] = json!(signed);
        v["edited"] = Value::Bool(true);
        v["diff"] = serde_json::to_value(&c).map_err(|e| HeadlessError::Io(e.into()))?;
        out.document(&format!("{v:#}"))
    }
}

/// `notifications recover --to URL` on event-destinations: each selected delivery's latest
/// recorded request sent from this machine, freshly signed, journalled per target as pulsar's
/// recover is (a rerun sends only what has not succeeded there).
///
/// # Errors
/// Usage, the API's, the journal's, or the run's outcome (exit 3, 4 or 130).
pub async fn recover_to(
    client: &Client,
    format: OutputFormat,
    args: RecoverArgs,
    read_only: bool,
    profile: &str,
) -> Result<(), HeadlessError> {
    let Some(to) = args.to.as_deref() else {
        return Err(usage("recover --to needs a URL"));
    };
    let Some(secret) = secret_of(args.secret_env.as_deref())? else {
        return Err(usage(
            "recover --to signs each request with the destination's secret, which the platform shows only on create and rotate: give it with --secret-env VAR.",
        ));
    };
    let target = replay::parse_target(to).map_err(|e| usage(e.to_string()))?;
    super::replay::check_target(&target, read_only, args.yes)?;
    let mut sel = super::current_deliveries::selection_of(&args.selection)?;
    if !args.again.is_empty() {
        sel.deliveries = args.again.clone();
    }
    let data_dir = crate::config::Paths::with_config(None)
        .data_dir
        .ok_or_else(|| usage("no data directory for the journal (set HOME or XDG_DATA_HOME)"))?;
    let mut journal = Journal::open_for(&data_dir, &ServiceIdentity::of(client), profile)
        .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
    let key = target.as_str().to_string();
    // The platform's retry and this machine's sends are journalled apart: the target tells them.
    let mut plan = retry::plan(client, &sel, &journal, &args.again).await?;
    // Any status may be sent to a local receiver: what the platform is still delivering too.
    plan.items.extend(
        std::mem::take(&mut plan.unfinished)
            .into_iter()
            .map(|id| Item {
                delivery: id,
                status: String::new(),
                event_type: String::new(),
                destination: String::new(),
                created_at: String::new(),
                attempts: 0,
            }),
    );
    // The plan judged by the platform's target; a local send is judged by its own.
    let mut items = Vec::new();
    let mut doubt = Vec::new();
    let mut already = 0usize;
    for item in
        plan.items.into_iter().chain(
            plan.already
                .into_iter()
                .chain(plan.in_doubt)
                .map(|id| Item {
                    delivery: id,
                    status: String::new(),
                    event_type: String::new(),
                    destination: String::new(),
                    created_at: String::new(),
                    attempts: 0,
                }),
        )
    {
        if args.again.contains(&item.delivery) {
            items.push(item);
            continue;
        }
        match journal.state(&item.delivery, &key) {
            Some(crate::api::journal::State::Succeeded) => already += 1,
            Some(crate::api::journal::State::InDoubt) => doubt.push(item.delivery),
            _ => items.push(item),
        }
    }
    let n = items.len();
    let mut head = format!(
        "sending {n} deliver{} to {}{}",
        retry::plural(n),
        crate::text::redact::mask_url(target.as_str()),
        if args.dry_run {
            " (dry run: nothing sent)"
        } else {
            ""
        }
    );
    if already > 0 {
        head.push_str(&format!(
            "\n{already} skipped: already succeeded there (--again ID sends again)"
        ));
    }
    say(&head)?;
    let terminal = std::io::stdout().is_terminal();
    let (mut ok, mut failed, mut unreachable, mut left) = (0usize, 0usize, 0usize, 0usize);
    let mut stop = super::interrupt::Interrupt::listen();
    let mut stopped = false;
    for (k, item) in items.iter().enumerate() {
        if args.dry_run {
            write(
                format,
                terminal,
                &json!({"delivery": item.delivery, "target": crate::text::redact::mask_url(target.as_str()), "dry_run": true}),
                &item.delivery,
            )?;
            continue;
        }
        if stopped {
            left = n - k;
            break;
        }
        let rec = match recorded(client, &item.delivery, None).await {
            Ok(r) => r,
            Err(HeadlessError::Usage(why)) => {
                say(&format!("not sent: {why}"))?;
                unreachable += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        if !journal
            .claim(&item.delivery, &key, args.again.contains(&item.delivery))
            .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?
        {
            continue;
        }
        let plan = plan_now(&rec, target.clone(), Some(&secret));
        let opts = SendOptions {
            timeout: super::replay::timeout(),
        };
        let send = replay::send(&plan, &opts);
        let result = tokio::select! {
            r = send => r,
            () = stop.recv() => {
                // The request in flight is left to finish on the receiver's side: in doubt.
                say("stopping: the same command resumes the rest")?;
                left = n - k;
                stopped = true;
                break;
            }
        };
        let outcome = crate::api::recover::outcome_of(&result);
        match outcome {
            Outcome::Succeeded => ok += 1,
            Outcome::Failed => failed += 1,
            _ => unreachable += 1,
        }
        journal
            .record(&Entry {
                at: chrono::Utc::now(),
                notification: item.delivery.clone(),
                target: key.clone(),
                outcome,
                status: result.status,
                duration_ms: u64::try_from(result.duration.as_millis()).ok(),
            })
            .map_err(|e| HeadlessError::Io(std::io::Error::other(e.to_string())))?;
        write(
            format,
            terminal,
            &sent_json(&item.delivery, &target, &result, outcome),
            &line(&format!(
                "{}  {}  {}",
                item.delivery,
                result
                    .status
                    .map_or_else(|| "no answer".to_string(), |s| format!("HTTP {s}")),
                result.duration.as_millis()
            )),
        )?;
    }
    for id in &doubt {
        say(&format!(
            "in doubt: {id} (to {})",
            crate::text::redact::mask_url(target.as_str())
        ))?;
    }
    say(&format!(
        "{} sent: {ok} succeeded, {failed} failed, {unreachable} unreachable\njournal: {}",
        ok + failed + unreachable,
        journal.path().display()
    ))?;
    if stopped {
        return Err(HeadlessError::Outcome {
            code: STOPPED,
            message: format!("stopped with {left} not sent"),
        });
    }
    if unreachable > 0 {
        return Err(HeadlessError::Outcome {
            code: 4,
            message: format!("{unreachable} deliveries got no answer"),
        });
    }
    if failed > 0 || !doubt.is_empty() {
        return Err(HeadlessError::Outcome {
            code: 3,
            message: if failed > 0 {
                format!("{failed} answers were not 2xx")
            } else {
                format!(
                    "{} in doubt, not sent: --again {} sends them",
                    doubt.len(),
                    doubt.join(" ")
                )
            },
        });
    }
    Ok(())
}

fn sent_json(id: &str, target: &url::Url, r: &ReplayResult, o: Outcome) -> Value {
    json!({
        "delivery": id,
        "target": crate::text::redact::mask_url(target.as_str()),
        "status": r.status,
        "duration_ms": u64::try_from(r.duration.as_millis()).unwrap_or(u64::MAX),
        "outcome": match o {
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Unreachable => "unreachable",
            Outcome::Sending => "sending",
        },
        "error": r.error.as_ref().map(|e| line(&e.to_string()).into_owned()),
    })
}

fn write(format: OutputFormat, terminal: bool, v: &Value, text: &str) -> Result<(), HeadlessError> {
    output::emit(|out| match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            output::write_raw(out, &v.to_string(), terminal)
        }
        OutputFormat::Table => writeln!(out, "{text}"),
    })
}

fn say(text: &str) -> Result<(), HeadlessError> {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    err.write_all(crate::text::multiline(text).as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush())
        .map_err(HeadlessError::Io)
}
