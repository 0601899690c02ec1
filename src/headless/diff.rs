//! `notifications diff ID [--attempt A] (--with-attempt B | --with-replay N)`: two answers of a
//! receiver side by side ([`crate::api::compare`]): status, duration, headers (masked) and the
//! body, as JSON when both are JSON, line by line otherwise. Exit 0 whether or not they differ.
use std::io::{IsTerminal, Write};

use clap::{ArgGroup, Args};

use super::HeadlessError;
use super::output::{self, OutputFormat};
use crate::api::Client;
use crate::api::compare::{self, Answer, BodyDiff, Change, Comparison};
use crate::api::model::Notification;
use crate::text::sanitize::line;

/// `notifications diff`.
#[derive(Args, Debug, Clone)]
#[command(group(ArgGroup::new("other").required(true).args(["with_attempt", "with_replay"])))]
pub struct DiffArgs {
    /// Notification id (`cbn_…`).
    pub id: String,
    /// The left answer: this attempt, counted from 1 (default: the latest with a recorded answer).
    #[arg(long, value_name = "A")]
    pub attempt: Option<i64>,
    /// The right answer: another attempt of the same notification, counted from 1.
    #[arg(long, value_name = "B")]
    pub with_attempt: Option<i64>,
    /// The right answer: entry N (1 = newest) of this notification's answers replayed
    /// (`notifications replay`) or forwarded (`notifications forward`) with this profile.
    #[arg(long, value_name = "N")]
    pub with_replay: Option<usize>,
}

/// Compares and prints.
///
/// # Errors
/// Usage (no such attempt or entry), or the API's error.
pub async fn run(
    client: &Client,
    format: OutputFormat,
    args: DiffArgs,
    history: &[Answer],
) -> Result<(), HeadlessError> {
    // Usage errors before any request.
    for (flag, number) in [
        ("--attempt", args.attempt),
        ("--with-attempt", args.with_attempt),
    ] {
        if let Some(n) = number.filter(|n| *n < 1) {
            return Err(from_one(flag, n));
        }
    }
    if args.with_replay == Some(0) {
        return Err(HeadlessError::Usage(
            "--with-replay counts from 1 (1 is the newest answer), not 0".into(),
        ));
    }
    let n = client.get_notification(&args.id).await?;
    let left = match args.attempt {
        Some(a) => attempt(&n, a, "--attempt")?,
        None => n
            .attempts
            .iter()
            .filter_map(Answer::from_attempt)
            .next_back()
            .ok_or_else(|| {
                HeadlessError::Usage(format!(
                    "notification {} has no recorded answer",
                    line(&n.id)
                ))
            })?,
    };
    let right = match (args.with_attempt, args.with_replay) {
        (Some(b), _) => attempt(&n, b, "--with-attempt")?,
        (None, Some(k)) => history
            .get(k.wrapping_sub(1))
            .cloned()
            .ok_or_else(|| {
                HeadlessError::Usage(format!(
                    "--with-replay {k}: this profile keeps {} replayed or forwarded answer(s) of {} (1 is the newest)",
                    history.len(),
                    line(&n.id)
                ))
            })?,
        (None, None) => {
            return Err(HeadlessError::Usage(
                "say what to compare with: --with-attempt B or --with-replay N".into(),
            ));
        }
    };
    let c = compare::compare(&left, &right);
    let text = match format {
        OutputFormat::Json | OutputFormat::Ndjson => {
            // Written straight from the comparison: no second copy of it as a JSON tree.
            #[derive(serde::Serialize)]
            struct Diff<'a> {
                object: &'static str,
                notification_id: String,
                #[serde(flatten)]
                comparison: &'a Comparison,
            }
            let v = Diff {
                object: "switchboard.diff",
                notification_id: line(&n.id).into_owned(),
                comparison: &c,
            };
            serde_json::to_string_pretty(&v).map_err(|e| HeadlessError::Io(e.into()))?
        }
        OutputFormat::Table => table(&n.id, &c),
    };
    let terminal = std::io::stdout().is_terminal();
    output::emit(|out: &mut dyn Write| output::write_raw(out, &text, terminal))
}

/// Attempt `number` (from 1) of `n` as an answer.
fn attempt(n: &Notification, number: i64, flag: &str) -> Result<Answer, HeadlessError> {
    if number < 1 {
        return Err(from_one(flag, number));
    }
    let a = n
        .attempts
        .iter()
        .find(|a| a.number() == number)
        .ok_or_else(|| {
            HeadlessError::Usage(format!(
                "notification {} has no attempt #{number} ({} recorded)",
                line(&n.id),
                n.attempts.len()
            ))
        })?;
    Answer::from_attempt(a).ok_or_else(|| {
        HeadlessError::Usage(format!(
            "attempt #{number} of {} recorded no exchange",
            line(&n.id)
        ))
    })
}

fn from_one(flag: &str, number: i64) -> HeadlessError {
    HeadlessError::Usage(format!(
        "{flag} counts from 1 (#1 is the first delivery), not {number}"
    ))
}

fn opt<T: ToString>(v: Option<T>, none: &str) -> String {
    v.map_or_else(|| none.to_string(), |v| v.to_string())
}

/// A row's value: `left → right` when changed, else the one there is.
fn pair(left: &Option<String>, right: &Option<String>, change: Change) -> String {
    match (left, right, change) {
        (Some(l), Some(r), Change::Changed) => format!("{l} → {r}"),
        (Some(v), _, _) | (None, Some(v), _) => v.clone(),
        (None, None, _) => String::new(),
    }
}

/// `-o table`: every string in `c` is already sanitised.
pub(super) fn table(id: &str, c: &Comparison) -> String {
    let side = |name: &str, s: &compare::Side| {
        let mut l = format!(
            "{name:<6} {}  status {}  {} ms",
            s.label,
            opt(s.status, "none"),
            opt(s.duration_ms, "?")
        );
        if let Some(e) = &s.error {
            l.push_str(&format!("  error: {e}"));
        }
        l
    };
    let mut out = vec![
        format!("DIFF   {}", line(id)),
        side("LEFT", &c.left),
        side("RIGHT", &c.right),
        format!(
            "{} status {} → {}",
            if c.status_changed { '~' } else { ' ' },
            opt(c.left.status, "none"),
            opt(c.right.status, "none")
        ),
    ];
    if let Some(d) = c.duration_delta_ms {
        out.push(format!("  duration {d:+} ms"));
    }
    out.push("HEADERS".into());
    for h in &c.headers {
        let v = pair(&h.left, &h.right, h.change);
        out.push(format!("{} {}: {v}", h.change.mark(), h.name));
    }
    match &c.body {
        BodyDiff::Json(rows) => {
            out.push("BODY (JSON)".into());
            for r in rows {
                let v = pair(&r.left, &r.right, r.change);
                out.push(format!("{} {}: {v}", r.change.mark(), r.path));
            }
        }
        BodyDiff::Lines(rows) => {
            out.push("BODY (lines)".into());
            for r in rows {
                out.push(format!("{} {}", r.change.mark(), r.text));
            }
        }
    }
    if !c.omitted.is_none() {
        out.push(format!(
            "… {} more rows not shown ({} of them differ; past {} rows only those that differ are listed)",
            c.omitted.rows,
            c.omitted.changed,
            compare::MAX_ROWS
        ));
    }
    out.join("\n")
}
