//! The demo's session file: while `switchboard demo` runs, a config with one `demo` profile
//! (its base URL and key) sits in a file only its owner can read, so a script reaches the demo's
//! service with `export SWITCHBOARD_CONFIG=FILE` and never sees the key in argv. Removed at exit.
use std::path::{Path, PathBuf};

use switchboard::api::Secret;

/// The session file's name, in the data folder.
const FILE: &str = "demo.toml";

/// A written session file; removed when dropped, unless another demo has replaced it since.
pub struct Session {
    path: PathBuf,
    contents: String,
}

impl Session {
    /// Writes the session file for a service at `base_url` taking `key` (0600, replacing a stale
    /// one a demo that was killed left behind).
    ///
    /// # Errors
    /// The folder or the file could not be written.
    pub fn write(dir: &Path, base_url: &str, key: &Secret) -> Result<Self, String> {
        let path = dir.join(FILE);
        let text = |s: &str| toml::Value::String(s.to_string()).to_string();
        let contents = format!(
            "# Written by `switchboard demo` for its session; removed when it ends.\n\
             default_profile = \"demo\"\n\n[profiles.demo]\nbase_url = {}\napi_key = {}\n",
            text(base_url),
            text(key.expose()),
        );
        switchboard::config::write_private(&path, &contents).map_err(|e| e.to_string())?;
        Ok(Self { path, contents })
    }

    /// Where it is.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The one line a script runs to reach the demo's service.
    pub fn export_line(&self) -> String {
        format!("export SWITCHBOARD_CONFIG={}", shell_quoted(&self.path))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A second demo started meanwhile owns the file now: leave its session alone.
        if std::fs::read_to_string(&self.path).is_ok_and(|c| c == self.contents) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The path as one shell word: bare when it is plain, else in single quotes.
fn shell_quoted(p: &Path) -> String {
    let s = p.display().to_string();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ','));
    if plain {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_file_is_private_resolves_to_the_service_and_goes_away() {
        let dir = tempfile::tempdir().expect("dir");
        let key = Secret::new("sk_demo_key_0123456789");
        let s = Session::write(dir.path(), "http://127.0.0.1:4321", &key).expect("write");
        let text = std::fs::read_to_string(s.path()).expect("read");
        let file = switchboard::config::ConfigFile::parse(s.path(), &text).expect("parses");
        let demo = file.profiles.get("demo").expect("demo profile");
        assert_eq!(file.default_profile.as_deref(), Some("demo"));
        assert_eq!(demo.base_url.as_deref(), Some("http://127.0.0.1:4321"));
        assert_eq!(demo.api_key.as_deref(), Some("sk_demo_key_0123456789"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(s.path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(!s.export_line().contains("sk_demo"), "no key in the line");
        let path = s.path().to_path_buf();
        drop(s);
        assert!(!path.exists(), "removed at exit");
    }

    #[test]
    fn a_newer_session_is_left_alone() {
        let dir = tempfile::tempdir().expect("dir");
        let first =
            Session::write(dir.path(), "http://127.0.0.1:1", &Secret::new("sk_a")).expect("a");
        let second =
            Session::write(dir.path(), "http://127.0.0.1:2", &Secret::new("sk_b")).expect("b");
        drop(first);
        assert!(second.path().exists(), "the second demo's file stays");
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_quoted(Path::new("/home/a/x.toml")), "/home/a/x.toml");
        assert_eq!(
            shell_quoted(Path::new("/home/it's me/x.toml")),
            r"'/home/it'\''s me/x.toml'"
        );
    }
}
