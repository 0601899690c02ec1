//! The TOML config file: named profiles and a default profile name.
//!
//! ```toml
//! default_profile = "work"
//!
//! [profiles.work]
//! base_url = "https://api.metorial.com"
//! api_key_cmd = "pass show metorial/work"
//! instance_id = "ins_…"
//! ```
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ConfigError;

/// The whole file. Unknown top-level tables are left for other parts (console settings).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ConfigFile {
    /// Profile used when none is named by flag or environment.
    #[serde(default)]
    pub default_profile: Option<String>,
    /// Profiles by name.
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// Console settings (`theme`, `mouse`, `notifications_order`, …), read leniently by the console.
    #[serde(default)]
    pub console: Option<toml::Table>,
    /// Console key bindings (action name = key or list of keys), checked by the console.
    #[serde(default)]
    pub keys: Option<toml::Table>,
    /// `[[alerts]]`: alert rules of a session without a named profile, checked by `crate::alerts`.
    #[serde(default)]
    pub alerts: Vec<toml::Table>,
    /// `[views.NAME]`: saved views of a session without a named profile (`super::views`).
    #[serde(default)]
    pub views: BTreeMap<String, super::views::View>,
}

/// `confirm` of a profile: `true`/`false`, or `"type-name"` (type the item's name to confirm).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum ConfirmSetting {
    /// Ask (`true`) or not (`false`).
    Ask(bool),
    /// A mode by name; `"type-name"` is the one known.
    Mode(String),
}

/// One profile: where to connect and as whom.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Profile {
    /// API base URL.
    pub base_url: Option<String>,
    /// Name of an environment variable holding the key.
    pub api_key_env: Option<String>,
    /// A shell command whose standard output is the key (e.g. a password manager).
    pub api_key_cmd: Option<String>,
    /// Seconds `api_key_cmd` and `organization_key_cmd` may take (default 10).
    pub api_key_cmd_timeout: Option<f64>,
    /// The key itself (the file should then be readable by its owner only).
    pub api_key: Option<String>,
    /// Sent as `metorial-instance-id`.
    pub instance_id: Option<String>,
    /// Name of an environment variable holding the organization key (for `/organization/*`).
    pub organization_key_env: Option<String>,
    /// A shell command printing the organization key.
    pub organization_key_cmd: Option<String>,
    /// Refuse every write.
    pub read_only: Option<bool>,
    /// Ask before destructive actions in the console (`true`, `false` or `"type-name"`).
    pub confirm: Option<ConfirmSetting>,
    /// Whole-request timeout in seconds.
    pub timeout: Option<f64>,
    /// Connect timeout in seconds.
    pub connect_timeout: Option<f64>,
    /// Retries of safe requests.
    pub retries: Option<u32>,
    /// The receivers `switchboard mcp`'s `replay_locally` may send to (with `--replay-to`).
    pub mcp_replay_targets: Option<Vec<String>>,
    /// `[[profiles.P.alerts]]`: alert rules, checked by `crate::alerts` when they are used.
    #[serde(default)]
    pub alerts: Vec<toml::Table>,
    /// `[profiles.P.views.NAME]`: the profile's saved views (`super::views`).
    #[serde(default)]
    pub views: BTreeMap<String, super::views::View>,
    /// A pinned API generation (`pulsar`, `callback-destinations`, `event-destinations`).
    pub generation: Option<String>,
    /// Keys this version does not know; reported as warnings.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

impl ConfigFile {
    /// Parses file text; errors carry the line and column of the problem.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })
    }

    /// Reads and parses a file; `Ok(None)` when it does not exist.
    pub fn load(path: &Path) -> Result<Option<Self>, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Warnings about the file: unknown profile keys, inline keys in a file others can read.
    pub fn warnings(&self, path: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for (name, p) in &self.profiles {
            for key in p.unknown.keys() {
                out.push(format!(
                    "{}: unknown key {key:?} in profile {name:?} (ignored)",
                    path.display()
                ));
            }
        }
        if self.profiles.values().any(|p| p.api_key.is_some()) && readable_by_others(path) {
            out.push(format!(
                "{} holds an inline api_key but is readable by group or others; run: chmod 600 {}",
                path.display(),
                path.display()
            ));
        }
        out
    }
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count() + 1)
        .unwrap_or(1);
    (line, column)
}

#[cfg(unix)]
fn readable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
}

#[cfg(not(unix))]
fn readable_by_others(_: &Path) -> bool {
    false
}

/// Writes a file that may hold a key: created with mode 0600 (owner only) before any byte is
/// written, so the secret is never briefly readable by others, and renamed over the old one
/// ([`super::private_file::replace`]). Parent directories are created.
pub fn write_private(path: &Path, contents: &str) -> Result<(), ConfigError> {
    let err = |source| ConfigError::Write {
        path: PathBuf::from(path),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        // Folders made here are the owner's only, whatever the umask: a group-writable one would
        // make the file untrusted for `*_cmd` (see `super::trust`).
        let mut b = std::fs::DirBuilder::new();
        b.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(err)?;
    }
    // Through the private-file rules: created 0600 and replaced atomically, no planted link
    // followed, another user's file refused untouched.
    super::private_file::replace(path, contents.as_bytes()).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_error_names_line_and_column() {
        let text = "default_profile = \"a\"\n\n[profiles.a]\nread_only = \"yes\"\n";
        let e = ConfigFile::parse(Path::new("/x/config.toml"), text).expect_err("must fail");
        let ConfigError::Parse { line, message, .. } = &e else {
            panic!("wrong error {e:?}")
        };
        assert_eq!(*line, 4);
        assert!(message.contains("bool"), "{message}");
        assert!(
            e.to_string()
                .starts_with("config file /x/config.toml, line 4")
        );
    }

    #[test]
    fn unknown_profile_keys_are_warned() {
        let text = "[profiles.a]\napi_kye = \"x\"\n";
        let f = ConfigFile::parse(Path::new("c.toml"), text).expect("parses");
        let w = f.warnings(Path::new("c.toml"));
        assert!(w.iter().any(|w| w.contains("api_kye")), "{w:?}");
    }

    #[test]
    fn the_example_config_parses_without_warnings() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/config.example.toml"
        ));
        let text = std::fs::read_to_string(path).expect("example exists");
        let f = ConfigFile::parse(path, &text).expect("example parses");
        assert_eq!(f.default_profile.as_deref(), Some("work"));
        assert!(f.profiles.contains_key("work") && f.profiles.contains_key("audit"));
        assert!(f.profiles.values().all(|p| p.unknown.is_empty()));
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_0600_and_inline_keys_warn_when_open() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("sub/config.toml");
        let text = "[profiles.a]\napi_key = \"sk_test_123456789\"\n";
        write_private(&path, text).expect("write");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(path.parent().expect("parent"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(
            dir_mode & 0o777,
            0o700,
            "a folder made for it is the owner's only"
        );
        let f = ConfigFile::parse(&path, text).expect("parses");
        assert!(f.warnings(&path).is_empty());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        assert!(f.warnings(&path).iter().any(|w| w.contains("chmod 600")));
    }
}
