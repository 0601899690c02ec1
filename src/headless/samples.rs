//! `notifications keep ID --name NAME` and `samples list|show|send|rm` (issue 39): named samples
//! kept per profile ([`crate::api::samples`]) and sent again as `notifications replay` sends.
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::HeadlessError;
use super::output::{self, Output};
use super::replay;
use crate::api::Client;
use crate::api::replay::{self as api_replay, ReplayError, SendOptions};
use crate::api::sample_send::{self, Key};
use crate::api::samples::{KeepError, Library, Named, Sample, SampleError};
use crate::text::sanitize::{line, lines};

/// `notifications keep`.
#[derive(Args, Debug, Clone)]
pub struct KeepArgs {
    /// Notification id (`cbn_…`).
    pub id: String,
    /// The sample's name: 1 to 64 of `A-Z a-z 0-9 . _ -`.
    #[arg(long, value_name = "NAME")]
    pub name: String,
    /// The attempt to keep, counted from 1; default the latest with a recorded request.
    #[arg(long, value_name = "N")]
    pub attempt: Option<i64>,
    /// Replace a sample of that name.
    #[arg(long)]
    pub force: bool,
}

/// `samples …`.
#[derive(Subcommand, Debug, Clone)]
pub enum SamplesCmd {
    /// List this profile's samples.
    List,
    /// Show one sample: its event, callback, destination, headers (masked) and body.
    Show {
        /// The sample's name.
        name: String,
    },
    /// Send a sample to a receiver, signed afresh with its destination's secret when that
    /// destination still exists (exit 0 on 2xx, 3 on another answer, 4 on none).
    Send {
        /// The sample's name.
        name: String,
        /// Where to send it: an http(s) URL, e.g. `http://localhost:3000/webhooks`.
        #[arg(long, value_name = "URL")]
        to: String,
        /// Send without a `Metorial-Signature`.
        #[arg(long)]
        unsigned: bool,
        /// The destination's signing secret from this environment variable (event-destinations
        /// shows a secret only on create and rotate).
        #[arg(long, value_name = "VAR", conflicts_with = "unsigned")]
        secret_env: Option<String>,
        /// Send to a host that is not this machine without asking; needed when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Remove a sample.
    Rm {
        /// The sample's name.
        name: String,
        /// Do not ask; required when not on a terminal.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}

fn sample_error(e: SampleError) -> HeadlessError {
    match e {
        SampleError::Io { .. } => HeadlessError::Io(std::io::Error::other(e.to_string())),
        other => HeadlessError::Usage(line(&other.to_string()).into_owned()),
    }
}

/// `notifications keep`: reads the notification, names its callback and destination, keeps it.
///
/// # Errors
/// Usage (bad name, existing name, nothing recorded), the API's error, or the library's refusal.
pub async fn keep(
    client: &Client,
    out: &Output,
    args: KeepArgs,
    library: &Library,
) -> Result<(), HeadlessError> {
    if !crate::api::samples::valid_name(&args.name) {
        return Err(sample_error(SampleError::BadName(args.name)));
    }
    let index = match args.attempt {
        Some(n) if n < 1 => {
            return Err(HeadlessError::Usage(format!(
                "--attempt counts from 1 (#1 is the first delivery), not {n}"
            )));
        }
        n => n.map(|n| n - 1),
    };
    let (sample, path) =
        crate::api::samples::keep(client, library, &args.id, &args.name, index, args.force)
            .await
            .map_err(|e| match e {
                KeepError::Api(e) | KeepError::Replay(ReplayError::Lookup(e)) => {
                    HeadlessError::Api(e)
                }
                KeepError::Sample(e) => sample_error(e),
                KeepError::Replay(e) => replay_usage(e),
            })?;
    if out.table() {
        let text = format!(
            "KEPT  {} ({} attempt #{}) in {}",
            line(&sample.name),
            line(&sample.notification_id),
            sample.attempt,
            line(&path.display().to_string())
        );
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        out.document(&format!("{:#}", summary(&sample)))
    }
}

fn replay_usage(e: ReplayError) -> HeadlessError {
    match e {
        ReplayError::Lookup(e) => HeadlessError::Api(e),
        other => HeadlessError::Usage(line(&other.to_string()).into_owned()),
    }
}

/// A sample's summary as JSON (no body, no headers).
fn summary(s: &Sample) -> Value {
    json!({
        "object": "switchboard.sample",
        "name": s.name,
        "kept_at": s.kept_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "notification_id": s.notification_id,
        "attempt": s.attempt,
        "event_type": s.event_type,
        "callback": s.callback,
        "destination": s.destination,
        "body_bytes": s.body.len(),
    })
}

/// `samples …`.
///
/// # Errors
/// Usage, the library's refusal, the API's error, or a send's outcome (exit 3 or 4).
pub async fn run(
    client: &Client,
    out: &Output,
    cmd: SamplesCmd,
    library: &Library,
    read_only: bool,
) -> Result<(), HeadlessError> {
    match cmd {
        SamplesCmd::List => list(out, library),
        SamplesCmd::Show { name } => show(out, &library.load(&name).map_err(sample_error)?),
        SamplesCmd::Send {
            name,
            to,
            unsigned,
            secret_env,
            yes,
        } => {
            let target = api_replay::parse_target(&to).map_err(replay_usage)?;
            replay::check_target(&target, read_only, yes)?;
            let given = secret_env
                .as_deref()
                .map(|v| super::input::secret_from_env(v, "the destination's signing secret"))
                .transpose()?
                .map(crate::api::Secret::new);
            let sample = library.load(&name).map_err(sample_error)?;
            let signing = match (unsigned, given) {
                (true, _) => SendKey::Unsigned,
                (false, Some(s)) => SendKey::Given(s),
                (false, None) => SendKey::Look,
            };
            send(client, out, &sample, target, signing, yes).await
        }
        SamplesCmd::Rm { name, yes } => {
            // Said before asking: a name that is not there needs no question.
            library.load(&name).map_err(sample_error)?;
            if !yes && !super::input::confirm(&format!("Remove sample {}?", line(&name)))? {
                return Err(HeadlessError::Cancelled);
            }
            library.remove(&name).map_err(sample_error)?;
            if out.table() {
                eprintln!("removed sample {}", line(&name));
            }
            Ok(())
        }
    }
}

fn list(out: &Output, library: &Library) -> Result<(), HeadlessError> {
    let (samples, bad) = library.list().map_err(sample_error)?;
    for b in &bad {
        eprintln!("warning: {}", line(&b.to_string()));
    }
    if out.table() {
        let mut rows = vec![format!(
            "{:<24} {:<24} {:<28} {:<24} KEPT",
            "NAME", "EVENT", "NOTIFICATION", "DESTINATION"
        )];
        for s in &samples {
            let dest = s
                .destination
                .as_ref()
                .map(|d| d.name.clone().unwrap_or_else(|| d.id.clone()))
                .unwrap_or_else(|| "-".into());
            rows.push(format!(
                "{:<24} {:<24} {:<28} {:<24} {}",
                line(&s.name),
                line(s.event_type.as_deref().unwrap_or("-")),
                line(&s.notification_id),
                line(&dest),
                s.kept_at.format("%Y-%m-%d %H:%M")
            ));
        }
        let text = rows.join("\n");
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        let items: Vec<Value> = samples.iter().map(summary).collect();
        out.document(&format!("{:#}", Value::Array(items)))
    }
}

fn show(out: &Output, s: &Sample) -> Result<(), HeadlessError> {
    if out.table() {
        let named = |n: &Option<Named>| {
            n.as_ref().map_or_else(
                || "-".to_string(),
                |n| match &n.name {
                    Some(name) => format!("{} ({})", line(name), line(&n.id)),
                    None => line(&n.id).into_owned(),
                },
            )
        };
        let mut rows = vec![
            format!("SAMPLE        {}", line(&s.name)),
            format!(
                "KEPT          {} from {} attempt #{}",
                s.kept_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                line(&s.notification_id),
                s.attempt
            ),
            format!(
                "EVENT         {}",
                line(s.event_type.as_deref().unwrap_or("-"))
            ),
            format!("CALLBACK      {}", named(&s.callback)),
            format!("DESTINATION   {}", named(&s.destination)),
            "HEADERS (as recorded, masked)".into(),
        ];
        for (k, v) in &s.request_headers {
            rows.push(format!("  {}: {}", line(k), line(v)));
        }
        rows.push("BODY".into());
        for l in lines(&s.body) {
            rows.push(format!("  {l}"));
        }
        let text = rows.join("\n");
        output::emit(|w| output::write_raw(w, &text, false))
    } else {
        let mut v = summary(s);
        v["request_headers"] = json!(s.request_headers);
        v["body"] = Value::String(s.body.clone());
        out.document(&format!("{v:#}"))
    }
}

/// How `samples send` signs.
enum SendKey {
    /// `--unsigned`.
    Unsigned,
    /// `--secret-env`.
    Given(crate::api::Secret),
    /// The destination's secret, looked up as the generation gives it.
    Look,
}

async fn send(
    client: &Client,
    out: &Output,
    s: &Sample,
    target: url::Url,
    key: SendKey,
    yes: bool,
) -> Result<(), HeadlessError> {
    let generation = sample_send::generation_of(client).await;
    let (secret, why_unsigned) = match key {
        SendKey::Unsigned => (None, None),
        SendKey::Given(secret) => (Some(secret), None),
        SendKey::Look => match sample_send::key_for(client, generation, s).await? {
            Key::Secret(secret) => (Some(secret), None),
            Key::Unsigned(why) => (None, Some(why)),
            Key::Needed(why) => {
                return Err(HeadlessError::Usage(format!(
                    "samples send on {generation}: {why}."
                )));
            }
        },
    };
    if let Some(why) = &why_unsigned {
        eprintln!("note: sending unsigned: {}", line(why));
    }
    let host = api_replay::api_host(client.base_url()).unwrap_or_default();
    let plan = sample_send::plan_for(generation, s, target, secret.as_ref(), &host)
        .map_err(replay_usage)?;
    if !plan.is_loopback() && !yes {
        replay::confirm_remote(&plan)?;
    }
    let result = api_replay::send(
        &plan,
        &SendOptions {
            timeout: replay::timeout(),
        },
    )
    .await;
    if out.table() {
        let text = format!(
            "SAMPLE            {}\n{}",
            line(&s.name),
            replay::to_table(&plan, &result)
        );
        output::emit(|w| output::write_raw(w, &text, false))?;
    } else {
        let mut v = replay::to_json(&plan, &result);
        v["sample"] = Value::String(s.name.clone());
        v["unsigned_because"] = json!(why_unsigned);
        out.document(&format!("{v:#}"))?;
    }
    replay::outcome(&result)
}
