//! Configuration: profiles in a TOML file, key sources, environment overrides and standard paths.
//!
//! Precedence, highest first: command-line flags, environment variables, the selected profile,
//! built-in defaults. [`resolve`] turns all of it into [`crate::api::ClientOptions`].
mod alerts;
mod command;
mod edit;
/// The operator's editor and editing a text in it.
pub mod editor;
mod error;
mod file;
mod paths;
pub mod private_file;
mod resolve;
pub mod trust;
pub mod views;

pub use alerts::{AlertTables, alert_tables};
pub use edit::{ConfigEdit, NewKey, NewProfile, valid_profile_name};
pub use error::ConfigError;
pub use file::{ConfigFile, ConfirmSetting, Profile, write_private};
pub use paths::{Paths, default_config_file, open_log};
pub use resolve::{
    Env, Flags, KeySource, KeySpec, Resolved, Settings, active_profile, config_path, named_profile,
    resolve,
};
