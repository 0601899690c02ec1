//! Team membership as the platform shows it (each member's `actor.teams[]`), kept current by the
//! local service, and the api-level lookups built on it, over real HTTP.
use crate::common::service as support_service;

use std::collections::HashMap;

use support_service::{demo, start_with};
use switchboard::api::lookup::{all_members, destination_is_active};
use switchboard::api::members::{non_members, team_members};
use switchboard::api::model::{
    Callback, CallbacksInput, CreateDestination, CreateTeam, Member, Team, UpdateTeam,
};
use switchboard::api::{ApiRequest, ListQuery, NameCache, list_all, resolve_member};
use switchboard::service::ServiceConfig;

async fn member_by_actor(c: &switchboard::api::Client, actor: &str) -> Member {
    all_members(c)
        .await
        .expect("members")
        .into_iter()
        .find(|m| m.actor_id == actor)
        .expect("member still listed")
}

#[tokio::test]
async fn every_member_carries_its_actor_and_teams() {
    let t = demo().await;
    let c = &t.client;
    let members = all_members(c).await.expect("members");
    assert_eq!(members.len(), 12);
    let teams: Vec<Team> = list_all(c, ApiRequest::list_teams).await.expect("teams");
    let by_id: HashMap<&str, &Team> = teams.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut memberships = 0;
    for m in &members {
        let actor = m.actor.as_ref().expect("every member has an actor");
        assert_eq!(actor.id, m.actor_id);
        assert_eq!(actor.name, m.name);
        assert_eq!(
            m.organization_id.as_deref(),
            actor.organization_id.as_deref()
        );
        for team in &actor.teams {
            let known = by_id.get(team.id.as_str()).expect("a real team");
            assert_eq!((&team.name, &team.slug), (&known.name, &known.slug));
            assert!(team.assignment_id.starts_with("tmm_"), "{team:?}");
            assert!(team.created_at.is_some());
            memberships += 1;
        }
    }
    assert!(memberships > 0, "the demo world has team members");
    t.svc.shutdown().await;
}

#[tokio::test]
async fn add_rename_remove_show_at_once_on_the_actor() {
    let t = demo().await;
    let c = &t.client;
    let team = c
        .create_team(&CreateTeam {
            name: "Flow Crew".into(),
            description: None,
        })
        .await
        .expect("team");
    let members = all_members(c).await.expect("members");
    assert!(team_members(&members, &team.id).is_empty());
    assert_eq!(non_members(&members, &team.id).len(), members.len());
    let grace = resolve_member(&members, "grace").expect("one Grace");
    let actor = grace.actor_id.clone();

    c.add_team_member(&team.id, &actor).await.expect("add");
    let m = member_by_actor(c, &actor).await;
    let entry = m
        .teams()
        .iter()
        .find(|x| x.id == team.id)
        .expect("team on the actor")
        .clone();
    assert_eq!(
        (entry.name.as_str(), entry.slug.as_str()),
        ("Flow Crew", "flow-crew")
    );
    assert!(entry.assignment_id.starts_with("tmm_"));
    let members = all_members(c).await.expect("members");
    let on_team: Vec<&str> = team_members(&members, &team.id)
        .iter()
        .map(|m| m.actor_id.as_str())
        .collect();
    assert_eq!(on_team, [actor.as_str()]);
    // The slug names the team as well as the id.
    assert_eq!(team_members(&members, "flow-crew").len(), 1);

    c.update_team(
        &team.id,
        &UpdateTeam {
            name: Some("Flow Squad".into()),
            description: None,
        },
    )
    .await
    .expect("rename");
    let m = member_by_actor(c, &actor).await;
    let renamed = m
        .teams()
        .iter()
        .find(|x| x.id == team.id)
        .expect("still on");
    assert_eq!(
        (renamed.name.as_str(), renamed.slug.as_str()),
        ("Flow Squad", "flow-squad")
    );
    assert_eq!(
        renamed.assignment_id, entry.assignment_id,
        "same assignment"
    );

    c.remove_team_member(&team.id, &actor)
        .await
        .expect("remove");
    let m = member_by_actor(c, &actor).await;
    assert!(!m.in_team(&team.id));
    let members = all_members(c).await.expect("members");
    assert!(team_members(&members, &team.id).is_empty());
    t.svc.shutdown().await;
}

#[tokio::test]
async fn deleted_destinations_are_told_apart_and_named() {
    let t = demo().await;
    let c = &t.client;
    let callbacks: Vec<Callback> = list_all(c, ApiRequest::list_callbacks)
        .await
        .expect("callbacks");
    let d = c
        .create_destination(&CreateDestination {
            name: "Short lived".into(),
            description: None,
            url: "http://127.0.0.1:9/hook".into(),
            callbacks: CallbacksInput::all(),
        })
        .await
        .expect("create");
    assert!(destination_is_active(c, &d.id).await.expect("check"));
    let names = NameCache::load(c).await.expect("names");
    assert_eq!(names.label(&d.id), "Short lived");
    let titled = callbacks
        .iter()
        .find(|cb| cb.name.is_some())
        .expect("a named callback");
    assert_eq!(names.name(&titled.id), titled.name.as_deref());

    c.delete_destination(&d.id).await.expect("delete");
    // GET still answers for it; the list no longer holds it.
    assert_eq!(c.get_destination(&d.id).await.expect("get").id, d.id);
    assert!(!destination_is_active(c, &d.id).await.expect("check"));
    let others = c
        .list_destinations(&ListQuery::default(), &[])
        .await
        .expect("list");
    let still = others.items.first().expect("demo destinations");
    assert!(destination_is_active(c, &still.id).await.expect("check"));
    t.svc.shutdown().await;
}

#[tokio::test]
async fn the_active_check_reads_every_page() {
    let t = start_with(ServiceConfig::ephemeral()).await;
    let c = &t.client;
    let mut ids = Vec::new();
    for i in 0..105 {
        let d = c
            .create_destination(&CreateDestination {
                name: format!("Receiver {i}"),
                description: None,
                url: "http://127.0.0.1:9/hook".into(),
                callbacks: CallbacksInput::all(),
            })
            .await
            .expect("create");
        ids.push(d.id);
    }
    let (first, last) = (ids[0].clone(), ids[104].clone());
    assert!(destination_is_active(c, &last).await.expect("on page two"));
    c.delete_destination(&first).await.expect("delete");
    assert!(!destination_is_active(c, &first).await.expect("to the end"));
    let all: Vec<switchboard::api::model::Destination> =
        list_all(c, |q| ApiRequest::list_destinations(q, &[]))
            .await
            .expect("all");
    assert_eq!(all.len(), 104);
    t.svc.shutdown().await;
}

#[tokio::test]
async fn a_database_from_before_actors_gets_them_on_start() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("service.db");
    let mut cfg = ServiceConfig::ephemeral();
    cfg.db = switchboard::service::DbLocation::Path(path.clone());
    cfg.seed = switchboard::service::Seed::Demo;
    let t = start_with(cfg.clone()).await;
    let before = all_members(&t.client).await.expect("members");
    t.svc.shutdown().await;

    // Members as an older version stored them: no actor, no organization id.
    {
        let conn = rusqlite::Connection::open(&path).expect("open");
        let rows: Vec<(String, String)> = conn
            .prepare("SELECT id, data FROM records WHERE kind = 'member'")
            .expect("select")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("rows")
            .collect::<Result<_, _>>()
            .expect("read");
        assert_eq!(rows.len(), 12);
        for (id, data) in rows {
            let mut v: serde_json::Value = serde_json::from_str(&data).expect("json");
            let obj = v.as_object_mut().expect("object");
            obj.remove("actor");
            obj.remove("organization_id");
            conn.execute(
                "UPDATE records SET data = ?1 WHERE kind = 'member' AND id = ?2",
                rusqlite::params![v.to_string(), id],
            )
            .expect("update");
        }
    }

    let t = start_with(cfg).await;
    let after = all_members(&t.client).await.expect("members");
    assert_eq!(after.len(), before.len());
    for (a, b) in after.iter().zip(&before) {
        assert!(a.organization_id.is_some());
        let teams_now: Vec<&str> = a.teams().iter().map(|x| x.id.as_str()).collect();
        let teams_then: Vec<&str> = b.teams().iter().map(|x| x.id.as_str()).collect();
        assert_eq!(teams_now, teams_then, "{}", a.display_name());
    }
    t.svc.shutdown().await;
}
