//! Which generation a deployment serves (`shared/spec/generations.md` §2), decided per area
//! (teams, imports, webhooks) from the versions list, the endpoints introspection, or probes of
//! candidate paths; cached per base URL and instance; and which version id each request carries.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::generation::Generation;
use super::identity::ServiceIdentity;
use super::versions::VersionList;

/// Pulsar's version id: a deployment listing it serves pulsar.
pub const PULSAR_ID: &str = "mt_2025_01_01_pulsar";
/// The dashboard version: a key's default, and the only one that serves teams.
pub const DASHBOARD_ID: &str = "mt_2025_01_01_dashboard";
/// The magnetar version: sent only for a path only it lists.
pub const MAGNETAR_ID: &str = "mt_2026_01_01_magnetar";

/// A cache file larger than this is not read (it is ours: a few hundred paths at most).
const MAX_CACHE_BYTES: u64 = 4 * 1024 * 1024;
/// At most this many paths are kept per version from an introspection answer.
const MAX_ROUTES: usize = 4096;

/// What a deployment serves for teams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TeamsKind {
    /// Teams with access policies (dashboard version).
    Policies,
    /// Teams with projects and roles (pulsar shapes).
    Projects,
    /// No teams path found.
    Absent,
}

/// What a deployment serves for token imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImportsKind {
    /// `/provider-auth-config-imports` (immutable records).
    New,
    /// `/provider-oauth/token-imports` (pulsar).
    Old,
    /// No imports path found.
    Absent,
}

/// What a deployment serves for webhooks: the area that names the generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WebhooksKind {
    /// `/callbacks-destinations`, `/callbacks-notifications` with attempts.
    Pulsar,
    /// `/callback-destinations`, notifications per callback.
    CallbackDestinations,
    /// `/organization/event-destinations`, deliveries, attempts.
    EventDestinations,
    /// Only the transitional instance-level `/webhook-destinations`: not supported.
    TransitionalUnsupported,
    /// None of the known webhook paths.
    Unrecognised,
}

impl TeamsKind {
    /// The word `info` prints.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Policies => "policies",
            Self::Projects => "projects",
            Self::Absent => "absent",
        }
    }
}

impl ImportsKind {
    /// The word `info` prints.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Old => "old",
            Self::Absent => "absent",
        }
    }
}

impl WebhooksKind {
    /// The word `info` prints.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pulsar => "pulsar",
            Self::CallbackDestinations => "callback-destinations",
            Self::EventDestinations => "event-destinations",
            Self::TransitionalUnsupported => "transitional-unsupported",
            Self::Unrecognised => "unrecognised",
        }
    }

    /// The generation these webhooks belong to, if Switchboard speaks it.
    #[must_use]
    pub const fn generation(self) -> Option<Generation> {
        match self {
            Self::Pulsar => Some(Generation::Pulsar),
            Self::CallbackDestinations => Some(Generation::CallbackDestinations),
            Self::EventDestinations => Some(Generation::EventDestinations),
            Self::TransitionalUnsupported | Self::Unrecognised => None,
        }
    }
}

/// How the areas were decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The versions list names pulsar.
    Versions,
    /// The endpoints introspection of magnetar and dashboard.
    Introspection,
    /// `GET <path>?limit=1` of each candidate path.
    Probe,
}

/// The paths found, per area, as the server writes them (`/organization/teams/:teamId/policies`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    /// Teams paths.
    pub teams: Vec<String>,
    /// Imports paths.
    pub imports: Vec<String>,
    /// Webhooks paths.
    pub webhooks: Vec<String>,
}

/// The paths each version's introspection lists (normalised: parameters as `*`, no leading `/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Routes {
    /// What `mt_2025_01_01_dashboard` lists.
    pub dashboard: BTreeSet<String>,
    /// What `mt_2026_01_01_magnetar` lists.
    pub magnetar: BTreeSet<String>,
}

impl Routes {
    /// The version a request to `segments` carries: dashboard for every path dashboard lists
    /// (and for a path neither lists: it is the key's default), magnetar for a path only it lists.
    #[must_use]
    pub fn version_for<S: AsRef<str>>(&self, segments: &[S]) -> &'static str {
        if listed(&self.dashboard, segments) {
            DASHBOARD_ID
        } else if listed(&self.magnetar, segments) {
            MAGNETAR_ID
        } else {
            DASHBOARD_ID
        }
    }

    /// Whether either version lists the path.
    #[must_use]
    pub fn lists<S: AsRef<str>>(&self, segments: &[S]) -> bool {
        listed(&self.dashboard, segments) || listed(&self.magnetar, segments)
    }

    fn has(&self, template: &str) -> bool {
        self.dashboard.contains(template) || self.magnetar.contains(template)
    }
}

/// Whether a normalised template in `set` matches the request's segments.
fn listed<S: AsRef<str>>(set: &BTreeSet<String>, segments: &[S]) -> bool {
    set.iter().any(|t| {
        let parts: Vec<&str> = t.split('/').filter(|p| !p.is_empty()).collect();
        parts.len() == segments.len()
            && parts
                .iter()
                .zip(segments)
                .all(|(p, s)| *p == "*" || *p == s.as_ref())
    })
}

/// A path template (`/organization/teams/:teamId`, `/callbacks/{id}`) with parameters as `*`,
/// without the leading slash.
#[must_use]
pub fn normalise(template: &str) -> String {
    template
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s.starts_with(':') || (s.starts_with('{') && s.ends_with('}')) {
                "*"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// What the detection found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Detection {
    /// The base URL detected (as normalised for the cache key).
    pub base_url: String,
    /// The generation chosen from the versions and the webhooks area; none when the webhooks
    /// are transitional or unrecognised.
    pub generation: Option<Generation>,
    /// Teams.
    pub teams: TeamsKind,
    /// Token imports.
    pub imports: ImportsKind,
    /// Webhooks.
    pub webhooks: WebhooksKind,
    /// The version ids the server lists (empty when it lists none).
    pub versions: Vec<String>,
    /// Whether the server listed its versions at all.
    pub versions_listed: bool,
    /// How the areas were decided.
    pub method: Method,
    /// The paths found per area.
    pub found: Found,
    /// Each version's paths, when introspection answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Routes>,
    /// When it was detected.
    #[serde(with = "super::model::time::millis")]
    pub detected_at: DateTime<Utc>,
}

/// Candidate paths per area, in the order they decide (normalised form).
const TEAMS_POLICIES: &str = "organization/teams/*/policies";
const TEAMS_PROJECTS: &str = "organization/teams/*/projects";
const ACCESS_POLICIES: &str = "organization/access-policies";
const IMPORTS_NEW: &str = "provider-auth-config-imports";
const IMPORTS_OLD: &str = "provider-oauth/token-imports";
const WEBHOOKS: [(&str, WebhooksKind); 5] = [
    (
        "organization/event-destinations",
        WebhooksKind::EventDestinations,
    ),
    ("callback-destinations", WebhooksKind::CallbackDestinations),
    ("callbacks-notifications", WebhooksKind::Pulsar),
    ("callbacks-destinations", WebhooksKind::Pulsar),
    (
        "webhook-destinations",
        WebhooksKind::TransitionalUnsupported,
    ),
];

fn shown(template: &str) -> String {
    format!("/{template}")
}

impl Detection {
    /// A deployment whose versions list names pulsar: every area as pulsar serves it.
    #[must_use]
    pub fn pulsar(base_url: &str, versions: &VersionList, now: DateTime<Utc>) -> Self {
        Self {
            base_url: base_url.to_string(),
            generation: Some(Generation::Pulsar),
            teams: TeamsKind::Projects,
            imports: ImportsKind::Old,
            webhooks: WebhooksKind::Pulsar,
            versions: ids(versions),
            versions_listed: true,
            method: Method::Versions,
            found: Found {
                teams: vec![shown(TEAMS_PROJECTS)],
                imports: vec![shown(IMPORTS_OLD)],
                webhooks: vec![
                    shown("callbacks-destinations"),
                    shown("callbacks-notifications"),
                ],
            },
            routes: None,
            detected_at: now,
        }
    }

    /// Decides the areas from the paths introspection lists.
    #[must_use]
    pub fn from_routes(
        base_url: &str,
        versions: Option<&VersionList>,
        routes: Routes,
        now: DateTime<Utc>,
    ) -> Self {
        let mut found = Found::default();
        let teams = if routes.has(TEAMS_POLICIES) {
            found.teams.push(shown(TEAMS_POLICIES));
            TeamsKind::Policies
        } else if routes.has(TEAMS_PROJECTS) {
            found.teams.push(shown(TEAMS_PROJECTS));
            TeamsKind::Projects
        } else {
            TeamsKind::Absent
        };
        if routes.has(ACCESS_POLICIES) {
            found.teams.push(shown(ACCESS_POLICIES));
        }
        let mut imports = ImportsKind::Absent;
        for (t, kind) in [
            (IMPORTS_NEW, ImportsKind::New),
            (IMPORTS_OLD, ImportsKind::Old),
        ] {
            if routes.has(t) {
                found.imports.push(shown(t));
                if imports == ImportsKind::Absent {
                    imports = kind;
                }
            }
        }
        let present: Vec<(&str, WebhooksKind)> = WEBHOOKS
            .into_iter()
            .filter(|(t, _)| routes.has(t))
            .collect();
        found.webhooks = present.iter().map(|(t, _)| shown(t)).collect();
        let webhooks = webhooks_of(present.iter().map(|(_, k)| *k));
        Self::decided(
            base_url,
            versions,
            (teams, imports, webhooks),
            Method::Introspection,
            found,
            Some(routes),
            now,
        )
    }

    fn decided(
        base_url: &str,
        versions: Option<&VersionList>,
        (teams, imports, webhooks): (TeamsKind, ImportsKind, WebhooksKind),
        method: Method,
        found: Found,
        routes: Option<Routes>,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            base_url: base_url.to_string(),
            generation: webhooks.generation(),
            teams,
            imports,
            webhooks,
            versions: versions.map(ids).unwrap_or_default(),
            versions_listed: versions.is_some(),
            method,
            found,
            routes,
            detected_at: now,
        }
    }

    /// The version a request to `segments` carries on this deployment.
    #[must_use]
    pub fn version_for<S: AsRef<str>>(&self, segments: &[S]) -> &'static str {
        match (&self.routes, self.generation) {
            (_, Some(Generation::Pulsar)) if self.versions.iter().any(|v| v == PULSAR_ID) => {
                PULSAR_ID
            }
            (Some(r), _) => r.version_for(segments),
            (None, _) => DASHBOARD_ID,
        }
    }

    /// Whether this detection said the path a request went to exists (so a 404 `endpoint` from
    /// it means the deployment changed).
    #[must_use]
    pub fn says_exists<S: AsRef<str>>(&self, segments: &[S]) -> bool {
        if let Some(r) = &self.routes {
            return r.lists(segments);
        }
        match area_of(segments) {
            Some(Area::Teams(k)) => self.teams == k,
            Some(Area::AnyTeams) => self.teams != TeamsKind::Absent,
            Some(Area::Imports(k)) => self.imports == k,
            Some(Area::Webhooks(k)) => self.webhooks == k,
            Some(Area::AnyWebhooks) => self.webhooks.generation().is_some(),
            None => false,
        }
    }

    /// Whether the versions list the server gives now is the one this detection saw.
    #[must_use]
    pub fn same_versions(&self, now: Option<&VersionList>) -> bool {
        match now {
            Some(l) => self.versions_listed && ids(l) == self.versions,
            None => !self.versions_listed,
        }
    }
}

fn ids(l: &VersionList) -> Vec<String> {
    l.versions.iter().map(|v| v.version.clone()).collect()
}

/// The webhooks kind from the kinds present, the newest winning.
fn webhooks_of(present: impl Iterator<Item = WebhooksKind>) -> WebhooksKind {
    let present: Vec<WebhooksKind> = present.collect();
    [
        WebhooksKind::EventDestinations,
        WebhooksKind::CallbackDestinations,
        WebhooksKind::Pulsar,
        WebhooksKind::TransitionalUnsupported,
    ]
    .into_iter()
    .find(|k| present.contains(k))
    .unwrap_or(WebhooksKind::Unrecognised)
}

/// Which area (and kind) a path belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Area {
    Teams(TeamsKind),
    AnyTeams,
    Imports(ImportsKind),
    Webhooks(WebhooksKind),
    AnyWebhooks,
}

fn area_of<S: AsRef<str>>(segments: &[S]) -> Option<Area> {
    let s: Vec<&str> = segments.iter().map(AsRef::as_ref).collect();
    Some(match s.as_slice() {
        ["organization", "teams", _, "policies", ..] | ["organization", "access-policies", ..] => {
            Area::Teams(TeamsKind::Policies)
        }
        ["organization", "teams", _, "projects", ..] | ["organization", "team-roles", ..] => {
            Area::Teams(TeamsKind::Projects)
        }
        ["organization", "teams", ..] => Area::AnyTeams,
        ["provider-auth-config-imports", ..] => Area::Imports(ImportsKind::New),
        ["provider-oauth", "token-imports", ..] => Area::Imports(ImportsKind::Old),
        ["callbacks-destinations" | "callbacks-notifications", ..] => {
            Area::Webhooks(WebhooksKind::Pulsar)
        }
        ["callback-destinations", ..] | ["callbacks", _, "notifications" | "events", ..] => {
            Area::Webhooks(WebhooksKind::CallbackDestinations)
        }
        [
            "organization",
            "event-destinations" | "event-destination-listeners",
            ..,
        ]
        | [
            "organization",
            "events" | "event-deliveries" | "event-delivery-attempts",
            ..,
        ]
        | ["organization", "webhook-events", ..]
        | ["callback-events" | "callback-instances", ..] => {
            Area::Webhooks(WebhooksKind::EventDestinations)
        }
        ["webhook-destinations", ..] => Area::Webhooks(WebhooksKind::TransitionalUnsupported),
        ["callbacks", ..] => Area::AnyWebhooks,
        _ => return None,
    })
}

/// Whether a path exists only in the newer generations (a 404 there is not "no pulsar").
#[must_use]
pub fn newer_only<S: AsRef<str>>(segments: &[S]) -> bool {
    matches!(
        area_of(segments),
        Some(
            Area::Teams(TeamsKind::Policies)
                | Area::Imports(ImportsKind::New)
                | Area::Webhooks(
                    WebhooksKind::CallbackDestinations
                        | WebhooksKind::EventDestinations
                        | WebhooksKind::TransitionalUnsupported
                )
        )
    )
}

/// What a probe of one path answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probed {
    /// 2xx.
    Ok,
    /// Another answer than 404 (a refused key, a validation error): the path is routed.
    Routed,
    /// 404: absent.
    Absent,
}

impl Probed {
    /// Whether the path is there.
    #[must_use]
    pub fn present(self) -> bool {
        !matches!(self, Self::Absent)
    }
}

/// The probes' answers, decided as §2 step 3 says.
#[derive(Debug, Clone, Default)]
pub struct ProbeAnswers {
    /// `GET /organization/access-policies?limit=1`.
    pub access_policies: Option<Probed>,
    /// `GET /organization/teams?limit=1`, and whether its first team has a `policies` key
    /// (none: no team, or not read).
    pub teams: Option<(Probed, Option<bool>)>,
    /// Each candidate imports path (normalised) and its answer.
    pub imports: Vec<(&'static str, Probed)>,
    /// Each candidate webhooks path (normalised) and its answer.
    pub webhooks: Vec<(&'static str, Probed)>,
}

/// The imports candidates probed, in order.
pub const PROBE_IMPORTS: [&str; 2] = [IMPORTS_NEW, IMPORTS_OLD];
/// The webhooks candidates probed, in order.
pub const PROBE_WEBHOOKS: [&str; 4] = [
    "organization/event-destinations",
    "callback-destinations",
    "callbacks-notifications",
    "webhook-destinations",
];
/// The access-policies list, probed first for teams.
pub const PROBE_ACCESS_POLICIES: &str = ACCESS_POLICIES;
/// The teams list, probed second.
pub const PROBE_TEAMS: &str = "organization/teams";

impl Detection {
    /// Decides the areas from probes.
    #[must_use]
    pub fn from_probes(
        base_url: &str,
        versions: Option<&VersionList>,
        p: &ProbeAnswers,
        now: DateTime<Utc>,
    ) -> Self {
        let mut found = Found::default();
        let policies_routed = p.access_policies.is_some_and(Probed::present);
        if policies_routed {
            found.teams.push(shown(ACCESS_POLICIES));
        }
        let teams = match (p.access_policies, p.teams) {
            (Some(Probed::Ok), _) => TeamsKind::Policies,
            (_, Some((t, first))) if t.present() => {
                found.teams.push(shown(PROBE_TEAMS));
                match first {
                    Some(true) => TeamsKind::Policies,
                    Some(false) => TeamsKind::Projects,
                    // No team to look at: the access-policies path tells, if routed.
                    None if policies_routed => TeamsKind::Policies,
                    None => TeamsKind::Projects,
                }
            }
            _ if policies_routed => TeamsKind::Policies,
            _ => TeamsKind::Absent,
        };
        let mut imports = ImportsKind::Absent;
        for (t, a) in &p.imports {
            if a.present() {
                found.imports.push(shown(t));
                if imports == ImportsKind::Absent {
                    imports = if *t == IMPORTS_NEW {
                        ImportsKind::New
                    } else {
                        ImportsKind::Old
                    };
                }
            }
        }
        let mut kinds = Vec::new();
        for (t, a) in &p.webhooks {
            if a.present() {
                found.webhooks.push(shown(t));
                if let Some((_, k)) = WEBHOOKS.iter().find(|(w, _)| w == t) {
                    kinds.push(*k);
                }
            }
        }
        let webhooks = webhooks_of(kinds.into_iter());
        Self::decided(
            base_url,
            versions,
            (teams, imports, webhooks),
            Method::Probe,
            found,
            None,
            now,
        )
    }
}

/// One `introspect/endpoints` answer: only the paths are read, and anything else is tolerated
/// (an endpoint that is not an object, a path that is not text).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EndpointsDoc {
    /// The endpoints, as sent: `{path: {path, sdkPath} | "…", allPaths: [{path}]}` each.
    #[serde(default)]
    pub endpoints: Vec<serde_json::Value>,
}

/// `"/callbacks"` (older builds) or `{"path": "/callbacks", …}`.
fn path_text(v: &serde_json::Value) -> Option<&str> {
    v.as_str().or_else(|| v.get("path")?.as_str())
}

impl EndpointsDoc {
    /// Every path and alias, normalised (capped).
    #[must_use]
    pub fn paths(&self) -> BTreeSet<String> {
        self.endpoints
            .iter()
            .flat_map(|e| {
                let aliases = e.get("allPaths").and_then(|a| a.as_array());
                e.get("path")
                    .into_iter()
                    .chain(aliases.into_iter().flatten())
            })
            .filter_map(path_text)
            .map(normalise)
            .filter(|p| !p.is_empty())
            .take(MAX_ROUTES)
            .collect()
    }
}

/// Where a pin comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PinSource {
    /// `--generation`.
    Flag,
    /// `SWITCHBOARD_GENERATION`.
    Environment,
    /// `generation = "…"` in the profile.
    Profile,
}

impl std::fmt::Display for PinSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Flag => "--generation",
            Self::Environment => "SWITCHBOARD_GENERATION",
            Self::Profile => "the profile",
        })
    }
}

/// A generation the user pinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pin {
    /// The generation pinned.
    pub generation: Generation,
    /// Who pinned it.
    pub source: PinSource,
}

/// The generation used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chosen {
    /// The generation the faces speak; none when nothing tells (and nothing is pinned).
    pub generation: Option<Generation>,
    /// What the server was detected to serve, when detected.
    pub detected: Option<Generation>,
    /// The pin, if any.
    pub pin: Option<Pin>,
    /// One sentence when the pin is contradicted or not checked.
    pub note: Option<String>,
}

impl Chosen {
    /// The sentence saying the server contradicts the pin (the server's generation is used), or
    /// nothing when there is no pin, it agrees, or it was not yet checked.
    #[must_use]
    pub fn contradiction(&self) -> Option<&str> {
        let pinned = self.pin?.generation;
        (self.generation != Some(pinned))
            .then_some(self.note.as_deref())
            .flatten()
    }
}

/// The generation to use from a pin and a detection: the server wins over a pin it contradicts
/// (and that is said); a pin stands where nothing was detected.
#[must_use]
pub fn choose(pin: Option<Pin>, detection: Option<&Detection>) -> Chosen {
    let detected = detection.and_then(|d| d.generation);
    let (generation, note) = match (pin, detection) {
        (Some(p), Some(d)) if d.generation != Some(p.generation) => (
            detected,
            Some(format!(
                "{} pins generation {}, but the server serves {}; using what it serves.",
                p.source,
                p.generation,
                served(d)
            )),
        ),
        (Some(p), Some(_)) => (Some(p.generation), None),
        (Some(p), None) => (
            Some(p.generation),
            Some(format!(
                "generation {} is pinned by {} and not yet checked against the server.",
                p.generation, p.source
            )),
        ),
        (None, _) => (detected, None),
    };
    Chosen {
        generation,
        detected,
        pin,
        note,
    }
}

/// What a detection says is served, for a sentence.
#[must_use]
pub fn served(d: &Detection) -> String {
    match (d.generation, d.webhooks) {
        (Some(g), _) => g.to_string(),
        (None, WebhooksKind::TransitionalUnsupported) => {
            "the transitional /webhook-destinations, which Switchboard does not support".into()
        }
        (None, _) => "no webhooks generation Switchboard recognises".into(),
    }
}

/// The detection cache: one file per base URL and instance, private.
#[derive(Debug, Clone)]
pub struct Detector {
    path: PathBuf,
    identity: ServiceIdentity,
}

/// Why the cache could not be written (the detection itself still counts).
#[derive(Debug, thiserror::Error)]
#[error("detection cache {path}: {source}")]
pub struct CacheError {
    /// The file.
    pub path: PathBuf,
    /// What failed.
    #[source]
    pub source: std::io::Error,
}

impl Detector {
    /// The cache under `data_dir` (Switchboard's own data folder): `detected/<key>.json`.
    #[must_use]
    pub fn new(data_dir: &Path, identity: ServiceIdentity) -> Self {
        Self {
            path: data_dir
                .join("detected")
                .join(format!("{}.json", identity.key())),
            identity,
        }
    }

    /// The cache file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The service it is for.
    #[must_use]
    pub fn identity(&self) -> &ServiceIdentity {
        &self.identity
    }

    /// The cached detection, if any and readable and for this base URL.
    #[must_use]
    pub fn cached(&self) -> Option<Detection> {
        let meta = std::fs::symlink_metadata(&self.path).ok()?;
        if !meta.is_file() || meta.len() > MAX_CACHE_BYTES {
            return None;
        }
        let text = std::fs::read_to_string(&self.path).ok()?;
        let d: Detection = serde_json::from_str(&text).ok()?;
        (d.base_url == self.identity.base_url()).then_some(d)
    }

    /// Writes a detection to the cache (a private file, its folder the owner's only).
    ///
    /// # Errors
    /// The folder or the file could not be written.
    pub fn store(&self, d: &Detection) -> Result<(), CacheError> {
        let err = |source| CacheError {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent() {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(dir).map_err(err)?;
        }
        let text = serde_json::to_vec_pretty(d).map_err(|e| err(std::io::Error::other(e)))?;
        crate::config::private_file::write(&self.path, &text).map_err(err)
    }

    /// Forgets the cached detection.
    pub fn forget(&self) {
        // Nothing cached is fine.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Reads both versions' endpoints: a detection when at least one answers.
///
/// # Errors
/// The server could not be reached.
pub(crate) async fn introspect(
    client: &super::Client,
    list: Option<&VersionList>,
) -> Result<Option<Detection>, super::Error> {
    let dashboard = client.endpoints(DASHBOARD_ID).await?;
    let magnetar = client.endpoints(MAGNETAR_ID).await?;
    if dashboard.is_none() && magnetar.is_none() {
        return Ok(None);
    }
    let routes = Routes {
        dashboard: dashboard.map(|d| d.paths()).unwrap_or_default(),
        magnetar: magnetar.map(|d| d.paths()).unwrap_or_default(),
    };
    let base = ServiceIdentity::new(client.base_url(), client.options().instance_id.as_deref());
    Ok(Some(Detection::from_routes(
        base.base_url(),
        list,
        routes,
        Utc::now(),
    )))
}

/// Detection as §2 says: the versions list (asked again), then introspection, then (when
/// `probe`) a probe of each candidate path.
///
/// # Errors
/// The server could not be reached; or, without `probe`, introspection did not answer.
pub(crate) async fn run(client: &super::Client, probe: bool) -> Result<Detection, super::Error> {
    use super::versions::Discovery;
    let base = ServiceIdentity::new(client.base_url(), client.options().instance_id.as_deref());
    let list = match client.versions_afresh().await? {
        Discovery::Listed(l) => Some(l),
        Discovery::Unlisted => None,
    };
    if let Some(l) = list
        .as_ref()
        .filter(|l| l.versions.iter().any(|v| v.version == PULSAR_ID))
    {
        return Ok(Detection::pulsar(base.base_url(), l, Utc::now()));
    }
    if let Some(d) = introspect(client, list.as_ref()).await? {
        return Ok(d);
    }
    if !probe {
        return Err(super::Error::Invalid(
            "the server's endpoints introspection did not answer".into(),
        ));
    }
    let mut answers = ProbeAnswers {
        access_policies: Some(client.probe(PROBE_ACCESS_POLICIES).await?.0),
        ..ProbeAnswers::default()
    };
    let (teams, body) = client.probe(PROBE_TEAMS).await?;
    answers.teams = Some((teams, body.as_deref().and_then(first_has_policies)));
    for t in PROBE_IMPORTS {
        answers.imports.push((t, client.probe(t).await?.0));
    }
    for t in PROBE_WEBHOOKS {
        answers.webhooks.push((t, client.probe(t).await?.0));
    }
    Ok(Detection::from_probes(
        base.base_url(),
        list.as_ref(),
        &answers,
        Utc::now(),
    ))
}

/// Whether the first item of a list body has a `policies` key (none: no item, or not a list).
fn first_has_policies(body: &str) -> Option<bool> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let first = v.get("items")?.as_array()?.first()?;
    Some(first.get("policies").is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes(dash: &[&str], mag: &[&str]) -> Routes {
        Routes {
            dashboard: dash.iter().map(|p| normalise(p)).collect(),
            magnetar: mag.iter().map(|p| normalise(p)).collect(),
        }
    }

    #[test]
    fn the_version_follows_what_each_version_lists() {
        let r = routes(
            &["/organization/teams/:teamId/policies", "/callbacks/{id}"],
            &["/callbacks/:callbackId", "/organization/event-destinations"],
        );
        assert_eq!(
            r.version_for(&["organization", "teams", "tm_1", "policies"]),
            DASHBOARD_ID
        );
        assert_eq!(r.version_for(&["callbacks", "cbk_1"]), DASHBOARD_ID);
        assert_eq!(
            r.version_for(&["organization", "event-destinations"]),
            MAGNETAR_ID
        );
        assert_eq!(r.version_for(&["nowhere"]), DASHBOARD_ID);
    }

    #[test]
    fn areas_come_from_the_paths_present() {
        let now = Utc::now();
        let r = routes(
            &[
                "/organization/teams/:teamId/policies",
                "/provider-auth-config-imports",
            ],
            &["/organization/event-destinations", "/callbacks"],
        );
        let d = Detection::from_routes("http://h", None, r, now);
        assert_eq!(d.generation, Some(Generation::EventDestinations));
        assert_eq!(
            (d.teams, d.imports),
            (TeamsKind::Policies, ImportsKind::New)
        );
        let t = Detection::from_routes(
            "http://h",
            None,
            routes(&["/webhook-destinations"], &[]),
            now,
        );
        assert_eq!(t.webhooks, WebhooksKind::TransitionalUnsupported);
        assert_eq!(t.generation, None);
        assert_eq!(t.teams, TeamsKind::Absent);
    }

    #[test]
    fn a_contradicted_pin_is_said_and_the_server_wins() {
        let d = Detection::from_routes(
            "http://h",
            None,
            routes(&["/callback-destinations"], &[]),
            Utc::now(),
        );
        let pin = Pin {
            generation: Generation::Pulsar,
            source: PinSource::Flag,
        };
        let c = choose(Some(pin), Some(&d));
        assert_eq!(c.generation, Some(Generation::CallbackDestinations));
        assert!(
            c.note
                .as_deref()
                .is_some_and(|n| n.contains("--generation")),
            "{c:?}"
        );
        let agreeing = Pin {
            generation: Generation::CallbackDestinations,
            source: PinSource::Profile,
        };
        assert_eq!(choose(Some(agreeing), Some(&d)).note, None);
        assert_eq!(choose(Some(pin), None).generation, Some(Generation::Pulsar));
    }

    #[test]
    fn probes_decide_as_the_contract_says() {
        let now = Utc::now();
        let teams_without_policies = ProbeAnswers {
            access_policies: Some(Probed::Absent),
            teams: Some((Probed::Ok, Some(false))),
            imports: vec![(IMPORTS_NEW, Probed::Absent), (IMPORTS_OLD, Probed::Ok)],
            webhooks: vec![
                ("organization/event-destinations", Probed::Absent),
                ("callbacks-notifications", Probed::Ok),
            ],
        };
        let d = Detection::from_probes("http://h", None, &teams_without_policies, now);
        assert_eq!(
            (d.teams, d.imports, d.generation),
            (
                TeamsKind::Projects,
                ImportsKind::Old,
                Some(Generation::Pulsar)
            )
        );
        assert!(!d.versions_listed);
        // A refused key still shows a routed path; a policies key on the first team decides.
        let refused = ProbeAnswers {
            access_policies: Some(Probed::Routed),
            teams: Some((Probed::Ok, None)),
            ..ProbeAnswers::default()
        };
        let d = Detection::from_probes("http://h", None, &refused, now);
        assert_eq!(d.teams, TeamsKind::Policies);
        assert_eq!(d.webhooks, WebhooksKind::Unrecognised);
        assert_eq!(d.generation, None);
    }

    #[test]
    fn a_detection_knows_which_paths_it_claimed() {
        let now = Utc::now();
        let routed = Detection::from_routes(
            "http://h",
            None,
            routes(
                &["/organization/teams/:teamId/policies"],
                &["/callback-destinations"],
            ),
            now,
        );
        assert!(routed.says_exists(&["callback-destinations"]));
        assert!(!routed.says_exists(&["organization", "event-destinations"]));
        let probed = Detection::from_probes(
            "http://h",
            None,
            &ProbeAnswers {
                webhooks: vec![("organization/event-destinations", Probed::Ok)],
                ..ProbeAnswers::default()
            },
            now,
        );
        assert!(probed.says_exists(&["organization", "event-deliveries", "evdi_1"]));
        assert!(probed.says_exists(&["callbacks"]));
        assert!(!probed.says_exists(&["callback-destinations"]));
        assert!(probed.same_versions(None));
    }

    #[test]
    fn hostile_introspection_is_read_without_harm() {
        let doc: EndpointsDoc = serde_json::from_str(
            r#"{"endpoints":[{"path":"/a/:x"},{"path":{"path":"/b/{y}"},"allPaths":[{"path":"//"}]},
                {"nothing":1},{"path":42}]}"#,
        )
        .unwrap_or_default();
        let paths = doc.paths();
        assert!(paths.contains("a/*") && paths.contains("b/*"), "{paths:?}");
        assert!(!paths.contains(""), "{paths:?}");
    }

    #[test]
    fn newer_only_paths_are_told_apart() {
        assert!(newer_only(&["organization", "event-deliveries", "x"]));
        assert!(newer_only(&["provider-auth-config-imports"]));
        assert!(!newer_only(&["callbacks"]));
        assert!(!newer_only(&["callbacks-notifications"]));
        assert!(!newer_only(&["organization", "teams"]));
    }
}
