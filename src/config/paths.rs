//! Where Switchboard keeps its config, data and log files (XDG directories on Linux).
use std::path::PathBuf;

const APP: &str = "switchboard";

/// The config file used when neither `--config` nor `SWITCHBOARD_CONFIG` is given.
pub fn default_config_file() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join(APP).join("config.toml"))
}

/// The standard locations, for `switchboard info` and for whoever writes data or logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The config file in effect (it may not exist).
    pub config_file: Option<PathBuf>,
    /// Where the local service keeps its database by default.
    pub data_dir: Option<PathBuf>,
    /// Where the console writes its log.
    pub log_file: Option<PathBuf>,
}

impl Paths {
    /// The standard locations, with the given config file.
    pub fn with_config(config_file: Option<PathBuf>) -> Self {
        let log_dir = dirs::state_dir().or_else(dirs::cache_dir);
        Self {
            config_file,
            data_dir: dirs::data_dir().map(|d| d.join(APP)),
            log_file: log_dir.map(|d| d.join(APP).join("switchboard.log")),
        }
    }
}
