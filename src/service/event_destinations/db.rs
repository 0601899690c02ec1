//! The generation's tables beside pulsar's: records as their wire JSON (keys starting with `_`
//! are the service's own), and the delivery schedule. Created by migrations of their own,
//! counted in the `meta` table, so pulsar's schema (and its `user_version`) stays as it was.
use super::stored::Stored;
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use crate::api::Page;
use crate::service::due::Schedule;
use crate::service::paging::ListParams;
use crate::service::store::{Db, StoreError, decode, skip_bad};

/// The meta key counting this generation's migrations.
const SCHEMA_KEY: &str = "event_destinations_schema";

/// This generation's migrations, applied in order.
const MIGRATIONS: &[&str] = &[
    // 1: records by kind (keyset-paged by id like pulsar's), the due index of deliveries, and
    // the destinations' secrets apart from their records (never rendered by mistake).
    "CREATE TABLE IF NOT EXISTS gen_records (
         kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
         PRIMARY KEY (kind, id)) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS gen_records_destination
         ON gen_records (kind, json_extract(data, '$.event_destination_id'), id);
     CREATE TABLE IF NOT EXISTS gen_due (
         delivery_id TEXT PRIMARY KEY, due_at INTEGER NOT NULL) WITHOUT ROWID;
     CREATE INDEX IF NOT EXISTS gen_due_at ON gen_due (due_at, delivery_id);
     CREATE TABLE IF NOT EXISTS gen_secrets (
         destination_id TEXT PRIMARY KEY, secret TEXT NOT NULL) WITHOUT ROWID;",
    // 2: the lookups made once per listed item (a delivery's attempts; callback-destinations'
    // notifications of a sent event or of a destination) read an index instead of every record
    // of the kind, so a walk over a long history is no longer quadratic in it.
    "CREATE INDEX IF NOT EXISTS gen_records_delivery
         ON gen_records (kind, json_extract(data, '$.event_delivery_id'), id);
     CREATE INDEX IF NOT EXISTS gen_records_sent_event
         ON gen_records (kind, json_extract(data, '$._event_id'), id);
     CREATE INDEX IF NOT EXISTS gen_records_sent_by
         ON gen_records (kind, json_extract(data, '$._destination_id'), id);",
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

/// One record.
pub fn get(db: &Db, kind: Stored, id: &str) -> Result<Option<Value>, StoreError> {
    let kind = kind.as_str();
    let data: Option<String> = db
        .conn()
        .prepare_cached("SELECT data FROM gen_records WHERE kind = ?1 AND id = ?2")?
        .query_row(params![kind, id], |r| r.get(0))
        .optional()?;
    data.map(|d| decode(kind, id, &d)).transpose()
}

/// Inserts or replaces a record (its `id` key names it).
pub fn put(db: &Db, kind: Stored, v: &Value) -> Result<(), StoreError> {
    let kind = kind.as_str();
    let id = v["id"].as_str().unwrap_or_default();
    db.conn()
        .prepare_cached(
            "INSERT INTO gen_records (kind, id, data) VALUES (?1, ?2, ?3)
             ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data",
        )?
        .execute(params![kind, id, v.to_string()])?;
    Ok(())
}

/// Deletes a record.
pub fn delete(db: &Db, kind: Stored, id: &str) -> Result<(), StoreError> {
    let kind = kind.as_str();
    db.conn()
        .prepare_cached("DELETE FROM gen_records WHERE kind = ?1 AND id = ?2")?
        .execute(params![kind, id])?;
    Ok(())
}

/// A filter on a record's field: `json_extract(data, '$.field') IN (…)`.
pub fn any_of(field: &str, values: Vec<String>) -> Option<(String, Vec<String>)> {
    if values.is_empty() {
        return None;
    }
    let marks = vec!["?"; values.len()].join(", ");
    Some((
        format!("json_extract(data, '$.{field}') IN ({marks})"),
        values,
    ))
}

/// One page of a kind's records matching `conditions`, decoded (one that does not decode is left
/// out and logged).
pub fn page(
    db: &Db,
    kind: Stored,
    mut conditions: Vec<(String, Vec<String>)>,
    p: &ListParams,
) -> Result<Page<Value>, StoreError> {
    let kind = kind.as_str();
    conditions.insert(0, ("kind = ?".into(), vec![kind.to_string()]));
    let raw = db.page_where("gen_records", &conditions, p)?;
    Ok(Page {
        items: raw
            .items
            .iter()
            .filter_map(|(id, data)| skip_bad(decode(kind, id, data)))
            .collect(),
        pagination: raw.pagination,
    })
}

/// Every record of a kind whose `field` equals `value`, by id.
pub fn all_with(db: &Db, kind: Stored, field: &str, value: &str) -> Result<Vec<Value>, StoreError> {
    let kind = kind.as_str();
    let mut stmt = db.conn().prepare_cached(&all_with_sql(field))?;
    let rows = stmt.query_map(params![kind, value], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, data) = row?;
        if let Some(v) = skip_bad(decode(kind, &id, &data)) {
            out.push(v);
        }
    }
    Ok(out)
}

/// The index over a field [`all_with`] looks items up by, where one exists.
fn index_on(field: &str) -> Option<&'static str> {
    Some(match field {
        "event_destination_id" => "gen_records_destination",
        "event_delivery_id" => "gen_records_delivery",
        "_event_id" => "gen_records_sent_event",
        "_destination_id" => "gen_records_sent_by",
        _ => return None,
    })
}

/// [`all_with`]'s query. The index is named: without `ANALYZE`'s statistics SQLite prefers the
/// primary key's `kind` prefix, reading every record of the kind for each lookup.
fn all_with_sql(field: &str) -> String {
    let indexed = index_on(field).map_or(String::new(), |i| format!(" INDEXED BY {i}"));
    format!(
        "SELECT id, data FROM gen_records{indexed} WHERE kind = ?1
         AND json_extract(data, '$.{field}') = ?2 ORDER BY id"
    )
}

/// Every record of a kind, by id.
pub fn all(db: &Db, kind: Stored) -> Result<Vec<Value>, StoreError> {
    let kind = kind.as_str();
    let mut stmt = db
        .conn()
        .prepare_cached("SELECT id, data FROM gen_records WHERE kind = ?1 ORDER BY id")?;
    let rows = stmt.query_map(params![kind], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, data) = row?;
        if let Some(v) = skip_bad(decode(kind, &id, &data)) {
            out.push(v);
        }
    }
    Ok(out)
}

/// Deliveries' next attempts.
pub static SCHEDULE: Schedule = Schedule::new("gen_due", "delivery_id");

/// Schedules a delivery's next attempt (unix ms), or takes it off the schedule.
pub fn set_due(db: &Db, delivery_id: &str, due_at: Option<i64>) -> Result<(), StoreError> {
    SCHEDULE.set(db, delivery_id, due_at)
}

/// A destination's signing secret.
pub fn secret(db: &Db, destination_id: &str) -> Result<Option<String>, StoreError> {
    Ok(db
        .conn()
        .prepare_cached("SELECT secret FROM gen_secrets WHERE destination_id = ?1")?
        .query_row(params![destination_id], |r| r.get(0))
        .optional()?)
}

/// Sets a destination's signing secret (the old one stops at once).
pub fn set_secret(db: &Db, destination_id: &str, secret: &str) -> Result<(), StoreError> {
    db.conn()
        .prepare_cached(
            "INSERT INTO gen_secrets (destination_id, secret) VALUES (?1, ?2)
             ON CONFLICT (destination_id) DO UPDATE SET secret = excluded.secret",
        )?
        .execute(params![destination_id, secret])?;
    Ok(())
}

/// The newest id of each kind (ids of one kind share their prefix, so the largest is the newest):
/// the id clock starts after them, whatever the wall clock says after a restart.
pub fn newest_ids(db: &Db) -> Result<Vec<String>, StoreError> {
    let mut stmt = db
        .conn()
        .prepare("SELECT MAX(id) FROM gen_records GROUP BY kind")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::Store;

    /// The plan SQLite makes for `all_with` on `field`, as its detail lines.
    fn plan(store: &Store, field: &str) -> Vec<String> {
        store.with(|db| {
            let sql = format!("EXPLAIN QUERY PLAN {}", all_with_sql(field));
            let mut stmt = db.conn().prepare(&sql).expect("plan");
            stmt.query_map(params!["attempt", "x"], |r| r.get::<_, String>(3))
                .expect("rows")
                .collect::<Result<Vec<_>, _>>()
                .expect("plan rows")
        })
    }

    #[test]
    fn the_per_item_lookups_read_an_index_not_every_record_of_the_kind() {
        let store = Store::open(None).expect("store");
        store.write(migrate).expect("migrations");
        for field in [
            "event_delivery_id",
            "_event_id",
            "_destination_id",
            "event_destination_id",
        ] {
            let index = index_on(field).expect("an index");
            let plan = plan(&store, field).join(" / ");
            assert!(
                plan.contains(&format!("USING INDEX {index} (kind=? AND <expr>=?)")),
                "{field}: {plan}"
            );
        }
    }
}
