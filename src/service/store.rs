//! SQLite storage: versioned schema migrations, WAL with one writer and a few readers, a keyed
//! record table, the notification table, and keyset paging of both in SQL.
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags, OptionalExtension, params, params_from_iter};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::paging::{Anchor, ListParams};
use crate::api::model::Notification;
use crate::api::{Order, Page, Pagination};

/// Read connections beside the writer (file databases only).
const READERS: usize = 4;
/// How long a statement waits for a lock before failing (SQLite's busy handler).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Schema migrations, applied in order; `PRAGMA user_version` holds how many ran.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE records (
         kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
         PRIMARY KEY (kind, id)) WITHOUT ROWID;
     CREATE TABLE notifications (
         id TEXT PRIMARY KEY, event_id TEXT NOT NULL, callback_id TEXT NOT NULL,
         destination_id TEXT NOT NULL, status TEXT NOT NULL, next_attempt_at INTEGER,
         body TEXT NOT NULL, data TEXT NOT NULL);
     CREATE INDEX notifications_due ON notifications (next_attempt_at)
         WHERE next_attempt_at IS NOT NULL;
     CREATE INDEX notifications_callback ON notifications (callback_id);
     CREATE INDEX notifications_event ON notifications (event_id);
     CREATE INDEX notifications_destination ON notifications (destination_id);",
    // 2: keyset paging under the Union filters. Notification filters get (column, id) indexes so a
    // filtered page walks the index in id order; which active destination selects which callback
    // ('*' = all) lives in `destination_selects`, kept in step with the records by triggers.
    "DROP INDEX notifications_callback;
     DROP INDEX notifications_event;
     DROP INDEX notifications_destination;
     CREATE INDEX notifications_callback ON notifications (callback_id, id);
     CREATE INDEX notifications_event ON notifications (event_id, id);
     CREATE INDEX notifications_destination ON notifications (destination_id, id);
     CREATE TABLE destination_selects (
         callback_id TEXT NOT NULL, id TEXT NOT NULL,
         PRIMARY KEY (callback_id, id)) WITHOUT ROWID;
     CREATE INDEX destination_selects_id ON destination_selects (id);
     CREATE TRIGGER destination_selects_insert AFTER INSERT ON records
     WHEN new.kind = 'destination' BEGIN
         DELETE FROM destination_selects WHERE id = new.id;
         INSERT OR IGNORE INTO destination_selects (callback_id, id)
             SELECT '*', new.id WHERE json_extract(new.data, '$.active')
                 AND json_extract(new.data, '$.destination.callbacks.type') = 'all'
             UNION ALL
             SELECT j.value, new.id FROM json_each(new.data, '$.destination.callbacks.callback_ids') j
             WHERE json_extract(new.data, '$.active')
                 AND json_extract(new.data, '$.destination.callbacks.type') <> 'all';
     END;
     CREATE TRIGGER destination_selects_update AFTER UPDATE ON records
     WHEN new.kind = 'destination' BEGIN
         DELETE FROM destination_selects WHERE id = new.id;
         INSERT OR IGNORE INTO destination_selects (callback_id, id)
             SELECT '*', new.id WHERE json_extract(new.data, '$.active')
                 AND json_extract(new.data, '$.destination.callbacks.type') = 'all'
             UNION ALL
             SELECT j.value, new.id FROM json_each(new.data, '$.destination.callbacks.callback_ids') j
             WHERE json_extract(new.data, '$.active')
                 AND json_extract(new.data, '$.destination.callbacks.type') <> 'all';
     END;
     CREATE TRIGGER destination_selects_delete AFTER DELETE ON records
     WHEN old.kind = 'destination' BEGIN
         DELETE FROM destination_selects WHERE id = old.id;
     END;
     INSERT OR IGNORE INTO destination_selects (callback_id, id)
         SELECT '*', r.id FROM records r WHERE r.kind = 'destination'
             AND json_extract(r.data, '$.active')
             AND json_extract(r.data, '$.destination.callbacks.type') = 'all'
         UNION ALL
         SELECT j.value, r.id FROM records r,
             json_each(r.data, '$.destination.callbacks.callback_ids') j
         WHERE r.kind = 'destination' AND json_extract(r.data, '$.active')
             AND json_extract(r.data, '$.destination.callbacks.type') <> 'all';",
    // 3: `POST /hooks/{key}` is public, so it finds its callback through an index on the key
    // instead of decoding every callback. The expression must stay exactly as
    // `CALLBACKS_BY_HOOK_KEY` writes it, or SQLite will not use the index.
    "CREATE INDEX records_hook_key ON records (json_extract(data, '$.hook_key'))
         WHERE kind = 'callback';",
    // 4: storage bounded per event and scheduling off the full table. An event's payload is
    // stored once in `events` and every notification's body is built from it (rows written
    // before keep their own `body`); the worker finds each destination's next due rows through
    // `notifications_destination_due` instead of ranking every pending row; team slugs are
    // looked up through an index (the expression must stay exactly as `TEAM_BY_SLUG` writes it).
    "CREATE TABLE events (
         id TEXT PRIMARY KEY, callback_id TEXT NOT NULL, type TEXT NOT NULL,
         payload TEXT NOT NULL);
     CREATE INDEX notifications_destination_due
         ON notifications (destination_id, next_attempt_at, id)
         WHERE next_attempt_at IS NOT NULL;
     CREATE INDEX records_team_slug
         ON records ((CASE WHEN json_valid(data) THEN json_extract(data, '$.slug') END))
         WHERE kind = 'team';",
    // 5: slugs unique by the index itself, so no write path can forget to look. Older files may
    // hold teams sharing a slug (written by hand or by a build that raced): before this runs,
    // `unique_team_slugs` renames each but the oldest to the next free `slug-N`, as a create
    // would have, members' `actor.teams[]` included.
    "DROP INDEX records_team_slug;
     CREATE UNIQUE INDEX records_team_slug
         ON records ((CASE WHEN json_valid(data) THEN json_extract(data, '$.slug') END))
         WHERE kind = 'team';",
];

/// The migration (index into [`MIGRATIONS`]) that makes team slugs unique.
const UNIQUE_SLUGS: usize = 4;

/// The team with a slug (other than `?2`), through the `records_team_slug` index of migration 4.
const TEAM_BY_SLUG: &str = "SELECT id, data FROM records
     WHERE kind = 'team'
         AND (CASE WHEN json_valid(data) THEN json_extract(data, '$.slug') END) = ?1
         AND id <> ?2
     ORDER BY id LIMIT 1";

/// The callbacks with a given hook key; its `WHERE` matches the `records_hook_key` index of
/// migration 3 term for term (the partial index's `kind = 'callback'` included).
const CALLBACKS_BY_HOOK_KEY: &str = "SELECT data FROM records
     WHERE kind = 'callback' AND json_extract(data, '$.hook_key') = ?1
     ORDER BY id";

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// A stored record did not decode.
    #[error("stored record: {0}")]
    Json(#[from] serde_json::Error),
    /// A step that is neither SQLite nor a stored record failed: a blocking task that panicked
    /// or was cancelled, a seed without its organization.
    #[error("{0}")]
    Task(String),
    /// The database file could not be created or protected.
    #[error("database file: {0}")]
    Io(std::io::Error),
    /// One stored record did not decode; the rest of its list is still served.
    #[error("stored {kind} {id} does not decode: {source}")]
    Record {
        /// Its kind (`team`, `notification`, …).
        kind: String,
        /// Its id.
        id: String,
        /// Why.
        source: serde_json::Error,
    },
    /// The file was written by a newer version of switchboard.
    #[error(
        "the database has schema version {found}, newer than this switchboard knows ({known}); \
         use the newer switchboard or another --db"
    )]
    NewerSchema {
        /// `PRAGMA user_version` of the file.
        found: i64,
        /// The newest version this build knows.
        known: usize,
    },
    /// Another team holds this slug (the unique index refused the write).
    #[error("a team with the slug {0:?} already exists")]
    SlugTaken(String),
    /// The file was deleted or replaced under the running service.
    #[error("the database file {0} was deleted or replaced while serving; stopping")]
    Replaced(String),
}

impl From<StoreError> for super::errors::Failure {
    fn from(e: StoreError) -> Self {
        match e {
            // A business rule (api.md §3: 409 is never used).
            StoreError::SlugTaken(slug) => super::errors::Failure::bad_request(format!(
                "A team with the slug {slug:?} already exists."
            )),
            e => super::errors::Failure::internal(e),
        }
    }
}

/// One writer connection and, for file databases, a few read-only ones: in WAL mode readers
/// never wait on the writer or on each other. An in-memory database has one connection only
/// (separate connections would each see their own empty database).
pub struct Store {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next: AtomicUsize,
    /// The file and its identity (device, inode) when opened: a write into a file that is no
    /// longer at its path would be lost at the next start, so it is refused.
    file: Option<(std::path::PathBuf, (u64, u64))>,
    /// Set once the file is found deleted or replaced.
    lost: std::sync::atomic::AtomicBool,
}

impl Store {
    /// Opens (or creates, 0600) the database and brings its schema up to date.
    pub fn open(path: Option<&Path>) -> Result<Self, StoreError> {
        let Some(path) = path else {
            let conn = Connection::open_in_memory()?;
            migrate(&conn)?;
            return Ok(Self {
                writer: Mutex::new(conn),
                readers: Vec::new(),
                next: AtomicUsize::new(0),
                file: None,
                lost: std::sync::atomic::AtomicBool::new(false),
            });
        };
        private_file(path)?;
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // A WAL grown by a big load or a long read is cut back after the next checkpoint.
        conn.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
        migrate(&conn)?;
        // SQLite gives -wal/-shm the main file's mode; files left by older versions are tightened.
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            let side = std::path::PathBuf::from(side);
            if side.exists() {
                private_file(&side)?;
            }
        }
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let r = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            r.busy_timeout(BUSY_TIMEOUT)?;
            readers.push(Mutex::new(r));
        }
        let identity = file_identity(path).map_err(StoreError::Io)?;
        Ok(Self {
            writer: Mutex::new(conn),
            readers,
            next: AtomicUsize::new(0),
            file: Some((path.to_path_buf(), identity)),
            lost: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Whether the database file is still the one opened (always for in-memory databases).
    pub fn check_file(&self) -> Result<(), StoreError> {
        let Some((path, identity)) = &self.file else {
            return Ok(());
        };
        let same = !self.lost.load(Ordering::Relaxed)
            && file_identity(path).is_ok_and(|now| now == *identity);
        if same {
            Ok(())
        } else {
            self.lost.store(true, Ordering::Relaxed);
            Err(StoreError::Replaced(path.display().to_string()))
        }
    }

    /// Runs `f` as one transaction on the writer (`BEGIN IMMEDIATE` … `COMMIT`, rolled back on
    /// any error): a request's writes land together or not at all. Refused once the file was
    /// deleted or replaced, so no write is acknowledged into a file nobody will open again.
    pub fn write<R, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Db) -> Result<R, E>,
    ) -> Result<R, E> {
        self.check_file()?;
        self.with(|db| db.transaction_with(f))
    }

    /// Runs `f` on the writer connection (the only one that may write).
    pub fn with<R>(&self, f: impl FnOnce(&Db) -> R) -> R {
        let guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        f(&Db(&guard))
    }

    /// Runs a read-only `f` on a free read connection (the writer for in-memory databases).
    pub fn read<R>(&self, f: impl FnOnce(&Db) -> R) -> R {
        if self.readers.is_empty() {
            return self.with(f);
        }
        let n = self.readers.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            if let Ok(guard) = self.readers[(start + i) % n].try_lock() {
                return f(&Db(&guard));
            }
        }
        let guard = self.readers[start % n]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        f(&Db(&guard))
    }
}

/// Creates `path` with mode 0600 when missing, and narrows it to 0600 when it exists: it holds
/// signing secrets, hook keys and id tokens.
fn private_file(path: &Path) -> Result<(), StoreError> {
    // No link followed and no chmod by path: `--db` naming a link fails before anything changes.
    crate::config::private_file::ensure(path).map_err(StoreError::Io)
}

/// The (device, inode) pair of a file.
fn file_identity(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok((m.dev(), m.ino()))
}

fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if usize::try_from(found).is_ok_and(|v| v > MIGRATIONS.len()) {
        return Err(StoreError::NewerSchema {
            found,
            known: MIGRATIONS.len(),
        });
    }
    let done = usize::try_from(found).unwrap_or(0);
    for (n, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        conn.execute_batch("BEGIN")?;
        let step = || -> Result<(), StoreError> {
            if n == UNIQUE_SLUGS {
                unique_team_slugs(conn)?;
            }
            conn.execute_batch(&format!("{sql}; PRAGMA user_version = {};", n + 1))?;
            Ok(())
        };
        match step() {
            Ok(()) => conn.execute_batch("COMMIT")?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Gives every team that shares its slug with an older team (smaller id) the next free
/// `slug-N`, and rewrites that team's entry in its members' `actor.teams[]`; each rename is
/// logged. Records that are not JSON are left alone (their slug is NULL to the index).
fn unique_team_slugs(conn: &Connection) -> Result<usize, StoreError> {
    let slug_of = "(CASE WHEN json_valid(data) THEN json_extract(data, '$.slug') END)";
    let mut dups: Vec<(String, String)> = Vec::new();
    {
        let mut stmt = conn.prepare(&format!(
            "SELECT id, s FROM (SELECT id, {slug_of} AS s,
                     row_number() OVER (PARTITION BY {slug_of} ORDER BY id) AS k
                 FROM records WHERE kind = 'team')
             WHERE s IS NOT NULL AND k > 1 ORDER BY id"
        ))?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        for row in rows {
            dups.push(row?);
        }
    }
    for (id, slug) in &dups {
        let taken = |candidate: &str| -> Result<bool, StoreError> {
            Ok(conn
                .prepare_cached(&format!(
                    "SELECT 1 FROM records WHERE kind = 'team' AND {slug_of} = ?1"
                ))?
                .query_row(params![candidate], |_| Ok(()))
                .optional()?
                .is_some())
        };
        let mut n = 2;
        let mut fresh = format!("{slug}-{n}");
        while taken(&fresh)? {
            n += 1;
            fresh = format!("{slug}-{n}");
        }
        conn.execute(
            "UPDATE records SET data = json_set(data, '$.slug', ?1) WHERE kind = 'team' AND id = ?2",
            params![fresh, id],
        )?;
        let mut members: Vec<(String, String)> = Vec::new();
        {
            let mut stmt = conn.prepare_cached(
                "SELECT id, data FROM records WHERE kind = 'member' AND instr(data, ?1) > 0",
            )?;
            for row in stmt.query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?)))? {
                members.push(row?);
            }
        }
        for (member_id, data) in members {
            let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&data) else {
                continue;
            };
            let Some(teams) = v
                .pointer_mut("/actor/teams")
                .and_then(serde_json::Value::as_array_mut)
            else {
                continue;
            };
            for t in teams.iter_mut().filter(|t| t["id"] == id.as_str()) {
                t["slug"] = fresh.clone().into();
            }
            conn.execute(
                "UPDATE records SET data = ?1 WHERE kind = 'member' AND id = ?2",
                params![v.to_string(), member_id],
            )?;
        }
        tracing::warn!("team {id} shared the slug {slug:?} with an older team; now {fresh:?}");
    }
    Ok(dups.len())
}

/// A locked connection.
pub struct Db<'a>(&'a Connection);

/// What the delivery worker needs to send one notification.
#[derive(Debug, Clone)]
pub struct DueNotification {
    /// `cbn_…`.
    pub id: String,
    /// `cld_…`.
    pub destination_id: String,
    /// The body to send, or what it is built from.
    pub body: Body,
    /// Until when it is claimed (unix ms).
    pub due_at: i64,
    /// `cbe_…`.
    pub event_id: String,
    /// `clb_…`.
    pub callback_id: String,
}

/// Where a notification's body comes from.
#[derive(Debug, Clone)]
pub enum Body {
    /// The exact body, stored on the row (rows written before events were stored once).
    Stored(String),
    /// Built from the event's type and payload, stored once per event.
    Event {
        /// The event type.
        event_type: String,
        /// The payload as stored (JSON text).
        payload: String,
    },
}

/// Column values of a notification row besides its JSON.
#[derive(Debug, Clone)]
pub struct NotificationKeys {
    /// `cbe_…`.
    pub event_id: String,
    /// `clb_…`.
    pub callback_id: String,
    /// `cld_…`.
    pub destination_id: String,
    /// The exact JSON body sent on every attempt; empty when it is built from the event row.
    pub body: String,
}

impl Db<'_> {
    /// One record of a kind.
    pub fn get<T: DeserializeOwned>(&self, kind: &str, id: &str) -> Result<Option<T>, StoreError> {
        let data: Option<String> = self
            .0
            .prepare_cached("SELECT data FROM records WHERE kind = ?1 AND id = ?2")?
            .query_row(params![kind, id], |r| r.get(0))
            .optional()?;
        data.map(|d| decode(kind, id, &d)).transpose()
    }

    /// Inserts or replaces a record.
    pub fn put<T: Serialize>(&self, kind: &str, id: &str, value: &T) -> Result<(), StoreError> {
        let data = serde_json::to_string(value)?;
        self.0
            .prepare_cached(
                "INSERT INTO records (kind, id, data) VALUES (?1, ?2, ?3)
             ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data",
            )?
            .execute(params![kind, id, data])?;
        Ok(())
    }

    /// Every record of a kind, by ascending id.
    pub fn all<T: DeserializeOwned>(&self, kind: &str) -> Result<Vec<T>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached("SELECT id, data FROM records WHERE kind = ?1 ORDER BY id")?;
        let rows = stmt.query_map(params![kind], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, data) = row?;
            // One bad record fails only itself: it is named in the log and left out.
            if let Some(v) = skip_bad(decode(kind, &id, &data)) {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// A value of the meta table.
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self
            .0
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row(params![key], |r| r.get(0))
            .optional()?)
    }

    /// Inserts or replaces a team; a slug another team holds (the unique index) is
    /// [`StoreError::SlugTaken`].
    pub fn put_team<T: Serialize>(&self, id: &str, slug: &str, team: &T) -> Result<(), StoreError> {
        self.put("team", id, team).map_err(|e| match e {
            StoreError::Sql(rusqlite::Error::SqliteFailure(f, _))
                if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE =>
            {
                StoreError::SlugTaken(slug.to_string())
            }
            e => e,
        })
    }

    /// Sets a value of the meta table.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![key, value])?;
        Ok(())
    }

    /// Runs `f` inside a transaction (used for bulk seeding).
    pub fn transaction<R>(
        &self,
        f: impl FnOnce(&Self) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.transaction_with(f)
    }

    /// Runs `f` inside `BEGIN IMMEDIATE` … `COMMIT`, rolled back on any error of `f` or of the
    /// commit itself.
    pub fn transaction_with<R, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Self) -> Result<R, E>,
    ) -> Result<R, E> {
        self.0
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| E::from(e.into()))?;
        match f(self) {
            Ok(r) => match self.0.execute_batch("COMMIT") {
                Ok(()) => Ok(r),
                Err(e) => {
                    let _ = self.0.execute_batch("ROLLBACK");
                    Err(E::from(e.into()))
                }
            },
            Err(e) => {
                let _ = self.0.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Stores a notification; `next_attempt_at` (unix ms) is set while it still has to be sent.
    pub fn save_notification(
        &self,
        n: &Notification,
        keys: &NotificationKeys,
        next_attempt_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let data = serde_json::to_string(n)?;
        self.0
            .prepare_cached(
                "INSERT INTO notifications
                 (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (id) DO UPDATE SET status = excluded.status,
                 next_attempt_at = excluded.next_attempt_at, data = excluded.data",
            )?
            .execute(params![
                n.id,
                keys.event_id,
                keys.callback_id,
                keys.destination_id,
                n.status.as_str(),
                next_attempt_at,
                keys.body,
                data
            ])?;
        Ok(())
    }

    /// Bulk loading on or off: with it on, commits skip fsync and the page cache is large, so
    /// the indexes of a million rows stay in memory (a crash mid-load loses only the load).
    pub fn bulk_mode(&self, on: bool) -> Result<(), StoreError> {
        let (sync, cache) = if on {
            ("OFF", -262_144)
        } else {
            ("NORMAL", -2_000)
        };
        self.0.pragma_update(None, "synchronous", sync)?;
        self.0.pragma_update(None, "cache_size", cache)?;
        Ok(())
    }

    /// Inserts a notification whose JSON is already encoded (bulk seeding).
    pub fn insert_notification_json(
        &self,
        keys: &NotificationKeys,
        id: &str,
        status: &str,
        next_attempt_at: Option<i64>,
        data: &str,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO notifications
                 (id, event_id, callback_id, destination_id, status, next_attempt_at, body, data)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![
                id,
                keys.event_id,
                keys.callback_id,
                keys.destination_id,
                status,
                next_attempt_at,
                keys.body,
                data
            ])?;
        Ok(())
    }

    /// Updates a notification after an attempt.
    pub fn update_notification(
        &self,
        n: &Notification,
        next_attempt_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let data = serde_json::to_string(n)?;
        self.0.prepare_cached(
            "UPDATE notifications SET status = ?2, next_attempt_at = ?3, data = ?4 WHERE id = ?1",
        )?.execute(
            params![n.id, n.status.as_str(), next_attempt_at, data],
        )?;
        Ok(())
    }

    /// One notification.
    pub fn notification(&self, id: &str) -> Result<Option<Notification>, StoreError> {
        let data: Option<String> = self
            .0
            .prepare_cached("SELECT data FROM notifications WHERE id = ?1")?
            .query_row(params![id], |r| r.get(0))
            .optional()?;
        data.map(|d| decode("notification", id, &d)).transpose()
    }

    /// One page of notifications matching every non-empty filter (OR within one), as their
    /// stored JSON (the wire shape): rendering stays with the caller, outside the connection.
    pub fn notifications_page(
        &self,
        callback_ids: &[String],
        event_ids: &[String],
        destination_ids: &[String],
        p: &ListParams,
    ) -> Result<Page<String>, StoreError> {
        let mut src = Source::new("notifications", "id", "data");
        for (column, values) in [
            ("callback_id", callback_ids),
            ("event_id", event_ids),
            ("destination_id", destination_ids),
        ] {
            src.any_of(column, values);
        }
        let mut page = self.keyset(&src, p)?;
        // Spliced as stored, not decoded (that is most of a page's cost): a row that is not even
        // one JSON object end to end would break the whole page, so it is left out and named.
        page.items.retain(|(id, data)| {
            let whole = data.starts_with('{') && data.ends_with('}');
            if !whole {
                super::logs::error_limited(&format!(
                    "stored notification {id} is not a JSON object; left out of its list"
                ));
            }
            whole
        });
        Ok(data_only(page))
    }

    /// One page of `table`'s rows matching every condition (SQL with `?` bound to its values in
    /// order), keyset-paged by `id` as every list is: (id, data) pairs as stored.
    pub fn page_where(
        &self,
        table: &'static str,
        conditions: &[(String, Vec<String>)],
        p: &ListParams,
    ) -> Result<Page<(String, String)>, StoreError> {
        let mut src = Source::new(table, "id", "data");
        for (sql, args) in conditions {
            src.filter(sql, args.iter().map(String::as_str));
        }
        self.keyset(&src, p)
    }

    /// The connection itself, for a module that keeps tables of its own (`event_destinations`).
    pub fn conn(&self) -> &Connection {
        self.0
    }

    /// One page of records of a kind, decoded.
    pub fn records_page<T: DeserializeOwned>(
        &self,
        kind: &str,
        p: &ListParams,
    ) -> Result<Page<T>, StoreError> {
        let mut src = Source::new("records", "id", "data");
        src.filter("kind = ?", [kind]);
        Ok(decode_page(kind, self.keyset(&src, p)?))
    }

    /// One page of records of a kind, as stored (not decoded): (id, data) pairs.
    pub fn records_page_raw(
        &self,
        kind: &str,
        p: &ListParams,
    ) -> Result<Page<(String, String)>, StoreError> {
        let mut src = Source::new("records", "id", "data");
        src.filter("kind = ?", [kind]);
        self.keyset(&src, p)
    }

    /// One page of active destinations; with `callback_ids`, those selecting any of them.
    pub fn destinations_page<T: DeserializeOwned>(
        &self,
        callback_ids: &[String],
        p: &ListParams,
    ) -> Result<Page<T>, StoreError> {
        let mut src = Source::new("records", "id", "data");
        src.filter("kind = ?", ["destination"]);
        if callback_ids.is_empty() {
            src.filter("id IN (SELECT id FROM destination_selects)", [""; 0]);
        } else {
            let marks = vec!["?"; callback_ids.len()].join(", ");
            src.filter(
                &format!(
                    "id IN (SELECT id FROM destination_selects WHERE callback_id IN ('*', {marks}))"
                ),
                callback_ids.iter().map(String::as_str),
            );
        }
        Ok(decode_page("destination", self.keyset(&src, p)?))
    }

    /// Every active destination that selects `callback_id`, by ascending id.
    pub fn destinations_selecting<T: DeserializeOwned>(
        &self,
        callback_id: &str,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT data FROM records WHERE kind = 'destination' AND id IN
                 (SELECT id FROM destination_selects WHERE callback_id IN ('*', ?1))
             ORDER BY id",
        )?;
        let rows = stmt.query_map(params![callback_id], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    /// The callbacks whose stored hook key equals `key`, by ascending id (through the
    /// `records_hook_key` index: at most a row or two, whatever the number of callbacks).
    pub fn callbacks_by_hook_key<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = self.0.prepare_cached(CALLBACKS_BY_HOOK_KEY)?;
        let rows = stmt.query_map(params![key], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
    }

    /// Keyset paging by id: the anchor must be in the filtered set (else an empty page, as the
    /// API does); one extra row tells whether more follow in the walking direction.
    fn keyset(&self, src: &Source, p: &ListParams) -> Result<Page<(String, String)>, StoreError> {
        let (table, id, data, filter) = (src.table, src.id, src.data, src.where_sql());
        let anchor = match &p.anchor {
            Anchor::Start => None,
            Anchor::After(x) | Anchor::Before(x) => Some(x.as_str()),
        };
        if let Some(x) = anchor {
            let mut args = src.args.clone();
            args.push(SqlValue::Text(x.to_string()));
            let found = self
                .0
                .prepare_cached(&format!(
                    "SELECT 1 FROM {table} WHERE {filter} AND {id} = ?"
                ))?
                .query_row(params_from_iter(args), |_| Ok(()))
                .optional()?;
            if found.is_none() {
                return Ok(Page::default());
            }
        }
        // Walking backwards (`before`) reads the nearest rows in the opposite order.
        let backwards = matches!(p.anchor, Anchor::Before(_));
        let order = if backwards {
            p.order.flipped()
        } else {
            p.order
        };
        let (cmp, dir) = match order {
            Order::Asc => (">", "ASC"),
            Order::Desc => ("<", "DESC"),
        };
        let mut args = src.args.clone();
        let mut sql = format!("SELECT {id}, {data} FROM {table} WHERE {filter}");
        if let Some(x) = anchor {
            let _ = write!(sql, " AND {id} {cmp} ?");
            args.push(SqlValue::Text(x.to_string()));
        }
        let _ = write!(sql, " ORDER BY {id} {dir} LIMIT ?");
        args.push(SqlValue::Integer(i64::try_from(p.limit).unwrap_or(100) + 1));
        let mut stmt = self.0.prepare_cached(&sql)?;
        let mut items = stmt
            .query_map(params_from_iter(args), |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let more = items.len() > p.limit;
        items.truncate(p.limit);
        let pagination = match p.anchor {
            Anchor::Start => Pagination {
                has_more_before: false,
                has_more_after: more,
            },
            Anchor::After(_) => Pagination {
                has_more_before: true,
                has_more_after: more,
            },
            Anchor::Before(_) => {
                items.reverse();
                Pagination {
                    has_more_before: more,
                    has_more_after: true,
                }
            }
        };
        Ok(Page { items, pagination })
    }

    /// Stores an event's payload once; its notifications' bodies are built from it when sent.
    pub fn save_event(
        &self,
        id: &str,
        callback_id: &str,
        event_type: &str,
        payload: &str,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO events (id, callback_id, type, payload) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, callback_id, event_type, payload])?;
        Ok(())
    }

    /// The destinations with notifications still to send: a skip scan of the
    /// `notifications_destination_due` index, one seek per destination however many rows wait.
    pub fn pending_destinations(&self) -> Result<Vec<String>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "WITH RECURSIVE d(id) AS (
                 SELECT (SELECT MIN(destination_id) FROM notifications
                         WHERE next_attempt_at IS NOT NULL)
                 UNION ALL
                 SELECT (SELECT MIN(destination_id) FROM notifications
                         WHERE next_attempt_at IS NOT NULL AND destination_id > d.id)
                 FROM d WHERE d.id IS NOT NULL)
             SELECT id FROM d WHERE id IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A destination's next `limit` notifications to send, soonest first (an index range).
    pub fn next_due(&self, destination_id: &str, limit: usize) -> Result<Vec<Slot>, StoreError> {
        // The limit is written into the statement: SQLite plans with a bound LIMIT's value and
        // then prepares the statement again at every new binding (half the worker's CPU).
        let mut stmt = self.0.prepare_cached(&format!(
            "SELECT id, next_attempt_at FROM notifications
             WHERE destination_id = ?1 AND next_attempt_at IS NOT NULL
             ORDER BY next_attempt_at, id LIMIT {limit}"
        ))?;
        let rows = stmt.query_map(params![destination_id], |r| {
            Ok(Slot {
                id: r.get(0)?,
                destination_id: destination_id.to_string(),
                due_at: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The soonest and the latest due time of any notification still to send (two seeks of the
    /// due index, whatever the backlog).
    pub fn due_bounds(&self) -> Result<Option<(i64, i64)>, StoreError> {
        let bound = |sql: &str| -> Result<Option<i64>, StoreError> {
            Ok(self.0.prepare_cached(sql)?.query_row([], |r| r.get(0))?)
        };
        let first = bound(
            "SELECT MIN(next_attempt_at) FROM notifications WHERE next_attempt_at IS NOT NULL",
        )?;
        let last = bound(
            "SELECT MAX(next_attempt_at) FROM notifications WHERE next_attempt_at IS NOT NULL",
        )?;
        Ok(first.zip(last))
    }

    /// The destinations of the notifications due by `now`, soonest first, reading at most
    /// `limit` of them (a range of the due index): `None` when more than `limit` are due.
    pub fn due_destinations(
        &self,
        now: i64,
        limit: usize,
    ) -> Result<Option<Vec<String>>, StoreError> {
        // A literal limit, as in `next_due`.
        let mut stmt = self.0.prepare_cached(&format!(
            "SELECT destination_id FROM notifications INDEXED BY notifications_due
             WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ?1
             ORDER BY next_attempt_at LIMIT {}",
            limit.saturating_add(1)
        ))?;
        let rows = stmt
            .query_map(params![now], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        if rows.len() > limit {
            return Ok(None);
        }
        let mut seen = std::collections::HashSet::new();
        Ok(Some(
            rows.into_iter()
                .filter(|d| seen.insert(d.clone()))
                .collect(),
        ))
    }

    /// Claims a notification due at `due_at` for one attempt: a compare-and-set of its due time
    /// to `lease_until`, so that only a crash during the attempt can send it again (after the
    /// lease). A row whose record does not decode, or whose event is gone, is marked failed and
    /// taken off the schedule instead, once.
    pub fn claim(&self, id: &str, due_at: i64, lease_until: i64) -> Result<Claim, StoreError> {
        type Row = (
            String,
            String,
            String,
            String,
            String,
            Option<String>,
            Option<String>,
        );
        let row: Option<Row> = self
            .0
            .prepare_cached(
                "SELECT n.body, n.event_id, n.callback_id, n.destination_id, n.data,
                        e.type, e.payload
                 FROM notifications n LEFT JOIN events e ON e.id = n.event_id
                 WHERE n.id = ?1 AND n.next_attempt_at = ?2",
            )?
            .query_row(params![id, due_at], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            })
            .optional()?;
        let Some((body, event_id, callback_id, destination_id, data, event_type, payload)) = row
        else {
            return Ok(Claim::Gone);
        };
        let problem = match serde_json::from_str::<Notification>(&data) {
            Err(e) => Some(e.to_string()),
            Ok(_) if body.is_empty() && payload.is_none() => {
                Some(format!("its event {event_id} is missing"))
            }
            Ok(_) => None,
        };
        if let Some(problem) = problem {
            self.0
                .prepare_cached(
                    "UPDATE notifications SET status = 'failed', next_attempt_at = NULL
                     WHERE id = ?1",
                )?
                .execute(params![id])?;
            return Ok(Claim::Undecodable(problem));
        }
        let changed = self
            .0
            .prepare_cached(
                "UPDATE notifications SET next_attempt_at = ?3
                 WHERE id = ?1 AND next_attempt_at = ?2",
            )?
            .execute(params![id, due_at, lease_until])?;
        if changed == 0 {
            return Ok(Claim::Gone);
        }
        let body = match (body.is_empty(), event_type, payload) {
            (true, Some(t), Some(p)) => Body::Event {
                event_type: t,
                payload: p,
            },
            _ => Body::Stored(body),
        };
        Ok(Claim::Claimed(DueNotification {
            id: id.to_string(),
            destination_id,
            body,
            due_at: lease_until,
            event_id,
            callback_id,
        }))
    }

    /// The delivered body of a notification whose body is built from its event, when it is:
    /// (event id, callback id, event type, payload).
    pub fn event_body_of(
        &self,
        id: &str,
    ) -> Result<Option<(String, String, String, String)>, StoreError> {
        Ok(self
            .0
            .prepare_cached(
                "SELECT n.event_id, n.callback_id, e.type, e.payload
                 FROM notifications n JOIN events e ON e.id = n.event_id
                 WHERE n.id = ?1 AND n.body = ''",
            )?
            .query_row(params![id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?)
    }

    /// The largest id stored, of notifications, events and records (the id clock starts after
    /// it, whatever the wall clock says).
    pub fn largest_ids(&self) -> Result<Vec<String>, StoreError> {
        let mut out = Vec::new();
        for sql in [
            "SELECT MAX(id) FROM notifications",
            "SELECT MAX(id) FROM events",
        ] {
            if let Some(id) = self
                .0
                .query_row(sql, [], |r| r.get::<_, Option<String>>(0))?
            {
                out.push(id);
            }
        }
        let mut stmt = self.0.prepare("SELECT id FROM records")?;
        for id in stmt.query_map([], |r| r.get::<_, String>(0))? {
            out.push(id?);
        }
        Ok(out)
    }

    /// The team (other than `own_id`) with `slug`, through the slug index.
    pub fn team_with_slug(&self, slug: &str, own_id: &str) -> Result<Option<String>, StoreError> {
        let row: Option<(String, String)> = self
            .0
            .prepare_cached(TEAM_BY_SLUG)?
            .query_row(params![slug, own_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        Ok(row.map(|(_, data)| data))
    }
}

/// A notification waiting to be sent: which, where, and when (unix ms).
#[derive(Debug, Clone)]
pub struct Slot {
    /// `cbn_…`.
    pub id: String,
    /// `cld_…`.
    pub destination_id: String,
    /// When it falls due (unix ms).
    pub due_at: i64,
}

/// The outcome of claiming a due notification.
#[derive(Debug)]
pub enum Claim {
    /// Claimed: send it.
    Claimed(DueNotification),
    /// No longer due at that time (recorded or claimed meanwhile): send nothing.
    Gone,
    /// Its record does not decode: marked failed, off the schedule; the reason.
    Undecodable(String),
}

/// The rows a list pages over: a table and conditions joined with `AND`, with their arguments.
struct Source {
    table: &'static str,
    id: &'static str,
    data: &'static str,
    conditions: Vec<String>,
    args: Vec<SqlValue>,
}

impl Source {
    fn new(table: &'static str, id: &'static str, data: &'static str) -> Self {
        Self {
            table,
            id,
            data,
            conditions: Vec::new(),
            args: Vec::new(),
        }
    }

    fn filter<'a>(&mut self, sql: &str, args: impl IntoIterator<Item = &'a str>) {
        self.conditions.push(sql.to_string());
        self.args
            .extend(args.into_iter().map(|a| SqlValue::Text(a.to_string())));
    }

    /// `column IN (…)` when `values` is not empty.
    fn any_of(&mut self, column: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        let marks = vec!["?"; values.len()].join(", ");
        self.filter(
            &format!("{column} IN ({marks})"),
            values.iter().map(String::as_str),
        );
    }

    fn where_sql(&self) -> String {
        if self.conditions.is_empty() {
            "1 = 1".into()
        } else {
            self.conditions.join(" AND ")
        }
    }
}

/// Decodes a stored record, naming it when it does not decode.
pub fn decode<T: DeserializeOwned>(kind: &str, id: &str, data: &str) -> Result<T, StoreError> {
    serde_json::from_str(data).map_err(|source| StoreError::Record {
        kind: kind.to_string(),
        id: id.to_string(),
        source,
    })
}

/// The value, or `None` with the failure logged (rate-limited) when one record did not decode.
pub fn skip_bad<T>(decoded: Result<T, StoreError>) -> Option<T> {
    match decoded {
        Ok(v) => Some(v),
        Err(e) => {
            super::logs::error_limited(&e.to_string());
            None
        }
    }
}

/// The items of a page, as stored, without their ids.
fn data_only(page: Page<(String, String)>) -> Page<String> {
    Page {
        items: page.items.into_iter().map(|(_, data)| data).collect(),
        pagination: page.pagination,
    }
}

/// A decoded page; a record that does not decode is left out and named in the log, so one bad
/// record does not take its whole list down.
fn decode_page<T: DeserializeOwned>(kind: &str, page: Page<(String, String)>) -> Page<T> {
    Page {
        items: page
            .items
            .iter()
            .filter_map(|(id, data)| skip_bad(decode(kind, id, data)))
            .collect(),
        pagination: page.pagination,
    }
}

/// A page of stored JSON documents as the list envelope, without decoding them again.
pub fn raw_page_json(page: &Page<String>) -> String {
    let size: usize = page.items.iter().map(|i| i.len() + 1).sum();
    let mut out = String::with_capacity(size + 96);
    out.push_str("{\"__typename\":\"list\",\"items\":[");
    for (n, item) in page.items.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push_str("],\"pagination\":{\"has_more_before\":");
    out.push_str(if page.pagination.has_more_before {
        "true"
    } else {
        "false"
    });
    out.push_str(",\"has_more_after\":");
    out.push_str(if page.pagination.has_more_after {
        "true"
    } else {
        "false"
    });
    out.push_str("}}");
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn the_hook_key_lookup_searches_its_index() {
        let store = Store::open(None).expect("store");
        let plan: Vec<String> = store.with(|db| {
            let mut stmt =
                db.0.prepare(&format!("EXPLAIN QUERY PLAN {CALLBACKS_BY_HOOK_KEY}"))
                    .expect("plan");
            stmt.query_map(params!["k"], |r| r.get::<_, String>(3))
                .expect("rows")
                .collect::<Result<_, _>>()
                .expect("detail")
        });
        assert!(
            plan.iter()
                .any(|d| d.starts_with("SEARCH") && d.contains("INDEX records_hook_key")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|d| d.starts_with("SCAN")), "{plan:?}");
    }

    fn plan_of(store: &Store, sql: &str) -> Vec<String> {
        store.with(|db| {
            let mut stmt =
                db.0.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .expect("plan");
            let n = stmt.parameter_count();
            let args: Vec<String> = vec!["x".into(); n];
            stmt.query_map(params_from_iter(args), |r| r.get::<_, String>(3))
                .expect("rows")
                .collect::<Result<_, _>>()
                .expect("detail")
        })
    }

    #[test]
    fn slugs_and_the_schedule_are_index_searches_not_scans() {
        let store = Store::open(None).expect("store");
        let plan = plan_of(&store, TEAM_BY_SLUG);
        assert!(
            plan.iter().any(|d| d.contains("INDEX records_team_slug")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|d| d.starts_with("SCAN")), "{plan:?}");
        let plan = plan_of(
            &store,
            "SELECT id, next_attempt_at FROM notifications
             WHERE destination_id = ?1 AND next_attempt_at IS NOT NULL
             ORDER BY next_attempt_at, id LIMIT ?2",
        );
        assert!(
            plan.iter()
                .any(|d| d.contains("INDEX notifications_destination_due")),
            "{plan:?}"
        );
        assert!(!plan.iter().any(|d| d.contains("TEMP B-TREE")), "{plan:?}");
    }

    #[test]
    fn a_newer_schema_is_refused_with_its_version() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("db");
        drop(Store::open(Some(&path)).expect("store"));
        let conn = Connection::open(&path).expect("open");
        conn.pragma_update(None, "user_version", 99)
            .expect("version");
        drop(conn);
        let err = Store::open(Some(&path)).err().expect("refused");
        assert!(
            matches!(err, StoreError::NewerSchema { found: 99, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("99"), "{err}");
    }

    #[test]
    fn the_hook_key_lookup_finds_only_callbacks_with_that_key() {
        let store = Store::open(None).expect("store");
        store.with(|db| {
            db.put(
                "callback",
                "clb_1",
                &json!({"id": "clb_1", "hook_key": "aaa"}),
            )
            .expect("put");
            db.put(
                "callback",
                "clb_2",
                &json!({"id": "clb_2", "hook_key": "bbb"}),
            )
            .expect("put");
            db.put(
                "callback",
                "clb_3",
                &json!({"id": "clb_3", "hook_key": null}),
            )
            .expect("put");
            // The same field in another kind is not a callback.
            db.put("team", "clb_0", &json!({"id": "clb_0", "hook_key": "bbb"}))
                .expect("put");
            let found: Vec<Value> = db.callbacks_by_hook_key("bbb").expect("lookup");
            assert_eq!(found, vec![json!({"id": "clb_2", "hook_key": "bbb"})]);
            // A changed key is found under the new one only: the index follows updates.
            db.put(
                "callback",
                "clb_2",
                &json!({"id": "clb_2", "hook_key": "ccc"}),
            )
            .expect("put");
            assert!(
                db.callbacks_by_hook_key::<Value>("bbb")
                    .expect("lookup")
                    .is_empty()
            );
            assert_eq!(
                db.callbacks_by_hook_key::<Value>("ccc")
                    .expect("lookup")
                    .len(),
                1
            );
            for missing in ["", "aa", "aaaa", "AAA", "null"] {
                assert!(
                    db.callbacks_by_hook_key::<Value>(missing)
                        .expect("lookup")
                        .is_empty(),
                    "{missing}"
                );
            }
        });
    }
}
