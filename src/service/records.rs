//! What the store keeps for each kind of record, and how records become wire shapes.
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use serde::de::DeserializeOwned;

use super::errors::{Failure, Reply};
use super::paging::ListParams;
use super::store::{Db, StoreError};
use crate::api::Page;
use crate::api::model::{
    Callback, Destination, ImportStatus, Member, Project, ProviderOauthImport, Team, TeamProject,
    TeamRole, TeamRoleAssignment,
};

/// A record the `records` table keeps: its `kind` there and its id. Everything above the store
/// reads and writes records through this, so no caller names a kind (only the store's SQL does,
/// where its migrations' partial indexes need the literal).
pub trait Record: Serialize + DeserializeOwned + Send + 'static {
    /// The `kind` column's value.
    const KIND: &'static str;
    /// The `id` column's value.
    fn id(&self) -> &str;
}

/// A record type whose id is its `id` field.
macro_rules! record {
    ($t:ty, $kind:literal, $doc:literal) => {
        #[doc = $doc]
        impl Record for $t {
            const KIND: &'static str = $kind;
            fn id(&self) -> &str {
                &self.id
            }
        }
    };
}

record!(TeamRec, "team", "`management.team`.");
record!(Project, "project", "`organization.project`.");
record!(TeamRole, "role", "`management.team.role`.");
record!(Member, "member", "`organization.member`.");
record!(ProviderOauthImport, "import", "`provider_oauth.import`.");
record!(DeploymentRec, "deployment", "A server deployment.");
record!(ConnectionRec, "connection", "An OAuth connection.");

/// `callback`.
impl Record for CallbackRec {
    const KIND: &'static str = "callback";
    fn id(&self) -> &str {
        &self.callback.id
    }
}

/// `callback.destination`.
impl Record for DestinationRec {
    const KIND: &'static str = "destination";
    fn id(&self) -> &str {
        &self.destination.id
    }
}

/// Records by type: the kind comes from [`Record`].
impl Db<'_> {
    /// One record by id.
    pub fn load<T: Record>(&self, id: &str) -> Result<Option<T>, StoreError> {
        self.get(T::KIND, id)
    }

    /// Inserts or replaces a record under its own id.
    pub fn save<T: Record>(&self, value: &T) -> Result<(), StoreError> {
        self.put(T::KIND, value.id(), value)
    }

    /// Every record of the type, by ascending id.
    pub fn load_all<T: Record>(&self) -> Result<Vec<T>, StoreError> {
        self.all(T::KIND)
    }

    /// One page of records of the type, decoded.
    pub fn page_of<T: Record>(&self, p: &ListParams) -> Result<Page<T>, StoreError> {
        self.records_page(T::KIND, p)
    }

    /// One page of records of the type, as stored: (id, data) pairs.
    pub fn raw_page_of<T: Record>(
        &self,
        p: &ListParams,
    ) -> Result<Page<(String, String)>, StoreError> {
        self.records_page_raw(T::KIND, p)
    }
}

/// A team as stored: project assignments by reference, and its members.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TeamRec {
    /// `tm_…`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Unique, derived from the name.
    pub slug: String,
    /// Nullable.
    pub description: Option<String>,
    /// Project assignments.
    pub projects: Vec<TeamProjectRec>,
    /// `oac_…` ids of its members.
    pub members: Vec<String>,
    /// Creation time.
    #[serde(with = "crate::api::model::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "crate::api::model::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// A project assignment of a team.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TeamProjectRec {
    /// `tmp_…`.
    pub id: String,
    /// `prj_…`.
    pub project_id: String,
    /// Roles on the project.
    pub roles: Vec<RoleAssignmentRec>,
    /// Creation time.
    #[serde(with = "crate::api::model::time::millis")]
    pub created_at: DateTime<Utc>,
    /// Last change.
    #[serde(with = "crate::api::model::time::millis")]
    pub updated_at: DateTime<Utc>,
}

/// A role held on a project.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RoleAssignmentRec {
    /// `tmra_…`.
    pub id: String,
    /// `tmr_…`.
    pub role_id: String,
    /// Creation time.
    #[serde(with = "crate::api::model::time::millis")]
    pub created_at: DateTime<Utc>,
}

/// A callback and, for `webhook_manual`, the secret key of its incoming URL.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallbackRec {
    /// The wire shape (its `url` is filled in when read).
    pub callback: Callback,
    /// The key in `/hooks/{key}`.
    pub hook_key: Option<String>,
    /// Event types the simulation produces for it.
    #[serde(default)]
    pub event_types: Vec<String>,
}

/// A destination and whether it is still active (deletes are soft).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DestinationRec {
    /// The wire shape.
    pub destination: Destination,
    /// False once deleted.
    pub active: bool,
}

/// A server deployment; callback-enabled ones may hold an OAuth connection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeploymentRec {
    /// `svd_…`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `poc_…`, when it has an OAuth connection.
    pub connection_id: Option<String>,
}

/// An OAuth connection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConnectionRec {
    /// `poc_…`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// `active` or `inactive`.
    pub status: String,
}

/// A URL-safe slug of a name: lowercase letters and digits joined by single dashes.
pub fn slugify(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "team".into()
    } else {
        trimmed.into()
    }
}

/// The organization id of this service.
pub fn organization_id(db: &Db) -> Reply<String> {
    db.meta("organization_id")?
        .ok_or_else(|| Failure::internal("organization missing"))
}

/// A team by id or slug.
pub fn find_team(db: &Db, id_or_slug: &str) -> Reply<TeamRec> {
    if let Some(t) = db.load::<TeamRec>(id_or_slug)? {
        return Ok(t);
    }
    match db.team_with_slug(id_or_slug, "")? {
        Some(data) => Ok(serde_json::from_str(&data).map_err(Failure::internal)?),
        None => Err(Failure::not_found("team", id_or_slug)),
    }
}

/// A record by id or slug (projects, roles).
pub fn find_by_id_or_slug<T: Record>(
    db: &Db,
    key: &str,
    slug: impl Fn(&T) -> &str,
) -> Reply<Option<T>> {
    if let Some(v) = db.load::<T>(key)? {
        return Ok(Some(v));
    }
    Ok(db.load_all::<T>()?.into_iter().find(|v| slug(v) == key))
}

/// The wire shape of a team, with its projects and roles resolved.
pub fn render_team(db: &Db, t: &TeamRec) -> Reply<Team> {
    TeamRenderer::new(db).render(t)
}

/// Renders teams, looking each project, role and the organization up once per page: a page of
/// teams shares most of them.
pub struct TeamRenderer<'d, 'c> {
    db: &'d Db<'c>,
    organization_id: Option<String>,
    projects: HashMap<String, Option<Project>>,
    roles: HashMap<String, Option<TeamRole>>,
}

impl<'d, 'c> TeamRenderer<'d, 'c> {
    /// A renderer with empty caches.
    pub fn new(db: &'d Db<'c>) -> Self {
        Self {
            db,
            organization_id: None,
            projects: HashMap::new(),
            roles: HashMap::new(),
        }
    }

    fn project(&mut self, id: &str) -> Reply<Option<Project>> {
        if let Some(p) = self.projects.get(id) {
            return Ok(p.clone());
        }
        let p = self.db.load::<Project>(id)?;
        self.projects.insert(id.to_string(), p.clone());
        Ok(p)
    }

    fn role(&mut self, id: &str) -> Reply<Option<TeamRole>> {
        if let Some(r) = self.roles.get(id) {
            return Ok(r.clone());
        }
        let r = self.db.load::<TeamRole>(id)?;
        self.roles.insert(id.to_string(), r.clone());
        Ok(r)
    }

    /// The wire shape of one team.
    pub fn render(&mut self, t: &TeamRec) -> Reply<Team> {
        let organization_id = match &self.organization_id {
            Some(o) => o.clone(),
            None => {
                let o = organization_id(self.db)?;
                self.organization_id = Some(o.clone());
                o
            }
        };
        let mut projects = Vec::new();
        for p in &t.projects {
            let Some(project) = self.project(&p.project_id)? else {
                continue;
            };
            let mut roles = Vec::new();
            for r in &p.roles {
                if let Some(role) = self.role(&r.role_id)? {
                    roles.push(TeamRoleAssignment {
                        id: r.id.clone(),
                        role,
                        created_at: r.created_at,
                        updated_at: r.created_at,
                    });
                }
            }
            projects.push(TeamProject {
                id: p.id.clone(),
                project,
                roles,
                created_at: p.created_at,
                updated_at: p.updated_at,
            });
        }
        Ok(Team {
            object: "management.team".into(),
            id: t.id.clone(),
            organization_id,
            name: t.name.clone(),
            slug: t.slug.clone(),
            description: t.description.clone(),
            projects,
            created_at: t.created_at,
            updated_at: t.updated_at,
        })
    }
}

/// An import as read: status from `expires_at`, `id_token` only when `with_id_token`.
pub fn render_import(mut i: ProviderOauthImport, with_id_token: bool) -> ProviderOauthImport {
    i.status = match i.expires_at {
        Some(t) if t <= Utc::now() => ImportStatus::Expired,
        _ => ImportStatus::Active,
    };
    if !with_id_token {
        i.id_token = None;
    }
    i
}

/// A callback as read: a `webhook_manual` one gets its incoming URL on this service.
pub fn render_callback(base_url: &str, rec: CallbackRec) -> Callback {
    let mut c = rec.callback;
    c.url = rec.hook_key.map(|k| format!("{base_url}/hooks/{k}"));
    c
}

/// The `identifier` of an access token: a prefixed one-way SHA-512 hash.
pub fn token_identifier(token: &str) -> String {
    use sha2::Digest;
    format!(
        "tkin*{}",
        hex::encode(sha2::Sha512::digest(token.as_bytes()))
    )
}

/// Teams as sent, by their stored record. A team's wire shape is a pure function of its record:
/// the projects and roles it embeds are read-only here (seeded, never written by a route) and the
/// organization never changes. So a page of teams is the stored records looked up here, rendered
/// and encoded only on a miss (the 42 KB of nested JSON was most of a teams page's cost). A record
/// that changes is a new key. The cache is bounded in bytes (keys and values), least recently
/// used out, so big records cannot fill memory.
#[derive(Default)]
pub struct RenderedTeams(std::sync::Mutex<Lru>);

/// Bytes of stored records and their rendered JSON kept at most.
const RENDERED_TEAMS_BYTES: usize = 16 * 1024 * 1024;

/// A least-recently-used map from stored record to rendered JSON, bounded in bytes.
#[derive(Default)]
pub struct Lru {
    entries: HashMap<String, (std::sync::Arc<str>, u64)>,
    order: std::collections::BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
    limit: usize,
}

impl Lru {
    /// An empty cache holding at most `limit` bytes.
    #[cfg(test)]
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    fn limit(&self) -> usize {
        if self.limit == 0 {
            RENDERED_TEAMS_BYTES
        } else {
            self.limit
        }
    }

    /// The entry for `key`, now the most recently used.
    pub fn get(&mut self, key: &str) -> Option<std::sync::Arc<str>> {
        self.tick += 1;
        let tick = self.tick;
        let (value, used) = self.entries.get_mut(key)?;
        self.order.remove(used);
        *used = tick;
        self.order.insert(tick, key.to_string());
        Some(value.clone())
    }

    /// Adds an entry, dropping the least recently used until the total fits; one larger than
    /// the whole bound is not kept.
    pub fn insert(&mut self, key: String, value: std::sync::Arc<str>) {
        let cost = key.len() + value.len();
        if cost > self.limit() || self.entries.contains_key(&key) {
            return;
        }
        while self.bytes + cost > self.limit() {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((v, _)) = self.entries.remove(&oldest) {
                self.bytes -= oldest.len() + v.len();
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, key.clone());
        self.entries.insert(key, (value, self.tick));
        self.bytes += cost;
    }

    /// Bytes held.
    #[cfg(test)]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl RenderedTeams {
    /// The page's stored team records (id, data) as wire JSON, each rendered once; a record that
    /// does not decode is left out and named in the log.
    pub fn page(
        &self,
        db: &Db,
        stored: crate::api::Page<(String, String)>,
    ) -> Reply<crate::api::Page<String>> {
        let mut renderer = TeamRenderer::new(db);
        let mut items = Vec::with_capacity(stored.items.len());
        for (id, raw) in stored.items {
            let hit = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&raw);
            let json = if let Some(json) = hit {
                json
            } else {
                let Some(rec) = super::store::skip_bad(super::store::decode::<TeamRec>(
                    TeamRec::KIND,
                    &id,
                    &raw,
                )) else {
                    continue;
                };
                let team = renderer.render(&rec)?;
                let json: std::sync::Arc<str> = serde_json::to_string(&team)
                    .map_err(Failure::internal)?
                    .into();
                self.0
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(raw, json.clone());
                json
            };
            items.push(json.to_string());
        }
        Ok(crate::api::Page {
            items,
            pagination: stored.pagination,
        })
    }
}

#[cfg(test)]
mod lru_tests {
    use super::*;

    #[test]
    fn the_rendered_cache_keeps_within_its_bytes_and_drops_the_least_recently_used() {
        let mut lru = Lru::with_limit(100);
        let v = |n: usize| -> std::sync::Arc<str> { "x".repeat(n).into() };
        lru.insert("a".into(), v(29));
        lru.insert("b".into(), v(29));
        lru.insert("c".into(), v(29));
        assert!(lru.get("a").is_some());
        // 90 + 30 > 100: "b", the least recently used, goes.
        lru.insert("d".into(), v(29));
        assert!(lru.bytes() <= 100);
        assert!(lru.get("b").is_none());
        assert!(lru.get("a").is_some() && lru.get("c").is_some() && lru.get("d").is_some());
        // Larger than the whole bound: not kept, nothing else dropped.
        lru.insert("huge".into(), v(200));
        assert!(lru.get("huge").is_none());
        assert_eq!(lru.bytes(), 90);
    }
}
