//! Pagination property: for random data, limits and orders, walking forward with `after` and back
//! with `before` visits every item exactly once and in order, also with inserts between pages.
use crate::common::service as support_service;

use proptest::prelude::*;
use switchboard::api::model::CreateTeam;
use switchboard::api::model::Team;
use switchboard::api::{Client, ListQuery, Order, Page};
use switchboard::service::ServiceConfig;

async fn create(c: &Client, created: &mut Vec<String>) {
    let t = c
        .create_team(&CreateTeam {
            name: format!("t{}", created.len()),
            description: None,
        })
        .await
        .expect("create");
    created.push(t.id);
}

async fn page(
    c: &Client,
    limit: u32,
    order: Order,
    after: Option<&str>,
    before: Option<&str>,
) -> Page<Team> {
    c.list_teams(&ListQuery {
        limit: Some(limit),
        order: Some(order),
        after: after.map(str::to_string),
        before: before.map(str::to_string),
        cursor: None,
    })
    .await
    .expect("page")
}

fn ids(p: &Page<Team>) -> Vec<String> {
    p.items.iter().map(|t| t.id.clone()).collect()
}

async fn walk(n: usize, limit: u32, desc: bool, insert: bool) {
    let t = support_service::start_with(ServiceConfig::ephemeral()).await;
    let c = &t.client;
    let order = if desc { Order::Desc } else { Order::Asc };
    let mut created = Vec::new();
    for _ in 0..n {
        create(c, &mut created).await;
    }
    let in_order = |all: &[String]| {
        let mut v = all.to_vec();
        if desc {
            v.reverse();
        }
        v
    };
    let at_start = in_order(&created);

    // Forward with `after`, inserting a new item between pages.
    let mut seen = Vec::new();
    let mut p = page(c, limit, order, None, None).await;
    assert!(!p.pagination.has_more_before);
    loop {
        assert!(p.items.len() <= limit as usize);
        seen.extend(ids(&p));
        // A few inserts only: one per page forever would outrun a small page size.
        if insert && created.len() < n + 3 {
            create(c, &mut created).await;
        }
        let Some(last) = seen.last().cloned() else {
            break;
        };
        if !p.pagination.has_more_after {
            break;
        }
        p = page(c, limit, order, Some(&last), None).await;
        assert!(p.pagination.has_more_before);
    }
    // Ascending walks also meet the items inserted behind them; descending ones never do.
    let expected: Vec<String> = if desc {
        at_start.clone()
    } else {
        created
            .iter()
            .filter(|id| seen.contains(id) || at_start.contains(id))
            .cloned()
            .collect()
    };
    assert_eq!(seen, expected, "forward walk");
    let mut sorted = created.clone();
    sorted.sort();
    assert_eq!(sorted, created, "ids sort by creation time");

    // Back with `before` from the last item seen.
    let Some(last) = seen.last().cloned() else {
        t.svc.shutdown().await;
        return;
    };
    let current = in_order(&created);
    let upto = current
        .iter()
        .position(|id| *id == last)
        .expect("last is known");
    let mut back = vec![last.clone()];
    let mut first = last;
    loop {
        let p = page(c, limit, order, None, Some(&first)).await;
        assert!(p.pagination.has_more_after);
        let mut chunk = ids(&p);
        let Some(f) = chunk.first().cloned() else {
            break;
        };
        chunk.extend(back);
        back = chunk;
        first = f;
        if !p.pagination.has_more_before {
            break;
        }
    }
    assert_eq!(back, current[..=upto].to_vec(), "backward walk");
    t.svc.shutdown().await;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn walking_visits_every_item_once_in_order(
        n in 0usize..30,
        limit in 1u32..8,
        desc in any::<bool>(),
        insert in any::<bool>(),
    ) {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(walk(n, limit, desc, insert));
    }
}
