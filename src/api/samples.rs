//! Named samples (issue 39): a recorded delivery kept past the platform's retention, in
//! `<data dir>/samples/<profile>/NAME.json` (0600, replaced atomically, through
//! [`crate::config::private_file`]). A sample holds the request's headers already through the
//! redaction policy (no secret reaches the disk), the body byte for byte, the event type and the
//! callback and destination by id and name; it is sent again as a replay is ([`Sample::plan`]).
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{Destination, Notification};
use super::replay::{self, DestinationRef, ReplayError, ReplayPlan, Signing};
use crate::config::private_file;
use crate::text::redact::{HeaderOrigin, header_hidden};

/// The format version written in every sample.
pub const FORMAT: u32 = 1;
/// The longest sample file read back (a recorded body is capped well below it).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// The folder of a profile's samples under the data directory.
const FOLDER: &str = "samples";

/// Why a sample cannot be kept, read or removed.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    /// The name is not `[A-Za-z0-9._-]{1,64}`.
    #[error("sample name {0:?}: use 1 to 64 of A-Z a-z 0-9 . _ -")]
    BadName(String),
    /// The profile's name cannot name a folder.
    #[error("profile name {0:?} cannot name a samples folder")]
    BadProfile(String),
    /// A sample of that name exists and `--force` was not given.
    #[error("a sample named {0} exists (--force replaces it)")]
    Exists(String),
    /// No sample of that name.
    #[error("no sample named {0} (`samples list` shows them)")]
    NotFound(String),
    /// The file is not a sample this version reads.
    #[error("{path}: not a sample: {why}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The file system refused (a link planted at the path included).
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// An id and a display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// `clb_…`, `cld_…`.
    pub id: String,
    /// Display name, when it could be read.
    pub name: Option<String>,
}

/// One kept delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// [`FORMAT`].
    pub format: u32,
    /// The sample's name (its file's stem).
    pub name: String,
    /// When it was kept.
    pub kept_at: DateTime<Utc>,
    /// The notification it was kept from (`cbn_…`).
    pub notification_id: String,
    /// The attempt kept, counted from 1.
    pub attempt: i64,
    /// The event type (`type` of the body).
    pub event_type: Option<String>,
    /// The callback the event came through.
    pub callback: Option<Named>,
    /// The destination that delivered it, when it could be told.
    pub destination: Option<Named>,
    /// The recorded request headers, each value through the redaction policy.
    pub request_headers: Vec<(String, String)>,
    /// The recorded body, byte for byte.
    pub body: String,
    /// The receiver's answer to the kept attempt, when one was recorded (compare's left side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<KeptAnswer>,
}

/// A recorded answer as a sample keeps it: its headers through the redaction policy (so no
/// secret reaches the disk), the rest as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptAnswer {
    /// The status; `None` when no answer came.
    pub status: Option<i64>,
    /// Milliseconds from sending to the end of the answer.
    pub duration_ms: Option<u64>,
    /// The answer's headers, masked as recorded answers are.
    pub headers: Vec<(String, String)>,
    /// The answer's body.
    pub body: Option<String>,
    /// Why no (whole) answer came.
    pub error: Option<String>,
}

impl KeptAnswer {
    /// Kept from a recorded answer: its headers masked as the platform's are.
    #[must_use]
    pub fn from_answer(a: &super::compare::Answer) -> Self {
        let headers = a
            .headers
            .iter()
            .map(|(k, v)| {
                let shown =
                    crate::text::redact::header_value_from(HeaderOrigin::Elsewhere, k, v, false);
                (k.clone(), shown.to_string())
            })
            .collect();
        Self {
            status: a.status,
            duration_ms: a.duration_ms,
            headers,
            body: a.body.clone(),
            error: a.error.clone(),
        }
    }

    /// The answer compare shows, labelled `label`: recorded by the platform, so masked as
    /// `notifications get` masks it (one verdict wherever it shows).
    #[must_use]
    pub fn to_answer(&self, label: impl Into<String>) -> super::compare::Answer {
        super::compare::Answer {
            label: label.into(),
            status: self.status,
            duration_ms: self.duration_ms,
            headers: self.headers.clone(),
            body: self.body.clone(),
            error: self.error.clone(),
            origin: HeaderOrigin::Elsewhere,
        }
    }
}

/// The string at `key` of a JSON object body.
fn top_level_str(body: &str, key: &str) -> Option<String> {
    serde_json::from_str::<Value>(body)
        .ok()?
        .get(key)?
        .as_str()
        .map(str::to_string)
}

/// Whether `name` is a sample name: `[A-Za-z0-9._-]{1,64}`.
#[must_use]
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl Sample {
    /// A sample of attempt `index` (from 0; default the latest with a recorded request) of `n`.
    ///
    /// # Errors
    /// A bad name, or nothing recorded to keep.
    pub fn from_notification(
        name: &str,
        n: &Notification,
        index: Option<i64>,
        callback: Option<Named>,
        destination: Option<&Destination>,
    ) -> Result<Self, KeepError> {
        if !valid_name(name) {
            return Err(KeepError::Sample(SampleError::BadName(name.to_string())));
        }
        let (attempt_index, req) = replay::recorded_request(n, index)?;
        let headers: Vec<(String, String)> = req
            .request_headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Self {
            format: FORMAT,
            name: name.to_string(),
            kept_at: Utc::now(),
            notification_id: n.id.clone(),
            attempt: attempt_index.saturating_add(1),
            event_type: req.body_field("type").or_else(|| n.event_type()),
            callback,
            destination: destination.map(|d| Named {
                id: d.id.clone(),
                name: Some(d.name.clone()),
            }),
            request_headers: replay::masked_headers(&headers),
            body: req.request_body.clone().unwrap_or_default(),
            answer: n
                .attempts
                .iter()
                .find(|a| a.index == attempt_index)
                .and_then(super::compare::Answer::from_attempt)
                .map(|a| KeptAnswer::from_answer(&a)),
        })
    }

    /// The callback id: the kept one, else the body's `callbackId`.
    #[must_use]
    pub fn callback_id(&self) -> Option<String> {
        self.callback
            .as_ref()
            .map(|c| c.id.clone())
            .or_else(|| top_level_str(&self.body, "callbackId"))
    }

    /// What sending this sample to `target` sends: the body unchanged, the platform headers that
    /// were kept whole, and a signature made at sending time with `signing` (unsigned on `None`).
    ///
    /// # Errors
    /// A kept header that cannot be sent again.
    pub fn plan(
        &self,
        target: url::Url,
        signing: Option<Signing>,
    ) -> Result<ReplayPlan, ReplayError> {
        let kept = |name: &str| {
            self.request_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .filter(|(k, _)| !header_hidden(HeaderOrigin::Elsewhere, k))
                .map(|(_, v)| v.clone())
        };
        let body = |key: &str| top_level_str(&self.body, key);
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut add = |name: &str, value: Option<String>| {
            if let Some(v) = value {
                headers.push((name.to_string(), v));
            }
        };
        add(
            "content-type",
            Some(kept("content-type").unwrap_or_else(|| "application/json".into())),
        );
        add("user-agent", kept("user-agent"));
        add(
            "metorial-notification-id",
            Some(kept("metorial-notification-id").unwrap_or_else(|| self.notification_id.clone())),
        );
        add(
            "metorial-event-id",
            kept("metorial-event-id").or_else(|| body("eventId")),
        );
        add(
            "metorial-callback-id",
            kept("metorial-callback-id").or_else(|| self.callback_id()),
        );
        add(
            "metorial-version",
            Some(kept("metorial-version").unwrap_or_else(|| "2025-01-01".into())),
        );
        for (k, v) in &headers {
            if reqwest::header::HeaderValue::from_str(v).is_err() {
                return Err(ReplayError::BadHeader(k.clone()));
            }
        }
        if let Some(s) = &signing
            && reqwest::header::HeaderValue::from_str(&s.host).is_err()
        {
            return Err(ReplayError::BadHeader("metorial-signature".into()));
        }
        Ok(ReplayPlan {
            notification_id: self.notification_id.clone(),
            attempt_index: self.attempt.saturating_sub(1),
            target,
            method: "POST",
            body: self.body.clone(),
            headers,
            signing,
            destination: self.destination.as_ref().map(|d| DestinationRef {
                id: d.id.clone(),
                name: d.name.clone().unwrap_or_default(),
            }),
        })
    }

    /// The JSON posted as a hook event by `serve --samples`: the delivered envelope's `payload`
    /// with the event type as its `type` (so the service names the event as it was), or the
    /// whole body when it is not an envelope; `None` when the body is not JSON.
    #[must_use]
    pub fn hook_payload(&self) -> Option<Value> {
        let body: Value = serde_json::from_str(&self.body).ok()?;
        let Some(Value::Object(mut inner)) = body.get("payload").cloned() else {
            return Some(body);
        };
        if let Some(t) = &self.event_type {
            inner
                .entry("type")
                .or_insert_with(|| Value::String(t.clone()));
        }
        Some(Value::Object(inner))
    }
}

/// The signing of a sample's send (headless `samples send` and the console's Samples room): its
/// destination's secret when that destination is still active, else `None` with why.
///
/// # Errors
/// The API's error while looking the destination up (a 404 is "gone", not an error).
pub async fn signing_for(
    client: &super::Client,
    s: &Sample,
) -> Result<(Option<Signing>, Option<String>), super::Error> {
    let Some(d) = &s.destination else {
        return Ok((
            None,
            Some("the sample names no destination whose secret could sign".into()),
        ));
    };
    let gone = || {
        Some(format!(
            "destination {} no longer exists",
            crate::text::line(&d.id)
        ))
    };
    if !super::destination_is_active(client, &d.id).await? {
        return Ok((None, gone()));
    }
    let dest = match client.get_destination(&d.id).await {
        Ok(dest) => dest,
        Err(super::Error::Api(e)) if e.status == 404 => return Ok((None, gone())),
        Err(e) => return Err(e),
    };
    let host = replay::api_host(client.base_url()).unwrap_or_default();
    Ok((Signing::for_destination(&dest, &host), None))
}

/// Why `notifications keep` failed.
#[derive(Debug, thiserror::Error)]
pub enum KeepError {
    /// Nothing recorded to keep.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The library refused.
    #[error(transparent)]
    Sample(#[from] SampleError),
    /// Reading the notification failed.
    #[error(transparent)]
    Api(#[from] super::Error),
}

/// `notifications keep` and the console's keep key: reads notification `id`, names its callback
/// and destination (by id when they cannot be read), and keeps attempt `index` (from 0; default
/// the latest recorded) as `name` in `library`, replacing one of that name only when `force`.
///
/// # Errors
/// A bad name (before any request), the API's error, nothing recorded, or the library's refusal.
pub async fn keep(
    client: &super::Client,
    library: &Library,
    id: &str,
    name: &str,
    index: Option<i64>,
    force: bool,
) -> Result<(Sample, PathBuf), KeepError> {
    if !valid_name(name) {
        return Err(KeepError::Sample(SampleError::BadName(name.to_string())));
    }
    let n = client.get_notification(id).await?;
    let (_, recorded) = replay::recorded_request(&n, index)?;
    let callback_id = recorded
        .body_field("callbackId")
        .or_else(|| n.body_field("callbackId"));
    let callback = match callback_id {
        Some(id) => Some(Named {
            // The name is a nicety: a callback that cannot be read is kept by id.
            name: client.get_callback(&id).await.ok().and_then(|c| c.name),
            id,
        }),
        None => None,
    };
    // Kept by name when it can be told; a sample without it is sent unsigned.
    let destination = replay::destination_for(client, &n, recorded).await.ok();
    let sample = Sample::from_notification(name, &n, index, callback, destination.as_ref())?;
    let path = library.save(&sample, force)?;
    Ok((sample, path))
}

/// One profile's samples folder.
#[derive(Debug, Clone)]
pub struct Library {
    dir: PathBuf,
}

impl Library {
    /// The library of `profile` (`default` when empty) under `data_dir`.
    ///
    /// # Errors
    /// [`SampleError::BadProfile`] when the profile's name cannot name a folder.
    pub fn for_profile(data_dir: &Path, profile: &str) -> Result<Self, SampleError> {
        let profile = if profile.is_empty() {
            "default"
        } else {
            profile
        };
        if !valid_name(profile) || profile.starts_with('.') {
            return Err(SampleError::BadProfile(profile.to_string()));
        }
        Ok(Self::in_dir(data_dir.join(FOLDER).join(profile)))
    }

    /// A library in exactly this folder (`serve --samples DIR`).
    #[must_use]
    pub fn in_dir(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The folder.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, name: &str) -> Result<PathBuf, SampleError> {
        if !valid_name(name) {
            return Err(SampleError::BadName(name.to_string()));
        }
        Ok(self.dir.join(format!("{name}.json")))
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SampleError + '_ {
        move |source| SampleError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Keeps `sample` under its name, replacing one of that name only when `force`.
    ///
    /// # Errors
    /// A bad name, an existing sample without `force`, or the file system's refusal (a folder or
    /// file that is a link, or another user's).
    pub fn save(&self, sample: &Sample, force: bool) -> Result<PathBuf, SampleError> {
        let path = self.path_of(&sample.name)?;
        private_file::dir(&self.dir).map_err(Self::io(&self.dir))?;
        if !force && std::fs::symlink_metadata(&path).is_ok() {
            return Err(SampleError::Exists(sample.name.clone()));
        }
        let text = serde_json::to_vec_pretty(sample).map_err(|e| SampleError::Invalid {
            path: path.clone(),
            why: e.to_string(),
        })?;
        private_file::replace(&path, &text).map_err(Self::io(&path))?;
        Ok(path)
    }

    /// The sample called `name`.
    ///
    /// # Errors
    /// A bad name, no such sample, or a file that is not one (or cannot be read).
    pub fn load(&self, name: &str) -> Result<Sample, SampleError> {
        let path = self.path_of(name)?;
        Self::read(&path)?.ok_or_else(|| SampleError::NotFound(name.to_string()))
    }

    fn read(path: &Path) -> Result<Option<Sample>, SampleError> {
        let Some(f) = private_file::read(path).map_err(Self::io(path))? else {
            return Ok(None);
        };
        let mut text = Vec::new();
        f.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut text)
            .map_err(Self::io(path))?;
        let invalid = |why: String| SampleError::Invalid {
            path: path.to_path_buf(),
            why,
        };
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(invalid(format!("larger than {MAX_FILE_BYTES} bytes")));
        }
        let s: Sample = serde_json::from_slice(&text).map_err(|e| invalid(e.to_string()))?;
        if s.format != FORMAT {
            return Err(invalid(format!(
                "format {} (this version reads {FORMAT})",
                s.format
            )));
        }
        Ok(Some(s))
    }

    /// Every sample, by name, and the files that are not readable samples (with why).
    ///
    /// # Errors
    /// The folder exists but cannot be read, or is a link.
    pub fn list(&self) -> Result<(Vec<Sample>, Vec<SampleError>), SampleError> {
        match std::fs::symlink_metadata(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Vec::new(), Vec::new()));
            }
            Err(e) => return Err(Self::io(&self.dir)(e)),
            Ok(m) if !m.is_dir() => {
                return Err(Self::io(&self.dir)(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "is a symbolic link or not a folder; refusing to use it",
                )));
            }
            Ok(_) => {}
        }
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .map_err(Self::io(&self.dir))?
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_str()?.strip_suffix(".json")?.to_string();
                valid_name(&name).then_some(name)
            })
            .collect();
        names.sort();
        let mut samples = Vec::new();
        let mut bad = Vec::new();
        for name in names {
            match self.load(&name) {
                Ok(s) => samples.push(s),
                Err(e) => bad.push(e),
            }
        }
        Ok((samples, bad))
    }

    /// Removes the sample called `name`.
    ///
    /// # Errors
    /// A bad name, no such sample (or a link in its place, left alone), or the removal's error.
    pub fn remove(&self, name: &str) -> Result<(), SampleError> {
        let path = self.path_of(name)?;
        if private_file::remove(&path).map_err(Self::io(&path))? {
            Ok(())
        } else {
            Err(SampleError::NotFound(name.to_string()))
        }
    }
}

/// How `serve --samples` went: samples posted, and what was skipped with why.
#[derive(Debug, Default)]
pub struct Posted {
    /// Names posted.
    pub posted: Vec<String>,
    /// Why others were not.
    pub skipped: Vec<String>,
}

/// Posts each sample of `library` as a hook event to the first `webhook_manual` callback of the
/// service `client` talks to (the demo's manual callback), in name order.
///
/// # Errors
/// The folder cannot be read, the service has no manual callback, or listing callbacks failed.
pub async fn post_all(client: &super::Client, library: &Library) -> Result<Posted, PostError> {
    let (samples, bad) = library.list()?;
    let callbacks =
        super::list_all::<super::model::Callback>(client, super::ApiRequest::list_callbacks)
            .await?;
    let hook = callbacks
        .into_iter()
        .find(|c| c.kind == super::model::CallbackType::WebhookManual)
        .and_then(|c| c.url)
        .ok_or(PostError::NoManualCallback)?;
    let http = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(replay::TIMEOUT)
        .build()
        .map_err(|e| PostError::Http(e.to_string()))?;
    let mut out = Posted {
        skipped: bad.iter().map(ToString::to_string).collect(),
        ..Posted::default()
    };
    for s in samples {
        let Some(payload) = s.hook_payload() else {
            out.skipped
                .push(format!("{}: the body is not JSON", s.name));
            continue;
        };
        match http.post(&hook).json(&payload).send().await {
            Ok(r) if r.status().is_success() => out.posted.push(s.name),
            Ok(r) => out
                .skipped
                .push(format!("{}: the service answered {}", s.name, r.status())),
            Err(e) => out.skipped.push(format!("{}: {e}", s.name)),
        }
    }
    Ok(out)
}

/// Why `serve --samples` could not post.
#[derive(Debug, thiserror::Error)]
pub enum PostError {
    /// The samples folder.
    #[error(transparent)]
    Library(#[from] SampleError),
    /// The service's API.
    #[error("listing the service's callbacks: {0}")]
    Api(#[from] super::Error),
    /// No `webhook_manual` callback to post to.
    #[error(
        "the service has no webhook_manual callback to post samples to (start it with --seed demo)"
    )]
    NoManualCallback,
    /// The HTTP client.
    #[error("{0}")]
    Http(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_a_small_alphabet() {
        for ok in ["a", "prod-incident_1.v2", &"x".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "a/b", "../x", "a b", "é", &"x".repeat(65), "a\u{1b}"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    fn notification(body: &str, headers: &[(&str, &str)]) -> Notification {
        let v = serde_json::json!({
            "id": "cbn_1", "type": "webhook_http", "status": "failed", "url": "http://r/in",
            "created_at": "2026-01-01T00:00:00.000Z",
            "attempts": [
                {"id": "cbna_0", "status": "failed", "index": 0, "created_at": "2026-01-01T00:00:00.000Z",
                 "webhook_request": {
                    "id": "cbnwr_1", "url": "http://r/in", "request_method": "POST",
                    "request_body": body,
                    "request_headers": headers.iter().map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string()))).collect::<serde_json::Map<_, _>>(),
                    "response_status": 500, "duration": 3, "created_at": "2026-01-01T00:00:00.000Z"}}
            ]
        });
        serde_json::from_value(v).expect("notification")
    }

    #[test]
    fn a_sample_keeps_headers_masked_and_sends_only_those_kept_whole() {
        let body = r#"{"eventId":"cbe_9","callbackId":"clb_9","type":"build.failed"}"#;
        let n = notification(
            body,
            &[
                ("authorization", "Bearer hunter2-secret"),
                ("metorial-event-id", "cbe_9"),
                ("content-type", "application/json"),
            ],
        );
        let s = Sample::from_notification("k", &n, None, None, None).expect("sample");
        let text = serde_json::to_string(&s).expect("json");
        assert!(!text.contains("hunter2"), "{text}");
        assert_eq!(s.event_type.as_deref(), Some("build.failed"));
        assert_eq!(s.callback_id().as_deref(), Some("clb_9"));
        let target = url::Url::parse("http://127.0.0.1:1/in").expect("url");
        let plan = s.plan(target, None).expect("plan");
        assert_eq!(plan.body, body);
        assert!(plan.headers.iter().all(|(k, _)| k != "authorization"));
        assert!(
            plan.headers
                .contains(&("metorial-event-id".into(), "cbe_9".into()))
        );
        assert!(
            plan.headers
                .contains(&("metorial-callback-id".into(), "clb_9".into()))
        );
    }

    #[test]
    fn a_library_keeps_lists_refuses_a_second_and_removes() {
        let home = tempfile::tempdir().expect("dir");
        let lib = Library::for_profile(home.path(), "").expect("library");
        assert!(lib.dir().ends_with("samples/default"));
        assert!(Library::for_profile(home.path(), "..").is_err());
        let s = Sample::from_notification("one", &notification("{}", &[]), None, None, None)
            .expect("sample");
        lib.save(&s, false).expect("save");
        assert!(matches!(lib.save(&s, false), Err(SampleError::Exists(_))));
        lib.save(&s, true).expect("forced");
        std::fs::write(lib.dir().join("junk.json"), "not json").expect("junk");
        let (all, bad) = lib.list().expect("list");
        assert_eq!(all, vec![s.clone()]);
        assert_eq!(bad.len(), 1);
        assert_eq!(lib.load("one").expect("load"), s);
        lib.remove("one").expect("rm");
        assert!(matches!(lib.load("one"), Err(SampleError::NotFound(_))));
    }

    #[test]
    fn an_envelope_posts_its_payload_with_the_type() {
        let s = Sample {
            format: FORMAT,
            name: "x".into(),
            kept_at: Utc::now(),
            notification_id: "cbn_1".into(),
            attempt: 1,
            event_type: Some("build.failed".into()),
            callback: None,
            destination: None,
            request_headers: Vec::new(),
            body: r#"{"eventId":"e","type":"build.failed","payload":{"build":42}}"#.into(),
            answer: None,
        };
        assert_eq!(
            s.hook_payload(),
            Some(serde_json::json!({"build": 42, "type": "build.failed"}))
        );
    }
}
