//! Saved views (issue 38): a tab's filters, sort, order, columns and status filter kept by name,
//! per profile (`[profiles.P.views.NAME]`), or top-level (`[views.NAME]`) in a session whose
//! profile is not in the file. The console saves them with `:view save NAME` and applies them
//! with `:view NAME` or `--view NAME`; every headless `list` takes `--view NAME`. Three are
//! shipped ([`defaults`]): `failed`, `retrying` and `today`; a saved view of the same name wins.
//! Written in place (comments and order kept, `toml_edit`), checked to parse as a config, and
//! replaced atomically owner-only through [`super::private_file::replace`].
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ConfigError;
use super::file::ConfigFile;
use super::resolve::{Env, Flags, active_profile, config_path};

/// One view. Every field may be left out: what is absent is left as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// The tab (resource) it is for: `notifications`, `destinations`, … (`notifications` when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tab: Option<String>,
    /// The list's filters.
    #[serde(default, skip_serializing_if = "Filters::is_empty")]
    pub filters: Filters,
    /// Notifications only: the delivery status kept (`list --status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The console's sort of the loaded rows: a column's name, `-name` for descending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<String>,
    /// The server's order: `asc` (oldest first) or `desc` (newest first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// The fields a headless list prints (`--fields`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

/// A view's filters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    /// The console's `/` filter of the loaded rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Notifications of these callbacks (`--callback`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub callbacks: Vec<String>,
    /// Notifications of these events (`--event`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Notifications to these destinations (`--destination`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destinations: Vec<String>,
    /// Notifications created since: `today` (since midnight UTC) or a duration (`24h`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

impl Filters {
    /// Whether no filter is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl View {
    /// The tab it is for.
    #[must_use]
    pub fn tab(&self) -> &str {
        self.tab.as_deref().unwrap_or("notifications")
    }
}

/// The views shipped: `failed`, `retrying` (notifications in that state, newest first) and
/// `today` (notifications since midnight UTC, newest first).
#[must_use]
pub fn defaults() -> BTreeMap<String, View> {
    let notifications = |status: Option<&str>, since: Option<&str>| View {
        tab: Some("notifications".into()),
        status: status.map(str::to_string),
        order: Some("desc".into()),
        filters: Filters {
            since: since.map(str::to_string),
            ..Filters::default()
        },
        ..View::default()
    };
    BTreeMap::from([
        ("failed".to_string(), notifications(Some("failed"), None)),
        (
            "retrying".to_string(),
            notifications(Some("retrying"), None),
        ),
        ("today".to_string(), notifications(None, Some("today"))),
    ])
}

/// Every view in a file: the top-level ones and each profile's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllViews {
    /// `[views.NAME]`.
    pub top: BTreeMap<String, View>,
    /// `[profiles.P.views.NAME]`, by profile.
    pub profiles: BTreeMap<String, BTreeMap<String, View>>,
}

impl AllViews {
    /// Reads a file's views (none when there is no file).
    ///
    /// # Errors
    /// The file cannot be read or does not parse.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let Some(file) = path.map(ConfigFile::load).transpose()?.flatten() else {
            return Ok(Self::default());
        };
        Ok(Self {
            top: file.views,
            profiles: file
                .profiles
                .into_iter()
                .map(|(name, p)| (name, p.views))
                .collect(),
        })
    }

    /// The views a profile sees (the shipped ones, then its saved ones over them): `profile`
    /// `None` for a session whose profile is not in the file (the top-level views).
    #[must_use]
    pub fn of(&self, profile: Option<&str>) -> BTreeMap<String, View> {
        let saved = match profile {
            Some(p) => self.profiles.get(p),
            None => Some(&self.top),
        };
        let mut all = defaults();
        all.extend(
            saved
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        all
    }

    /// Keeps a view in memory, as [`save`] keeps it in the file.
    pub fn put(&mut self, profile: Option<&str>, name: &str, view: View) {
        let map = match profile {
            Some(p) => self.profiles.entry(p.to_string()).or_default(),
            None => &mut self.top,
        };
        map.insert(name.to_string(), view);
    }
}

/// Whether a view's name can be a TOML key without quoting surprises: letters, digits, `-`, `_`.
#[must_use]
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Writes a view into the file at `path` (`[profiles.P.views.NAME]`, or `[views.NAME]` for
/// `profile` `None`), replacing one of that name; the rest of the file is kept as written.
///
/// # Errors
/// A bad name, a file that does not parse, or the write's error.
pub fn save(
    path: &Path,
    profile: Option<&str>,
    name: &str,
    view: &View,
) -> Result<(), ConfigError> {
    if !valid_name(name) {
        return Err(ConfigError::Invalid {
            what: format!("view name {:?}", crate::text::line(name)),
            detail: "letters, digits, - and _ only (at most 64)".into(),
        });
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    ConfigFile::parse(path, &text)?;
    let invalid = |detail: String| ConfigError::Invalid {
        what: path.display().to_string(),
        detail,
    };
    let mut doc = text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| invalid(e.to_string()))?;
    // Written as TOML by serde, then taken in as a table of the document.
    let value = toml::to_string(view)
        .map_err(|e| invalid(e.to_string()))?
        .parse::<toml_edit::DocumentMut>()
        .map_err(|e| invalid(e.to_string()))?;
    let mut table = value.as_table().clone();
    table.set_implicit(false);
    let parent = match profile {
        Some(p) => table_at(doc.as_table_mut(), &["profiles", p, "views"]),
        None => table_at(doc.as_table_mut(), &["views"]),
    }
    .ok_or_else(|| invalid("views is not a table".into()))?;
    parent.insert(name, toml_edit::Item::Table(table));
    let out = doc.to_string();
    ConfigFile::parse(path, &out)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        super::private_file::dir(dir).map_err(|source| ConfigError::Write {
            path: path.to_path_buf(),
            source,
        })?;
    }
    super::private_file::replace(path, out.as_bytes()).map_err(|source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The table at a dotted path, made (implicit, so no empty headers are written) where missing.
fn table_at<'a>(root: &'a mut toml_edit::Table, path: &[&str]) -> Option<&'a mut toml_edit::Table> {
    let mut t = root;
    for key in path {
        let item = t.entry(key).or_insert_with(|| {
            let mut new = toml_edit::Table::new();
            new.set_implicit(true);
            toml_edit::Item::Table(new)
        });
        t = item.as_table_mut()?;
    }
    Some(t)
}

/// A session's view by name, for `--view NAME`: the active profile's when it is in the file,
/// else the top-level ones.
///
/// # Errors
/// The file cannot be read or parsed; no view of that name (naming those there are).
pub fn session_view(flags: &Flags, env: &Env, name: &str) -> Result<View, ConfigError> {
    let path = config_path(flags, env);
    let file = match &path {
        Some(p) => ConfigFile::load(p)?.unwrap_or_default(),
        None => ConfigFile::default(),
    };
    let profile = active_profile(flags, env, &file);
    let all = AllViews::load(path.as_deref())?;
    let views = all.of(file
        .profiles
        .contains_key(&profile)
        .then_some(profile.as_str()));
    views
        .get(name)
        .cloned()
        .ok_or_else(|| ConfigError::Invalid {
            what: format!("--view {}", crate::text::line(name)),
            detail: format!(
                "no such view (there are: {})",
                views.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_is_saved_per_profile_beside_what_the_file_holds() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "# mine\n[profiles.work]\nbase_url = \"http://127.0.0.1:1\"\n",
        )
        .expect("write");
        let view = View {
            status: Some("failed".into()),
            sort: Some("-status".into()),
            filters: Filters {
                destinations: vec!["cld_1".into()],
                ..Filters::default()
            },
            ..View::default()
        };
        save(&path, Some("work"), "mine", &view).expect("saved");
        save(&path, None, "loose", &View::default()).expect("saved");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("# mine\n"), "{text}");
        assert!(text.contains("[profiles.work.views.mine]"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let all = AllViews::load(Some(&path)).expect("load");
        assert_eq!(all.of(Some("work")).get("mine"), Some(&view));
        assert!(all.of(None).contains_key("loose"));
        assert!(!all.of(None).contains_key("mine"));
        // The shipped ones are there for everyone.
        for name in ["failed", "retrying", "today"] {
            assert!(all.of(Some("work")).contains_key(name));
        }
        assert!(save(&path, None, "a b", &View::default()).is_err());
    }
}
