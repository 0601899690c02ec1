//! Lookups built from lists: every page of a list, whether a destination is still active (the
//! contract has no status field), and the names of callbacks and destinations by id.
use std::collections::{HashMap, HashSet};

use serde::de::DeserializeOwned;

use super::client::Client;
use super::error::Error;
use super::model::{Callback, Destination, Member};
use super::page::{ListQuery, Page};
use super::request::ApiRequest;

/// Items per page when walking a whole list (the contract's maximum).
const PAGE: u32 = 100;

/// A walk over a list (`--all`, member and name lookups, the console's background lookups)
/// reads at most this many pages by default…
pub const MAX_PAGES: usize = super::budget::DEFAULT_PAGES;

/// …and this many items (200 full pages: far beyond any organization's teams, members,
/// callbacks or destinations), and [`super::budget::DEFAULT_BYTES`]: the client's
/// [`Budget`](super::budget::Budget) (`--max-pages` raises it). Past it, with the server still
/// reporting more, the walk fails with [`Error::TooManyPages`]: a server whose cursor always
/// advances must neither keep us reading forever nor fill memory, and a partial list must not
/// pass for a whole one.
pub const MAX_ITEMS: usize = super::budget::DEFAULT_ITEMS;

/// Walks a list from `q` (its first page unless `q` says otherwise; pages of 100 unless it sets
/// a limit), calling `seen` with each page's items until it returns `false` or the list ends,
/// within the client's budget.
///
/// # Errors
/// The first failing page's error; [`Error::TooManyPages`] past the budget.
pub async fn walk<T: DeserializeOwned>(
    client: &Client,
    mut q: ListQuery,
    build: impl Fn(&ListQuery) -> ApiRequest,
    mut seen: impl FnMut(Vec<T>) -> bool,
) -> Result<(), Error> {
    q.limit = q.limit.or(Some(PAGE));
    // Every cursor followed: a server cycling through pages (A, B, A, …) must not make us loop.
    let mut cursors: HashSet<String> = HashSet::new();
    let mut meter = client.budget().meter();
    loop {
        // Decoded loosely first so the next cursor is known even for items of a shape `T` skips.
        let raw = client.send(&build(&q)).await?;
        let page: Page<serde_json::Value> = super::client::decode(raw.status, &raw.body)?;
        meter.count(page.items.len(), raw.body.len());
        drop(raw);
        let last = page
            .items
            .last()
            .and_then(|v| v.get("id"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string);
        let more = page.pagination.has_more_after;
        let items = page
            .items
            .into_iter()
            .map(serde_json::from_value::<T>)
            .collect::<Result<Vec<T>, _>>()
            .map_err(|e| Error::Decode {
                status: 200,
                detail: e.to_string(),
            })?;
        if !seen(items) {
            return Ok(());
        }
        match last {
            Some(id) if more && cursors.insert(id.clone()) => {
                meter.next(Some(&id))?;
                q.after = Some(id);
                q.before = None;
                q.cursor = None;
            }
            _ => return Ok(()),
        }
    }
}

/// Every item of a list from `q` on (as raw JSON, each as received), following its pages to the
/// end or to the caps ([`MAX_PAGES`], [`MAX_ITEMS`]): `--all`.
///
/// # Errors
/// The first failing page's error; [`Error::TooManyPages`] at a cap.
pub async fn list_all_from(
    client: &Client,
    q: ListQuery,
    build: impl Fn(&ListQuery) -> ApiRequest,
) -> Result<Vec<serde_json::Value>, Error> {
    let mut all = Vec::new();
    walk(client, q, build, |items: Vec<serde_json::Value>| {
        all.extend(items);
        true
    })
    .await?;
    Ok(all)
}

/// Every item of a list, following its pages to the end or to the caps.
///
/// # Errors
/// The first failing page's error (network, HTTP status or an undecodable item);
/// [`Error::TooManyPages`] at a cap.
pub async fn list_all<T: DeserializeOwned>(
    client: &Client,
    build: impl Fn(&ListQuery) -> ApiRequest,
) -> Result<Vec<T>, Error> {
    let mut all = Vec::new();
    walk(client, ListQuery::default(), build, |items: Vec<T>| {
        all.extend(items);
        true
    })
    .await?;
    Ok(all)
}

/// Every member of the organization, with the teams each belongs to.
///
/// # Errors
/// The first failing page's error (network, HTTP status or an undecodable item).
pub async fn all_members(client: &Client) -> Result<Vec<Member>, Error> {
    list_all(client, ApiRequest::list_members).await
}

/// Whether a destination is still active. `GET` answers for deleted destinations too and the
/// contract has no status field, but deleted ones leave the (active-only) list: so the list is
/// searched for the id, page by page, stopping once it is found.
///
/// # Errors
/// The first failing page's error (network, HTTP status or an undecodable item).
pub async fn destination_is_active(client: &Client, id: &str) -> Result<bool, Error> {
    let mut found = false;
    walk(
        client,
        ListQuery::default(),
        |q| ApiRequest::list_destinations(q, &[]),
        |items: Vec<Destination>| {
            found = items.iter().any(|d| d.id == id);
            !found
        },
    )
    .await?;
    Ok(found)
}

/// Names of callbacks and destinations by id, learned from whatever was loaded, so ids can be
/// shown as names. Raw server text: sanitize before it reaches a terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameCache {
    names: HashMap<String, String>,
}

impl NameCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads the names of every callback and every active destination.
    ///
    /// # Errors
    /// The first failing list call's error.
    pub async fn load(client: &Client) -> Result<Self, Error> {
        let mut cache = Self::new();
        let callbacks: Vec<Callback> = list_all(client, ApiRequest::list_callbacks).await?;
        cache.learn_callbacks(&callbacks);
        let destinations: Vec<Destination> =
            list_all(client, |q| ApiRequest::list_destinations(q, &[])).await?;
        cache.learn_destinations(&destinations);
        Ok(cache)
    }

    /// Remembers a name; a blank one is ignored (the id stays the best label).
    pub fn insert(&mut self, id: &str, name: &str) {
        if name.trim().is_empty() {
            return;
        }
        self.names.insert(id.to_string(), name.to_string());
    }

    /// Learns the names of these callbacks (unnamed ones are skipped).
    pub fn learn_callbacks(&mut self, callbacks: &[Callback]) {
        for c in callbacks {
            if let Some(name) = &c.name {
                self.insert(&c.id, name);
            }
        }
    }

    /// Learns the names of these destinations.
    pub fn learn_destinations(&mut self, destinations: &[Destination]) {
        for d in destinations {
            self.insert(&d.id, &d.name);
        }
    }

    /// The name of an id, if known.
    #[must_use]
    pub fn name(&self, id: &str) -> Option<&str> {
        self.names.get(id).map(String::as_str)
    }

    /// The name of an id, or the id itself when no name is known.
    #[must_use]
    pub fn label<'a>(&'a self, id: &'a str) -> &'a str {
        self.name(id).unwrap_or(id)
    }

    /// `name (id)`, or the id alone when no name is known.
    #[must_use]
    pub fn label_with_id(&self, id: &str) -> String {
        match self.name(id) {
            Some(n) => format!("{n} ({id})"),
            None => id.to_string(),
        }
    }

    /// How many names are known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fall_back_to_ids() {
        let mut c = NameCache::new();
        c.insert("clb_1", "Issue events");
        c.insert("cld_2", "  ");
        assert_eq!(c.label("clb_1"), "Issue events");
        assert_eq!(c.label("cld_2"), "cld_2");
        assert_eq!(c.label_with_id("clb_1"), "Issue events (clb_1)");
        assert_eq!(c.label_with_id("clb_9"), "clb_9");
        assert_eq!(c.len(), 1);
    }
}
