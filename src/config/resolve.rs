//! Resolution: flags > environment > profile > defaults, into ready client options.
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use super::ConfigError;
use super::file::{ConfigFile, ConfirmSetting, Profile};
use super::paths::default_config_file;
use crate::api::detect::{Pin, PinSource};
use crate::api::generation::Generation;
use crate::api::{ClientOptions, DEFAULT_BASE_URL, Secret};

/// Name of the profile used when nothing selects one.
const DEFAULT_PROFILE: &str = "default";

/// A snapshot of the environment variables resolution reads (tests pass their own).
#[derive(Debug, Clone, Default)]
pub struct Env(HashMap<String, String>);

impl Env {
    /// The process environment.
    pub fn from_process() -> Self {
        Env(std::env::vars().collect())
    }

    /// A made-up environment.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Env(pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect())
    }

    /// A variable's value; an empty or blank value counts as unset.
    pub fn get(&self, name: &str) -> Option<String> {
        self.0
            .get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// The first set variable of several, with its name.
    fn first(&self, names: &[&'static str]) -> Option<(&'static str, String)> {
        names.iter().find_map(|n| self.get(n).map(|v| (*n, v)))
    }
}

/// The global command-line flags that take part in resolution.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--profile`.
    pub profile: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--read-only`.
    pub read_only: bool,
    /// `--generation`.
    pub generation: Option<Generation>,
}

/// Where a key comes from; shown by `switchboard info`, never the key itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// An environment variable named by Switchboard (`SWITCHBOARD_API_KEY`, `METORIAL_API_KEY`).
    Env(String),
    /// An environment variable named by the profile.
    ProfileEnv(String),
    /// A command of the profile.
    Command(String),
    /// The profile's inline `api_key`.
    Inline,
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Env(v) => write!(f, "environment {v}"),
            KeySource::ProfileEnv(v) => write!(f, "profile, environment {v}"),
            KeySource::Command(c) => write!(f, "profile, command `{c}`"),
            KeySource::Inline => f.write_str("profile, inline api_key"),
        }
    }
}

/// A key's value, or the command that prints it (run only when the key is needed).
#[derive(Debug, Clone)]
enum KeyValue {
    Ready(Secret),
    /// A command, the config file that names it (judged before it runs) and its time limit.
    Command {
        cmd: String,
        file: PathBuf,
        timeout: Duration,
    },
    /// The variable the profile names is unset: an error when the key is read, so `info` can
    /// still show everything else.
    MissingEnv(String),
}

/// A key's source and how to get its value.
#[derive(Debug, Clone)]
pub struct KeySpec {
    /// Where it comes from.
    pub source: KeySource,
    /// The profile that named it (for error messages).
    profile: String,
    /// The field that named it (for error messages).
    field: &'static str,
    value: KeyValue,
}

impl KeySpec {
    /// The key; runs the command for a command source (`sh -c`, standard output trimmed).
    pub fn read(&self) -> Result<Secret, ConfigError> {
        match &self.value {
            KeyValue::Ready(v) => Ok(v.clone()),
            KeyValue::MissingEnv(var) => Err(ConfigError::EnvKeyMissing {
                profile: self.profile.clone(),
                field: self.field,
                var: var.clone(),
            }),
            KeyValue::Command { cmd, file, timeout } => {
                // As ssh: a file someone else can change must not choose what runs as you.
                super::trust::check(file).map_err(|u| ConfigError::Untrusted {
                    field: self.field,
                    reason: u.reason,
                    fix: u.fix,
                })?;
                super::command::run_key_command(cmd, *timeout).map_err(|detail| {
                    ConfigError::KeyCommand {
                        profile: self.profile.clone(),
                        field: self.field,
                        detail,
                    }
                })
            }
        }
    }
}

/// Everything resolved except the keys' values from commands (so `info` can show sources
/// without failing).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The config file in effect.
    pub config_path: Option<PathBuf>,
    /// Whether that file exists.
    pub config_exists: bool,
    /// The active profile's name.
    pub profile: String,
    /// Whether that profile is defined in the file.
    pub profile_defined: bool,
    /// The base URL.
    pub base_url: String,
    /// Sent as `metorial-instance-id`.
    pub instance_id: Option<String>,
    /// The API key's source, if any.
    pub api_key: Option<KeySpec>,
    /// The organization key's source, if any.
    pub organization_key: Option<KeySpec>,
    /// Refuse writes.
    pub read_only: bool,
    /// Ask before destructive console actions (default true).
    pub confirm: bool,
    /// A destructive action needs the item's name typed (`confirm = "type-name"`).
    pub confirm_type_name: bool,
    /// The file's `[console]` table.
    pub console: Option<toml::Table>,
    /// The file's `[keys]` table.
    pub keys: Option<toml::Table>,
    /// Request timeout.
    pub timeout: Option<Duration>,
    /// Connect timeout.
    pub connect_timeout: Option<Duration>,
    /// Retries of safe requests.
    pub retries: Option<u32>,
    /// The profile's `mcp_replay_targets`, as written.
    pub mcp_replay_targets: Vec<String>,
    /// A pinned generation and who pinned it.
    pub pin: Option<Pin>,
    /// Things the user should know (printed on stderr by the binary).
    pub warnings: Vec<String>,
}

/// The outcome of resolution: client options plus what the console needs besides.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Ready for `Client::new`.
    pub options: ClientOptions,
    /// The active profile's name.
    pub profile: String,
    /// Refuse writes.
    pub read_only: bool,
    /// Ask before destructive console actions.
    pub confirm: bool,
    /// A destructive action needs the item's name typed.
    pub confirm_type_name: bool,
    /// The file's `[console]` table.
    pub console: Option<toml::Table>,
    /// The file's `[keys]` table.
    pub keys: Option<toml::Table>,
    /// The profile's `mcp_replay_targets` (checked by `switchboard mcp`).
    pub mcp_replay_targets: Vec<String>,
    /// Warnings to show the user.
    pub warnings: Vec<String>,
}

/// The config file named by `--config` or `SWITCHBOARD_CONFIG`, if any.
fn explicit_config(flags: &Flags, env: &Env) -> Option<PathBuf> {
    flags
        .config
        .clone()
        .or_else(|| env.get("SWITCHBOARD_CONFIG").map(PathBuf::from))
}

/// The config file in effect: `--config`, `SWITCHBOARD_CONFIG`, else the default location.
pub fn config_path(flags: &Flags, env: &Env) -> Option<PathBuf> {
    explicit_config(flags, env).or_else(default_config_file)
}

/// The profile named by `--profile` or `SWITCHBOARD_PROFILE`, if any.
pub fn named_profile(flags: &Flags, env: &Env) -> Option<String> {
    flags
        .profile
        .clone()
        .or_else(|| env.get("SWITCHBOARD_PROFILE"))
}

/// The active profile's name: named by flag or environment, else the file's `default_profile`,
/// else `default`. Commands, the console, `info` and `profile show` all choose it this way.
pub fn active_profile(flags: &Flags, env: &Env, file: &ConfigFile) -> String {
    named_profile(flags, env)
        .or_else(|| file.default_profile.clone())
        .unwrap_or_else(|| DEFAULT_PROFILE.into())
}

/// Resolves flags, environment and config file into client options, reading the keys.
pub fn resolve(flags: &Flags, env: &Env) -> Result<Resolved, ConfigError> {
    Settings::load(flags, env)?.resolve()
}

impl Settings {
    /// Loads the file and applies the precedence rules; runs no key command.
    pub fn load(flags: &Flags, env: &Env) -> Result<Self, ConfigError> {
        let explicit = explicit_config(flags, env);
        let config_path = explicit.clone().or_else(default_config_file);
        let file = match &config_path {
            Some(p) => ConfigFile::load(p)?,
            None => None,
        };
        if let (Some(p), None) = (&explicit, &file) {
            return Err(ConfigError::Missing { path: p.clone() });
        }
        let config_exists = file.is_some();
        let file = file.unwrap_or_default();
        let shown_path = config_path.clone().unwrap_or_default();
        let mut warnings = file.warnings(&shown_path);

        let named = named_profile(flags, env).is_some();
        let profile = active_profile(flags, env, &file);
        let p = match file.profiles.get(&profile) {
            Some(p) => p.clone(),
            // A profile nobody named may be absent: env and defaults then suffice.
            None if !named && file.default_profile.is_none() => Profile::default(),
            None => {
                let available = file.profiles.keys().cloned().collect::<Vec<_>>();
                return Err(ConfigError::ProfileNotFound {
                    name: profile,
                    path: shown_path,
                    available: if available.is_empty() {
                        "none".into()
                    } else {
                        available.join(", ")
                    },
                });
            }
        };
        let profile_defined = file.profiles.contains_key(&profile);

        let base_url = flags
            .base_url
            .clone()
            .or_else(|| env.get("SWITCHBOARD_BASE_URL"))
            .or_else(|| env.get("METORIAL_API_HOST").map(|h| with_scheme(&h)))
            .or_else(|| p.base_url.clone())
            .unwrap_or_else(|| DEFAULT_BASE_URL.into());
        let instance_id = env
            .first(&["SWITCHBOARD_INSTANCE_ID", "METORIAL_INSTANCE_ID"])
            .map(|(_, v)| v)
            .or_else(|| p.instance_id.clone().filter(|s| !s.trim().is_empty()));

        let cmd = CommandContext {
            file: shown_path.clone(),
            timeout: seconds("api_key_cmd_timeout", p.api_key_cmd_timeout)?
                .unwrap_or(super::command::DEFAULT_TIMEOUT),
        };
        let api_key = match env.first(&["SWITCHBOARD_API_KEY", "METORIAL_API_KEY"]) {
            Some((var, v)) => Some(KeySpec {
                source: KeySource::Env(var.into()),
                profile: profile.clone(),
                field: "environment",
                value: KeyValue::Ready(Secret::new(v)),
            }),
            None => profile_key(
                &profile,
                env,
                &cmd,
                "api key",
                [
                    ("api_key_env", p.api_key_env.as_deref()),
                    ("api_key_cmd", p.api_key_cmd.as_deref()),
                    ("api_key", p.api_key.as_deref()),
                ],
            )?,
        };
        let organization_key = profile_key(
            &profile,
            env,
            &cmd,
            "organization key",
            [
                ("organization_key_env", p.organization_key_env.as_deref()),
                ("organization_key_cmd", p.organization_key_cmd.as_deref()),
                ("", None),
            ],
        )?;
        let pin = pin(flags, env, &p)?;
        if !profile_defined && named {
            warnings.push(format!("profile {profile:?} is not defined"));
        }
        if let Some(ConfirmSetting::Mode(m)) = &p.confirm
            && m != "type-name"
        {
            warnings.push(format!(
                "profile {profile:?}: confirm = {m:?} is unknown (true, false or \"type-name\"); asking"
            ));
        }
        Ok(Self {
            config_path,
            config_exists,
            profile,
            profile_defined,
            base_url,
            instance_id,
            api_key,
            organization_key,
            read_only: flags.read_only || p.read_only.unwrap_or(false),
            confirm: !matches!(p.confirm, Some(ConfirmSetting::Ask(false))),
            confirm_type_name: matches!(&p.confirm, Some(ConfirmSetting::Mode(m)) if m == "type-name"),
            console: file.console.clone(),
            keys: file.keys.clone(),
            timeout: seconds("timeout", p.timeout)?,
            connect_timeout: seconds("connect_timeout", p.connect_timeout)?,
            retries: p.retries,
            mcp_replay_targets: p.mcp_replay_targets.clone().unwrap_or_default(),
            pin,
            // They quote profile names, keys and paths from the file: through the one sanitizer.
            warnings: warnings
                .iter()
                .map(|w| crate::text::line(w).into_owned())
                .collect(),
        })
    }

    /// Reads the keys (running commands if needed) and builds the client options.
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let Some(spec) = &self.api_key else {
            return Err(ConfigError::NoKey {
                profile: self.profile.clone(),
                path: self.config_path.clone().unwrap_or_default(),
            });
        };
        let api_key = spec.read()?;
        let organization_key = match &self.organization_key {
            Some(s) => Some(s.read()?),
            None => None,
        };
        let mut options = ClientOptions {
            base_url: self.base_url.clone(),
            api_key,
            organization_key,
            instance_id: self.instance_id.clone(),
            pin: self.pin,
            ..ClientOptions::default()
        };
        if let Some(t) = self.timeout {
            options.request_timeout = t;
        }
        if let Some(t) = self.connect_timeout {
            options.connect_timeout = t;
        }
        if let Some(r) = self.retries {
            options.max_retries = r;
        }
        Ok(Resolved {
            options,
            profile: self.profile,
            read_only: self.read_only,
            confirm: self.confirm,
            confirm_type_name: self.confirm_type_name,
            console: self.console,
            keys: self.keys,
            mcp_replay_targets: self.mcp_replay_targets,
            warnings: self.warnings,
        })
    }
}

/// The key a profile names; more than one source is an error rather than a silent pick.
fn profile_key(
    profile: &str,
    env: &Env,
    cmd: &CommandContext,
    key: &'static str,
    sources: [(&'static str, Option<&str>); 3],
) -> Result<Option<KeySpec>, ConfigError> {
    let set: Vec<(&'static str, &str)> = sources
        .into_iter()
        .filter_map(|(f, v)| v.map(|v| (f, v)))
        .collect();
    let [(field, value)] = set.as_slice() else {
        if set.is_empty() {
            return Ok(None);
        }
        return Err(ConfigError::ConflictingSources {
            profile: profile.into(),
            key,
            sources: set.iter().map(|(f, _)| *f).collect::<Vec<_>>().join(", "),
        });
    };
    let (field, value) = (*field, *value);
    let spec = |source, value| KeySpec {
        source,
        profile: profile.into(),
        field,
        value,
    };
    Ok(Some(if field.ends_with("_env") {
        spec(
            KeySource::ProfileEnv(value.into()),
            env.get(value).map_or_else(
                || KeyValue::MissingEnv(value.into()),
                |v| KeyValue::Ready(Secret::new(v)),
            ),
        )
    } else if field.ends_with("_cmd") {
        spec(
            KeySource::Command(value.into()),
            KeyValue::Command {
                cmd: value.into(),
                file: cmd.file.clone(),
                timeout: cmd.timeout,
            },
        )
    } else {
        spec(
            KeySource::Inline,
            KeyValue::Ready(Secret::new(value.trim())),
        )
    }))
}

/// The pinned generation: `--generation`, else `SWITCHBOARD_GENERATION`, else the profile's.
fn pin(flags: &Flags, env: &Env, p: &Profile) -> Result<Option<Pin>, ConfigError> {
    let parse = |v: &str, what: &str| {
        v.parse::<Generation>().map_err(|e| ConfigError::Invalid {
            what: what.into(),
            detail: e.to_string(),
        })
    };
    if let Some(g) = flags.generation {
        return Ok(Some(Pin {
            generation: g,
            source: PinSource::Flag,
        }));
    }
    if let Some(v) = env.get("SWITCHBOARD_GENERATION") {
        return Ok(Some(Pin {
            generation: parse(&v, "SWITCHBOARD_GENERATION")?,
            source: PinSource::Environment,
        }));
    }
    match p
        .generation
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        Some(v) => Ok(Some(Pin {
            generation: parse(v, "generation")?,
            source: PinSource::Profile,
        })),
        None => Ok(None),
    }
}

/// What a key command of the profile needs besides its text.
struct CommandContext {
    /// The config file naming it.
    file: PathBuf,
    /// `api_key_cmd_timeout`, else [`super::command::DEFAULT_TIMEOUT`].
    timeout: Duration,
}

/// `METORIAL_API_HOST` may be a bare host name.
fn with_scheme(host: &str) -> String {
    if host.contains("://") {
        host.to_string()
    } else {
        format!("https://{host}")
    }
}

fn seconds(what: &str, v: Option<f64>) -> Result<Option<Duration>, ConfigError> {
    match v {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => {
            Ok(Some(Duration::from_secs_f64(s)))
        }
        Some(s) => Err(ConfigError::Invalid {
            what: what.into(),
            detail: format!("{s} is not a number of seconds between 0 and 86400"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    fn flags(path: &std::path::Path) -> Flags {
        Flags {
            config: Some(path.to_path_buf()),
            ..Flags::default()
        }
    }

    const FILE: &str = r#"
default_profile = "work"
[profiles.work]
base_url = "https://work.example"
api_key_env = "WORK_KEY"
instance_id = "ins_work"
read_only = true
[profiles.cmd]
api_key_cmd = "printf '  sk_from_cmd_0123456789\n'"
organization_key_cmd = "false"
"#;

    #[test]
    fn profile_then_env_then_flags() {
        let (_d, path) = write(FILE);
        let env = Env::from_pairs([("WORK_KEY", "sk_work")]);
        let r = resolve(&flags(&path), &env).expect("resolves");
        assert_eq!(r.profile, "work");
        assert_eq!(r.options.base_url, "https://work.example");
        assert_eq!(r.options.api_key.expose(), "sk_work");
        assert_eq!(r.options.instance_id.as_deref(), Some("ins_work"));
        assert!(r.read_only);

        let env = Env::from_pairs([
            ("WORK_KEY", "sk_work"),
            ("METORIAL_API_HOST", "metorial.local"),
            ("METORIAL_API_KEY", "sk_metorial"),
            ("METORIAL_INSTANCE_ID", "ins_m"),
        ]);
        let r = resolve(&flags(&path), &env).expect("resolves");
        assert_eq!(r.options.base_url, "https://metorial.local");
        assert_eq!(r.options.api_key.expose(), "sk_metorial");
        assert_eq!(r.options.instance_id.as_deref(), Some("ins_m"));

        let env = Env::from_pairs([
            ("SWITCHBOARD_BASE_URL", "http://sb.local"),
            ("METORIAL_API_HOST", "metorial.local"),
            ("SWITCHBOARD_API_KEY", "sk_sb"),
            ("METORIAL_API_KEY", "sk_metorial"),
            ("SWITCHBOARD_INSTANCE_ID", "ins_sb"),
        ]);
        let r = resolve(&flags(&path), &env).expect("resolves");
        assert_eq!(r.options.base_url, "http://sb.local");
        assert_eq!(r.options.api_key.expose(), "sk_sb");
        assert_eq!(r.options.instance_id.as_deref(), Some("ins_sb"));

        let mut f = flags(&path);
        f.base_url = Some("http://flag.local".into());
        let r = resolve(&f, &env).expect("resolves");
        assert_eq!(r.options.base_url, "http://flag.local");
    }

    #[test]
    fn command_keys_and_their_failures() {
        let (_d, path) = write(FILE);
        let mut f = flags(&path);
        f.profile = Some("cmd".into());
        let s = Settings::load(&f, &Env::default()).expect("loads");
        let key = s.api_key.as_ref().expect("api key").read().expect("runs");
        assert_eq!(key.expose(), "sk_from_cmd_0123456789");
        let e = s.resolve().expect_err("organization command fails");
        assert!(
            matches!(
                e,
                ConfigError::KeyCommand {
                    field: "organization_key_cmd",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_generation_is_pinned_by_flag_then_environment_then_profile() {
        let (_d, path) =
            write("[profiles.default]\napi_key = \"k\"\ngeneration = \"callback-destinations\"\n");
        let s = Settings::load(&flags(&path), &Env::default()).expect("loads");
        assert_eq!(
            s.pin,
            Some(Pin {
                generation: Generation::CallbackDestinations,
                source: PinSource::Profile
            })
        );
        let env = Env::from_pairs([("SWITCHBOARD_GENERATION", "pulsar")]);
        let s = Settings::load(&flags(&path), &env).expect("loads");
        assert_eq!(s.pin.map(|p| p.source), Some(PinSource::Environment));
        let mut f = flags(&path);
        f.generation = Some(Generation::EventDestinations);
        let r = resolve(&f, &env).expect("resolves");
        assert_eq!(
            r.options.pin.map(|p| (p.generation, p.source)),
            Some((Generation::EventDestinations, PinSource::Flag))
        );
        let bad = Env::from_pairs([("SWITCHBOARD_GENERATION", "magnetar")]);
        let e = Settings::load(&flags(&path), &bad).expect_err("unknown generation");
        assert!(e.to_string().contains("SWITCHBOARD_GENERATION"), "{e}");
    }

    #[test]
    fn missing_things_are_named() {
        let (_d, path) = write(FILE);
        let e = resolve(&flags(&path), &Env::default()).expect_err("WORK_KEY unset");
        assert!(e.to_string().contains("WORK_KEY"), "{e}");

        let mut f = flags(&path);
        f.profile = Some("nope".into());
        let e = resolve(&f, &Env::default()).expect_err("unknown profile");
        assert!(e.to_string().contains("cmd, work"), "{e}");

        let f = flags(&path.with_file_name("absent.toml"));
        let e = resolve(&f, &Env::default()).expect_err("missing file");
        assert!(matches!(e, ConfigError::Missing { .. }), "{e}");

        let (_d2, clash) = write("[profiles.default]\napi_key = \"a\"\napi_key_env = \"B\"\n");
        let e = resolve(&flags(&clash), &Env::default()).expect_err("two sources");
        assert!(e.to_string().contains("api_key_env, api_key"), "{e}");
    }

    #[test]
    fn a_profile_names_its_mcp_replay_targets() {
        let (_d, path) = write(
            "[profiles.default]\napi_key = \"a\"\nmcp_replay_targets = [\"http://localhost:3000/hooks\"]\n",
        );
        let r = resolve(&flags(&path), &Env::default()).expect("resolves");
        assert_eq!(r.mcp_replay_targets, ["http://localhost:3000/hooks"]);
        let (_d2, none) = write("[profiles.default]\napi_key = \"a\"\n");
        let r = resolve(&flags(&none), &Env::default()).expect("resolves");
        assert!(r.mcp_replay_targets.is_empty());
    }
}
