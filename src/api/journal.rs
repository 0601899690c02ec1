//! The delivery journal (issues 26, 36): what this machine sent again to which receiver, per
//! service, so that a second run of the same `recover` (or `forward`) sends only what has not yet
//! succeeded, and names what it cannot know.
//!
//! One file per service ([`path_for`]: `<data dir>/journal/<hash of base URL and instance>.ndjson`,
//! never a profile's name), private ([`crate::config::private_file`]), one JSON [`Entry`] a line.
//! Targets are kept normalised ([`normalise_target`]): one receiver spelled six ways is one
//! target. Before a delivery is sent it is *claimed* ([`Journal::claim`]: a `sending` line, synced
//! to disk before the claim returns); its outcome follows ([`Journal::record`], synced too). So after
//! a crash or a kill a delivery whose outcome is unknown is *in doubt* and not sent again by
//! accident.
//!
//! Robust by construction: every append is one `write` under an exclusive lock (`<file>.lock`),
//! after reading what other processes appended meanwhile, so two processes never interleave lines
//! nor claim the same delivery twice. A line that cannot be read (a torn line after a crash, a
//! damaged one) is named ([`Journal::unreadable`]), and every notification id it holds is in
//! doubt until a later line settles it. The file is compacted ([`Journal::compact`]) to one line
//! per delivery, at most [`MAX_PER_TARGET`] settled deliveries per profile and target and
//! [`MAX_ENTRIES`] in all (oldest settled ones dropped first, in-doubt ones never), atomically, so
//! its size and the cost of opening it stay bounded.
//!
//! Journals of earlier versions (`<data dir>/journal/<profile>.ndjson`) are migrated on first use
//! ([`Journal::open_for`]): their lines are appended to the service's journal and the old file is
//! renamed `….ndjson.migrated`.
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::identity::ServiceIdentity;
use crate::config::private_file;

/// Settled deliveries kept per profile and target when compacting (more than twice what one
/// walk may select, so a rerun of any selection still finds what it sent).
pub const MAX_PER_TARGET: usize = 50_000;
/// Settled deliveries kept in all when compacting.
pub const MAX_ENTRIES: usize = 200_000;
/// Lines that repeat a delivery tolerated before a compaction.
const SLACK_LINES: usize = 10_000;
/// The part of an unreadable line kept when compacting (its ids are read from the whole line).
const KEPT_UNREADABLE: usize = 4096;

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

/// The journal of `service` under `data_dir` (Switchboard's data folder):
/// `<data_dir>/journal/<service.key()>.ndjson`.
#[must_use]
pub fn path_for(data_dir: &Path, service: &ServiceIdentity) -> PathBuf {
    data_dir
        .join("journal")
        .join(format!("{}.ndjson", service.key()))
}

/// Where earlier versions kept `profile`'s journal: `<data_dir>/journal/<profile>.ndjson`, the
/// name kept to letters, digits, `-` and `_` (others became `_`, plus a short hash).
#[must_use]
pub fn legacy_path_for(data_dir: &Path, profile: &str) -> PathBuf {
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

/// A target as the journal keys it: scheme and host lower-cased, `localhost`, `127.0.0.1` and
/// `[::1]` one host (`localhost`), the default port explicit, dot segments resolved, user and
/// password dropped (they name no other receiver, and are secrets), an empty query and fragment
/// dropped. Text that is not a URL is kept as it is (trimmed).
#[must_use]
pub fn normalise_target(target: &str) -> String {
    let Ok(u) = url::Url::parse(target.trim()) else {
        return target.trim().to_string();
    };
    let Some(host) = u.host_str() else {
        return u.to_string();
    };
    let host = match host {
        "127.0.0.1" | "[::1]" | "localhost" => "localhost",
        h => h,
    };
    let mut out = format!("{}://{host}", u.scheme());
    if let Some(port) = u.port_or_known_default() {
        out.push_str(&format!(":{port}"));
    }
    out.push_str(u.path());
    if let Some(q) = u.query().filter(|q| !q.is_empty()) {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = u.fragment().filter(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(f);
    }
    out
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
    /// Where it was sent (a URL; the journal keeps it normalised).
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

/// A line as written: an [`Entry`] with the profile that wrote it.
#[derive(Serialize)]
struct LineOut<'a> {
    at: &'a str,
    notification: &'a str,
    target: &'a str,
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "str::is_empty")]
    profile: &'a str,
}

/// A line as read: borrowed where it can be (opening a large journal parses every line).
#[derive(Deserialize)]
struct LineIn<'a> {
    #[serde(borrow)]
    at: Cow<'a, str>,
    #[serde(borrow)]
    notification: Cow<'a, str>,
    #[serde(borrow)]
    target: Cow<'a, str>,
    outcome: Outcome,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default, borrow)]
    profile: Option<Cow<'a, str>>,
}

/// What the journal knows of one delivery to one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// It succeeded once (later attempts do not undo that).
    Succeeded,
    /// Claimed, and no outcome followed: a run was killed while it was in flight, another
    /// process is sending it now, or an unreadable line may have recorded it.
    InDoubt,
    /// Its last attempt failed or got no answer: worth sending again.
    NotDelivered,
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Its line number in the file (from 1).
    pub line: usize,
    /// The notification ids (`cbn_…`) found in it: each is in doubt until a later line settles it.
    pub notifications: Vec<String>,
}

/// What is kept of one delivery.
#[derive(Debug, Clone, Copy)]
struct Known {
    state: State,
    last: Outcome,
    status: Option<u16>,
    at: [u8; 24],
    seq: u64,
    profile: u32,
}

/// A journal, open for lookups and appends ([`Journal::open`], [`Journal::open_for`]).
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    lock: File,
    file: File,
    /// Bytes read so far: up to the end of the last whole line.
    offset: u64,
    /// Whole lines read so far.
    lines: usize,
    /// Lines read (a sequence over the life of this handle, for "which came last").
    seq: u64,
    /// Raw target text → index of its normalised form.
    raw_targets: HashMap<String, u32>,
    targets: Vec<String>,
    target_index: HashMap<String, u32>,
    profiles: Vec<String>,
    profile: u32,
    known: HashMap<(u32, Box<str>), Known>,
    /// Ids named by unreadable lines → the sequence number of the last such line.
    doubtful: HashMap<Box<str>, u64>,
    unreadable: Vec<(Unreadable, u64, Vec<u8>)>,
}

impl Journal {
    /// Opens (creating it private, and its folder, when missing) and reads the journal at `path`,
    /// writing as no profile in particular.
    ///
    /// # Errors
    /// [`JournalError::Io`]: the file, its lock or its folder cannot be used (a link, another
    /// user's, …).
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        Self::open_as(path, "")
    }

    /// Opens the journal of `service` in `data_dir` for `profile` (who writes is kept on each
    /// line), migrating `profile`'s journal of an earlier version into it first.
    ///
    /// # Errors
    /// [`JournalError::Io`], the old journal's included.
    pub fn open_for(
        data_dir: &Path,
        service: &ServiceIdentity,
        profile: &str,
    ) -> Result<Self, JournalError> {
        let path = path_for(data_dir, service);
        let err = |source| JournalError::Io {
            path: path.clone(),
            source,
        };
        private_file::dir(data_dir).map_err(err)?;
        let mut j = Self::open_as(&path, profile)?;
        let legacy = legacy_path_for(data_dir, profile);
        if legacy != path {
            j.migrate(&legacy)?;
        }
        Ok(j)
    }

    fn open_as(path: &Path, profile: &str) -> Result<Self, JournalError> {
        let err = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            private_file::dir(dir).map_err(err)?;
        }
        let lock = private_file::append(&lock_path(path)).map_err(err)?;
        let file = private_file::read_append(path).map_err(err)?;
        let mut j = Self {
            path: path.to_path_buf(),
            lock,
            file,
            offset: 0,
            lines: 0,
            seq: 0,
            raw_targets: HashMap::new(),
            targets: Vec::new(),
            target_index: HashMap::new(),
            profiles: vec![String::new()],
            profile: 0,
            known: HashMap::new(),
            doubtful: HashMap::new(),
            unreadable: Vec::new(),
        };
        j.profile = j.profile_index(profile);
        j.locked(|j| {
            if j.should_compact() {
                j.compact_locked()?;
            }
            Ok(())
        })?;
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
        let known = self.index_of(target).and_then(|t| {
            self.known
                .get(&(t, Box::<str>::from(notification)))
                .copied()
        });
        // An unreadable line naming it, after the last line that did settle it, may have
        // recorded anything: in doubt (a success read before stays one).
        if let Some(&dseq) = self.doubtful.get(notification) {
            match known {
                Some(k) if k.state == State::Succeeded || k.seq > dseq => {}
                _ => return Some(State::InDoubt),
            }
        }
        known.map(|k| k.state)
    }

    /// Whether `notification` already succeeded to `target` (as of the last read).
    #[must_use]
    pub fn succeeded(&self, notification: &str, target: &str) -> bool {
        self.state(notification, target) == Some(State::Succeeded)
    }

    /// Lines that could not be read (a torn line after a crash, a damaged line, a line of a newer
    /// version), with the ids each names.
    #[must_use]
    pub fn unreadable(&self) -> Vec<Unreadable> {
        self.unreadable.iter().map(|(u, _, _)| u.clone()).collect()
    }

    /// How many lines could not be read.
    #[must_use]
    pub fn skipped_lines(&self) -> usize {
        self.unreadable.len()
    }

    /// Deliveries the journal holds (one per notification and target).
    #[must_use]
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    /// Claims `notification` for `target` before sending it: under the lock, reads what other
    /// processes appended, and unless it succeeded or is in doubt there (ignored with `again`),
    /// appends a `sending` line and syncs it to disk. Returns whether the caller may send it.
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

    /// Appends `entry` (an outcome, usually after [`Journal::claim`]) and syncs it to disk.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn record(&mut self, entry: &Entry) -> Result<(), JournalError> {
        self.locked(|j| j.append(entry))
    }

    /// Rewrites the file with one line per delivery, within the bounds ([`MAX_PER_TARGET`],
    /// [`MAX_ENTRIES`]), atomically. Done by itself when the file has grown past them or holds
    /// many repeated lines.
    ///
    /// # Errors
    /// [`JournalError::Io`].
    pub fn compact(&mut self) -> Result<(), JournalError> {
        self.locked(Self::compact_locked)
    }

    fn io(&self, source: std::io::Error) -> JournalError {
        JournalError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Runs `f` under the exclusive lock, after reading what others appended (and reopening the
    /// file when another process compacted it, i.e. renamed a new one over it).
    fn locked<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, JournalError>,
    ) -> Result<T, JournalError> {
        self.lock.lock().map_err(|e| self.io(e))?;
        let out = self.refresh().and_then(|()| f(self));
        let unlocked = self.lock.unlock().map_err(|e| self.io(e));
        let out = out?;
        unlocked?;
        Ok(out)
    }

    /// Reopens when the path names another file than the one open; reads new lines.
    fn refresh(&mut self) -> Result<(), JournalError> {
        if !self.same_file()? {
            self.file = private_file::read_append(&self.path).map_err(|e| self.io(e))?;
            self.reset();
        }
        self.read_new()
    }

    #[cfg(unix)]
    fn same_file(&self) -> Result<bool, JournalError> {
        use std::os::unix::fs::MetadataExt;
        let open = self.file.metadata().map_err(|e| self.io(e))?;
        match std::fs::symlink_metadata(&self.path) {
            Ok(now) => Ok(now.ino() == open.ino() && now.dev() == open.dev()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(self.io(e)),
        }
    }

    #[cfg(not(unix))]
    fn same_file(&self) -> Result<bool, JournalError> {
        Ok(true)
    }

    fn reset(&mut self) {
        self.offset = 0;
        self.lines = 0;
        self.known.clear();
        self.doubtful.clear();
        self.unreadable.clear();
    }

    fn profile_index(&mut self, profile: &str) -> u32 {
        match self.profiles.iter().position(|p| p == profile) {
            Some(i) => u32::try_from(i).unwrap_or(0),
            None => {
                self.profiles.push(profile.to_string());
                u32::try_from(self.profiles.len() - 1).unwrap_or(0)
            }
        }
    }

    /// The index of `target`'s normalised form, if the journal has seen it.
    fn index_of(&self, target: &str) -> Option<u32> {
        if let Some(&i) = self.raw_targets.get(target) {
            return Some(i);
        }
        self.target_index.get(&normalise_target(target)).copied()
    }

    fn intern_target(&mut self, raw: &str) -> u32 {
        if let Some(&i) = self.raw_targets.get(raw) {
            return i;
        }
        let norm = normalise_target(raw);
        let i = match self.target_index.get(&norm) {
            Some(&i) => i,
            None => {
                self.targets.push(norm.clone());
                let i = u32::try_from(self.targets.len() - 1).unwrap_or(u32::MAX);
                self.target_index.insert(norm, i);
                i
            }
        };
        // Bounded: a journal names few distinct spellings of its targets.
        if self.raw_targets.len() < 4096 {
            self.raw_targets.insert(raw.to_string(), i);
        }
        i
    }

    /// Reads the whole lines past `offset` (a torn last line stays unread until it is ended),
    /// one at a time: memory follows what is kept, not the file's size.
    fn read_new(&mut self) -> Result<(), JournalError> {
        let len = self.file.metadata().map_err(|e| self.io(e))?.len();
        if len <= self.offset {
            return Ok(());
        }
        // A second handle on the same open file: the reader borrows it while lines are applied.
        let mut file = self.file.try_clone().map_err(|e| self.io(e))?;
        file.seek(SeekFrom::Start(self.offset))
            .map_err(|e| self.io(e))?;
        let mut reader = BufReader::with_capacity(256 * 1024, file.take(len - self.offset));
        let mut line = Vec::with_capacity(256);
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| JournalError::Io {
                    path: self.path.clone(),
                    source: e,
                })?;
            if n == 0 || line.last() != Some(&b'\n') {
                break;
            }
            self.offset += n as u64;
            self.lines += 1;
            self.seq += 1;
            let body = &line[..line.len() - 1];
            if body.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<LineIn>(body) {
                Ok(l) => self.apply(&l),
                Err(_) => self.note_unreadable(body),
            }
        }
        Ok(())
    }

    fn note_unreadable(&mut self, body: &[u8]) {
        let ids = ids_in(body);
        for id in &ids {
            self.doubtful.insert(id.as_str().into(), self.seq);
        }
        let kept = body[..body.len().min(KEPT_UNREADABLE)].to_vec();
        self.unreadable.push((
            Unreadable {
                line: self.lines,
                notifications: ids,
            },
            self.seq,
            kept,
        ));
    }

    fn apply(&mut self, l: &LineIn) {
        let target = self.intern_target(&l.target);
        let profile = match l.profile.as_deref() {
            None | Some("") => 0,
            Some(p) => self.profile_index(p),
        };
        let state = match l.outcome {
            Outcome::Sending => State::InDoubt,
            Outcome::Succeeded => State::Succeeded,
            Outcome::Failed | Outcome::Unreachable => State::NotDelivered,
        };
        let mut at = [b'0'; 24];
        if l.at.len() == 24 {
            at.copy_from_slice(l.at.as_bytes());
        }
        let key = (target, Box::<str>::from(l.notification.as_ref()));
        let seq = self.seq;
        let slot = self.known.entry(key).or_insert(Known {
            state,
            last: l.outcome,
            status: l.status,
            at,
            seq,
            profile,
        });
        slot.seq = seq;
        slot.at = at;
        slot.profile = profile;
        // Once delivered, it stays delivered: a later `--again` that failed does not undo it.
        if slot.state != State::Succeeded {
            slot.state = state;
            slot.last = l.outcome;
            slot.status = l.status;
        }
    }

    /// Appends one line in one write and syncs it; called under the lock, after reading.
    fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        let len = self.file.metadata().map_err(|e| self.io(e))?.len();
        let mut line = Vec::with_capacity(200);
        if len > self.offset {
            // A torn line (a crash mid-write): end it, so this entry starts a line of its own.
            line.push(b'\n');
        }
        let at = super::model::time::format(&entry.at);
        let target = normalise_target(&entry.target);
        let out = LineOut {
            at: &at,
            notification: &entry.notification,
            target: &target,
            outcome: entry.outcome,
            status: entry.status,
            duration_ms: entry.duration_ms,
            profile: &self.profiles[self.profile as usize],
        };
        serde_json::to_writer(&mut line, &out).map_err(|e| self.io(std::io::Error::other(e)))?;
        line.push(b'\n');
        (&self.file).write_all(&line).map_err(|e| self.io(e))?;
        // What the caller is told is recorded is on the disk before it acts on it.
        self.file.sync_data().map_err(|e| self.io(e))?;
        self.read_new()?;
        if self.should_compact() {
            self.compact_locked()?;
        }
        Ok(())
    }

    /// Whether the file holds many repeated lines or more deliveries than the bounds.
    fn should_compact(&self) -> bool {
        let live = self.known.len();
        if self.lines > 2 * live + self.unreadable.len() + SLACK_LINES
            || live > MAX_ENTRIES + MAX_ENTRIES / 10
        {
            return true;
        }
        if live <= MAX_PER_TARGET {
            return false;
        }
        let mut groups: HashMap<(u32, u32), usize> = HashMap::new();
        for ((t, _), k) in &self.known {
            if k.state != State::InDoubt {
                *groups.entry((k.profile, *t)).or_insert(0) += 1;
            }
        }
        groups
            .values()
            .any(|&n| n > MAX_PER_TARGET + MAX_PER_TARGET / 10)
    }

    /// The compaction, under the lock: kept deliveries oldest first, unreadable lines kept where
    /// they were (what they name stays in doubt), then the new file renamed over the old one.
    fn compact_locked(&mut self) -> Result<(), JournalError> {
        let mut order: Vec<(&(u32, Box<str>), &Known)> = self.known.iter().collect();
        order.sort_unstable_by_key(|(_, k)| k.seq);
        // Newest first, so the oldest settled ones are the ones dropped past a bound.
        let mut per_group: HashMap<(u32, u32), usize> = HashMap::new();
        let mut total = 0usize;
        let mut keep = vec![false; order.len()];
        for (i, ((t, _), k)) in order.iter().enumerate().rev() {
            if k.state == State::InDoubt {
                keep[i] = true;
                continue;
            }
            let n = per_group.entry((k.profile, *t)).or_insert(0);
            if *n < MAX_PER_TARGET && total < MAX_ENTRIES {
                *n += 1;
                total += 1;
                keep[i] = true;
            }
        }
        let profiles = &self.profiles;
        let targets = &self.targets;
        let unreadable = &self.unreadable;
        private_file::replace_with(&self.path, |w| {
            let mut bad = unreadable.iter().peekable();
            for (i, ((t, n), k)) in order.iter().enumerate() {
                while let Some((_, _, raw)) = bad.next_if(|(_, seq, _)| *seq < k.seq) {
                    w.write_all(raw)?;
                    w.write_all(b"\n")?;
                }
                if !keep[i] {
                    continue;
                }
                let outcome = match k.state {
                    State::Succeeded => Outcome::Succeeded,
                    State::InDoubt => Outcome::Sending,
                    State::NotDelivered => k.last,
                };
                let at = std::str::from_utf8(&k.at).unwrap_or("0");
                let line = LineOut {
                    at,
                    notification: n,
                    target: &targets[*t as usize],
                    outcome,
                    status: k.status,
                    duration_ms: None,
                    profile: &profiles[k.profile as usize],
                };
                serde_json::to_writer(&mut *w, &line).map_err(std::io::Error::other)?;
                w.write_all(b"\n")?;
            }
            for (_, _, raw) in bad {
                w.write_all(raw)?;
                w.write_all(b"\n")?;
            }
            Ok(())
        })
        .map_err(|e| self.io(e))?;
        self.file = private_file::read_append(&self.path).map_err(|e| self.io(e))?;
        self.reset();
        self.read_new()
    }

    /// Appends the lines of an earlier version's journal at `legacy`, then renames it aside.
    fn migrate(&mut self, legacy: &Path) -> Result<(), JournalError> {
        let err = |source| JournalError::Io {
            path: legacy.to_path_buf(),
            source,
        };
        let Some(old) = private_file::read(legacy).map_err(err)? else {
            return Ok(());
        };
        self.locked(|j| {
            let len = j.file.metadata().map_err(|e| j.io(e))?.len();
            let mut w = std::io::BufWriter::new(&j.file);
            if len > j.offset {
                w.write_all(b"\n").map_err(err)?;
            }
            let mut reader = BufReader::new(&old);
            let mut line = Vec::new();
            loop {
                line.clear();
                if reader.read_until(b'\n', &mut line).map_err(err)? == 0 {
                    break;
                }
                if line.last() != Some(&b'\n') {
                    line.push(b'\n');
                }
                w.write_all(&line).map_err(err)?;
            }
            w.flush().map_err(|e| j.io(e))?;
            drop(w);
            j.file.sync_data().map_err(|e| j.io(e))?;
            let mut aside = legacy.as_os_str().to_owned();
            aside.push(".migrated");
            std::fs::rename(legacy, PathBuf::from(aside)).map_err(err)?;
            j.read_new()?;
            if j.should_compact() {
                j.compact_locked()?;
            }
            Ok(())
        })
    }
}

/// `<journal>.lock`: the lock every writer takes (not the journal itself, which a compaction
/// replaces).
fn lock_path(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

/// The notification and delivery ids (`cbn_`, `evdi_` and id characters) in a line that could
/// not be read.
fn ids_in(body: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for prefix in [&b"cbn_"[..], b"evdi_"] {
        let n = prefix.len();
        let mut i = 0;
        while let Some(at) = body[i..].windows(n).position(|w| w == prefix) {
            let start = i + at;
            let end = body[start + n..]
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))
                .map_or(body.len(), |p| start + n + p);
            if end > start + n {
                let id = String::from_utf8_lossy(&body[start..end]).into_owned();
                if !out.contains(&id) {
                    out.push(id);
                }
            }
            i = end.max(start + n);
        }
    }
    out
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

    fn service() -> ServiceIdentity {
        ServiceIdentity::new("http://127.0.0.1:8787", None)
    }

    #[test]
    fn outcomes_are_remembered_across_opens_and_the_file_is_owner_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = path_for(dir.path(), &service());
        let mut j = Journal::open_for(dir.path(), &service(), "work").expect("open");
        assert_eq!(j.path(), path);
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
            let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(path.parent().expect("dir")), 0o700);
        }
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(r#""profile":"work""#), "{text}");
    }

    #[test]
    fn one_receiver_spelled_six_ways_is_one_target() {
        let spellings = [
            "http://127.0.0.1:9/in",
            "HTTP://LOCALHOST:9/in",
            "http://[::1]:9/./in",
            "http://localhost:9/a/../in?",
            "http://localhost:9/in#",
            "http://user:secret@127.0.0.1:9/in",
        ];
        for s in spellings {
            assert_eq!(normalise_target(s), "http://localhost:9/in", "{s}");
        }
        assert_eq!(
            normalise_target("https://Hooks.Example/x"),
            "https://hooks.example:443/x"
        );
        assert_eq!(
            normalise_target("http://hooks.example:80"),
            "http://hooks.example:80/"
        );
        assert_ne!(
            normalise_target("http://localhost:9/in?a=1"),
            normalise_target("http://localhost:9/in")
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let mut j = Journal::open(&dir.path().join("j.ndjson")).expect("open");
        assert!(j.claim("cbn_a", spellings[0], false).expect("claim"));
        j.record(&entry("cbn_a", spellings[1], Outcome::Succeeded))
            .expect("record");
        for s in spellings {
            assert!(!j.claim("cbn_a", s, false).expect("claim"), "{s}");
            assert!(j.succeeded("cbn_a", s), "{s}");
        }
    }

    #[test]
    fn one_service_under_two_profile_names_shares_one_journal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut a = Journal::open_for(dir.path(), &service(), "work").expect("a");
        assert!(a.claim("cbn_a", T, false).expect("claim"));
        a.record(&entry("cbn_a", T, Outcome::Succeeded))
            .expect("record");
        let other = ServiceIdentity::new("HTTP://127.0.0.1:8787/", Some(""));
        let mut b = Journal::open_for(dir.path(), &other, "work-copy").expect("b");
        assert!(!b.claim("cbn_a", T, false).expect("claim"), "sent once");
        let elsewhere = ServiceIdentity::new("http://127.0.0.1:8787", Some("inst_2"));
        let c = Journal::open_for(dir.path(), &elsewhere, "work").expect("c");
        assert_ne!(c.path(), a.path());
    }

    #[test]
    fn an_old_profile_journal_is_migrated_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let legacy = legacy_path_for(dir.path(), "work");
        private_file::dir(legacy.parent().expect("dir")).expect("dir");
        let old = [
            r#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_a","target":"http://127.0.0.1:9/in","outcome":"sending"}"#,
            r#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_a","target":"http://127.0.0.1:9/in","outcome":"succeeded","status":200}"#,
            r#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_b","target":"http://127.0.0.1:9/in","outcome":"sending"}"#,
        ];
        private_file::write(&legacy, format!("{}\n", old.join("\n")).as_bytes()).expect("write");
        let j = Journal::open_for(dir.path(), &service(), "work").expect("open");
        assert!(j.succeeded("cbn_a", "http://localhost:9/in"));
        assert_eq!(j.state("cbn_b", T), Some(State::InDoubt));
        assert!(!legacy.exists());
        assert!(legacy.with_extension("ndjson.migrated").exists());
        drop(j);
        let j = Journal::open_for(dir.path(), &service(), "work").expect("again");
        assert_eq!(j.len(), 2, "migrated once");
    }

    #[test]
    fn a_torn_last_line_is_named_and_ended_before_the_next_entry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        let mut j = Journal::open(&path).expect("open");
        j.record(&entry("cbn_a", T, Outcome::Succeeded))
            .expect("record");
        drop(j);
        // A crash in the middle of a line.
        let mut f = private_file::append(&path).expect("append");
        f.write_all(br#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_b","tar"#)
            .expect("torn");
        drop(f);
        let mut j = Journal::open(&path).expect("reopen");
        assert!(j.succeeded("cbn_a", T));
        assert_eq!(j.state("cbn_b", T), None, "not read until ended");
        j.record(&entry("cbn_c", T, Outcome::Succeeded))
            .expect("record");
        assert_eq!(
            j.unreadable(),
            vec![Unreadable {
                line: 2,
                notifications: vec!["cbn_b".into()]
            }]
        );
        drop(j);
        let j = Journal::open(&path).expect("reopen");
        assert!(j.succeeded("cbn_a", T) && j.succeeded("cbn_c", T));
        assert_eq!(j.skipped_lines(), 1, "the torn line, now ended, is named");
        assert_eq!(j.state("cbn_b", T), Some(State::InDoubt));
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn unreadable_lines_put_what_they_name_in_doubt_until_a_later_line_settles_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        let good = |n: &str, o: &str| {
            format!(
                r#"{{"at":"2026-01-01T00:00:00.000Z","notification":"{n}","target":"{T}","outcome":"{o}"}}"#
            )
        };
        let lines = [
            good("cbn_a", "failed"),
            r#"{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_a","target":"http://127.0.0.1:9/in","outcome":"succ\u0000"#.to_string(),
            "garbage \u{1} cbn_b cbn_c".to_string(),
            good("cbn_c", "failed"),
            good("cbn_d", "succeeded"),
            "{not json at all}".to_string(),
        ];
        std::fs::write(&path, format!("{}\n", lines.join("\n"))).expect("write");
        let j = Journal::open(&path).expect("open");
        let bad = j.unreadable();
        assert_eq!(
            bad.iter().map(|u| u.line).collect::<Vec<_>>(),
            vec![2, 3, 6]
        );
        assert_eq!(bad[1].notifications, vec!["cbn_b", "cbn_c"]);
        assert!(bad[2].notifications.is_empty());
        assert_eq!(
            j.state("cbn_a", T),
            Some(State::InDoubt),
            "may have succeeded"
        );
        assert_eq!(j.state("cbn_b", T), Some(State::InDoubt));
        assert_eq!(
            j.state("cbn_c", T),
            Some(State::NotDelivered),
            "settled after"
        );
        assert!(j.succeeded("cbn_d", T));
        assert_eq!(j.state("cbn_e", T), None);
        drop(j);
        // A compaction keeps them (and what they name stays in doubt).
        let mut j = Journal::open(&path).expect("open");
        j.compact().expect("compact");
        assert_eq!(j.skipped_lines(), 3);
        assert_eq!(j.state("cbn_a", T), Some(State::InDoubt));
        assert_eq!(j.state("cbn_c", T), Some(State::NotDelivered));
    }

    #[test]
    fn a_journal_is_compacted_and_stays_within_its_bounds() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        let mut text = String::new();
        // Many repeats of a few deliveries, and more settled deliveries than a target keeps.
        for i in 0..(SLACK_LINES + 10) {
            text.push_str(&format!(
                "{{\"at\":\"2026-01-01T00:00:00.000Z\",\"notification\":\"cbn_r{}\",\"target\":\"{T}\",\"outcome\":\"failed\"}}\n",
                i % 3
            ));
        }
        for i in 0..(MAX_PER_TARGET + MAX_PER_TARGET / 10 + 5) {
            text.push_str(&format!(
                "{{\"at\":\"2026-01-01T00:00:00.000Z\",\"notification\":\"cbn_{i:07}\",\"target\":\"{T}\",\"outcome\":\"succeeded\"}}\n"
            ));
        }
        text.push_str(&format!(
            "{{\"at\":\"2026-01-01T00:00:00.000Z\",\"notification\":\"cbn_doubt\",\"target\":\"{T}\",\"outcome\":\"sending\"}}\n"
        ));
        std::fs::write(&path, text).expect("write");
        let j = Journal::open(&path).expect("open");
        assert!(j.len() <= MAX_PER_TARGET + 1, "{}", j.len());
        assert_eq!(
            j.state("cbn_doubt", T),
            Some(State::InDoubt),
            "never dropped"
        );
        assert!(
            j.succeeded(&format!("cbn_{MAX_PER_TARGET:07}"), T),
            "newest kept"
        );
        assert_eq!(j.state("cbn_0000000", T), None, "oldest settled dropped");
        let lines = std::fs::read_to_string(&path)
            .expect("read")
            .lines()
            .count();
        assert_eq!(lines, j.len(), "one line per delivery");
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
                            if i == 150 {
                                // A compaction by one writer mid-way loses nothing of the other's.
                                j.compact().expect("compact");
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

    #[cfg(unix)]
    #[test]
    fn a_planted_link_or_another_users_journal_is_refused_untouched() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().expect("tempdir");
        let path = path_for(dir.path(), &service());
        private_file::dir(path.parent().expect("dir")).expect("dir");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep\n").expect("victim");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        std::os::unix::fs::symlink(&victim, &path).expect("link");
        assert!(Journal::open_for(dir.path(), &service(), "work").is_err());
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
        assert_eq!(
            std::fs::metadata(&victim).expect("m").permissions().mode() & 0o777,
            0o644
        );
        std::fs::remove_file(&path).expect("unlink");
        if rustix::process::geteuid().is_root() {
            std::fs::write(&path, "").expect("theirs");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("m");
            rustix::fs::chown(
                &path,
                Some(rustix::fs::Uid::from_raw(4242)),
                Some(rustix::fs::Gid::from_raw(4242)),
            )
            .expect("chown");
            let e = Journal::open_for(dir.path(), &service(), "work").expect_err("refused");
            assert!(e.to_string().contains("another user"), "{e}");
            let m = std::fs::metadata(&path).expect("meta");
            assert_eq!(m.mode() & 0o777, 0o644, "not chmod-ed");
            assert_eq!(m.len(), 0, "not written");
        }
    }

    /// The start-up cost of a journal of 2 M lines (1 M deliveries, a claim and a success each):
    /// `JOURNAL_BENCH=old` times the reading this module did before compaction (the whole tail
    /// read at once, every line parsed into an `Entry`, a map of owned strings), anything else
    /// the first open (which compacts) and a second open. Prints seconds and peak memory.
    #[test]
    #[ignore = "a measurement: run by hand with --ignored --nocapture"]
    fn large_journal_start_up() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("j.ndjson");
        {
            let mut w = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
            for i in 0..1_000_000 {
                for o in ["sending", "succeeded"] {
                    writeln!(
                        w,
                        r#"{{"at":"2026-01-01T00:00:00.000Z","notification":"cbn_{i:020}","target":"http://127.0.0.1:3000/webhooks","outcome":"{o}","status":200,"duration_ms":12}}"#
                    )
                    .expect("line");
                }
            }
        }
        let peak = || {
            std::fs::read_to_string("/proc/self/status")
                .unwrap_or_default()
                .lines()
                .find(|l| l.starts_with("VmHWM"))
                .unwrap_or_default()
                .to_string()
        };
        let t = std::time::Instant::now();
        if std::env::var("JOURNAL_BENCH").as_deref() == Ok("old") {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut File::open(&path).expect("open"), &mut buf)
                .expect("read");
            let mut states: HashMap<(String, String), State> = HashMap::new();
            let end = buf.iter().rposition(|b| *b == b'\n').unwrap_or(0);
            for line in buf[..end].split(|b| *b == b'\n') {
                if let Ok(e) = serde_json::from_slice::<Entry>(line) {
                    let st = match e.outcome {
                        Outcome::Sending => State::InDoubt,
                        Outcome::Succeeded => State::Succeeded,
                        _ => State::NotDelivered,
                    };
                    states.insert((e.notification, e.target), st);
                }
            }
            println!(
                "old open: {:?}, {} deliveries, {}",
                t.elapsed(),
                states.len(),
                peak()
            );
        } else {
            let j = Journal::open(&path).expect("open");
            println!(
                "first open (compacts): {:?}, {} kept, {}",
                t.elapsed(),
                j.len(),
                peak()
            );
            drop(j);
            let t = std::time::Instant::now();
            let j = Journal::open(&path).expect("open");
            println!(
                "second open: {:?}, {} kept, {}",
                t.elapsed(),
                j.len(),
                peak()
            );
        }
    }
}
