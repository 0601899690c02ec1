//! This generation's delivery schedule beside the newer generations' records (`gen_records`,
//! `gen_secrets`, shared with `event_destinations::db`): its own migrations, counted in the
//! `meta` table, so neither pulsar's schema nor the newest generation's moves.

use crate::service::due::Schedule;
use crate::service::store::{Db, StoreError};

pub use crate::service::event_destinations::db::{
    all, all_with, any_of, get, page, put, secret, set_secret,
};

/// The meta key counting this generation's migrations.
const SCHEMA_KEY: &str = "callback_destinations_schema";

/// This generation's migrations, applied in order.
const MIGRATIONS: &[&str] = &[
    // 1: when each open notification is next attempted; notifications by callback and by event.
    "CREATE TABLE IF NOT EXISTS cbd_due (
         notification_id TEXT PRIMARY KEY, due_at INTEGER NOT NULL) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS cbd_due_at ON cbd_due (due_at, notification_id);
     CREATE INDEX IF NOT EXISTS cbd_records_callback
         ON gen_records (kind, json_extract(data, '$._callback_id'), id);
     CREATE INDEX IF NOT EXISTS cbd_records_event
         ON gen_records (kind, json_extract(data, '$._event_id'), id);",
];

/// Brings this generation's tables up to date (in the caller's transaction).
pub fn migrate(db: &Db) -> Result<(), StoreError> {
    let done: usize = db
        .meta(SCHEMA_KEY)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for (n, sql) in MIGRATIONS.iter().enumerate().skip(done) {
        db.conn().execute_batch(sql)?;
        db.set_meta(SCHEMA_KEY, &(n + 1).to_string())?;
    }
    Ok(())
}

/// Notifications' next attempts.
pub static SCHEDULE: Schedule = Schedule::new("cbd_due", "notification_id");

/// Schedules a notification's next attempt (unix ms), or takes it off the schedule.
pub fn set_due(db: &Db, id: &str, due_at: Option<i64>) -> Result<(), StoreError> {
    SCHEDULE.set(db, id, due_at)
}

/// Record kinds of this generation (namespaced apart from the newest generation's).
pub mod kind {
    use crate::service::event_destinations::stored::Stored;

    /// A callback.
    pub const CALLBACK: Stored = Stored::CbCallback;
    /// A callback destination.
    pub const DESTINATION: Stored = Stored::CbDestination;
    /// A callback event (what the provider sent).
    pub const EVENT: Stored = Stored::CbEvent;
    /// A notification's event (what is sent, `sev_`), shared by its notifications.
    pub const SENT_EVENT: Stored = Stored::CbSentEvent;
    /// A notification (one event to one destination).
    pub const NOTIFICATION: Stored = Stored::CbNotification;
    /// A provider's trigger.
    pub const TRIGGER: Stored = Stored::CbTrigger;
    /// A provider deployment (seeded by the newer generations' common seed).
    pub const DEPLOYMENT: Stored = Stored::Deployment;
}
