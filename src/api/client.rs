//! The async client: one typed method per operation, with auth and version headers, timeouts,
//! bounded retries of idempotent calls and `429` handling.
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;

use super::detect::{self, Detection, Detector, EndpointsDoc, Pin, Probed};
use super::error::{ApiError, Error};
use super::model::*;
use super::page::{ListQuery, Page};
use super::request::{ApiRequest, NotificationFilter};
use super::secret::Secret;
use super::versions::{Discovery, VERSIONS_PATH, VersionList};
use super::{API_VERSION, DEFAULT_BASE_URL};

/// Replies larger than this are cut off with an error instead of filling memory.
const MAX_BODY: usize = 32 * 1024 * 1024;

/// Where and as whom to connect, and how patiently.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// `https://api.metorial.com` or a local service's address.
    pub base_url: String,
    /// The instance (or organization) key.
    pub api_key: Secret,
    /// Used instead of `api_key` for `/organization/*` paths when set.
    pub organization_key: Option<Secret>,
    /// Sent as `metorial-instance-id` when set.
    pub instance_id: Option<String>,
    /// TCP/TLS connect timeout.
    pub connect_timeout: Duration,
    /// Whole-request timeout.
    pub request_timeout: Duration,
    /// Retries after the first try (connect errors, 502/503/504 on GET, 429).
    pub max_retries: u32,
    /// Upper bound on the time spent waiting between tries.
    pub max_retry_wait: Duration,
    /// First backoff step; doubles each retry, with jitter.
    pub backoff_base: Duration,
    /// A generation the user pinned (`--generation`, `SWITCHBOARD_GENERATION`, the profile's
    /// `generation`): used where the server does not contradict it.
    pub pin: Option<Pin>,
    /// How much one walk over a list's pages may read (`--max-pages`).
    pub budget: super::budget::Budget,
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key: Secret::default(),
            organization_key: None,
            instance_id: None,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_retries: 3,
            max_retry_wait: Duration::from_secs(15),
            backoff_base: Duration::from_millis(200),
            pin: None,
            budget: super::budget::Budget::default(),
        }
    }
}

/// A successful reply: status, the raw body text and the request id.
#[derive(Debug, Clone)]
pub struct RawResponse {
    /// HTTP status (2xx).
    pub status: u16,
    /// Body exactly as received.
    pub body: String,
    /// `metorial-req-id`, when sent.
    pub request_id: Option<String>,
}

/// The longest wait for the versions list; it precedes a client's first call.
const VERSIONS_TIMEOUT: Duration = Duration::from_secs(10);

/// The API client. Cheap to clone (shares its connection pool and what it learnt of the
/// server's API versions).
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: url::Url,
    opts: ClientOptions,
    /// The server's versions, asked once before the first call (see [`super::versions`]);
    /// replaced when a detection reads them again.
    versions: Arc<std::sync::RwLock<Option<Discovery>>>,
    /// One first look at the versions at a time.
    versions_gate: Arc<tokio::sync::Mutex<()>>,
    /// What is known of a deployment without pulsar (see [`super::detect`]).
    learnt: Arc<tokio::sync::Mutex<Learnt>>,
    /// The detection cache, when the face gave one.
    detector: Option<Arc<Detector>>,
    /// The server's clock less ours, from the `Date` of its latest answer (see
    /// [`Client::clock_offset`]).
    clock: Arc<std::sync::Mutex<Option<chrono::TimeDelta>>>,
}

/// What the client learnt of a deployment's generation.
#[derive(Debug, Clone, Default)]
enum Learnt {
    /// Not asked yet.
    #[default]
    Unknown,
    /// Asked: the detection, or none (introspection failed and nothing was cached).
    Known(Option<Arc<Detection>>),
}

/// Which `Metorial-Version` a request carries.
#[derive(Debug, Clone, Copy)]
enum VersionChoice {
    /// From the versions list and the detection.
    Auto,
    /// This id (the detection's probes).
    Fixed(&'static str),
}

/// Why the versions were not learnt; nothing is remembered then.
struct NotLearnt {
    error: Error,
    /// Nothing reached the server.
    connect: bool,
}

/// One try's outcome, before the retry policy decides.
enum Try {
    Done(Result<RawResponse, Error>),
    Retry {
        error: Error,
        wait: Option<Duration>,
    },
}

impl Client {
    /// Builds a client; fails only on a malformed base URL or TLS setup.
    pub fn new(opts: ClientOptions) -> Result<Self, Error> {
        let mut base = url::Url::parse(opts.base_url.trim())
            .map_err(|e| Error::Invalid(format!("base URL {:?}: {e}", opts.base_url)))?;
        if !matches!(base.scheme(), "http" | "https") {
            return Err(Error::Invalid(format!(
                "base URL {:?} must be http or https",
                opts.base_url
            )));
        }
        // Paths are appended to the base, so drop a trailing slash.
        let trimmed = base.path().trim_end_matches('/').to_string();
        base.set_path(&trimmed);
        let mut headers = HeaderMap::new();
        if let Some(ins) = &opts.instance_id {
            let v = HeaderValue::from_str(ins).map_err(|_| {
                Error::Invalid("instance id has characters a header cannot carry".into())
            })?;
            headers.insert("metorial-instance-id", v);
        }
        for key in std::iter::once(&opts.api_key).chain(opts.organization_key.as_ref()) {
            if HeaderValue::from_str(key.expose()).is_err() {
                return Err(Error::Invalid(
                    "the API key has characters an HTTP header cannot carry (a stray newline?)"
                        .into(),
                ));
            }
        }
        let mut builder = reqwest::Client::builder();
        if base.scheme() == "http" {
            // Plain HTTP (a local service) never needs TLS roots, and loading the system's costs
            // a noticeable part of a headless command's run time. Redirects are off, so no
            // request can move to an https URL.
            builder = builder.tls_certs_only(Vec::new());
        }
        let http = builder
            // A redirect would turn a POST into a GET and could carry the key elsewhere: surface it.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
            .default_headers(headers)
            .connect_timeout(opts.connect_timeout)
            .timeout(opts.request_timeout)
            .build()
            .map_err(|e| Error::Invalid(format!("HTTP client: {e}")))?;
        Ok(Self {
            http,
            base,
            opts,
            versions: Arc::default(),
            versions_gate: Arc::default(),
            learnt: Arc::default(),
            detector: None,
            clock: Arc::default(),
        })
    }

    /// The same client keeping its detection in `detector`'s cache: read before introspecting a
    /// deployment without pulsar, written after, redone on a 404 `endpoint` from a path it said
    /// exists.
    #[must_use]
    pub fn with_detector(mut self, detector: Detector) -> Self {
        self.detector = Some(Arc::new(detector));
        self
    }

    /// The detection cache, if any.
    pub fn detector(&self) -> Option<&Detector> {
        self.detector.as_deref()
    }

    /// The options this client was built with.
    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// How much one walk over a list's pages may read.
    pub fn budget(&self) -> super::budget::Budget {
        self.opts.budget
    }

    /// The server's clock less this machine's, learnt from the `Date` header of its latest
    /// answer (asking for the versions list first when nothing was answered yet); zero when the
    /// server sends no `Date`. `Date` counts whole seconds and was stamped somewhere between our
    /// sending and our reading the answer, so a difference that window can explain is no
    /// difference (the clocks agree as far as it can tell), and a larger one is its lower bound:
    /// a time moved by it onto the server's clock is at most a second (plus the round trip)
    /// early, never late (`clock_offset_from`).
    pub async fn clock_offset(&self) -> chrono::TimeDelta {
        if self.known_offset().is_none() {
            // Only to hear the server's `Date`; a failure here is the next call's to report.
            let _ = self.discover().await;
        }
        self.known_offset().unwrap_or_default()
    }

    fn known_offset(&self) -> Option<chrono::TimeDelta> {
        *self
            .clock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Notes the server's clock from the `Date` of an answer to a request sent at `sent`.
    fn hear_clock(&self, headers: &HeaderMap, sent: chrono::DateTime<chrono::Utc>) {
        let Some(date) = header_str(headers, "date")
            .and_then(|d| chrono::DateTime::parse_from_rfc2822(d.trim()).ok())
        else {
            return;
        };
        let offset = clock_offset_from(date.with_timezone(&chrono::Utc), sent, chrono::Utc::now());
        *self
            .clock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(offset);
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    fn url_for(&self, req: &ApiRequest) -> Result<url::Url, Error> {
        req.url(&self.base)
    }

    fn url_of<S: AsRef<str>>(&self, segments: &[S]) -> Result<url::Url, Error> {
        let mut url = self.base.clone();
        {
            let mut segs = url
                .path_segments_mut()
                .map_err(|_| Error::Invalid("base URL cannot take a path".into()))?;
            segs.pop_if_empty();
            for s in segments {
                segs.push(s.as_ref());
            }
        }
        Ok(url)
    }

    /// The server's API versions: asked once for this client and its clones (without a key),
    /// then remembered. A server that does not list them is [`Discovery::Unlisted`].
    ///
    /// # Errors
    /// The server could not be reached, or failed (5xx); nothing is remembered then.
    pub async fn versions(&self) -> Result<Discovery, Error> {
        self.discover().await.map_err(|f| f.error)
    }

    async fn discover(&self) -> Result<Discovery, NotLearnt> {
        if let Some(d) = self.known_versions() {
            return Ok(d);
        }
        let _gate = self.versions_gate.lock().await;
        if let Some(d) = self.known_versions() {
            return Ok(d);
        }
        let d = self.fetch_versions().await?;
        self.remember_versions(d.clone());
        Ok(d)
    }

    fn known_versions(&self) -> Option<Discovery> {
        self.versions.read().ok().and_then(|g| g.clone())
    }

    fn remember_versions(&self, d: Discovery) {
        if let Ok(mut g) = self.versions.write() {
            *g = Some(d);
        }
    }

    /// The versions list asked again (not the remembered one), remembered after; a 5xx is
    /// "not listed" here, as a proxy in front of the server may answer it.
    pub(crate) async fn versions_afresh(&self) -> Result<Discovery, Error> {
        let d = match self.fetch_versions().await {
            Ok(d) => d,
            Err(f) if f.connect || f.error.status().is_none() => return Err(f.error),
            Err(_) => Discovery::Unlisted,
        };
        self.remember_versions(d.clone());
        Ok(d)
    }

    /// `GET /metorial/introspect/endpoints?version=ID` (without a key): `None` when it is not
    /// answered with a list of endpoints.
    ///
    /// # Errors
    /// The server could not be reached.
    pub(crate) async fn endpoints(&self, version: &str) -> Result<Option<EndpointsDoc>, Error> {
        let timeout = self.opts.request_timeout.min(VERSIONS_TIMEOUT);
        let mut url = self.url_of(&["metorial", "introspect", "endpoints"])?;
        url.query_pairs_mut().append_pair("version", version);
        let resp = self
            .http
            .get(url)
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| transport_error(&e, timeout))?;
        let status = resp.status().as_u16();
        let body = read_body(resp)
            .await
            .map_err(|e| transport_error(&e, timeout))?;
        if !(200..300).contains(&status) {
            return Ok(None);
        }
        Ok(body
            .and_then(|b| serde_json::from_str::<EndpointsDoc>(&b).ok())
            .filter(|d| !d.endpoints.is_empty()))
    }

    /// `GET <path>?limit=1` with the dashboard version, for detection: 2xx is there, 404 is
    /// absent, any other answer is a routed path (a refused key, say). The body of a 2xx comes too.
    ///
    /// # Errors
    /// The server could not be reached or timed out.
    pub(crate) async fn probe(&self, path: &str) -> Result<(Probed, Option<String>), Error> {
        let segments: Vec<String> = path.split('/').map(str::to_string).collect();
        let req = ApiRequest::probe(segments);
        match self
            .send_retrying(&req, VersionChoice::Fixed(detect::DASHBOARD_ID))
            .await
        {
            Ok(r) => Ok((Probed::Ok, Some(r.body))),
            Err(Error::Api(e)) if e.status == 404 => Ok((Probed::Absent, None)),
            Err(Error::Api(_) | Error::Decode { .. }) => Ok((Probed::Routed, None)),
            Err(e) => Err(e),
        }
    }

    /// Detects the deployment's generation afresh (versions, introspection, then probes where
    /// `probe` allows), adopts it for this client and its clones, and writes the cache when a
    /// detector is set (a cache that cannot be written is logged, not an error).
    ///
    /// # Errors
    /// The server could not be reached; or, without `probe`, introspection did not answer.
    pub async fn detect(&self, probe: bool) -> Result<Detection, Error> {
        let d = detect::run(self, probe).await?;
        if let Some(det) = &self.detector
            && let Err(e) = det.store(&d)
        {
            tracing::warn!("{e}");
        }
        *self.learnt.lock().await = Learnt::Known(Some(Arc::new(d.clone())));
        Ok(d)
    }

    /// What the faces choose their verbs and tools by: pulsar where the versions list names it,
    /// else the detection (cached, or introspected once) with a pin where nothing contradicts
    /// it. `None` when nothing could be learnt (the versions unreachable, or an unlisted server
    /// nothing was detected on): the faces then speak pulsar, as before detection existed.
    pub async fn served(&self) -> Option<detect::Chosen> {
        let listed = match self.discover().await {
            Ok(Discovery::Listed(l)) => Some(l),
            Ok(Discovery::Unlisted) => None,
            Err(_) => return None,
        };
        if let Some(l) = listed.as_ref().filter(|l| l.pulsar().is_some()) {
            let d = Detection::pulsar(self.base_url(), l, chrono::Utc::now());
            return Some(detect::choose(self.opts.pin, Some(&d)));
        }
        let mut learnt = self.learn(listed.as_ref()).await;
        if learnt.is_none() && listed.is_some() && self.detector.is_none() {
            // A client without a cache learns nothing on its own: asked once here.
            learnt = self.detect(false).await.ok().map(Arc::new);
        }
        if learnt.is_none() && self.opts.pin.is_none() {
            return None;
        }
        Some(detect::choose(self.opts.pin, learnt.as_deref()))
    }

    /// The detection this client uses now, if it learnt one (no request is made).
    pub async fn detection(&self) -> Option<Arc<Detection>> {
        match &*self.learnt.lock().await {
            Learnt::Known(d) => d.clone(),
            Learnt::Unknown => None,
        }
    }

    /// What a deployment without pulsar serves: the detection made by [`Self::detect`], else
    /// (with a detector) learnt once: the cache if it saw the same versions list, else
    /// introspection, written to the cache; never probing.
    async fn learn(&self, list: Option<&VersionList>) -> Option<Arc<Detection>> {
        let mut learnt = self.learnt.lock().await;
        if let Learnt::Known(d) = &*learnt {
            return d.clone();
        }
        // Only a client keeping a detection cache learns on its own (a library client without
        // one asks the versions list alone, as before, unless told to detect).
        self.detector.as_ref()?;
        let cached = self
            .detector
            .as_deref()
            .and_then(Detector::cached)
            .filter(|d| d.same_versions(list));
        let d = match cached {
            Some(d) => Some(d),
            // An unlisted deployment is pulsar unless a detection said otherwise.
            None if list.is_none() => None,
            None => match detect::introspect(self, list).await {
                Ok(Some(d)) => {
                    if let Some(det) = &self.detector
                        && let Err(e) = det.store(&d)
                    {
                        tracing::warn!("{e}");
                    }
                    Some(d)
                }
                _ => None,
            },
        };
        let d = d.map(Arc::new);
        *learnt = Learnt::Known(d.clone());
        d
    }

    async fn fetch_versions(&self) -> Result<Discovery, NotLearnt> {
        let timeout = self.opts.request_timeout.min(VERSIONS_TIMEOUT);
        let transport = |e: reqwest::Error| NotLearnt {
            connect: e.is_connect(),
            error: transport_error(&e, timeout),
        };
        let url = self.url_of(&VERSIONS_PATH).map_err(|error| NotLearnt {
            error,
            connect: false,
        })?;
        // No key: the list is public, and a key has no business on a path that needs none.
        let sent = chrono::Utc::now();
        let resp = self
            .http
            .get(url)
            .timeout(timeout)
            .send()
            .await
            .map_err(transport)?;
        self.hear_clock(resp.headers(), sent);
        let status = resp.status().as_u16();
        let body = read_body(resp).await.map_err(transport)?;
        if status >= 500 {
            let body = body.as_deref().unwrap_or_default();
            return Err(NotLearnt {
                error: Error::Api(Box::new(parse_error_body(status, body))),
                connect: false,
            });
        }
        let listed = (200..300)
            .contains(&status)
            .then(|| serde_json::from_str::<VersionList>(body.as_deref()?).ok())
            .flatten();
        Ok(listed.map_or(Discovery::Unlisted, Discovery::Listed))
    }

    /// The `Metorial-Version` for a call, asking the server first if not yet known: pulsar's id
    /// where the server lists it; else the version the detection gives the path; else the
    /// contract's default. A connect failure is the call's own (nothing reached the server, so it
    /// may be retried); any other failure to learn the versions leaves the contract's default.
    async fn version_header(&self, req: &ApiRequest) -> Result<HeaderValue, Error> {
        let d = match self.discover().await {
            Ok(d) => Some(d),
            Err(f) if f.connect => return Err(f.error),
            Err(_) => None,
        };
        let newer = |d: Option<Arc<Detection>>| match d {
            Some(d) if d.generation != Some(super::generation::Generation::Pulsar) => {
                Some(d.version_for(&req.segments))
            }
            _ => None,
        };
        let learnt = match &d {
            Some(Discovery::Listed(l)) if l.pulsar().is_some() => None,
            Some(Discovery::Listed(l)) => newer(self.learn(Some(l)).await),
            Some(Discovery::Unlisted) => newer(self.learn(None).await),
            None => None,
        };
        let pinned_newer = self
            .opts
            .pin
            .is_some_and(|p| p.generation != super::generation::Generation::Pulsar);
        let value = match (&d, learnt) {
            (Some(Discovery::Listed(l)), _) if l.pulsar().is_some() => l
                .pulsar()
                .and_then(|p| HeaderValue::from_str(&p.version).ok()),
            (_, Some(v)) => Some(HeaderValue::from_static(v)),
            // Nothing learnt: the platform ignores an id it does not know (the key's default,
            // dashboard, answers), so the contract's default stands, unless a pin says newer.
            (_, None) if pinned_newer => Some(HeaderValue::from_static(detect::DASHBOARD_ID)),
            (_, None) => None,
        };
        Ok(value.unwrap_or(HeaderValue::from_static(API_VERSION)))
    }

    /// A 404 `endpoint` from a server that lists its versions without pulsar is that fact, said
    /// once, rather than a not-found error (not for a path only newer generations serve).
    fn explain(&self, req: &ApiRequest, e: Error) -> Error {
        let endpoint = is_endpoint_404(&e);
        let served = self
            .known_versions()
            .and_then(|d| d.without_pulsar().cloned());
        match served {
            Some(served) if endpoint && !detect::newer_only(&req.segments) => {
                Error::UnsupportedVersion(Box::new(served))
            }
            _ => e,
        }
    }

    /// A 404 `endpoint` from a path the detection (learnt or cached) said exists: the
    /// deployment changed, so it is detected again (and the cache rewritten).
    async fn after_endpoint_404(&self, req: &ApiRequest) {
        let Some(detector) = &self.detector else {
            return;
        };
        let current = match &*self.learnt.lock().await {
            Learnt::Known(Some(d)) => Some(d.as_ref().clone()),
            _ => detector.cached(),
        };
        if !current.is_some_and(|d| d.says_exists(&req.segments)) {
            return;
        }
        tracing::info!(
            "{} answered 404 endpoint where the detection said it exists; detecting again",
            req.path()
        );
        if self.detect(true).await.is_err() {
            // Not known now: the next call learns again rather than trust the old detection.
            detector.forget();
            *self.learnt.lock().await = Learnt::Unknown;
        }
    }

    fn key_for(&self, req: &ApiRequest) -> &Secret {
        match &self.opts.organization_key {
            Some(k) if req.is_organization() => k,
            _ => &self.opts.api_key,
        }
    }

    /// Sends a request, retrying where that is safe, and returns the raw 2xx body.
    pub async fn send(&self, req: &ApiRequest) -> Result<RawResponse, Error> {
        // A request that cannot be made (an id of `..`) is refused before the versions are asked.
        self.url_for(req)?;
        let r = self.send_retrying(req, VersionChoice::Auto).await;
        if let Err(e) = &r
            && is_endpoint_404(e)
        {
            self.after_endpoint_404(req).await;
        }
        r.map_err(|e| self.explain(req, e))
    }

    async fn send_retrying(
        &self,
        req: &ApiRequest,
        choice: VersionChoice,
    ) -> Result<RawResponse, Error> {
        let started = Instant::now();
        let mut retries = 0u32;
        loop {
            let version = match choice {
                VersionChoice::Auto => self.version_header(req).await,
                VersionChoice::Fixed(v) => Ok(HeaderValue::from_static(v)),
            };
            let outcome = match version {
                Ok(version) => self.try_once(req, version).await,
                Err(error) => Try::Retry { error, wait: None },
            };
            match outcome {
                Try::Done(r) => return r,
                Try::Retry { error, wait } => {
                    if retries >= self.opts.max_retries {
                        return Err(error);
                    }
                    let wait = wait.unwrap_or_else(|| self.backoff(retries));
                    if started.elapsed() + wait > self.opts.max_retry_wait {
                        return Err(error);
                    }
                    tracing::debug!(?wait, retries, "retrying {} {}", req.method, req.path());
                    tokio::time::sleep(wait).await;
                    retries += 1;
                }
            }
        }
    }

    fn backoff(&self, retry: u32) -> Duration {
        let base = self.opts.backoff_base.as_millis() as u64;
        let step = base.saturating_mul(1u64 << retry.min(10));
        let jitter = rand::rng().random_range(0..=step / 2 + 1);
        Duration::from_millis(step / 2 + jitter)
    }

    async fn try_once(&self, req: &ApiRequest, version: HeaderValue) -> Try {
        let url = match self.url_for(req) {
            Ok(u) => u,
            Err(e) => return Try::Done(Err(e)),
        };
        let mut rb = self
            .http
            .request(req.method.clone(), url)
            .header("Metorial-Version", version)
            .bearer_auth(self.key_for(req).expose());
        if let Some(b) = &req.body {
            rb = rb.json(b);
        }
        let sent = chrono::Utc::now();
        let resp = match rb.send().await {
            Ok(r) => r,
            Err(e) => {
                let error = transport_error(&e, self.opts.request_timeout);
                // A connect failure means nothing reached the server: safe to retry any method.
                return if e.is_connect() {
                    Try::Retry { error, wait: None }
                } else {
                    Try::Done(Err(error))
                };
            }
        };
        self.hear_clock(resp.headers(), sent);
        let status = resp.status().as_u16();
        let request_id = header_str(resp.headers(), "metorial-req-id");
        let retry_after = retry_after(resp.headers());
        let body = match read_body(resp).await {
            Ok(b) => b,
            Err(e) => return Try::Done(Err(transport_error(&e, self.opts.request_timeout))),
        };
        let body = match body {
            Some(b) => b,
            None => {
                return Try::Done(Err(Error::Decode {
                    status,
                    detail: format!("reply larger than {} MiB", MAX_BODY / 1024 / 1024),
                }));
            }
        };
        if (200..300).contains(&status) {
            return Try::Done(Ok(RawResponse {
                status,
                body,
                request_id,
            }));
        }
        let error = Error::Api(Box::new(parse_error_body(status, &body)));
        match status {
            // The request was refused before it was processed: safe to retry after the wait.
            429 => Try::Retry {
                error,
                wait: Some(retry_after.unwrap_or(Duration::from_secs(1))),
            },
            502..=504 if req.is_idempotent() => Try::Retry { error, wait: None },
            _ => Try::Done(Err(error)),
        }
    }

    /// Sends a request and decodes the 2xx body as `T`.
    pub async fn call<T: DeserializeOwned>(&self, req: &ApiRequest) -> Result<T, Error> {
        let raw = self.send(req).await?;
        decode(raw.status, &raw.body)
    }

    /// `GET /organization/teams`.
    pub async fn list_teams(&self, q: &ListQuery) -> Result<Page<Team>, Error> {
        self.call(&ApiRequest::list_teams(q)).await
    }
    /// `GET /organization/teams/{id}`.
    pub async fn get_team(&self, id: &str) -> Result<Team, Error> {
        self.call(&ApiRequest::get_team(id)).await
    }
    /// `POST /organization/teams`.
    pub async fn create_team(&self, b: &CreateTeam) -> Result<Team, Error> {
        self.call(&ApiRequest::create_team(b)).await
    }
    /// `POST /organization/teams/{id}`.
    pub async fn update_team(&self, id: &str, b: &UpdateTeam) -> Result<Team, Error> {
        self.call(&ApiRequest::update_team(id, b)).await
    }
    /// `POST /organization/teams/{id}/projects`.
    pub async fn set_team_project(&self, id: &str, b: &SetTeamProject) -> Result<Team, Error> {
        self.call(&ApiRequest::set_team_project(id, b)).await
    }
    /// `DELETE /organization/teams/{id}/projects/{project_id}`.
    pub async fn remove_team_project(&self, id: &str, project_id: &str) -> Result<Team, Error> {
        self.call(&ApiRequest::remove_team_project(id, project_id))
            .await
    }
    /// `POST /organization/teams/{id}/members`.
    pub async fn add_team_member(&self, id: &str, actor_id: &str) -> Result<Team, Error> {
        self.call(&ApiRequest::add_team_member(id, actor_id)).await
    }
    /// `DELETE /organization/teams/{id}/members/{actor_id}`.
    pub async fn remove_team_member(&self, id: &str, actor_id: &str) -> Result<Team, Error> {
        self.call(&ApiRequest::remove_team_member(id, actor_id))
            .await
    }
    /// `GET /organization/members`.
    pub async fn list_members(&self, q: &ListQuery) -> Result<Page<Member>, Error> {
        self.call(&ApiRequest::list_members(q)).await
    }
    /// `GET /organization/projects`.
    pub async fn list_projects(&self, q: &ListQuery) -> Result<Page<Project>, Error> {
        self.call(&ApiRequest::list_projects(q)).await
    }
    /// `GET /organization/team-roles`.
    pub async fn list_team_roles(&self, q: &ListQuery) -> Result<Page<TeamRole>, Error> {
        self.call(&ApiRequest::list_team_roles(q)).await
    }
    /// `GET /provider-oauth/token-imports`.
    pub async fn list_imports(&self, q: &ListQuery) -> Result<Page<ProviderOauthImport>, Error> {
        self.call(&ApiRequest::list_imports(q)).await
    }
    /// `GET /provider-oauth/token-imports/{id}`.
    pub async fn get_import(&self, id: &str) -> Result<ProviderOauthImport, Error> {
        self.call(&ApiRequest::get_import(id)).await
    }
    /// `POST /provider-oauth/token-imports`.
    pub async fn create_import(&self, b: &CreateImport) -> Result<ProviderOauthImport, Error> {
        self.call(&ApiRequest::create_import(b)).await
    }
    /// `PATCH /provider-oauth/token-imports/{id}`.
    pub async fn update_import(
        &self,
        id: &str,
        b: &UpdateImport,
    ) -> Result<ProviderOauthImport, Error> {
        self.call(&ApiRequest::update_import(id, b)).await
    }
    /// `GET /callbacks`.
    pub async fn list_callbacks(&self, q: &ListQuery) -> Result<Page<Callback>, Error> {
        self.call(&ApiRequest::list_callbacks(q)).await
    }
    /// `GET /callbacks/{id}`.
    pub async fn get_callback(&self, id: &str) -> Result<Callback, Error> {
        self.call(&ApiRequest::get_callback(id)).await
    }
    /// `GET /callbacks-destinations`.
    pub async fn list_destinations(
        &self,
        q: &ListQuery,
        callback_ids: &[String],
    ) -> Result<Page<Destination>, Error> {
        self.call(&ApiRequest::list_destinations(q, callback_ids))
            .await
    }
    /// `GET /callbacks-destinations/{id}`.
    pub async fn get_destination(&self, id: &str) -> Result<Destination, Error> {
        self.call(&ApiRequest::get_destination(id)).await
    }
    /// `POST /callbacks-destinations`.
    pub async fn create_destination(&self, b: &CreateDestination) -> Result<Destination, Error> {
        self.call(&ApiRequest::create_destination(b)).await
    }
    /// `PATCH /callbacks-destinations/{id}`.
    pub async fn update_destination(
        &self,
        id: &str,
        b: &UpdateDestination,
    ) -> Result<Destination, Error> {
        self.call(&ApiRequest::update_destination(id, b)).await
    }
    /// `DELETE /callbacks-destinations/{id}`.
    pub async fn delete_destination(&self, id: &str) -> Result<Destination, Error> {
        self.call(&ApiRequest::delete_destination(id)).await
    }
    /// `GET /callbacks-notifications`.
    pub async fn list_notifications(
        &self,
        q: &ListQuery,
        f: &NotificationFilter,
    ) -> Result<Page<Notification>, Error> {
        self.call(&ApiRequest::list_notifications(q, f)).await
    }
    /// `GET /callbacks-notifications/{id}`.
    pub async fn get_notification(&self, id: &str) -> Result<Notification, Error> {
        self.call(&ApiRequest::get_notification(id)).await
    }
}

/// Whether an error is the platform's "no such route": 404 with `"entity":"endpoint"`.
fn is_endpoint_404(e: &Error) -> bool {
    e.api()
        .is_some_and(|a| a.status == 404 && a.entity.as_deref() == Some("endpoint"))
}

/// Decodes a 2xx body; a mismatch is a `Decode` error, never a panic.
pub fn decode<T: DeserializeOwned>(status: u16, body: &str) -> Result<T, Error> {
    let decode_error = |e: serde_json::Error| Error::Decode {
        status,
        detail: e.to_string(),
    };
    match serde_json::from_str(body) {
        Ok(v) => Ok(v),
        // A lone surrogate escape (`"\ud800"`) is valid JSON text that no Rust string can
        // hold: a receiver's body may carry one. Read as U+FFFD rather than refusing the reply.
        Err(e) => match surrogates_replaced(body) {
            Some(fixed) => serde_json::from_str(&fixed).map_err(decode_error),
            None => Err(decode_error(e)),
        },
    }
}

/// `text` with every lone surrogate escape inside a string (`\ud800` not followed by a low
/// one, or a low one alone) written `\ufffd`; `None` when it has none.
fn surrogates_replaced(text: &str) -> Option<String> {
    let hex = |s: &str| u16::from_str_radix(s, 16).ok();
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied, mut in_string, mut changed) = (0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let unit = |at: usize| {
                    (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
                        .then(|| text.get(at + 2..at + 6).and_then(hex))
                        .flatten()
                };
                match unit(i) {
                    Some(0xD800..=0xDBFF)
                        if unit(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
                    {
                        i += 12;
                        continue;
                    }
                    Some(0xD800..=0xDFFF) => {
                        out.push_str(&text[copied..i]);
                        out.push_str("\\ufffd");
                        i += 6;
                        copied = i;
                        changed = true;
                        continue;
                    }
                    // Any other escape: its second character is never a quote that ends the string.
                    _ => {
                        i += 2;
                        continue;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    changed.then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// Reads an error reply: the API's body when it is one, else a message built from the status and
/// the start of whatever came (an HTML page from a proxy, say).
pub fn parse_error_body(status: u16, body: &str) -> ApiError {
    if let Ok(mut e) = serde_json::from_str::<ApiError>(body) {
        if e.status == 0 {
            e.status = status;
        }
        return e;
    }
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("error");
    let snippet: String = body.trim().chars().take(200).collect();
    let snippet = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
    let message = if snippet.is_empty() {
        format!("HTTP {status} {reason} (empty body)")
    } else {
        format!("HTTP {status} {reason}: {snippet}")
    };
    ApiError::synthetic(status, message)
}

fn transport_error(e: &reqwest::Error, timeout: Duration) -> Error {
    if e.is_timeout() {
        return Error::Timeout(timeout);
    }
    // reqwest's Display hides the cause chain; walk it for the useful part.
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg = format!("{msg}: {s}");
        src = s.source();
    }
    Error::Network(msg)
}

async fn read_body(mut resp: reqwest::Response) -> Result<Option<String>, reqwest::Error> {
    let mut buf = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if buf.len() + chunk.len() > MAX_BODY {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

fn header_str(h: &HeaderMap, name: &str) -> Option<String> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// `Retry-After` in seconds, else `RateLimit-Reset` (seconds until reset).
fn retry_after(h: &HeaderMap) -> Option<Duration> {
    ["retry-after", "ratelimit-reset"].iter().find_map(|name| {
        let v = header_str(h, name)?;
        let secs: f64 = v.trim().parse().ok()?;
        (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(3600.0)))
    })
}

/// The server's clock less ours from a `Date` (whole seconds, stamped by the server at some
/// moment between `sent` and `received` on our clock): zero when some moment of that span fits
/// it, else the smallest difference that does on the early side.
///
/// Measuring against `received` alone read the `Date`'s truncation plus the round trip as a
/// difference: with both clocks the same, a slow answer stamped late in its second came out
/// over a second behind, and a `--since` moved by it took in a second of older deliveries.
fn clock_offset_from(
    date: chrono::DateTime<chrono::Utc>,
    sent: chrono::DateTime<chrono::Utc>,
    received: chrono::DateTime<chrono::Utc>,
) -> chrono::TimeDelta {
    // The server's true time at stamping lies in [date, date + 1 s); that moment was in
    // [sent, received] on ours, so the difference lies in [date - received, date + 1 s - sent].
    let low = date - received;
    let high = date + chrono::TimeDelta::seconds(1) - sent;
    if low <= chrono::TimeDelta::zero() && chrono::TimeDelta::zero() < high {
        chrono::TimeDelta::zero()
    } else {
        low
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_date_the_round_trip_explains_is_no_clock_difference() {
        use super::clock_offset_from;
        use chrono::TimeDelta;
        let at = |s: &str| crate::api::model::time::parse(s).expect("time");
        // Same clocks, stamped at :10.990 and read 40 ms later: `Date` says :10, we read at
        // :11.030. Against the reading alone that was 1.03 s behind.
        let (sent, received) = (
            at("2026-01-31T12:00:10.950Z"),
            at("2026-01-31T12:00:11.030Z"),
        );
        let date = at("2026-01-31T12:00:10Z");
        assert_eq!(clock_offset_from(date, sent, received), TimeDelta::zero());
        // A slow answer (2 s round trip) still fits.
        let slow = at("2026-01-31T12:00:12.950Z");
        assert_eq!(clock_offset_from(date, sent, slow), TimeDelta::zero());
        // A minute ahead or behind is seen, on the early side of what the `Date` allows.
        let ahead = clock_offset_from(at("2026-01-31T12:01:11Z"), sent, received);
        assert_eq!(ahead, TimeDelta::milliseconds(59_970));
        let behind = clock_offset_from(at("2026-01-31T11:59:10Z"), sent, received);
        assert_eq!(behind, TimeDelta::milliseconds(-61_030));
        // A second further either way is past what the span explains.
        assert_eq!(
            clock_offset_from(at("2026-01-31T12:00:09Z"), sent, received),
            TimeDelta::milliseconds(-2_030)
        );
        assert_eq!(
            clock_offset_from(at("2026-01-31T12:00:12Z"), sent, received),
            TimeDelta::milliseconds(970)
        );
    }

    #[test]
    fn lone_surrogate_escapes_read_as_replacement_characters() {
        use super::{decode, surrogates_replaced};
        let v: serde_json::Value = decode(
            200,
            r#"{"a":"x\ud800y","b":"\udc00","ok":"\ud83d\ude00","k\\ud800":"\\ud800"}"#,
        )
        .expect("read");
        assert_eq!(v["a"], "x\u{fffd}y");
        assert_eq!(v["b"], "\u{fffd}");
        assert_eq!(v["ok"], "😀");
        // An escaped backslash before `ud800` is text, not an escape.
        assert_eq!(v["k\\ud800"], "\\ud800");
        assert_eq!(surrogates_replaced(r#"{"a":"\u0000 \ud83d\ude00"}"#), None);
    }

    use super::*;

    #[test]
    fn a_key_that_cannot_be_a_header_is_a_clear_error() {
        let opts = ClientOptions {
            api_key: Secret::new("sk_abc\n"),
            ..Default::default()
        };
        match Client::new(opts) {
            Err(Error::Invalid(m)) => assert!(m.contains("API key"), "{m}"),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn base_url_must_be_http() {
        let opts = ClientOptions {
            base_url: "ftp://x".into(),
            ..Default::default()
        };
        assert!(matches!(Client::new(opts), Err(Error::Invalid(_))));
    }

    #[test]
    fn retry_after_prefers_retry_after_then_reset() {
        let mut h = HeaderMap::new();
        h.insert("ratelimit-reset", HeaderValue::from_static("7"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
    }
}
