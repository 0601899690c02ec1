//! One description per operation of the contract: method, path, query and body. Pure data, so the
//! exact wire form of every call can be tested without a network.
use reqwest::Method;
use serde::Serialize;
use serde_json::Value;

use super::Error;
use super::model::{
    CreateDestination, CreateImport, CreateTeam, SetTeamProject, TeamMemberInput,
    UpdateDestination, UpdateImport, UpdateTeam,
};
use super::page::ListQuery;

/// A request to the API, before authentication and transport.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    /// HTTP method.
    pub method: Method,
    /// Path segments, unescaped (`["organization", "teams", id]`).
    pub segments: Vec<String>,
    /// Query pairs; a Union filter with several values repeats its key.
    pub query: Vec<(String, String)>,
    /// JSON body.
    pub body: Option<Value>,
}

/// Filters of `GET /callbacks-notifications` (each a Union: several values are OR-ed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotificationFilter {
    /// `callback_id` values.
    pub callback_ids: Vec<String>,
    /// `event_id` values.
    pub event_ids: Vec<String>,
    /// `destination_id` values.
    pub destination_ids: Vec<String>,
    /// `status` values, where the platform filters a list by status (a newer generation's
    /// deliveries); pulsar's lists take none.
    pub statuses: Vec<String>,
}

impl NotificationFilter {
    /// Whether no filter is set.
    pub fn is_empty(&self) -> bool {
        self.callback_ids.is_empty()
            && self.event_ids.is_empty()
            && self.destination_ids.is_empty()
            && self.statuses.is_empty()
    }
}

/// Refuses an id that would not be exactly one path segment: empty (the collection itself), `.`
/// or `..` (dot segments, which URL parsing removes, turning `teams update ..` into a write to
/// the parent collection).
///
/// # Errors
/// [`Error::Invalid`], naming the id.
pub fn check_segment(s: &str) -> Result<(), Error> {
    match s {
        "" => Err(Error::Invalid("an id cannot be empty".into())),
        "." | ".." => Err(Error::Invalid(format!(
            "{s:?} is not an id (a path segment that would name another resource)"
        ))),
        _ => Ok(()),
    }
}

/// Percent-encodes every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`): `/`, `?`, `#`,
/// `%` and `\` included, so nothing in an id is read as URL structure.
#[must_use]
pub fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn seg(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

fn body<T: Serialize>(v: &T) -> Option<Value> {
    // Serializing our own plain structs cannot fail; a null body is the safe fallback.
    Some(serde_json::to_value(v).unwrap_or(Value::Null))
}

fn union(query: &mut Vec<(String, String)>, key: &str, values: &[String]) {
    for v in values.iter().filter(|v| !v.is_empty()) {
        query.push((key.to_string(), v.clone()));
    }
}

impl ApiRequest {
    fn new(method: Method, segments: Vec<String>) -> Self {
        Self {
            method,
            segments,
            query: Vec::new(),
            body: None,
        }
    }

    fn get(segments: Vec<String>) -> Self {
        Self::new(Method::GET, segments)
    }

    fn list(segments: Vec<String>, q: &ListQuery) -> Self {
        let mut r = Self::get(segments);
        r.query = q.pairs();
        r
    }

    fn with_body(mut self, b: Option<Value>) -> Self {
        self.body = b;
        self
    }

    /// The path as sent, percent-encoded (`/organization/teams/tm_1`); a segment that cannot be
    /// one (see [`check_segment`]) is shown as it is, for messages only: [`Self::url`] refuses it.
    pub fn path(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            out.push('/');
            out.push_str(&encode_segment(s));
        }
        out
    }

    /// The full URL under `base`: every segment checked by [`check_segment`] and
    /// percent-encoded, so an id is always exactly one segment and never changes the operation.
    ///
    /// # Errors
    /// [`Error::Invalid`] (exit 2) for an empty, `.` or `..` segment, or a base URL that cannot
    /// take a path.
    pub fn url(&self, base: &url::Url) -> Result<url::Url, Error> {
        if base.cannot_be_a_base() {
            return Err(Error::Invalid("base URL cannot take a path".into()));
        }
        let mut path = base.path().trim_end_matches('/').to_string();
        for s in &self.segments {
            check_segment(s)?;
            path.push('/');
            path.push_str(&encode_segment(s));
        }
        let mut url = base.clone();
        url.set_path(&path);
        url.set_query(None);
        if !self.query.is_empty() {
            url.query_pairs_mut().extend_pairs(self.query.iter());
        }
        Ok(url)
    }

    /// Whether repeating the call is harmless.
    pub fn is_idempotent(&self) -> bool {
        self.method == Method::GET
    }

    /// Whether the path is organization-scoped (uses the organization key when one is set).
    pub fn is_organization(&self) -> bool {
        self.segments.first().is_some_and(|s| s == "organization")
    }

    /// `GET <segments>` with a page's query: a resource's list, built in its own module
    /// (`resource/<r>.rs`), so a new resource adds nothing here.
    pub fn list_at(segments: &[&str], q: &ListQuery) -> Self {
        Self::list(seg(segments), q)
    }

    /// `GET <segments>`: one item, built in its resource's module.
    pub fn get_at(segments: &[&str]) -> Self {
        Self::get(seg(segments))
    }

    /// `GET <segments>?limit=1`: whether a path is served (detection's probes).
    pub fn probe(segments: Vec<String>) -> Self {
        let mut r = Self::get(segments);
        r.query = vec![("limit".into(), "1".into())];
        r
    }
    /// `GET /organization/teams`.
    pub fn list_teams(q: &ListQuery) -> Self {
        Self::list(seg(&["organization", "teams"]), q)
    }
    /// `GET /organization/teams/{id}` (id or slug).
    pub fn get_team(id: &str) -> Self {
        Self::get(seg(&["organization", "teams", id]))
    }
    /// `POST /organization/teams`.
    pub fn create_team(b: &CreateTeam) -> Self {
        Self::new(Method::POST, seg(&["organization", "teams"])).with_body(body(b))
    }
    /// `POST /organization/teams/{id}`.
    pub fn update_team(id: &str, b: &UpdateTeam) -> Self {
        Self::new(Method::POST, seg(&["organization", "teams", id])).with_body(body(b))
    }
    /// `POST /organization/teams/{id}/projects`.
    pub fn set_team_project(id: &str, b: &SetTeamProject) -> Self {
        Self::new(
            Method::POST,
            seg(&["organization", "teams", id, "projects"]),
        )
        .with_body(body(b))
    }
    /// `DELETE /organization/teams/{id}/projects/{project_id}`.
    pub fn remove_team_project(id: &str, project_id: &str) -> Self {
        Self::new(
            Method::DELETE,
            seg(&["organization", "teams", id, "projects", project_id]),
        )
    }
    /// `POST /organization/teams/{id}/members`.
    pub fn add_team_member(id: &str, actor_id: &str) -> Self {
        let b = TeamMemberInput {
            actor_id: actor_id.to_string(),
        };
        Self::new(Method::POST, seg(&["organization", "teams", id, "members"])).with_body(body(&b))
    }
    /// `DELETE /organization/teams/{id}/members/{actor_id}`.
    pub fn remove_team_member(id: &str, actor_id: &str) -> Self {
        Self::new(
            Method::DELETE,
            seg(&["organization", "teams", id, "members", actor_id]),
        )
    }
    /// `GET /organization/members`.
    pub fn list_members(q: &ListQuery) -> Self {
        Self::list(seg(&["organization", "members"]), q)
    }
    /// `GET /organization/projects`.
    pub fn list_projects(q: &ListQuery) -> Self {
        Self::list(seg(&["organization", "projects"]), q)
    }
    /// `GET /organization/team-roles`.
    pub fn list_team_roles(q: &ListQuery) -> Self {
        Self::list(seg(&["organization", "team-roles"]), q)
    }
    /// `GET /provider-oauth/token-imports`.
    pub fn list_imports(q: &ListQuery) -> Self {
        Self::list(seg(&["provider-oauth", "token-imports"]), q)
    }
    /// `GET /provider-oauth/token-imports/{id}`.
    pub fn get_import(id: &str) -> Self {
        Self::get(seg(&["provider-oauth", "token-imports", id]))
    }
    /// `POST /provider-oauth/token-imports`.
    pub fn create_import(b: &CreateImport) -> Self {
        Self::new(Method::POST, seg(&["provider-oauth", "token-imports"])).with_body(body(b))
    }
    /// `PATCH /provider-oauth/token-imports/{id}`.
    pub fn update_import(id: &str, b: &UpdateImport) -> Self {
        Self::new(Method::PATCH, seg(&["provider-oauth", "token-imports", id])).with_body(body(b))
    }
    /// `GET /callbacks`.
    pub fn list_callbacks(q: &ListQuery) -> Self {
        Self::list(seg(&["callbacks"]), q)
    }
    /// `GET /callbacks/{id}`.
    pub fn get_callback(id: &str) -> Self {
        Self::get(seg(&["callbacks", id]))
    }
    /// `GET /callbacks-destinations`, optionally only those receiving the given callbacks.
    pub fn list_destinations(q: &ListQuery, callback_ids: &[String]) -> Self {
        let mut r = Self::list(seg(&["callbacks-destinations"]), q);
        union(&mut r.query, "callback_id", callback_ids);
        r
    }
    /// `GET /callbacks-destinations/{id}`.
    pub fn get_destination(id: &str) -> Self {
        Self::get(seg(&["callbacks-destinations", id]))
    }
    /// `POST /callbacks-destinations`.
    pub fn create_destination(b: &CreateDestination) -> Self {
        Self::new(Method::POST, seg(&["callbacks-destinations"])).with_body(body(b))
    }
    /// `PATCH /callbacks-destinations/{id}`.
    pub fn update_destination(id: &str, b: &UpdateDestination) -> Self {
        Self::new(Method::PATCH, seg(&["callbacks-destinations", id])).with_body(body(b))
    }
    /// `DELETE /callbacks-destinations/{id}` (soft delete).
    pub fn delete_destination(id: &str) -> Self {
        Self::new(Method::DELETE, seg(&["callbacks-destinations", id]))
    }
    /// `GET /callbacks-notifications` with Union filters.
    pub fn list_notifications(q: &ListQuery, f: &NotificationFilter) -> Self {
        let mut r = Self::list(seg(&["callbacks-notifications"]), q);
        union(&mut r.query, "callback_id", &f.callback_ids);
        union(&mut r.query, "event_id", &f.event_ids);
        union(&mut r.query, "destination_id", &f.destination_ids);
        r
    }
    /// `GET /callbacks-notifications/{id}`.
    pub fn get_notification(id: &str) -> Self {
        Self::get(seg(&["callbacks-notifications", id]))
    }
}
