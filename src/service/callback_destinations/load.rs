//! `serve --load FILE` of a `callback-destinations` bundle (issue 39): the callbacks (their
//! destinations those of the bundle), the destinations (the bundle's fresh secrets, or
//! `--signing-secret-env`'s; `--rewrite-destinations`'s URL; the delivery service's ids and retry
//! as their notifications showed them), the events sent and every notification as recorded, under
//! the same ids, none due: this generation has no server-side retry, so nothing is sent until
//! `notifications recover` or `replay` sends it from the client. The lines are read and checked
//! as the other generations' are ([`crate::service::load_newer::records`]).
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use serde_json::{Map, Value, json};

use super::db::{self, kind};
use super::destinations::default_retry;
use crate::api::Secret;
use crate::api::model::{
    CallbackDestination, CallbackNotification, DeploymentCallback, NotificationEvent,
};
use crate::service::ids::new_id;
use crate::service::load::{LoadError, Loaded, id_shaped};
use crate::service::load_newer::{Refuse, check_counts, records};
use crate::service::store::{Db, StoreError};

/// The records of a `callback-destinations` bundle, read and checked.
#[derive(Debug, Clone, Default)]
pub struct Callbacks {
    callbacks: Vec<Value>,
    destinations: Vec<Value>,
    events: Vec<Value>,
    notifications: Vec<Value>,
}

/// Whether `id` is an id of any kind: a short lowercase prefix, `_`, letters and digits (the
/// delivery service's own ids in a notification's destination preview).
fn any_id(id: &str) -> bool {
    id.split_once('_').is_some_and(|(p, _)| {
        (1..=10).contains(&p.len())
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && id_shaped(id, p)
    })
}

/// The record as a map without `kind` and without anything private (`_…`: the loader sets those).
fn fields(v: &Value) -> Map<String, Value> {
    let mut m = v.as_object().cloned().unwrap_or_default();
    m.retain(|k, _| !k.starts_with('_'));
    m
}

fn text<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// Checks a notification's references: the callback it is under, the destination that sent it,
/// its event and the ids of its destination preview.
fn check_notification(v: &Value, n: &CallbackNotification) -> Result<(), String> {
    let id = &n.id;
    if !text(v, "callback_id").is_some_and(|c| id_shaped(c, "cbk")) {
        return Err(format!("notification {id} names no cbk_… callback_id"));
    }
    match v.get("destination_id") {
        None | Some(Value::Null) => {}
        Some(d) if d.as_str().is_some_and(|d| id_shaped(d, "cbd")) => {}
        Some(_) => return Err(format!("notification {id} names a bad destination_id")),
    }
    if n.event.as_ref().is_some_and(|e| !id_shaped(&e.id, "sev")) {
        return Err(format!("notification {id} names a bad event id"));
    }
    if let Some(p) = &n.destination {
        let webhook_ok = p.webhook.as_ref().is_none_or(|w| any_id(&w.id));
        if !any_id(&p.id) || !webhook_ok {
            return Err(format!("notification {id}'s destination names a bad id"));
        }
    }
    Ok(())
}

/// Reads the lines after the manifest (`line` is the manifest's): callbacks, destinations,
/// events and notifications, each decoded as the wire type with its ids' shapes checked, then
/// the manifest's counts.
///
/// # Errors
/// [`LoadError::Io`] (through `io`) or a refusal naming the line.
pub fn read_rest(
    r: &mut impl BufRead,
    line: usize,
    manifest: &Value,
    refuse: Refuse<'_>,
    io: &dyn Fn(std::io::Error) -> LoadError,
) -> Result<Callbacks, LoadError> {
    let mut out = Callbacks::default();
    let kinds = [
        ("callback", "cbk"),
        ("destination", "cbd"),
        ("event", "sev"),
        ("notification", "sdi"),
    ];
    let line = records(r, line, &kinds, refuse, io, |line, prefix, id, v, _| {
        let bad = |what: &str, e: serde_json::Error| refuse(line, format!("not a {what} ({e})"));
        match prefix {
            "cbk" => {
                let c = serde_json::from_value::<DeploymentCallback>(v.clone())
                    .map_err(|e| bad("callback", e))?;
                if c.destinations.iter().any(|d| !id_shaped(&d.id, "cbd")) {
                    return Err(refuse(
                        line,
                        format!("callback {id} names a bad destination"),
                    ));
                }
                out.callbacks.push(v);
            }
            "cbd" => {
                serde_json::from_value::<CallbackDestination>(v.clone())
                    .map_err(|e| bad("destination", e))?;
                out.destinations.push(v);
            }
            "sev" => {
                serde_json::from_value::<NotificationEvent>(v.clone())
                    .map_err(|e| bad("event", e))?;
                if text(&v, "callback_id").is_some_and(|c| !id_shaped(c, "cbk")) {
                    return Err(refuse(line, format!("event {id} names a bad callback_id")));
                }
                out.events.push(v);
            }
            _ => {
                let n = serde_json::from_value::<CallbackNotification>(v.clone())
                    .map_err(|e| bad("notification", e))?;
                check_notification(&v, &n).map_err(|why| refuse(line, why))?;
                out.notifications.push(v);
            }
        }
        Ok(())
    })?;
    let attempts = out.attempts();
    check_counts(
        manifest,
        line,
        &[
            ("callbacks", out.callbacks.len(), true),
            ("destinations", out.destinations.len(), true),
            ("events", out.events.len(), true),
            ("notifications", out.notifications.len(), true),
            ("attempts", attempts, true),
        ],
        refuse,
    )?;
    Ok(out)
}

impl Callbacks {
    fn attempts(&self) -> usize {
        self.notifications
            .iter()
            .filter_map(|n| n.get("attempt_count").and_then(Value::as_u64))
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .fold(0, usize::saturating_add)
    }

    /// Points every destination at `url`, and signs every destination with `secret`, when given.
    pub fn rewrite(&mut self, url: Option<&url::Url>, secret: Option<&Secret>) {
        for d in &mut self.destinations {
            if let Some(u) = url {
                d["url"] = json!(u.to_string());
            }
            if let Some(s) = secret {
                d["signing_secret"] = json!(s.expose());
            }
        }
    }
}

/// Writes the records into `d` (one transaction), refused when the newer generations' tables
/// hold anything; nothing is put on the schedule.
///
/// # Errors
/// [`LoadError::NotEmpty`] or the database's error.
pub fn write(d: &Db, c: &Callbacks, generation: &str, shown: &str) -> Result<Loaded, LoadError> {
    crate::service::event_destinations::db::migrate(d)?;
    db::migrate(d)?;
    let held: i64 = d
        .conn()
        .query_row("SELECT COUNT(*) FROM gen_records", [], |r| r.get(0))
        .map_err(StoreError::from)?;
    if held > 0 {
        return Err(LoadError::NotEmpty(shown.to_string()));
    }
    // How each destination's notifications showed it: the delivery service's ids and retry.
    let mut previews: BTreeMap<&str, &Value> = BTreeMap::new();
    for n in &c.notifications {
        if let (Some(id), Some(p)) = (text(n, "destination_id"), n.get("destination")) {
            previews.entry(id).or_insert(p);
        }
    }
    let mut loaded = BTreeSet::new();
    for dest in &c.destinations {
        let mut rec = fields(dest);
        let id = text(dest, "id").unwrap_or_default().to_string();
        let secret = text(dest, "signing_secret")
            .filter(|s| !s.is_empty())
            .map_or_else(
                crate::service::event_destinations::destinations::new_secret,
                str::to_string,
            );
        // The secret lives apart.
        rec.remove("signing_secret");
        let p = previews.get(id.as_str()).copied().unwrap_or(&Value::Null);
        let own = |v: Option<&str>, prefix: &str| {
            v.filter(|v| *v != id)
                .map_or_else(|| new_id(prefix), str::to_string)
        };
        rec.insert(
            "_retry".into(),
            p.get("retry")
                .filter(|r| r.is_object())
                .cloned()
                .unwrap_or_else(default_retry),
        );
        rec.insert("_sed_id".into(), json!(own(text(p, "id"), "sed")));
        rec.insert(
            "_webhook_id".into(),
            json!(own(p.get("webhook").and_then(|w| text(w, "id")), "sdw")),
        );
        let at = p
            .get("webhook")
            .and_then(|w| w.get("created_at"))
            .or_else(|| p.get("created_at"))
            .or_else(|| dest.get("created_at"))
            .cloned()
            .unwrap_or(Value::Null);
        rec.insert("_webhook_created_at".into(), at);
        db::put(d, kind::DESTINATION, &Value::Object(rec))?;
        db::set_secret(d, &id, &secret)?;
        loaded.insert(id);
    }
    for cb in &c.callbacks {
        let mut rec = fields(cb);
        // Its destinations are those loaded; the rest were not exported.
        let ids: Vec<Value> = cb["destinations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| text(d, "id"))
            .filter(|id| loaded.contains(*id))
            .map(Value::from)
            .collect();
        rec.insert("destinations".into(), json!([]));
        rec.insert("_destination_ids".into(), Value::Array(ids));
        db::put(d, kind::CALLBACK, &Value::Object(rec))?;
    }
    for e in &c.events {
        let mut rec = fields(e);
        let cb = rec.remove("callback_id").unwrap_or(Value::Null);
        rec.insert("_callback_id".into(), cb);
        rec.insert("_cbe_id".into(), Value::Null);
        db::put(d, kind::SENT_EVENT, &Value::Object(rec))?;
    }
    for n in &c.notifications {
        let mut rec = fields(n);
        for k in ["event", "destination", "callback_id", "destination_id"] {
            rec.remove(k);
        }
        let event = n.get("event").and_then(|e| text(e, "id")).unwrap_or("");
        rec.insert("_callback_id".into(), json!(text(n, "callback_id")));
        rec.insert(
            "_destination_id".into(),
            json!(text(n, "destination_id").unwrap_or("")),
        );
        rec.insert("_event_id".into(), json!(event));
        // Kept as recorded, off the schedule: nothing is sent until recover or replay asks.
        db::put(d, kind::NOTIFICATION, &Value::Object(rec))?;
    }
    Ok(Loaded {
        generation: generation.to_string(),
        callbacks: c.callbacks.len(),
        destinations: c.destinations.len(),
        events: c.events.len(),
        notifications: c.notifications.len(),
        attempts: c.attempts(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_ids_are_any_kind_but_shaped() {
        assert!(any_id("sed_01abc") && any_id("sdw_X9"));
        for bad in [
            "sed_",
            "_abc",
            "sed_../x",
            "SED_1",
            "sed_a\u{1b}[2J",
            "nounderscore",
        ] {
            assert!(!any_id(bad), "{bad:?}");
        }
    }
}
