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
];

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
    /// The database file could not be created or protected.
    #[error("database file: {0}")]
    Io(std::io::Error),
}

impl From<StoreError> for super::errors::Failure {
    fn from(e: StoreError) -> Self {
        super::errors::Failure::internal(e)
    }
}

/// One writer connection and, for file databases, a few read-only ones: in WAL mode readers
/// never wait on the writer or on each other. An in-memory database has one connection only
/// (separate connections would each see their own empty database).
pub struct Store {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next: AtomicUsize,
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
        Ok(Self {
            writer: Mutex::new(conn),
            readers,
            next: AtomicUsize::new(0),
        })
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

fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let done: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let done = usize::try_from(done).unwrap_or(0);
    for (n, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        conn.execute_batch(&format!(
            "BEGIN; {sql}; PRAGMA user_version = {}; COMMIT;",
            n + 1
        ))?;
    }
    Ok(())
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
    /// The exact JSON body to send.
    pub body: String,
    /// When it falls due (unix ms).
    pub due_at: i64,
    /// `cbe_…`.
    pub event_id: String,
    /// `clb_…`.
    pub callback_id: String,
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
    /// The exact JSON body sent on every attempt.
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
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
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
            .prepare_cached("SELECT data FROM records WHERE kind = ?1 ORDER BY id")?;
        let rows = stmt.query_map(params![kind], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
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
        self.0.execute_batch("BEGIN")?;
        match f(self) {
            Ok(r) => {
                self.0.execute_batch("COMMIT")?;
                Ok(r)
            }
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
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
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
        self.keyset(&src, p)
    }

    /// One page of records of a kind, decoded.
    pub fn records_page<T: DeserializeOwned>(
        &self,
        kind: &str,
        p: &ListParams,
    ) -> Result<Page<T>, StoreError> {
        let mut src = Source::new("records", "id", "data");
        src.filter("kind = ?", [kind]);
        decode_page(&self.keyset(&src, p)?)
    }

    /// One page of records of a kind, as stored (not decoded).
    pub fn records_page_raw(&self, kind: &str, p: &ListParams) -> Result<Page<String>, StoreError> {
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
        decode_page(&self.keyset(&src, p)?)
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

    /// The record of `kind` whose JSON has `field` equal to `value` (slugs).
    pub fn find_by_field<T: DeserializeOwned>(
        &self,
        kind: &str,
        field: &str,
        value: &str,
    ) -> Result<Option<T>, StoreError> {
        let data: Option<String> = self
            .0
            .prepare_cached(
                "SELECT data FROM records WHERE kind = ?1 AND json_extract(data, ?2) = ?3
                 ORDER BY id LIMIT 1",
            )?
            .query_row(params![kind, format!("$.{field}"), value], |r| r.get(0))
            .optional()?;
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
    }

    /// Keyset paging by id: the anchor must be in the filtered set (else an empty page, as the
    /// API does); one extra row tells whether more follow in the walking direction.
    fn keyset(&self, src: &Source, p: &ListParams) -> Result<Page<String>, StoreError> {
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
        let mut sql = format!("SELECT {data} FROM {table} WHERE {filter}");
        if let Some(x) = anchor {
            let _ = write!(sql, " AND {id} {cmp} ?");
            args.push(SqlValue::Text(x.to_string()));
        }
        let _ = write!(sql, " ORDER BY {id} {dir} LIMIT ?");
        args.push(SqlValue::Integer(i64::try_from(p.limit).unwrap_or(100) + 1));
        let mut stmt = self.0.prepare_cached(&sql)?;
        let mut items = stmt
            .query_map(params_from_iter(args), |r| r.get::<_, String>(0))?
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

    /// Whether a notification is still due at `due_at` (a stale read of the worker is not).
    pub fn still_due(&self, id: &str, due_at: i64) -> Result<bool, StoreError> {
        let n: i64 = self.0.query_row(
            "SELECT COUNT(*) FROM notifications WHERE id = ?1 AND next_attempt_at = ?2",
            params![id, due_at],
            |r| r.get(0),
        )?;
        Ok(n > 0)
    }

    /// Notifications still to be sent, soonest first, with when each falls due: at most
    /// `per_destination` of each destination, so one destination's backlog cannot hide others.
    pub fn upcoming(
        &self,
        per_destination: usize,
        limit: usize,
    ) -> Result<Vec<DueNotification>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id, destination_id, body, next_attempt_at, event_id, callback_id FROM (
                 SELECT id, destination_id, body, next_attempt_at, event_id, callback_id,
                     ROW_NUMBER() OVER (PARTITION BY destination_id
                                        ORDER BY next_attempt_at, id) AS nth
                 FROM notifications
                 WHERE next_attempt_at IS NOT NULL)
             WHERE nth <= ?1
             ORDER BY next_attempt_at, id LIMIT ?2",
        )?;
        let per = i64::try_from(per_destination).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map(params![per, limit], |r| {
            Ok(DueNotification {
                id: r.get(0)?,
                destination_id: r.get(1)?,
                body: r.get(2)?,
                due_at: r.get(3)?,
                event_id: r.get(4)?,
                callback_id: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
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

fn decode_page<T: DeserializeOwned>(page: &Page<String>) -> Result<Page<T>, StoreError> {
    Ok(Page {
        items: page
            .items
            .iter()
            .map(|d| serde_json::from_str(d))
            .collect::<Result<_, _>>()?,
        pagination: page.pagination,
    })
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
