//! Alert rules as written in the config (`[[profiles.P.alerts]]`), checked whole before any
//! request: every problem names the rule and the field.
use std::path::Path;
use std::time::Duration;

use chrono::TimeDelta;
use toml::Value;

use crate::api::Secret;
use crate::api::health::parse_window;
use crate::config::Env;

/// Longest a `command` sink may run unless its `timeout` says otherwise.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest a `webhook` sink's request may take.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

/// One alert rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `name`: unique among the session's rules (the remembered state is kept by it).
    pub name: String,
    /// What it watches.
    pub target: Target,
    /// When it is failing.
    pub kind: Kind,
    /// Where its alerts go.
    pub sink: Sink,
}

/// What a rule watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `destination = "cld_…"`.
    Destination(String),
    /// `destination = "*"`: every active destination, each on its own.
    AllDestinations,
    /// `expiring`: `import = "poti_…"`, or every import (`"*"`, the default).
    Imports(Option<String>),
}

/// When a rule is failing.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Of the deliveries created in `window` and tried, at least `threshold` (0–1) did not
    /// succeed (failed or retrying, as [`crate::api::health::Stats`] counts), once at least
    /// `min_deliveries` were tried.
    FailureRate {
        /// 0 < threshold ≤ 1.
        threshold: f64,
        /// How far back.
        window: TimeDelta,
        /// Fewer tried deliveries than this are not judged.
        min_deliveries: usize,
    },
    /// The newest `count` finished deliveries (pending ones skipped) all did not succeed.
    ConsecutiveFailures {
        /// N.
        count: usize,
    },
    /// Deliveries were tried in `window` and none of them succeeded.
    NoSuccess {
        /// How far back.
        window: TimeDelta,
    },
    /// An import (a provider OAuth token) expires within `days` days, or has expired.
    Expiring {
        /// N.
        days: i64,
    },
}

impl Kind {
    /// The `rule` word.
    #[must_use]
    pub fn word(&self) -> &'static str {
        match self {
            Kind::FailureRate { .. } => "failure_rate",
            Kind::ConsecutiveFailures { .. } => "consecutive_failures",
            Kind::NoSuccess { .. } => "no_success",
            Kind::Expiring { .. } => "expiring",
        }
    }
}

/// Where a rule's alerts go.
#[derive(Debug, Clone)]
pub enum Sink {
    /// `"ndjson"` (the default): one JSON line on standard output.
    Ndjson,
    /// `{ command = "…" }`: run with `sh -c`, the alert on its standard input (never in argv).
    Command {
        /// The command line.
        command: String,
        /// How long it may run.
        timeout: Duration,
    },
    /// `{ webhook = "https://…", secret_env = "VAR" }`: POSTed, signed as the platform signs
    /// when a secret is given.
    Webhook {
        /// Where (https, or http to this machine).
        url: url::Url,
        /// The signing secret, read from `secret_env`.
        secret: Option<Secret>,
    },
}

impl Sink {
    /// A short description for messages (a webhook by its host only: its path may be a key).
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Sink::Ndjson => "standard output".into(),
            Sink::Command { .. } => "its command".into(),
            Sink::Webhook { url, .. } => {
                format!("webhook at {}", url.host_str().unwrap_or("?"))
            }
        }
    }
}

/// A rule that cannot be used: which one, which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "alert rule {} ({}): {}: {}",
    crate::text::line(rule),
    crate::text::line(at),
    crate::text::line(field),
    crate::text::line(detail)
)]
pub struct RuleError {
    /// Its name, or `#N` when it has none.
    pub rule: String,
    /// `#N in [[profiles.work.alerts]]`.
    pub at: String,
    /// The field (`window`, `sink.secret_env`, …).
    pub field: String,
    /// What is wrong.
    pub detail: String,
}

const FIELDS: &[&str] = &[
    "name",
    "destination",
    "import",
    "rule",
    "threshold",
    "window",
    "min_deliveries",
    "count",
    "days",
    "sink",
];

/// Checks and reads every rule; `section` names where they are written (for messages),
/// `config` is the file (judged by [`crate::config::trust`] before a `command` sink is
/// accepted), `env` gives the webhook secrets.
///
/// # Errors
/// The first rule that cannot be used.
pub fn parse_rules(
    tables: &[toml::Table],
    section: &str,
    config: Option<&Path>,
    env: &Env,
) -> Result<Vec<Rule>, RuleError> {
    let mut rules: Vec<Rule> = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let at = format!("#{} in {section}", i + 1);
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        let label = name
            .clone()
            .map_or_else(|| format!("#{}", i + 1), |n| format!("{n:?}"));
        let err = |field: &str, detail: String| RuleError {
            rule: label.clone(),
            at: at.clone(),
            field: field.to_string(),
            detail,
        };
        let Some(name) = name else {
            return Err(err(
                "name",
                "give the rule a name (a non-empty string)".into(),
            ));
        };
        if rules.iter().any(|r| r.name == name) {
            return Err(err("name", "another rule has this name".into()));
        }
        if let Some(k) = t.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(err(
                k,
                format!("unknown field (known: {})", FIELDS.join(", ")),
            ));
        }
        let rule = parse_one(t, config, env).map_err(|(f, d)| err(f, d))?;
        rules.push(Rule { name, ..rule });
    }
    Ok(rules)
}

type FieldError = (&'static str, String);

fn parse_one(t: &toml::Table, config: Option<&Path>, env: &Env) -> Result<Rule, FieldError> {
    let word = match t.get("rule") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(("rule", "must be a string".into())),
        None => {
            return Err((
                "rule",
                "missing: failure_rate, consecutive_failures, no_success or expiring".into(),
            ));
        }
    };
    let kind = match word {
        "failure_rate" => Kind::FailureRate {
            threshold: threshold(t)?,
            window: window(t)?,
            min_deliveries: match t.get("min_deliveries") {
                None => 1,
                Some(_) => int(t, "min_deliveries", 1, 10_000)?,
            },
        },
        "consecutive_failures" => Kind::ConsecutiveFailures {
            count: int(t, "count", 1, 1_000)?,
        },
        "no_success" => Kind::NoSuccess { window: window(t)? },
        "expiring" => Kind::Expiring {
            days: i64::try_from(int(t, "days", 1, 3_650)?).unwrap_or(3_650),
        },
        other => {
            return Err((
                "rule",
                format!(
                    "{other:?} is not a rule (failure_rate, consecutive_failures, no_success or \
                     expiring)"
                ),
            ));
        }
    };
    let used: &[&str] = match kind {
        Kind::FailureRate { .. } => &["threshold", "window", "min_deliveries", "destination"],
        Kind::ConsecutiveFailures { .. } => &["count", "destination"],
        Kind::NoSuccess { .. } => &["window", "destination"],
        Kind::Expiring { .. } => &["days", "import"],
    };
    let own = ["name", "rule", "sink"];
    if let Some(k) = t
        .keys()
        .find(|k| !own.contains(&k.as_str()) && !used.contains(&k.as_str()))
    {
        let field = FIELDS.iter().find(|f| *f == k).copied().unwrap_or("rule");
        return Err((
            field,
            format!("not used by rule = {word:?} (it uses {})", used.join(", ")),
        ));
    }
    let target = if let Kind::Expiring { .. } = kind {
        match t.get("import") {
            None => Target::Imports(None),
            Some(Value::String(s)) if s == "*" => Target::Imports(None),
            Some(Value::String(s)) if s.starts_with("poti_") => Target::Imports(Some(s.clone())),
            Some(_) => return Err(("import", "an import id (poti_…) or \"*\"".into())),
        }
    } else {
        match t.get("destination") {
            Some(Value::String(s)) if s == "*" => Target::AllDestinations,
            Some(Value::String(s))
                // pulsar's, event-destinations' and callback-destinations' destinations.
                if ["cld_", "evtd_", "cbd_"]
                    .iter()
                    .any(|p| s.starts_with(p) && s.len() > p.len())
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                Target::Destination(s.clone())
            }
            Some(_) => {
                return Err((
                    "destination",
                    "a destination id (cld_…, evtd_…, cbd_…) or \"*\"".into(),
                ));
            }
            None => {
                return Err((
                    "destination",
                    "missing: a destination id (cld_…, evtd_…, cbd_…) or \"*\"".into(),
                ));
            }
        }
    };
    Ok(Rule {
        name: String::new(),
        target,
        kind,
        sink: sink(t.get("sink"), config, env)?,
    })
}

fn threshold(t: &toml::Table) -> Result<f64, FieldError> {
    let v = match t.get("threshold") {
        Some(Value::Float(f)) => *f,
        Some(Value::Integer(i)) => *i as f64,
        Some(_) => return Err(("threshold", "must be a number from 0 to 1, e.g. 0.5".into())),
        None => {
            return Err((
                "threshold",
                "missing: a share of deliveries, e.g. 0.5".into(),
            ));
        }
    };
    if v.is_finite() && v > 0.0 && v <= 1.0 {
        Ok(v)
    } else {
        Err(("threshold", format!("{v} is not more than 0 and at most 1")))
    }
}

fn window(t: &toml::Table) -> Result<TimeDelta, FieldError> {
    match t.get("window") {
        Some(Value::String(s)) => parse_window(s).map_err(|e| ("window", e)),
        Some(_) => Err(("window", "must be a string such as \"15m\", \"24h\"".into())),
        None => Err(("window", "missing: how far back, e.g. \"15m\"".into())),
    }
}

fn int(t: &toml::Table, field: &'static str, min: i64, max: i64) -> Result<usize, FieldError> {
    match t.get(field) {
        Some(Value::Integer(i)) if (min..=max).contains(i) => {
            usize::try_from(*i).map_err(|_| (field, format!("{i} is out of range")))
        }
        Some(Value::Integer(i)) => Err((field, format!("{i} is not from {min} to {max}"))),
        Some(_) => Err((field, format!("must be a whole number from {min} to {max}"))),
        None => Err((
            field,
            format!("missing: a whole number from {min} to {max}"),
        )),
    }
}

fn sink(v: Option<&Value>, config: Option<&Path>, env: &Env) -> Result<Sink, FieldError> {
    let t = match v {
        None => return Ok(Sink::Ndjson),
        Some(Value::String(s)) if s == "ndjson" => return Ok(Sink::Ndjson),
        Some(Value::Table(t)) => t,
        Some(_) => {
            return Err((
                "sink",
                "\"ndjson\", { command = \"…\" } or { webhook = \"https://…\", secret_env = \"VAR\" }"
                    .into(),
            ));
        }
    };
    let known = ["command", "timeout", "webhook", "secret_env"];
    if let Some(k) = t.keys().find(|k| !known.contains(&k.as_str())) {
        return Err((
            "sink",
            format!("unknown field {k:?} (known: {})", known.join(", ")),
        ));
    }
    match (t.get("command"), t.get("webhook")) {
        (Some(_), Some(_)) => Err(("sink", "a command or a webhook, not both".into())),
        (Some(c), None) => {
            let Some(command) = c.as_str().map(str::trim).filter(|c| !c.is_empty()) else {
                return Err(("sink.command", "must be a non-empty string".into()));
            };
            if t.contains_key("secret_env") {
                return Err(("sink.secret_env", "only a webhook is signed".into()));
            }
            // As `api_key_cmd`: a file someone else can change must not choose what runs as you.
            if let Some(file) = config {
                crate::config::trust::check(file).map_err(|u| {
                    (
                        "sink.command",
                        format!("not running it: {}; fix: {}", u.reason, u.fix),
                    )
                })?;
            }
            let timeout = match t.get("timeout") {
                None => COMMAND_TIMEOUT,
                Some(Value::String(s)) => parse_window(s)
                    .ok()
                    .and_then(|w| w.to_std().ok())
                    .filter(|d| *d <= Duration::from_secs(600))
                    .ok_or(("sink.timeout", format!("{s:?}: from 1s to 10m")))?,
                Some(_) => return Err(("sink.timeout", "a string such as \"30s\"".into())),
            };
            Ok(Sink::Command {
                command: command.to_string(),
                timeout,
            })
        }
        (None, Some(w)) => {
            if t.contains_key("timeout") {
                return Err(("sink.timeout", "only a command has a timeout".into()));
            }
            let Some(text) = w.as_str() else {
                return Err(("sink.webhook", "must be a URL string".into()));
            };
            let url = url::Url::parse(text.trim()).map_err(|e| ("sink.webhook", e.to_string()))?;
            let loopback = crate::api::replay::is_loopback(&url);
            match url.scheme() {
                "https" => {}
                "http" if loopback => {}
                "http" => {
                    return Err((
                        "sink.webhook",
                        "use https (http only to this machine: 127.0.0.1, ::1, localhost)".into(),
                    ));
                }
                other => return Err(("sink.webhook", format!("{other}: not http(s)"))),
            }
            if !url.username().is_empty() || url.password().is_some() {
                return Err((
                    "sink.webhook",
                    "no credentials in the URL (the alert is signed with secret_env)".into(),
                ));
            }
            let secret = match t.get("secret_env") {
                None => None,
                Some(Value::String(var)) => Some(Secret::new(env.get(var).ok_or((
                    "sink.secret_env",
                    format!("environment variable {var} is not set"),
                ))?)),
                Some(_) => return Err(("sink.secret_env", "the name of a variable".into())),
            };
            Ok(Sink::Webhook { url, secret })
        }
        (None, None) => Err(("sink", "a table needs command or webhook".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str, env: &[(&str, &str)]) -> Result<Vec<Rule>, RuleError> {
        let f: toml::Table = toml::from_str(text).expect("toml");
        let tables: Vec<toml::Table> = f
            .get("alerts")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_table().cloned()).collect())
            .unwrap_or_default();
        parse_rules(
            &tables,
            "[[alerts]]",
            None,
            &Env::from_pairs(env.iter().copied()),
        )
    }

    #[test]
    fn every_rule_and_sink_reads() {
        let r = rules(
            r#"
[[alerts]]
name = "partner down"
destination = "cld_abc"
rule = "failure_rate"
threshold = 0.5
window = "15m"
sink = { command = "notify-wrapper" }
[[alerts]]
name = "streak"
destination = "*"
rule = "consecutive_failures"
count = 3
sink = { webhook = "https://hooks.example/x", secret_env = "S" }
[[alerts]]
name = "quiet"
destination = "cld_abc"
rule = "no_success"
window = "1h"
sink = "ndjson"
[[alerts]]
name = "tokens"
rule = "expiring"
days = 7
"#,
            &[("S", "whsec_1")],
        )
        .expect("rules");
        assert_eq!(r.len(), 4);
        assert_eq!(
            r[0].kind,
            Kind::FailureRate {
                threshold: 0.5,
                window: TimeDelta::minutes(15),
                min_deliveries: 1
            }
        );
        assert!(matches!(r[0].sink, Sink::Command { .. }));
        assert_eq!(r[1].target, Target::AllDestinations);
        assert!(
            matches!(&r[1].sink, Sink::Webhook { secret: Some(s), .. } if s.expose() == "whsec_1")
        );
        assert!(matches!(r[2].sink, Sink::Ndjson));
        assert_eq!(r[3].target, Target::Imports(None));
        assert_eq!(r[3].kind, Kind::Expiring { days: 7 });
    }

    #[test]
    fn a_bad_rule_names_itself_and_the_field() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "rule = \"failure_rate\"\ndestination = \"cld_1\"\nthreshold = 0.5\nwindow = \"5w\"",
                "\"r\"",
                "window",
            ),
            (
                "rule = \"failure_rate\"\ndestination = \"cld_1\"\nthreshold = 2\nwindow = \"5m\"",
                "\"r\"",
                "threshold",
            ),
            ("rule = \"nope\"\ndestination = \"cld_1\"", "\"r\"", "rule"),
            (
                "rule = \"consecutive_failures\"\ndestination = \"x\"\ncount = 2",
                "\"r\"",
                "destination",
            ),
            (
                "rule = \"consecutive_failures\"\ndestination = \"*\"\ncount = 2\ntreshold = 1",
                "\"r\"",
                "treshold",
            ),
            (
                "rule = \"consecutive_failures\"\ndestination = \"*\"\ncount = 2\nwindow = \"1h\"",
                "\"r\"",
                "window",
            ),
            (
                "rule = \"expiring\"\ndays = 7\ndestination = \"*\"",
                "\"r\"",
                "destination",
            ),
            (
                "rule = \"expiring\"\ndays = 7\nsink = { webhook = \"http://example.com/\" }",
                "\"r\"",
                "sink.webhook",
            ),
            (
                "rule = \"expiring\"\ndays = 7\nsink = { webhook = \"https://example.com/\", secret_env = \"UNSET\" }",
                "\"r\"",
                "sink.secret_env",
            ),
            (
                "rule = \"expiring\"\ndays = 7\nsink = \"email\"",
                "\"r\"",
                "sink",
            ),
        ];
        for (body, rule, field) in cases {
            let e = rules(&format!("[[alerts]]\nname = \"r\"\n{body}\n"), &[]).expect_err(body);
            assert_eq!(
                (e.rule.as_str(), e.field.as_str()),
                (*rule, *field),
                "{body}: {e}"
            );
            assert!(
                e.to_string()
                    .starts_with("alert rule \"r\" (#1 in [[alerts]]): "),
                "{e}"
            );
        }
        let e = rules("[[alerts]]\nrule = \"expiring\"\ndays = 1\n", &[]).expect_err("no name");
        assert_eq!((e.rule.as_str(), e.field.as_str()), ("#1", "name"));
        let e = rules(
            "[[alerts]]\nname = \"a\"\nrule = \"expiring\"\ndays = 1\n[[alerts]]\nname = \"a\"\nrule = \"expiring\"\ndays = 2\n",
            &[],
        )
        .expect_err("twice");
        assert_eq!(
            (e.at.as_str(), e.field.as_str()),
            ("#2 in [[alerts]]", "name")
        );
    }
}
