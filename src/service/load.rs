//! `serve --load FILE` (issue 39): an export bundle (`notifications export`, NDJSON) written into
//! an empty database, so the local service holds exactly that history under the same ids: the
//! callbacks (a fresh hook key for a manual one), the destinations (the bundle's fresh secrets,
//! or `--signing-secret-env`'s; `--rewrite-destinations`'s URL) and every notification with its
//! attempts as recorded, none due (no retry runs) until `recover` sends it again.
//!
//! A bundle is data from elsewhere: every line is read within a cap, decoded into the wire types
//! (nothing in it is run or followed), ids are checked against their shape (no `..`, no
//! controls), the counts must be the manifest's (a truncated bundle is refused), and any refusal
//! names the line. Text inside (names, bodies) is stored as data; every face sanitises it.
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ids::random_alnum;
use super::records::{CallbackRec, DestinationRec};
use super::store::{NotificationKeys, Store, StoreError};
use crate::api::Secret;
use crate::api::export::FORMAT;
use crate::api::model::{Callback, CallbackType, Destination, Notification};
use crate::api::replay;

/// Bytes of one bundle line at most (a notification with its attempts).
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Bytes of a whole bundle at most.
pub const MAX_BUNDLE: u64 = 1024 * 1024 * 1024;
/// Records of a bundle at most.
pub const MAX_RECORDS: usize = 1_000_000;

/// How a bundle is loaded.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The bundle.
    pub file: PathBuf,
    /// Where every destination (and every recorded delivery) points instead of the exported URL.
    pub rewrite_destinations: Option<url::Url>,
    /// Every destination's signing secret instead of the bundle's.
    pub signing_secret: Option<Secret>,
}

/// What a load wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The bundle's generation (`pulsar`, `callback-destinations` or `event-destinations`).
    pub generation: String,
    /// Callbacks written.
    pub callbacks: usize,
    /// Destinations written.
    pub destinations: usize,
    /// Events written (the newer generations').
    pub events: usize,
    /// Notifications (deliveries) written.
    pub notifications: usize,
    /// Attempts they hold.
    pub attempts: usize,
}

/// Why a bundle was not loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("bundle {path}: {source}")]
    Io {
        /// The bundle.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The bundle is not one this switchboard loads; `line` is 1-based (0: the whole file).
    #[error("bundle {path}, line {line}: {why}")]
    Refused {
        /// The bundle.
        path: String,
        /// Where.
        line: usize,
        /// What is wrong, in one sentence.
        why: String,
    },
    /// The database holds data already.
    #[error(
        "the database {0} already holds data; --load needs a new --db (a bundle is loaded once)"
    )]
    NotEmpty(String),
    /// The database failed.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// Another service holds the database.
    #[error("{0}")]
    Locked(#[from] super::lock::LockError),
}

/// A bundle read and checked, not yet written.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    /// The manifest's generation.
    pub generation: String,
    callbacks: Vec<Callback>,
    destinations: Vec<Destination>,
    /// Each notification and the destination the bundle names for it.
    notifications: Vec<(Notification, Option<String>)>,
    /// An `event-destinations` bundle's records.
    newer: super::load_newer::Newer,
    /// A `callback-destinations` bundle's records.
    callbacks_gen: super::callback_destinations::load::Callbacks,
}

/// Whether `id` is `<prefix>_` and 1 to 100 ASCII letters and digits.
pub(super) fn id_shaped(id: &str, prefix: &str) -> bool {
    id.strip_prefix(prefix)
        .and_then(|t| t.strip_prefix('_'))
        .is_some_and(|t| {
            (1..=100).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// Reads lines of at most [`MAX_LINE`] bytes: a longer one is an error, never held whole.
pub(super) fn next_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
    buf.clear();
    let limit = u64::try_from(MAX_LINE)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let n = r.by_ref().take(limit).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(true));
    }
    // No newline: the end of the file, or a line past the cap.
    Ok(Some(buf.len() <= MAX_LINE))
}

/// Reads and checks a bundle: the manifest first (format, generation, counts), then callbacks,
/// destinations and notifications, each decoded as the wire type with its id's shape checked.
///
/// # Errors
/// [`LoadError::Io`] or [`LoadError::Refused`] naming the line.
pub fn read(path: &Path) -> Result<Bundle, LoadError> {
    let shown = crate::text::line(&path.display().to_string()).into_owned();
    let io = |source| LoadError::Io {
        path: shown.clone(),
        source,
    };
    let refuse = |line: usize, why: String| LoadError::Refused {
        path: shown.clone(),
        line,
        why: crate::text::line(&why).into_owned(),
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size > MAX_BUNDLE {
        return Err(refuse(
            0,
            format!("{size} bytes, more than the {MAX_BUNDLE} a bundle may hold"),
        ));
    }
    let mut r = BufReader::new(file);
    let mut buf = Vec::new();
    let mut bundle = Bundle::default();
    let mut manifest: Option<Value> = None;
    let mut line = 0usize;
    let mut seen = BTreeSet::new();
    while let Some(fits) = next_line(&mut r, &mut buf).map_err(io)? {
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
        let v: Value =
            serde_json::from_slice(&buf).map_err(|e| refuse(line, format!("not JSON ({e})")))?;
        let what = v.get("kind").and_then(Value::as_str).unwrap_or_default();
        if manifest.is_none() && what != "manifest" {
            return Err(refuse(line, "the manifest must come first".into()));
        }
        let decode = |prefix: &str| -> Result<String, LoadError> {
            let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
            if !id_shaped(id, prefix) {
                return Err(refuse(
                    line,
                    format!("{what} id {id:?} is not a {prefix}_… id"),
                ));
            }
            Ok(id.to_string())
        };
        match what {
            "manifest" if manifest.is_none() => {
                if v.get("format").and_then(Value::as_u64) != Some(u64::from(FORMAT)) {
                    return Err(refuse(
                        line,
                        format!(
                            "format {} is not {FORMAT}, the one this switchboard reads",
                            v.get("format").map(Value::to_string).unwrap_or_default()
                        ),
                    ));
                }
                v.get("generation")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .clone_into(&mut bundle.generation);
                if bundle.generation == "event-destinations" {
                    bundle.newer = super::load_newer::read_rest(&mut r, line, &v, &refuse, &io)?;
                    return Ok(bundle);
                }
                if bundle.generation == "callback-destinations" {
                    bundle.callbacks_gen = super::callback_destinations::load::read_rest(
                        &mut r, line, &v, &refuse, &io,
                    )?;
                    return Ok(bundle);
                }
                if bundle.generation != "pulsar" {
                    return Err(refuse(
                        line,
                        format!(
                            "a bundle of the {:?} generation cannot be loaded (pulsar, \
                             callback-destinations and event-destinations only)",
                            bundle.generation
                        ),
                    ));
                }
                manifest = Some(v);
            }
            "manifest" => return Err(refuse(line, "a second manifest".into())),
            "callback" => {
                let id = decode("clb")?;
                let c: Callback = serde_json::from_value(v)
                    .map_err(|e| refuse(line, format!("not a callback ({e})")))?;
                if !seen.insert(id.clone()) {
                    return Err(refuse(line, format!("callback {id} twice")));
                }
                bundle.callbacks.push(c);
            }
            "destination" => {
                let id = decode("cld")?;
                let named = v
                    .get("callbacks")
                    .and_then(|c| c.get("callback_ids"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .all(|c| c.as_str().is_some_and(|c| id_shaped(c, "clb")));
                if !named {
                    return Err(refuse(line, format!("destination {id} selects a bad id")));
                }
                let d: Destination = serde_json::from_value(v)
                    .map_err(|e| refuse(line, format!("not a destination ({e})")))?;
                if !seen.insert(id.clone()) {
                    return Err(refuse(line, format!("destination {id} twice")));
                }
                bundle.destinations.push(d);
            }
            "notification" => {
                let id = decode("cbn")?;
                let dest = match v.get("destination_id") {
                    None | Some(Value::Null) => None,
                    Some(d) => match d.as_str() {
                        Some(d) if id_shaped(d, "cld") => Some(d.to_string()),
                        _ => return Err(refuse(line, format!("destination id {d} is bad"))),
                    },
                };
                let n: Notification = serde_json::from_value(v)
                    .map_err(|e| refuse(line, format!("not a notification ({e})")))?;
                if let Some(a) = n.attempts.iter().find(|a| !id_shaped(&a.id, "cbna")) {
                    return Err(refuse(
                        line,
                        format!("attempt id {:?} is not a cbna_… id", a.id),
                    ));
                }
                if !seen.insert(id.clone()) {
                    return Err(refuse(line, format!("notification {id} twice")));
                }
                bundle.notifications.push((n, dest));
            }
            other => return Err(refuse(line, format!("unknown kind {other:?}"))),
        }
    }
    let Some(manifest) = manifest else {
        return Err(refuse(0, "empty: no manifest".into()));
    };
    let attempts: usize = bundle
        .notifications
        .iter()
        .map(|(n, _)| n.attempts.len())
        .sum();
    for (what, held) in [
        ("callbacks", bundle.callbacks.len()),
        ("destinations", bundle.destinations.len()),
        ("notifications", bundle.notifications.len()),
        ("attempts", attempts),
    ] {
        let said = manifest["counts"][what].as_u64();
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
    Ok(bundle)
}

impl Bundle {
    /// Points every destination and recorded delivery at `url`, and signs every destination with
    /// `secret`, when given.
    pub fn rewrite(&mut self, url: Option<&url::Url>, secret: Option<&Secret>) {
        self.newer.rewrite(url, secret);
        self.callbacks_gen.rewrite(url, secret);
        for d in &mut self.destinations {
            if let Some(w) = d.webhook_destination.as_mut() {
                if let Some(u) = url {
                    w.url = u.to_string();
                }
                if let Some(s) = secret {
                    s.expose().clone_into(&mut w.signing_secret);
                }
            }
        }
        let Some(u) = url else { return };
        for (n, _) in &mut self.notifications {
            // The deliveries point where their destination does, so a replay still finds it.
            if n.url.is_some() {
                n.url = Some(u.to_string());
            }
            for a in &mut n.attempts {
                if let Some(r) = a.webhook_request.as_mut() {
                    r.url = u.to_string();
                }
            }
        }
    }

    /// The destination a notification belongs to: the one the bundle names, else the one whose
    /// URL and callbacks match its deliveries.
    fn destination_of(&self, n: &Notification, named: Option<&String>) -> String {
        if let Some(d) = named {
            return d.clone();
        }
        let callback = n.body_field("callbackId");
        let url = n
            .attempts
            .iter()
            .find_map(|a| a.webhook_request.as_ref().map(|r| r.url.clone()))
            .or_else(|| n.url.clone());
        replay::matching(&self.destinations, url.as_deref(), callback.as_deref())
            .first()
            .map(|d| d.id.clone())
            .unwrap_or_default()
    }
}

/// Writes `bundle` into the database at `db` (created when missing), refused when it holds
/// data; the database's lock is held meanwhile.
///
/// # Errors
/// [`LoadError::NotEmpty`], the lock's or the database's error.
pub fn write(db: &Path, bundle: &Bundle) -> Result<Loaded, LoadError> {
    if let Some(parent) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| LoadError::Io {
            path: parent.display().to_string(),
            source,
        })?;
    }
    let _lock = super::lock::DbLock::acquire(db)?;
    let store = Store::open(Some(db))?;
    let shown = crate::text::line(&db.display().to_string()).into_owned();
    store.write(|d| -> Result<Loaded, LoadError> {
        let held: i64 = d
            .conn()
            .query_row(
                "SELECT (SELECT COUNT(*) FROM records) + (SELECT COUNT(*) FROM notifications)
                      + (SELECT COUNT(*) FROM meta WHERE key = 'organization_id')",
                [],
                |r| r.get(0),
            )
            .map_err(StoreError::from)?;
        if held > 0 {
            return Err(LoadError::NotEmpty(shown.clone()));
        }
        if bundle.generation == "event-destinations" {
            return super::load_newer::write(d, &bundle.newer, &bundle.generation, &shown);
        }
        if bundle.generation == "callback-destinations" {
            return super::callback_destinations::load::write(
                d,
                &bundle.callbacks_gen,
                &bundle.generation,
                &shown,
            );
        }
        for c in &bundle.callbacks {
            let mut c = c.clone();
            // The exported hook URL was left out; a manual callback gets a fresh one here.
            c.url = None;
            let rec = CallbackRec {
                hook_key: (c.kind == CallbackType::WebhookManual).then(|| random_alnum(32)),
                callback: c,
                event_types: Vec::new(),
            };
            d.save(&rec)?;
        }
        for dest in &bundle.destinations {
            let rec = DestinationRec {
                destination: dest.clone(),
                active: true,
            };
            d.save(&rec)?;
        }
        let mut attempts = 0;
        for (n, named) in &bundle.notifications {
            attempts += n.attempts.len();
            let recorded = replay::recorded_request(n, None).ok().map(|(_, r)| r);
            let body = recorded
                .and_then(|r| r.request_body.clone())
                .unwrap_or_default();
            let keys = NotificationKeys {
                event_id: n.body_field("eventId").unwrap_or_default(),
                callback_id: n.body_field("callbackId").unwrap_or_default(),
                destination_id: bundle.destination_of(n, named.as_ref()),
                // Never empty: an empty body means "built from the event row", which there is not.
                body: if body.is_empty() { " ".into() } else { body },
            };
            // Kept as recorded: nothing is due, so no retry runs.
            d.save_notification(n, &keys, None)?;
        }
        Ok(Loaded {
            generation: bundle.generation.clone(),
            callbacks: bundle.callbacks.len(),
            destinations: bundle.destinations.len(),
            notifications: bundle.notifications.len(),
            attempts,
            ..Loaded::default()
        })
    })
}

/// Reads, rewrites as asked and writes a bundle into `db`.
///
/// # Errors
/// See [`read`] and [`write`].
pub fn load(db: &Path, opts: &LoadOptions) -> Result<Loaded, LoadError> {
    let mut bundle = read(&opts.file)?;
    bundle.rewrite(
        opts.rewrite_destinations.as_ref(),
        opts.signing_secret.as_ref(),
    );
    write(db, &bundle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_for_shape() {
        assert!(id_shaped("cbn_01ABCxyz", "cbn"));
        for bad in [
            "cbn_",
            "cbn_../x",
            "cbn_a\u{1b}[2J",
            "cld_abc",
            "cbnabc",
            "cbn_a b",
        ] {
            assert!(!id_shaped(bad, "cbn"), "{bad:?}");
        }
    }

    fn bundle(text: &str) -> Result<Bundle, LoadError> {
        let dir = tempfile::tempdir().expect("dir");
        let p = dir.path().join("b.ndjson");
        std::fs::write(&p, text).expect("write");
        read(&p)
    }

    #[test]
    fn hostile_bundles_are_refused_naming_the_line() {
        let manifest = r#"{"kind":"manifest","format":1,"generation":"pulsar","counts":{"callbacks":0,"destinations":0,"notifications":0,"attempts":0}}"#;
        assert!(bundle(manifest).is_ok());
        let cases = [
            ("", "no manifest"),
            ("{not json", "line 1: not JSON"),
            (
                r#"{"kind":"callback","id":"clb_1"}"#,
                "manifest must come first",
            ),
            (
                &format!("{manifest}\n{{\"kind\":\"notification\",\"id\":\"cbn_../../x\"}}"),
                "line 2: notification id",
            ),
            (
                &format!("{manifest}\n{{\"kind\":\"shell\",\"id\":\"x\"}}"),
                "unknown kind",
            ),
            (
                &manifest.replace("\"notifications\":0", "\"notifications\":3"),
                "cut short",
            ),
            (
                &manifest.replace("\"format\":1", "\"format\":9"),
                "format 9",
            ),
            (
                &manifest.replace("pulsar", "teleport"),
                "\"teleport\" generation cannot be loaded",
            ),
        ];
        for (text, says) in cases {
            let e = bundle(text).expect_err(text).to_string();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        let huge = format!("{manifest}\n{}", "x".repeat(MAX_LINE + 10));
        let e = bundle(&huge).expect_err("huge").to_string();
        assert!(e.contains("line 2: longer than"), "{e}");
        // Escape sequences in the message are made inert.
        let e = bundle("\u{1b}[2J{").expect_err("escape").to_string();
        assert!(!e.contains('\u{1b}'), "{e:?}");
    }
}
