//! SQLite storage: versioned schema migrations, WAL, a keyed record table and the notification
//! table the delivery worker queries.
use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params, params_from_iter};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::model::Notification;

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
];

/// Errors of the storage layer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// A stored record did not decode.
    #[error("stored record: {0}")]
    Json(#[from] serde_json::Error),
}

impl From<StoreError> for super::errors::Failure {
    fn from(e: StoreError) -> Self {
        super::errors::Failure::internal(e)
    }
}

/// The database behind one mutex; callers run short synchronous closures on it.
pub struct Store {
    conn: Mutex<Connection>,
}

impl Store {
    /// Opens (or creates) the database and brings its schema up to date.
    pub fn open(path: Option<&Path>) -> Result<Self, StoreError> {
        let conn = match path {
            Some(p) => Connection::open(p)?,
            None => Connection::open_in_memory()?,
        };
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        migrate(&conn)?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    /// Runs `f` with the connection inside one transaction-free critical section.
    pub fn with<R>(&self, f: impl FnOnce(&Db) -> R) -> R {
        let guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        f(&Db(&guard))
    }
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
            .query_row(
                "SELECT data FROM records WHERE kind = ?1 AND id = ?2",
                params![kind, id],
                |r| r.get(0),
            )
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
            .query_row("SELECT value FROM meta WHERE key = ?1", params![key], |r| {
                r.get(0)
            })
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
            .query_row(
                "SELECT data FROM notifications WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(data.map(|d| serde_json::from_str(&d)).transpose()?)
    }

    /// Notifications matching every non-empty filter (OR within one), by ascending id.
    pub fn notifications(
        &self,
        callback_ids: &[String],
        event_ids: &[String],
        destination_ids: &[String],
    ) -> Result<Vec<Notification>, StoreError> {
        let mut sql = String::from("SELECT data FROM notifications WHERE 1 = 1");
        let mut args: Vec<&String> = Vec::new();
        for (column, values) in [
            ("callback_id", callback_ids),
            ("event_id", event_ids),
            ("destination_id", destination_ids),
        ] {
            if values.is_empty() {
                continue;
            }
            let marks = vec!["?"; values.len()].join(", ");
            sql.push_str(&format!(" AND {column} IN ({marks})"));
            args.extend(values);
        }
        sql.push_str(" ORDER BY id");
        let mut stmt = self.0.prepare(&sql)?;
        let rows = stmt.query_map(params_from_iter(args), |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for row in rows {
            out.push(serde_json::from_str(&row?)?);
        }
        Ok(out)
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

    /// Notifications still to be sent, soonest first, with when each falls due.
    pub fn upcoming(&self, limit: usize) -> Result<Vec<DueNotification>, StoreError> {
        let mut stmt = self.0.prepare_cached(
            "SELECT id, destination_id, body, next_attempt_at, event_id, callback_id
             FROM notifications
             WHERE next_attempt_at IS NOT NULL
             ORDER BY next_attempt_at, id LIMIT ?1",
        )?;
        let rows = stmt.query_map(params![limit as i64], |r| {
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
