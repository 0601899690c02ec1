//! Typed configuration errors; each names the file or profile concerned, its text sanitised.
use std::path::{Path, PathBuf};

// Config and environment text (profile and variable names, paths, commands) reaches the terminal
// only through the one sanitizer: the file is the user's, but a control character in it must
// still not drive the terminal. Here, so that no printing call site can forget it.
use crate::text::line as clean;

fn shown(p: &Path) -> String {
    clean(&p.display().to_string()).into_owned()
}

/// Anything that can go wrong loading the configuration or reading a key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read config file {}: {source}", shown(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file named by `--config` or `SWITCHBOARD_CONFIG` does not exist.
    #[error("config file {} does not exist", shown(path))]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The file is not valid TOML or has a value of the wrong type.
    #[error(
        "config file {}, line {line}, column {column}: {}",
        shown(path),
        clean(message)
    )]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The selected profile is not in the file.
    #[error(
        "profile {:?} is not defined in {} (defined: {})",
        clean(name),
        shown(path),
        clean(available)
    )]
    ProfileNotFound {
        /// The profile asked for.
        name: String,
        /// The file searched.
        path: PathBuf,
        /// Names that do exist.
        available: String,
    },
    /// `profile add` of a name that is already defined.
    #[error(
        "profile {:?} already exists in {}; remove it first or pick another name",
        clean(name),
        shown(path)
    )]
    ProfileExists {
        /// The profile.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// A profile sets more than one source for the same key.
    #[error(
        "profile {:?} sets more than one source for {key}: {sources}; keep one",
        clean(profile)
    )]
    ConflictingSources {
        /// The profile.
        profile: String,
        /// `api key` or `organization key`.
        key: &'static str,
        /// The clashing fields.
        sources: String,
    },
    /// `api_key_env` / `organization_key_env` names a variable that is unset or empty.
    #[error(
        "profile {:?}: environment variable {} (from {field}) is not set",
        clean(profile),
        clean(var)
    )]
    EnvKeyMissing {
        /// The profile.
        profile: String,
        /// The field naming the variable.
        field: &'static str,
        /// The variable.
        var: String,
    },
    /// `api_key_cmd` / `organization_key_cmd` failed or printed nothing.
    #[error("profile {:?}: {field} failed: {}", clean(profile), clean(detail))]
    KeyCommand {
        /// The profile.
        profile: String,
        /// The field holding the command.
        field: &'static str,
        /// Exit status and the command's last stderr line.
        detail: String,
    },
    /// A `*_cmd` in a config file that others could have changed: not run.
    #[error("not running {field}: {}; fix: {}", clean(reason), clean(fix))]
    Untrusted {
        /// The field holding the command.
        field: &'static str,
        /// What is wrong with the file or its folder.
        reason: String,
        /// The command that fixes it.
        fix: String,
    },
    /// No key anywhere.
    #[error(
        "no API key: set SWITCHBOARD_API_KEY, or give profile {:?} an api_key_env, \
         api_key_cmd or api_key in {}",
        clean(profile),
        shown(path)
    )]
    NoKey {
        /// The active profile.
        profile: String,
        /// The config file.
        path: PathBuf,
    },
    /// A value that parses but makes no sense (negative timeout, …).
    #[error("{}: {}", clean(what), clean(detail))]
    Invalid {
        /// Which setting.
        what: String,
        /// Why.
        detail: String,
    },
    /// Writing a file failed.
    #[error("cannot write {}: {source}", shown(path))]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
