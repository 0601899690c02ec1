//! A write the console sent, read back from its request (method, path and JSON body): the typed
//! body the API gets, so a test asserts on what goes over the wire.
use serde::de::DeserializeOwned;
use switchboard::api::ApiRequest;
use switchboard::api::model::{
    CreateDestination, CreateImport, CreateTeam, SetTeamProject, UpdateDestination, UpdateImport,
    UpdateTeam,
};
use switchboard::console::forms::ops::WriteOp;

/// One of pulsar's writes, as its request says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// `POST /organization/teams`.
    CreateTeam(CreateTeam),
    /// `POST /organization/teams/{id}`.
    UpdateTeam(String, UpdateTeam),
    /// `POST /organization/teams/{id}/projects`.
    SetProject(String, SetTeamProject),
    /// `DELETE /organization/teams/{id}/projects/{project_id}`: (team, project).
    RemoveProject(String, String),
    /// `POST /organization/teams/{id}/members`: (team, actor).
    AddMember(String, String),
    /// `DELETE /organization/teams/{id}/members/{actor_id}`: (team, actor).
    RemoveMember(String, String),
    /// `POST /provider-oauth/token-imports`.
    CreateImport(CreateImport),
    /// `PATCH /provider-oauth/token-imports/{id}`.
    UpdateImport(String, UpdateImport),
    /// `POST /callbacks-destinations`.
    CreateDestination(CreateDestination),
    /// `PATCH /callbacks-destinations/{id}`.
    UpdateDestination(String, UpdateDestination),
    /// `DELETE /callbacks-destinations/{id}`.
    DeleteDestination(String),
    /// Any other request.
    Other(ApiRequest),
}

fn body<T: DeserializeOwned>(req: &ApiRequest) -> T {
    serde_json::from_value(req.body.clone().unwrap_or_default()).expect("the write's body")
}

/// The write a console write request makes.
pub fn sent(op: &WriteOp) -> Sent {
    let WriteOp::Op(_, req) = op;
    let segs: Vec<&str> = req.segments.iter().map(String::as_str).collect();
    let method = req.method.as_str();
    let s = |x: &str| x.to_string();
    match (method, segs.as_slice()) {
        ("POST", ["organization", "teams"]) => Sent::CreateTeam(body(req)),
        ("POST", ["organization", "teams", id]) => Sent::UpdateTeam(s(id), body(req)),
        ("POST", ["organization", "teams", id, "projects"]) => Sent::SetProject(s(id), body(req)),
        ("DELETE", ["organization", "teams", id, "projects", p]) => {
            Sent::RemoveProject(s(id), s(p))
        }
        ("POST", ["organization", "teams", id, "members"]) => {
            let v: serde_json::Value = body(req);
            Sent::AddMember(
                s(id),
                v["actor_id"].as_str().unwrap_or_default().to_string(),
            )
        }
        ("DELETE", ["organization", "teams", id, "members", a]) => Sent::RemoveMember(s(id), s(a)),
        ("POST", ["provider-oauth", "token-imports"]) => Sent::CreateImport(body(req)),
        ("PATCH", ["provider-oauth", "token-imports", id]) => Sent::UpdateImport(s(id), body(req)),
        ("POST", ["callbacks-destinations"]) => Sent::CreateDestination(body(req)),
        ("PATCH", ["callbacks-destinations", id]) => Sent::UpdateDestination(s(id), body(req)),
        ("DELETE", ["callbacks-destinations", id]) => Sent::DeleteDestination(s(id)),
        _ => Sent::Other(req.clone()),
    }
}
