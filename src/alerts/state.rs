//! What `alerts watch` remembers across restarts: which rule is failing for what, since when,
//! and when its alert went out. One file per service ([`ServiceIdentity`]) in
//! `<data dir>/switchboard/alerts/`, owner-only (0600) through [`crate::config::private_file`],
//! replaced whole (a temporary file renamed over it), and a planted link at its path refused.
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::api::identity::ServiceIdentity;

/// The most a state file may hold (far beyond any real one): a planted huge file is refused.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// Why the state cannot be read or written.
#[derive(Debug, thiserror::Error)]
#[error("alert state {}: {source}", crate::text::line(&path.display().to_string()))]
pub struct StateError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// One rule failing for one subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failing {
    /// When the failure began.
    pub since: DateTime<Utc>,
    /// When its alert went out.
    pub alerted_at: DateTime<Utc>,
}

/// The remembered failures, by rule name and subject id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// Format version.
    #[serde(default = "version")]
    pub version: u32,
    /// Rule name → subject id → its failure.
    #[serde(default)]
    pub failing: BTreeMap<String, BTreeMap<String, Failing>>,
}

fn version() -> u32 {
    1
}

impl Memory {
    /// The remembered failure of `rule` for `subject`.
    #[must_use]
    pub fn get(&self, rule: &str, subject: &str) -> Option<&Failing> {
        self.failing.get(rule)?.get(subject)
    }

    /// Remembers a failure.
    pub fn set(&mut self, rule: &str, subject: &str, f: Failing) {
        self.failing
            .entry(rule.to_string())
            .or_default()
            .insert(subject.to_string(), f);
    }

    /// Forgets a failure.
    pub fn remove(&mut self, rule: &str, subject: &str) {
        if let Some(m) = self.failing.get_mut(rule) {
            m.remove(subject);
            if m.is_empty() {
                self.failing.remove(rule);
            }
        }
    }
}

/// The state file of one service.
#[derive(Debug, Clone)]
pub struct StateFile {
    path: PathBuf,
}

impl StateFile {
    /// The file for `service` in `data_dir/alerts/` (`data_dir` is `<data dir>/switchboard`).
    #[must_use]
    pub fn new(data_dir: &Path, service: &ServiceIdentity) -> Self {
        Self {
            path: data_dir
                .join("alerts")
                .join(format!("{}.json", service.key())),
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, source: std::io::Error) -> StateError {
        StateError {
            path: self.path.clone(),
            source,
        }
    }

    /// The remembered state; empty when there is no file yet.
    ///
    /// # Errors
    /// A link, something not a regular file of ours, or a file that is not a state file.
    pub fn load(&self) -> Result<Memory, StateError> {
        let Some(text) = read_private(&self.path).map_err(|e| self.err(e))? else {
            return Ok(Memory {
                version: version(),
                ..Memory::default()
            });
        };
        serde_json::from_str(&text)
            .map_err(|e| self.err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }

    /// Writes `m` in place of the file: a private temporary file beside it, renamed over it, so
    /// a crash leaves the old state or the new one. A link at the path is refused, not followed.
    ///
    /// # Errors
    /// The folder or the file cannot be written, or the path is not a regular file of ours.
    pub fn save(&self, m: &Memory) -> Result<(), StateError> {
        let text = serde_json::to_vec_pretty(m).map_err(|e| self.err(std::io::Error::other(e)))?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        private_dir(dir).map_err(|e| self.err(e))?;
        refuse_odd(&self.path).map_err(|e| self.err(e))?;
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id()
        ));
        crate::config::private_file::write(&tmp, &text).map_err(|e| self.err(e))?;
        // A rename replaces whatever is at the path (even a link planted since the check)
        // without following it.
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            self.err(e)
        })
    }
}

/// The folder, made owner-only (0700) when it is created.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// `Err` for a link or anything but a regular file at `path`; `Ok` when nothing is there.
fn refuse_odd(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(refused(path, "is a symbolic link")),
        Ok(m) if !m.is_file() => Err(refused(path, "is not a regular file")),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn refused(path: &Path, why: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("{} {why}; refusing to use it", path.display()),
    )
}

/// Reads a private file without following a link (`O_NOFOLLOW`); `None` when it is missing.
fn read_private(path: &Path) -> std::io::Result<Option<String>> {
    refuse_odd(path)?;
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
        o.custom_flags(flags.bits() as i32);
    }
    let f = match o.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(refused(path, "is a symbolic link"));
        }
        Err(e) => return Err(e),
    };
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(refused(path, "belongs to another user"));
        }
    }
    let mut text = String::new();
    f.take(MAX_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_BYTES {
        return Err(refused(path, "is too large for a state file"));
    }
    Ok(Some(text))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn saved_0600_read_back_and_a_link_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = StateFile::new(dir.path(), &ServiceIdentity::new("http://h", None));
        assert_eq!(
            file.load().expect("empty"),
            Memory {
                version: 1,
                ..Memory::default()
            }
        );
        let mut m = Memory::default();
        let at = Utc::now();
        m.set(
            "r",
            "cld_1",
            Failing {
                since: at,
                alerted_at: at,
            },
        );
        file.save(&m).expect("save");
        assert_eq!(
            file.load().expect("load").get("r", "cld_1"),
            m.get("r", "cld_1")
        );
        let mode = std::fs::metadata(file.path())
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        m.remove("r", "cld_1");
        assert!(m.failing.is_empty());

        let target = dir.path().join("bashrc");
        std::fs::write(&target, "keep\n").expect("target");
        std::fs::remove_file(file.path()).expect("rm");
        std::os::unix::fs::symlink(&target, file.path()).expect("symlink");
        let e = file.load().expect_err("a link is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        let e = file.save(&m).expect_err("a link is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read(&target).expect("read"), b"keep\n");
    }
}
