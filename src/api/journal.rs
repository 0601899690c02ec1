//! The delivery journal (issue 26): what this machine sent again, per profile, so that a second
//! run of the same `recover` (or `forward`) sends only what has not yet succeeded.
//!
//! One file per profile in the data directory ([`path_for`]), owner-only (0600), append-only, one
//! JSON [`Entry`] a line. Before a delivery is sent it is *claimed* ([`Journal::claim`]: a
//! `sending` line); its outcome follows ([`Journal::record`]). So after a crash or a kill a
//! delivery whose outcome is unknown is *in doubt* and not sent again by accident.
//!
//! Robust by construction: a torn last line (a crash mid-write) is skipped when read and ended
//! before the next append; every append is one `write` under an exclusive file lock, after reading
//! what other processes appended meanwhile, so two processes never interleave lines nor claim the
//! same delivery twice.
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Why the journal cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Opening, reading, locking or writing the file failed.
    #[error("journal {}: {source}", .path.display())]
    Io {
        /// The journal file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
}

/// The journal file of `profile` under `data_dir`: `<data_dir>/journal/<profile>.ndjson`, the
/// profile name kept to letters, digits, `-` and `_` (others become `_`, plus a short hash so
/// that two names never share a file).
#[must_use]
pub fn path_for(data_dir: &Path, profile: &str) -> PathBuf {
    let plain: String = profile
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = if plain == profile && !plain.is_empty() {
        plain
    } else {
        use sha2::Digest;
        let h = sha2::Sha256::digest(profile.as_bytes());
        format!("{plain}-{}", &hex::encode(h)[..8])
    };
    data_dir.join("journal").join(format!("{name}.ndjson"))
}

/// What happened to one delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// About to be sent; nothing known yet (a claim).
    Sending,
    /// A whole 2xx answer.
    Succeeded,
    /// Another answer (or a 2xx cut short).
    Failed,
    /// No answer: connect error, reset, timeout.
    Unreachable,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// When it was written.
    #[serde(with = "super::model::time::millis")]
    pub at: DateTime<Utc>,
    /// `cbn_…`.
    pub notification: String,
    /// Where it was sent (a URL).
    pub target: String,
    /// What happened.
    pub outcome: Outcome,
    /// The answer's status, when one came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// From sending to the end of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// What the journal knows of one delivery to one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// It succeeded once (later attempts do not undo that).
    Succeeded,
    /// Claimed, and no outcome followed: a run was killed while it was in flight, or another
    /// process is sending it now.
    InDoubt,
    /// Its last attempt failed or got no answer: worth sending again.
    NotDelivered,
}

/// A profile's journal, open for lookups and appends ([`Journal::open`]).
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Bytes read so far: up to the end of the last whole line.
    offset: u64,
    states: HashMap<(String, String), State>,
    skipped: usize,
}

impl Journal {
    /// Opens (creating it 0600, and its folder, when missing) and reads the journal at `path`.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        let err = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let mut opts = OpenOptions::new();
        opts.read(true).append(true).create(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let file = opts.open(path).map_err(err)?;
        #[cfg(unix)]
        {
            // An existing file keeps its old mode on open: it names receivers, so tighten it.
            use std::os::unix::fs::PermissionsExt;
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(err)?;
        }
        let mut j = Self {
            path: path.to_path_buf(),
            file,
            offset: 0,
            states: HashMap::new(),
            skipped: 0,
        };
        j.file.lock_shared().map_err(err)?;
        let read = j.read_new();
        j.file.unlock().map_err(err)?;
        read?;
        Ok(j)
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What is known of `notification` sent to `target`, as of the last read; `None` when it was
    /// never sent there.
    #[must_use]
    pub fn state(&self, notification: &str, target: &str) -> Option<State> {
        self.states
            .get(&(notification.to_string(), target.to_string()))
            .copied()
    }

    /// Whether `notification` already succeeded to `target` (as of the last read).
    #[must_use]
    pub fn succeeded(&self, notification: &str, target: &str) -> bool {
        self.state(notification, target) == Some(State::Succeeded)
    }

    /// Lines that could not be read (a torn line after a crash, or a line of a newer version).
    #[must_use]
    pub fn skipped_lines(&self) -> usize {
        self.skipped
    }

    /// Claims `notification` for `target` before sending it: under the lock, reads what other
    /// processes appended, and unless it succeeded or is in doubt there (ignored with `again`),
    /// appends a `sending` line. Returns whether the caller may send it.
    ///
    /// # Errors
    /// [`JournalError::Io`]: then nothing may be sent.
    pub fn claim(
        &mut self,
        notification: &str,
        target: &str,
        again: bool,
    ) -> Result<bool, JournalError> {
        self.locked(|j| {
            j.read_new()?;
            let free = again
                || matches!(
                    j.state(notification, target),
                    None | Some(State::NotDelivered)
                );
            if free {
                j.append(&Entry {
                    at: Utc::now(),
                    notification: notification.to_string(),
                    target: target.to_string(),
                    outcome: Outcome::Sending,
                    status: None,
                    duration_ms: None,
                })?;
            }
            Ok(free)
        })
    }

    /// Appends `entry` (an outcome, usually after [`Journal::claim`]).
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn record(&mut self, entry: &Entry) -> Result<(), JournalError> {
        self.locked(|j| {
            j.read_new()?;
            j.append(entry)
        })
    }

    fn io(&self, source: std::io::Error) -> JournalError {
        JournalError::Io {
            path: self.path.clone(),
            source,
        }
    }

    fn locked<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, JournalError>,
    ) -> Result<T, JournalError> {
        self.file.lock().map_err(|e| self.io(e))?;
        let out = f(self);
        let unlocked = self.file.unlock().map_err(|e| self.io(e));
        let out = out?;
        unlocked?;
        Ok(out)
    }

    /// Reads the whole lines past `offset` (a torn last line stays unread until it is ended).
    fn read_new(&mut self) -> Result<(), JournalError> {
        let len = self.file.metadata().map_err(|e| self.io(e))?.len();
        if len <= self.offset {
            return Ok(());
        }
        let mut buf = Vec::new();
        self.file
            .seek(SeekFrom::Start(self.offset))
            .and_then(|_| (&self.file).take(len - self.offset).read_to_end(&mut buf))
            .map_err(|e| self.io(e))?;
        let Some(end) = buf.iter().rposition(|b| *b == b'\n') else {
            return Ok(());
        };
        for line in buf[..end].split(|b| *b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Entry>(line) {
                Ok(e) => self.apply(e),
                Err(_) => self.skipped += 1,
            }
        }
        self.offset += end as u64 + 1;
        Ok(())
    }

    fn apply(&mut self, e: Entry) {
        let state = match e.outcome {
            Outcome::Sending => State::InDoubt,
            Outcome::Succeeded => State::Succeeded,
            Outcome::Failed | Outcome::Unreachable => State::NotDelivered,
        };
        let slot = self
            .states
            .entry((e.notification, e.target))
            .or_insert(state);
        // Once delivered, it stays delivered: a later `--again` that failed does not undo it.
        if *slot != State::Succeeded {
            *slot = state;
        }
    }

    /// Appends one line in one write; called under the lock, after [`Self::read_new`].
    fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        let len = self.file.metadata().map_err(|e| self.io(e))?.len();
        let mut line = Vec::with_capacity(160);
        if len > self.offset {
            // A torn line (a crash mid-write): end it, so this entry starts a line of its own.
            line.push(b'\n');
        }
        serde_json::to_writer(&mut line, entry).map_err(|e| self.io(std::io::Error::other(e)))?;
        line.push(b'\n');
        (&self.file).write_all(&line).map_err(|e| self.io(e))?;
        self.skipped += usize::from(len > self.offset);
        self.offset = len + line.len() as u64;
        self.apply(entry.clone());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(n: &str, target: &str, outcome: Outcome) -> Entry {
        Entry {
            at: Utc::now(),
            notification: n.into(),
            target: target.into(),
            outcome,
            status: None,
            duration_ms: None,
        }
    }

    const T: &str = "http://127.0.0.1:9/in";

    #[test]
    fn outcomes_are_remembered_across_opens_and_the_file_is_owner_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = path_for(dir.path(), "work");
        let mut j = Journal::open(&path).expect("open");
        assert!(j.claim("cbn_a", T, false).expect("claim"));
        j.record(&entry("cbn_a", T, Outcome::Succeeded))
            .expect("record");
        assert!(j.claim("cbn_b", T, false).expect("claim"));
        j.record(&entry("cbn_b", T, Outcome::Failed))
            .expect("record");
        assert!(j.claim("cbn_c", T, false).expect("claim"));
        drop(j);

        let mut j = Journal::open(&path).expect("reopen");
        assert!(j.succeeded("cbn_a", T));
        assert!(!j.succeeded("cbn_a", "http://127.0.0.1:9/other"));
        assert_eq!(j.state("cbn_b", T), Some(State::NotDelivered));
        assert_eq!(j.state("cbn_c", T), Some(State::InDoubt));
        assert_eq!(j.state("cbn_d", T), None);
        assert!(!j.claim("cbn_a", T, false).expect("claim"), "succeeded");
        assert!(!j.claim("cbn_c", T, false).expect("claim"), "in doubt");
        assert!(j.claim("cbn_b", T, false).expect("claim"), "failed: again");
        assert!(j.claim("cbn_a", T, true).expect("claim"), "--again");
        j.record(&entry("cbn_a", T, Outcome::Failed))
            .expect("record");
        assert!(j.succeeded("cbn_a", T), "a success stays one");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_torn_last_line_is_skipped_and_ended_before_the_next_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        let mut j = Journal::open(&path).expect("open");
        j.record(&entry("cbn_a", T, Outcome::Succeeded))
            .expect("record");
        drop(j);
        // A crash in the middle of a line.
        let mut f = OpenOptions::new().append(true).open(&path).expect("append");
        f.write_all(br#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_b","tar"#)
            .expect("torn");
        drop(f);
        let mut j = Journal::open(&path).expect("reopen");
        assert!(j.succeeded("cbn_a", T));
        assert_eq!(j.state("cbn_b", T), None);
        j.record(&entry("cbn_c", T, Outcome::Succeeded))
            .expect("record");
        drop(j);
        let j = Journal::open(&path).expect("reopen");
        assert!(j.succeeded("cbn_a", T) && j.succeeded("cbn_c", T));
        assert_eq!(j.skipped_lines(), 1, "the torn line, now ended, is skipped");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn two_writers_never_interleave_nor_claim_the_same_delivery() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        let claims: Vec<usize> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    let path = path.clone();
                    s.spawn(move || {
                        let mut j = Journal::open(&path).expect("open");
                        let mut mine = 0;
                        for i in 0..300 {
                            let n = format!("cbn_{i}");
                            if j.claim(&n, T, false).expect("claim") {
                                mine += 1;
                                j.record(&entry(&n, T, Outcome::Succeeded)).expect("record");
                            }
                        }
                        mine
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("worker"))
                .collect()
        });
        assert_eq!(
            claims.iter().sum::<usize>(),
            300,
            "each claimed once: {claims:?}"
        );
        let j = Journal::open(&path).expect("reopen");
        assert_eq!(j.skipped_lines(), 0, "no line was interleaved");
        assert!((0..300).all(|i| j.succeeded(&format!("cbn_{i}"), T)));
    }

    #[test]
    fn profile_names_make_safe_distinct_file_names() {
        let d = Path::new("/data");
        assert_eq!(path_for(d, "work"), Path::new("/data/journal/work.ndjson"));
        let odd = path_for(d, "../x y");
        assert_eq!(odd.parent(), Some(Path::new("/data/journal")));
        assert_ne!(path_for(d, "a/b"), path_for(d, "a_b"));
        assert_ne!(path_for(d, "a/b"), path_for(d, "a?b"));
    }
}
