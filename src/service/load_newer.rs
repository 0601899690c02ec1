//! `serve --load FILE` of an `event-destinations` bundle (issue 39): the event destinations (the
//! bundle's fresh secrets, or `--signing-secret-env`'s; `--rewrite-destinations`'s URL; no
//! listeners, so nothing new is routed to them), the events and every delivery with its attempts
//! as recorded, under the same ids, none due (no retry runs) until the platform's retry
//! (`notifications recover`) asks. The lines are checked as pulsar's are ([`super::load`]).
use crate::service::event_destinations::stored::Stored;
use std::collections::BTreeSet;
use std::io::BufRead;

use serde_json::{Value, json};

use super::event_destinations::db;
use super::load::{LoadError, Loaded, MAX_LINE, MAX_RECORDS, id_shaped, next_line};
use super::store::{Db, StoreError};
use crate::api::Secret;
use crate::api::model::{EventDelivery, EventDestination};

/// The records of an `event-destinations` bundle, read and checked.
#[derive(Debug, Clone, Default)]
pub struct Newer {
    destinations: Vec<Value>,
    events: Vec<Value>,
    deliveries: Vec<Value>,
}

/// A refusal naming the line.
pub type Refuse<'a> = &'a dyn Fn(usize, String) -> LoadError;

/// Reads each record line after the manifest (`line` is the manifest's), within the caps: JSON,
/// a kind of `kinds` (kind, id prefix), its id shaped and never seen before; `each` gets the
/// line, the id's prefix, the id, the record without its `kind` and the ids seen so far (for the
/// ids a record holds). Returns the last line read.
///
/// # Errors
/// [`LoadError::Io`] (through `io`), a refusal naming the line, or `each`'s.
pub fn records(
    r: &mut impl BufRead,
    mut line: usize,
    kinds: &[(&str, &'static str)],
    refuse: Refuse<'_>,
    io: &dyn Fn(std::io::Error) -> LoadError,
    mut each: impl FnMut(
        usize,
        &'static str,
        String,
        Value,
        &mut BTreeSet<String>,
    ) -> Result<(), LoadError>,
) -> Result<usize, LoadError> {
    let mut seen = BTreeSet::new();
    let mut buf = Vec::new();
    while let Some(fits) = next_line(r, &mut buf).map_err(io)? {
        line += 1;
        if !fits {
            return Err(refuse(line, format!("longer than {MAX_LINE} bytes")));
        }
        if line > MAX_RECORDS {
            return Err(refuse(line, format!("more than {MAX_RECORDS} records")));
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut v: Value =
            serde_json::from_slice(&buf).map_err(|e| refuse(line, format!("not JSON ({e})")))?;
        let what = v
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let prefix = match kinds.iter().find(|(k, _)| *k == what) {
            Some((_, p)) => *p,
            None if what == "manifest" => return Err(refuse(line, "a second manifest".into())),
            None => return Err(refuse(line, format!("unknown kind {what:?}"))),
        };
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if !id_shaped(&id, prefix) {
            return Err(refuse(
                line,
                format!("{what} id {id:?} is not a {prefix}_… id"),
            ));
        }
        if !seen.insert(id.clone()) {
            return Err(refuse(line, format!("{what} {id} twice")));
        }
        if let Value::Object(m) = &mut v {
            m.remove("kind");
        }
        each(line, prefix, id, v, &mut seen)?;
    }
    Ok(line)
}

/// Checks what the bundle held against the manifest's counts (what, held, whether the manifest
/// must count it: bundles written before a kind was exported count none).
///
/// # Errors
/// A refusal naming the last line when a count differs (a bundle cut short).
pub fn check_counts(
    manifest: &Value,
    line: usize,
    held: &[(&str, usize, bool)],
    refuse: Refuse<'_>,
) -> Result<(), LoadError> {
    for &(what, held, needed) in held {
        let said = match manifest["counts"].get(what) {
            None if !needed => Some(0),
            c => c.and_then(Value::as_u64),
        };
        if said != u64::try_from(held).ok() {
            return Err(refuse(
                line,
                format!(
                    "the manifest counts {} {what} but the bundle holds {held} (cut short?)",
                    said.map_or_else(|| "no".to_string(), |n| n.to_string())
                ),
            ));
        }
    }
    Ok(())
}

/// Reads the lines after the manifest (`line` is the manifest's): destinations, events and
/// deliveries with their attempts, each id checked for its shape, then the manifest's counts.
///
/// # Errors
/// [`LoadError::Io`] (through `io`) or a refusal naming the line.
pub fn read_rest(
    r: &mut impl BufRead,
    line: usize,
    manifest: &Value,
    refuse: Refuse<'_>,
    io: &dyn Fn(std::io::Error) -> LoadError,
) -> Result<Newer, LoadError> {
    let mut out = Newer::default();
    let kinds = [
        ("destination", "evtd"),
        ("event", "evnt"),
        ("delivery", "evdi"),
    ];
    let line = records(r, line, &kinds, refuse, io, |line, prefix, id, v, seen| {
        match prefix {
            "evtd" => {
                serde_json::from_value::<EventDestination>(v.clone())
                    .map_err(|e| refuse(line, format!("not a destination ({e})")))?;
                out.destinations.push(v);
            }
            "evnt" => {
                if !v.is_object() {
                    return Err(refuse(line, "not an event".into()));
                }
                out.events.push(v);
            }
            _ => {
                let d = serde_json::from_value::<EventDelivery>(v.clone())
                    .map_err(|e| refuse(line, format!("not a delivery ({e})")))?;
                if !id_shaped(&d.event_id, "evnt") || !id_shaped(&d.event_destination_id, "evtd") {
                    return Err(refuse(line, format!("delivery {id} names a bad id")));
                }
                let attempts = v.get("attempts").and_then(Value::as_array);
                for a in attempts.into_iter().flatten() {
                    let aid = a.get("id").and_then(Value::as_str).unwrap_or_default();
                    let of = a.get("event_delivery_id").and_then(Value::as_str);
                    if !id_shaped(aid, "evda") || of.is_some_and(|o| o != id) {
                        return Err(refuse(
                            line,
                            format!("attempt id {aid:?} is not an evda_… id of {id}"),
                        ));
                    }
                    if !seen.insert(aid.to_string()) {
                        return Err(refuse(line, format!("attempt {aid} twice")));
                    }
                }
                out.deliveries.push(v);
            }
        }
        Ok(())
    })?;
    let attempts = out.attempts();
    check_counts(
        manifest,
        line,
        &[
            ("destinations", out.destinations.len(), true),
            ("events", out.events.len(), false),
            ("deliveries", out.deliveries.len(), true),
            ("attempts", attempts, true),
        ],
        refuse,
    )?;
    Ok(out)
}

impl Newer {
    fn attempts(&self) -> usize {
        self.deliveries
            .iter()
            .map(|d| d["attempts"].as_array().map_or(0, Vec::len))
            .sum()
    }

    /// Points every destination and recorded attempt at `url`, and signs every destination with
    /// `secret`, when given.
    pub fn rewrite(&mut self, url: Option<&url::Url>, secret: Option<&Secret>) {
        for d in &mut self.destinations {
            if !d["webhook"].is_object() {
                continue;
            }
            if let Some(u) = url {
                d["webhook"]["url"] = json!(u.to_string());
            }
            if let Some(s) = secret {
                d["webhook"]["signing_secret"] = json!(s.expose());
            }
        }
        let Some(u) = url else { return };
        for d in &mut self.deliveries {
            for a in d["attempts"].as_array_mut().into_iter().flatten() {
                if a["request"].is_object() {
                    a["request"]["url"] = json!(u.to_string());
                }
            }
        }
    }
}

/// Writes the records into `d` (one transaction), refused when the generation's tables hold
/// anything; nothing is put on the schedule.
///
/// # Errors
/// [`LoadError::NotEmpty`] or the database's error.
pub fn write(d: &Db, newer: &Newer, generation: &str, shown: &str) -> Result<Loaded, LoadError> {
    db::migrate(d)?;
    let held: i64 = d
        .conn()
        .query_row("SELECT COUNT(*) FROM gen_records", [], |r| r.get(0))
        .map_err(StoreError::from)?;
    if held > 0 {
        return Err(LoadError::NotEmpty(shown.to_string()));
    }
    for dest in &newer.destinations {
        let mut dest = dest.clone();
        let id = dest["id"].as_str().unwrap_or_default().to_string();
        let secret = dest["webhook"]["signing_secret"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map_or_else(
                super::event_destinations::destinations::new_secret,
                str::to_string,
            );
        // The secret lives apart; listeners are not loaded, so no new event is routed here.
        if dest["webhook"].is_object() {
            dest["webhook"]["signing_secret"] = Value::Null;
        }
        dest["listeners"] = json!([]);
        db::put(d, Stored::Destination, &dest)?;
        db::set_secret(d, &id, &secret)?;
    }
    for e in &newer.events {
        db::put(d, Stored::Event, e)?;
    }
    let mut attempts = 0;
    for delivery in &newer.deliveries {
        let mut delivery = delivery.clone();
        let id = delivery["id"].as_str().unwrap_or_default().to_string();
        let list = delivery
            .as_object_mut()
            .and_then(|m| m.remove("attempts"))
            .unwrap_or_default();
        for mut a in list.as_array().cloned().unwrap_or_default() {
            a["event_delivery_id"] = json!(id);
            db::put(d, Stored::Attempt, &a)?;
            attempts += 1;
        }
        // Kept as recorded, off the schedule: no retry runs until one is asked.
        db::put(d, Stored::Delivery, &delivery)?;
    }
    Ok(Loaded {
        generation: generation.to_string(),
        destinations: newer.destinations.len(),
        events: newer.events.len(),
        notifications: newer.deliveries.len(),
        attempts,
        ..Loaded::default()
    })
}
