//! `alerts check` and `alerts watch`: the profile's alert rules ([`crate::alerts`]) judged once,
//! or every interval with an alert sent only when a rule starts failing or recovers. Standard
//! output carries JSON lines only (escaped for a terminal); notes go to standard error, through
//! the one sanitizer.
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Subcommand;
use serde_json::Value;

use super::HeadlessError;
use super::output::emit;
use crate::alerts::{self, Memory, Rule, Sink, State, StateFile};
use crate::api::Client;
use crate::api::identity::ServiceIdentity;
use crate::text::sanitize::line;

/// `alerts …`.
#[derive(Subcommand, Debug, Clone)]
pub enum AlertsCmd {
    /// Judge every rule once: one JSON line per rule and what it watches (`"state": "failing"`
    /// or `"ok"`); exit 3 when any is failing, 0 otherwise.
    Check,
    /// Judge the rules every interval and send an alert only when one starts failing or
    /// recovers; what was sent is remembered, so a restart does not send it again. Ctrl-C stops.
    Watch {
        /// The pause between passes (`30s`, `5m`, `500ms`).
        #[arg(long, value_name = "DURATION", default_value = "30s")]
        interval: String,
    },
}

/// What the alert commands need besides the client.
#[derive(Debug, Clone)]
pub struct Context {
    /// The session's rules, already checked.
    pub rules: Vec<Rule>,
    /// Where the config file's rules are written, for messages.
    pub section: String,
    /// `<data dir>/switchboard`; `None` remembers nothing across restarts.
    pub data_dir: Option<PathBuf>,
    /// The API's base URL (the state file is per service; signatures name its host).
    pub base_url: String,
    /// The instance requests carry, if any.
    pub instance: Option<String>,
}

impl Context {
    fn state_file(&self) -> Option<StateFile> {
        let service = ServiceIdentity::new(&self.base_url, self.instance.as_deref());
        self.data_dir.as_ref().map(|d| StateFile::new(d, &service))
    }
}

fn io(e: &dyn std::fmt::Display) -> HeadlessError {
    HeadlessError::Io(std::io::Error::other(line(&e.to_string()).into_owned()))
}

/// Runs `alerts check` or `alerts watch`.
///
/// # Errors
/// No rules or a bad interval (exit 2), an API error (3, 4), a failing rule under `check` (3),
/// a state file that cannot be used (1), lost output (6).
pub async fn run(client: &Client, cmd: AlertsCmd, ctx: &Context) -> Result<(), HeadlessError> {
    if ctx.rules.is_empty() {
        return Err(HeadlessError::Usage(
            line(&format!(
                "no alert rules: add some as {} in the config file (see the README, \"Alerts\")",
                ctx.section
            ))
            .into_owned(),
        ));
    }
    match cmd {
        AlertsCmd::Check => check(client, ctx).await,
        AlertsCmd::Watch { interval } => {
            let every = crate::api::selection::parse_duration(&interval)
                .map_err(|e| HeadlessError::Usage(format!("--interval: {e}")))?;
            if every < Duration::from_millis(100) {
                return Err(HeadlessError::Usage(
                    "--interval must be at least 100ms".into(),
                ));
            }
            watch(client, ctx, every).await
        }
    }
}

/// One JSON line on standard output, escaped for a terminal.
fn print_line(v: &Value) -> Result<(), HeadlessError> {
    let text = v.to_string();
    let terminal = std::io::stdout().is_terminal();
    emit(|out| {
        let text = if terminal {
            crate::text::sanitize::json_for_terminal(&text)
        } else {
            text.as_str().into()
        };
        writeln!(out, "{text}")
    })
}

async fn check(client: &Client, ctx: &Context) -> Result<(), HeadlessError> {
    let memory = match ctx.state_file() {
        Some(f) => f.load().map_err(|e| io(&e))?,
        None => Memory::default(),
    };
    let findings = alerts::evaluate(client, &ctx.rules, chrono::Utc::now()).await?;
    let mut failing = Vec::new();
    for f in &findings {
        let (state, since) = if f.failing {
            failing.push(format!("{} ({})", f.rule, f.subject.id()));
            let remembered = memory.get(&f.rule, f.subject.id()).map(|m| m.since);
            (State::Failing, remembered.or(f.since))
        } else {
            (State::Ok, None)
        };
        print_line(&alerts::alert_json(f, state, since))?;
    }
    if failing.is_empty() {
        return Ok(());
    }
    Err(HeadlessError::Outcome {
        code: 3,
        message: line(&format!(
            "{} failing: {}",
            failing.len(),
            failing.join(", ")
        ))
        .into_owned(),
    })
}

async fn watch(client: &Client, ctx: &Context, every: Duration) -> Result<(), HeadlessError> {
    let file = ctx.state_file();
    let mut memory = match &file {
        Some(f) => f.load().map_err(|e| io(&e))?,
        None => {
            eprintln!("warning: no data folder: alerts sent are not remembered across restarts");
            Memory::default()
        }
    };
    let host = crate::api::replay::api_host(&ctx.base_url).unwrap_or_default();
    let mut first = true;
    let mut interrupt = super::interrupt::Interrupt::listen();
    loop {
        match alerts::evaluate(client, &ctx.rules, chrono::Utc::now()).await {
            Ok(findings) => {
                let now = chrono::Utc::now();
                let changes = alerts::changes(&ctx.rules, &findings, &mut memory, now);
                let mut changed = false;
                for c in &changes {
                    let Some(rule) = ctx.rules.get(c.rule) else {
                        continue;
                    };
                    if send(rule, &c.alert, &host).await? {
                        alerts::apply(&mut memory, &ctx.rules, c);
                        changed = true;
                    }
                }
                if changed && let Some(f) = &file {
                    f.save(&memory).map_err(|e| io(&e))?;
                }
                if first {
                    let failing: usize = memory.failing.values().map(|m| m.len()).sum();
                    eprintln!(
                        "alerts watch: {} rule{}, {failing} failing; judged every {}",
                        ctx.rules.len(),
                        if ctx.rules.len() == 1 { "" } else { "s" },
                        humantime(every)
                    );
                    first = false;
                }
            }
            // The API away or refusing: judged again at the next pass, nothing forgotten.
            Err(e) => eprintln!(
                "{}",
                line(&format!(
                    "alerts watch: pass failed: {e}; trying again in {}",
                    humantime(every)
                ))
            ),
        }
        tokio::select! {
            () = interrupt.recv() => return Ok(()),
            () = tokio::time::sleep(every) => {}
        }
    }
}

/// Sends one alert to its rule's sink; `false` when the sink did not take it (it is sent again
/// at the next pass, as the change is not remembered).
async fn send(rule: &Rule, alert: &Value, host: &str) -> Result<bool, HeadlessError> {
    if let Sink::Ndjson = rule.sink {
        print_line(alert)?;
        return Ok(true);
    }
    match alerts::sink::deliver(&rule.sink, &alert.to_string(), host).await {
        Ok(()) => {
            eprintln!(
                "{}",
                line(&format!(
                    "alert {:?} {} for {}: sent to {}",
                    rule.name,
                    alert["state"].as_str().unwrap_or_default(),
                    alert["destination"]
                        .as_str()
                        .or(alert["import"].as_str())
                        .unwrap_or("?"),
                    rule.sink.describe()
                ))
            );
            Ok(true)
        }
        Err(e) => {
            eprintln!(
                "{}",
                line(&format!(
                    "warning: alert {:?} not sent to {}: {e}; trying again at the next pass",
                    rule.name,
                    rule.sink.describe()
                ))
            );
            Ok(false)
        }
    }
}

fn humantime(d: Duration) -> String {
    if d.subsec_millis() != 0 || d.as_secs() == 0 {
        format!("{}ms", d.as_millis())
    } else {
        crate::api::health::window_text(chrono::TimeDelta::seconds(
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        ))
    }
}
