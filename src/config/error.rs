//! Typed configuration errors; each names the file or profile concerned.
use std::path::PathBuf;

/// Anything that can go wrong loading the configuration or reading a key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file named by `--config` or `SWITCHBOARD_CONFIG` does not exist.
    #[error("config file {} does not exist", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The file is not valid TOML or has a value of the wrong type.
    #[error("config file {}, line {line}, column {column}: {message}", path.display())]
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
    #[error("profile {name:?} is not defined in {} (defined: {available})", path.display())]
    ProfileNotFound {
        /// The profile asked for.
        name: String,
        /// The file searched.
        path: PathBuf,
        /// Names that do exist.
        available: String,
    },
    /// `profile add` of a name that is already defined.
    #[error("profile {name:?} already exists in {}; remove it first or pick another name", path.display())]
    ProfileExists {
        /// The profile.
        name: String,
        /// The file.
        path: PathBuf,
    },
    /// A profile sets more than one source for the same key.
    #[error("profile {profile:?} sets more than one source for {key}: {sources}; keep one")]
    ConflictingSources {
        /// The profile.
        profile: String,
        /// `api key` or `organization key`.
        key: &'static str,
        /// The clashing fields.
        sources: String,
    },
    /// `api_key_env` / `organization_key_env` names a variable that is unset or empty.
    #[error("profile {profile:?}: environment variable {var} (from {field}) is not set")]
    EnvKeyMissing {
        /// The profile.
        profile: String,
        /// The field naming the variable.
        field: &'static str,
        /// The variable.
        var: String,
    },
    /// `api_key_cmd` / `organization_key_cmd` failed or printed nothing.
    #[error("profile {profile:?}: {field} failed: {detail}")]
    KeyCommand {
        /// The profile.
        profile: String,
        /// The field holding the command.
        field: &'static str,
        /// Exit status and the command's last stderr line.
        detail: String,
    },
    /// No key anywhere.
    #[error(
        "no API key: set SWITCHBOARD_API_KEY, or give profile {profile:?} an api_key_env, \
         api_key_cmd or api_key in {}",
        path.display()
    )]
    NoKey {
        /// The active profile.
        profile: String,
        /// The config file.
        path: PathBuf,
    },
    /// A value that parses but makes no sense (negative timeout, …).
    #[error("{what}: {detail}")]
    Invalid {
        /// Which setting.
        what: String,
        /// Why.
        detail: String,
    },
    /// Writing a file failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
