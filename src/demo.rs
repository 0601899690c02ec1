//! The demo's session file: while `switchboard demo` runs, a config with one `demo` profile
//! (its base URL and key) sits in a file only its owner can read, so a script reaches the demo's
//! service with `export SWITCHBOARD_CONFIG=FILE` and never sees the key in argv. Removed at exit
//! (a normal end, an error, or SIGTERM, SIGINT and SIGHUP: see [`exit_signals`]). Written through
//! [`private_file`]: no planted link is followed, another user's file is neither written nor
//! removed, and with no data folder it goes to a private per-user folder.
use std::path::{Path, PathBuf};

use switchboard::api::Secret;
use switchboard::config::private_file;

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
    pub fn write(
        dir: &Path,
        base_url: &str,
        key: &Secret,
        instance_id: Option<&str>,
    ) -> Result<Self, String> {
        let path = dir.join(FILE);
        let text = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut contents = format!(
            "# Written by `switchboard demo` for its session; removed when it ends.\n\
             default_profile = \"demo\"\n\n[profiles.demo]\nbase_url = {}\napi_key = {}\n",
            text(base_url),
            text(key.expose()),
        );
        // The newer generations: the organization key reaches instance paths with the id.
        if let Some(id) = instance_id {
            contents.push_str(&format!("instance_id = {}\n", text(id)));
        }
        private_file::dir(dir).map_err(|e| e.to_string())?;
        private_file::replace(&path, contents.as_bytes()).map_err(|e| e.to_string())?;
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
        let ours = private_file::read(&self.path)
            .ok()
            .flatten()
            .and_then(|mut f| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut f, &mut text).ok()?;
                Some(text)
            })
            .is_some_and(|c| c == self.contents);
        if ours {
            let _ = private_file::remove(&self.path);
        }
    }
}

/// The folder for the session file: the data folder, or without one a private per-user folder
/// (never a fixed name in the shared temporary folder).
///
/// # Errors
/// No private folder could be made.
pub fn folder(data_dir: Option<PathBuf>) -> Result<PathBuf, String> {
    match data_dir {
        Some(d) => Ok(d),
        None => private_file::fallback_dir().map_err(|e| e.to_string()),
    }
}

/// Resolves on SIGTERM, SIGINT or SIGHUP. Made before the session file is written, so a signal
/// at any point of the demo ends it through the path that removes the file.
///
/// # Errors
/// A handler could not be installed.
pub fn exit_signals() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = hup.recv() => {}
        }
    })
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
        let s = Session::write(dir.path(), "http://127.0.0.1:4321", &key, None).expect("write");
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
    fn the_newer_generations_session_names_the_instance() {
        let dir = tempfile::tempdir().expect("dir");
        let key = Secret::new("sk_org_demo_0123456789");
        let s = Session::write(dir.path(), "http://127.0.0.1:1", &key, Some("ins_demo"))
            .expect("write");
        let text = std::fs::read_to_string(s.path()).expect("read");
        let file = switchboard::config::ConfigFile::parse(s.path(), &text).expect("parses");
        let demo = file.profiles.get("demo").expect("demo profile");
        assert_eq!(demo.instance_id.as_deref(), Some("ins_demo"));
    }

    #[test]
    fn a_newer_session_is_left_alone() {
        let dir = tempfile::tempdir().expect("dir");
        let first = Session::write(dir.path(), "http://127.0.0.1:1", &Secret::new("sk_a"), None)
            .expect("a");
        let second = Session::write(dir.path(), "http://127.0.0.1:2", &Secret::new("sk_b"), None)
            .expect("b");
        drop(first);
        assert!(second.path().exists(), "the second demo's file stays");
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_is_neither_followed_nor_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("dir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep\n").expect("victim");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("m");
        std::os::unix::fs::symlink(&victim, dir.path().join(FILE)).expect("link");
        let key = Secret::new("sk_demo_key_0123456789");
        assert!(Session::write(dir.path(), "http://127.0.0.1:1", &key, None).is_err());
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
        let mode = std::fs::metadata(&victim).expect("m").permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "not chmod-ed");
        assert!(dir.path().join(FILE).is_symlink(), "the link is left alone");
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
