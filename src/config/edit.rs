//! In-place edits of the config file for `switchboard profile …`: the user's comments, order and
//! layout survive (`toml_edit`), and the file is written owner-only and replaced atomically.
use std::io::Write;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, value};

use super::ConfigError;
use super::file::ConfigFile;
use crate::api::Secret;

/// Where a new profile's API key comes from. The literal key only ever arrives on standard input.
#[derive(Debug, Clone)]
pub enum NewKey {
    /// `api_key_env`: the name of an environment variable.
    Env(String),
    /// `api_key_cmd`: a shell command printing the key.
    Command(String),
    /// `api_key`: the key itself, stored inline (the file is 0600).
    Inline(Secret),
}

/// The fields `profile add` sets.
#[derive(Debug, Clone)]
pub struct NewProfile {
    /// API base URL (`http` or `https`).
    pub base_url: String,
    /// The key's source.
    pub key: NewKey,
    /// Sent as `metorial-instance-id`.
    pub instance_id: Option<String>,
    /// Refuse every write.
    pub read_only: bool,
}

/// A config file opened for editing; nothing changes on disk until [`ConfigEdit::save`].
#[derive(Debug)]
pub struct ConfigEdit {
    path: PathBuf,
    doc: DocumentMut,
}

impl ConfigEdit {
    /// Opens a file for editing; a missing file is an empty one (created by `save`). A file that
    /// does not parse as a config is refused, so an edit never builds on a broken file.
    pub fn open(path: &Path) -> Result<Self, ConfigError> {
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
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|e| ConfigError::Invalid {
                what: path.display().to_string(),
                detail: e.to_string(),
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            doc,
        })
    }

    /// The file being edited.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The current text (what `save` would write).
    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// The profiles' names in file order.
    pub fn profile_names(&self) -> Vec<String> {
        self.doc
            .get("profiles")
            .and_then(Item::as_table_like)
            .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
            .unwrap_or_default()
    }

    /// `default_profile`, if set.
    pub fn default_profile(&self) -> Option<String> {
        self.doc
            .get("default_profile")
            .and_then(Item::as_str)
            .map(str::to_string)
    }

    fn has_profile(&self, name: &str) -> bool {
        self.profile_names().iter().any(|n| n == name)
    }

    fn not_found(&self, name: &str) -> ConfigError {
        let names = self.profile_names();
        ConfigError::ProfileNotFound {
            name: name.to_string(),
            path: self.path.clone(),
            available: if names.is_empty() {
                "none".into()
            } else {
                names.join(", ")
            },
        }
    }

    /// Whether `add_profile` would accept this name and base URL (checked before asking for a
    /// key on standard input).
    pub fn check_new(&self, name: &str, base_url: &str) -> Result<(), ConfigError> {
        check_name(name)?;
        check_base_url(base_url)?;
        if self.has_profile(name) {
            return Err(ConfigError::ProfileExists {
                name: name.to_string(),
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// Adds `[profiles.NAME]` after the last profile; an existing name is an error.
    pub fn add_profile(&mut self, name: &str, p: &NewProfile) -> Result<(), ConfigError> {
        self.check_new(name, &p.base_url)?;
        let mut t = Table::new();
        if !self.doc.to_string().trim().is_empty() {
            // A blank line between the new table and whatever comes before it.
            t.decor_mut().set_prefix("\n");
        }
        t["base_url"] = value(p.base_url.as_str());
        match &p.key {
            NewKey::Env(var) => t["api_key_env"] = value(non_blank("--api-key-env", var)?),
            NewKey::Command(cmd) => t["api_key_cmd"] = value(non_blank("--api-key-cmd", cmd)?),
            NewKey::Inline(key) => t["api_key"] = value(non_blank("the API key", key.expose())?),
        }
        if let Some(id) = &p.instance_id {
            t["instance_id"] = value(non_blank("--instance-id", id)?);
        }
        if p.read_only {
            t["read_only"] = value(true);
        }
        let profiles = self
            .doc
            .entry("profiles")
            .or_insert_with(|| {
                // Implicit: only `[profiles.NAME]` headers appear, no empty `[profiles]`.
                let mut t = Table::new();
                t.set_implicit(true);
                Item::Table(t)
            })
            .as_table_like_mut()
            .ok_or_else(|| ConfigError::Invalid {
                what: self.path.display().to_string(),
                detail: "`profiles` is not a table".into(),
            })?;
        profiles.insert(name, Item::Table(t));
        Ok(())
    }

    /// Sets `default_profile` to an existing profile.
    pub fn set_default(&mut self, name: &str) -> Result<(), ConfigError> {
        if !self.has_profile(name) {
            return Err(self.not_found(name));
        }
        if let Some(Item::Value(v)) = self.doc.get_mut("default_profile") {
            // Keep the line's comments and spacing; change only the string.
            let decor = v.decor().clone();
            *v = name.into();
            *v.decor_mut() = decor;
        } else {
            // A new top-level key goes before the first table, where the file's other
            // top-level keys live.
            self.doc.insert("default_profile", value(name));
            separate_first_table(&mut self.doc);
        }
        Ok(())
    }

    /// Removes `[profiles.NAME]`; when it was the default, `default_profile` goes too. Returns
    /// whether it was the default.
    pub fn remove_profile(&mut self, name: &str) -> Result<bool, ConfigError> {
        if !self.has_profile(name) {
            return Err(self.not_found(name));
        }
        if let Some(profiles) = self
            .doc
            .get_mut("profiles")
            .and_then(Item::as_table_like_mut)
        {
            profiles.remove(name);
        }
        let was_default = self.default_profile().as_deref() == Some(name);
        if was_default {
            self.doc.remove("default_profile");
        }
        Ok(was_default)
    }

    /// Writes the file: checked to parse as a config, written to a 0600 temporary file beside it
    /// and renamed over it (so a crash leaves the old file whole). A symlinked config is written
    /// through to its target.
    pub fn save(&self) -> Result<(), ConfigError> {
        let text = self.doc.to_string();
        ConfigFile::parse(&self.path, &text)?;
        let target = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let err = |source| ConfigError::Write {
            path: target.clone(),
            source,
        };
        let dir = match target.parent().filter(|d| !d.as_os_str().is_empty()) {
            Some(d) => d.to_path_buf(),
            None => PathBuf::from("."),
        };
        create_private_dir(&dir).map_err(err)?;
        // tempfile creates its files 0600 on Unix.
        let mut tmp = tempfile::Builder::new()
            .prefix(".config.toml.")
            .tempfile_in(&dir)
            .map_err(err)?;
        tmp.write_all(text.as_bytes()).map_err(err)?;
        tmp.as_file().sync_all().map_err(err)?;
        tmp.persist(&target).map_err(|e| err(e.error))?;
        Ok(())
    }
}

/// Puts a blank line between the top-level keys and the first table when there is none.
fn separate_first_table(doc: &mut DocumentMut) {
    fn headed(t: &Table, path: &mut Vec<String>, out: &mut Vec<(isize, Vec<String>)>) {
        for (k, item) in t {
            if let Some(sub) = item.as_table() {
                path.push(k.to_string());
                if !sub.is_implicit() {
                    out.push((sub.position().unwrap_or(isize::MAX), path.clone()));
                }
                headed(sub, path, out);
                path.pop();
            }
        }
    }
    let mut found = Vec::new();
    headed(doc.as_table(), &mut Vec::new(), &mut found);
    let Some((_, path)) = found.into_iter().min_by_key(|(pos, _)| *pos) else {
        return;
    };
    let mut table = doc.as_table_mut();
    for k in &path {
        match table.get_mut(k).and_then(Item::as_table_mut) {
            Some(t) => table = t,
            None => return,
        }
    }
    let decor = table.decor_mut();
    if decor
        .prefix()
        .and_then(|p| p.as_str())
        .is_none_or(str::is_empty)
    {
        decor.set_prefix("\n");
    }
}

/// Creates a missing config folder readable by its owner only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// Profile names: letters, digits, `-`, `_` and `.`, so they need no quoting in shells or
/// completion scripts and print safely.
/// Whether `name` is a profile name `profile add` accepts: 1–64 letters, digits, `-`, `_`, `.`.
/// Completion lists only such names, so a hand-written name cannot smuggle shell syntax.
pub fn valid_profile_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn check_name(name: &str) -> Result<(), ConfigError> {
    if valid_profile_name(name) {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            what: format!("profile name {name:?}"),
            detail: "use 1–64 letters, digits, '-', '_' or '.'".into(),
        })
    }
}

fn check_base_url(url: &str) -> Result<(), ConfigError> {
    let bad = |detail: String| ConfigError::Invalid {
        what: format!("--base-url {url:?}"),
        detail,
    };
    let parsed = url::Url::parse(url).map_err(|e| bad(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(bad(
            "an http:// or https:// URL with a host is needed".into()
        ));
    }
    Ok(())
}

fn non_blank<'a>(what: &str, s: &'a str) -> Result<&'a str, ConfigError> {
    let t = s.trim();
    if t.is_empty() || t.chars().any(char::is_control) {
        return Err(ConfigError::Invalid {
            what: what.to_string(),
            detail: "must be non-empty, on one line".into(),
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMENTED: &str = "# my config\ndefault_profile = \"a\" # the usual\n\n\
        [profiles.a] # first\nbase_url = \"http://a.example\"\napi_key_env = \"A_KEY\" # env\n\n\
        # console below\n[console]\ntheme = \"light\"\n";

    fn opened(text: &str) -> (tempfile::TempDir, ConfigEdit) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).expect("write");
        let e = ConfigEdit::open(&path).expect("open");
        (dir, e)
    }

    fn new_profile() -> NewProfile {
        NewProfile {
            base_url: "https://b.example".into(),
            key: NewKey::Command("pass show b".into()),
            instance_id: Some("ins_1".into()),
            read_only: true,
        }
    }

    #[test]
    fn add_goes_after_the_last_profile_and_keeps_comments() {
        let (_d, mut e) = opened(COMMENTED);
        e.add_profile("b", &new_profile()).expect("add");
        let text = e.text();
        assert!(text.starts_with("# my config\ndefault_profile = \"a\" # the usual\n"));
        assert!(text.contains("[profiles.a] # first\n"));
        assert!(text.contains("api_key_env = \"A_KEY\" # env\n"));
        let b = text.find("[profiles.b]").expect("b added");
        assert!(b < text.find("[console]").expect("console kept"), "{text}");
        assert!(text.contains("api_key_cmd = \"pass show b\""));
        assert!(text.contains("read_only = true"));
        let f = ConfigFile::parse(Path::new("c"), &text).expect("still a config");
        assert_eq!(f.profiles["b"].instance_id.as_deref(), Some("ins_1"));
    }

    #[test]
    fn use_keeps_the_line_comment_and_remove_clears_the_default() {
        let (_d, mut e) = opened(COMMENTED);
        e.add_profile("b", &new_profile()).expect("add");
        e.set_default("b").expect("use");
        assert!(
            e.text().contains("default_profile = \"b\" # the usual\n"),
            "{}",
            e.text()
        );
        assert!(e.remove_profile("b").expect("remove"));
        assert!(e.default_profile().is_none());
        assert_eq!(e.profile_names(), ["a"]);
        assert!(e.text().contains("# console below\n[console]"));
    }

    #[test]
    fn duplicates_unknown_names_and_bad_input_are_refused() {
        let (_d, mut e) = opened(COMMENTED);
        assert!(matches!(
            e.add_profile("a", &new_profile()),
            Err(ConfigError::ProfileExists { .. })
        ));
        assert!(matches!(
            e.set_default("zz"),
            Err(ConfigError::ProfileNotFound { .. })
        ));
        assert!(e.add_profile("bad name", &new_profile()).is_err());
        let mut p = new_profile();
        p.base_url = "ftp://x".into();
        assert!(e.add_profile("c", &p).is_err());
        assert_eq!(e.text(), COMMENTED, "a refused edit changes nothing");
    }

    #[cfg(unix)]
    #[test]
    fn save_creates_an_owner_only_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("new/config.toml");
        let mut e = ConfigEdit::open(&path).expect("open missing");
        e.add_profile("x", &new_profile()).expect("add");
        e.save().expect("save");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("[profiles.x]\n"), "{text}");
        e.set_default("x").expect("use");
        assert!(
            e.text()
                .starts_with("default_profile = \"x\"\n\n[profiles.x]\n"),
            "{}",
            e.text()
        );
    }
}
