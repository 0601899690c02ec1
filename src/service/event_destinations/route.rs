//! What one route of the generation is — method, path, handler and what the OpenAPI document
//! and the introspection routes say of it. A leaf: the areas declare their routes with it and
//! `table` lists them, so no area imports the table for these.
use axum::http::Method;
use futures::future::BoxFuture;
use serde_json::Value;

use super::Gen;
use super::wire::{Answer, Req, Version};

/// A handler: the shared state and the request's parts in, a JSON answer out.
pub type Handler = fn(Gen, Req) -> BoxFuture<'static, Answer>;

/// Wraps an `async fn(Gen, Req) -> Answer` as a [`Handler`].
macro_rules! handler {
    ($f:path) => {
        |g, r| Box::pin($f(g, r))
    };
}
pub(crate) use handler;

/// One query parameter a route reads: its name, JSON type and description.
pub type Query = (&'static str, &'static str, &'static str);

/// One route of the generation.
pub struct Route {
    /// GET, POST, PATCH or DELETE.
    pub method: Method,
    /// The path, with `{name}` parameters.
    pub path: &'static str,
    /// The operation's id (OpenAPI) and SDK-like name.
    pub op: &'static str,
    /// The controller (OpenAPI tag, introspection controller).
    pub area: &'static str,
    /// What it does, one line.
    pub summary: &'static str,
    /// Listed by the dashboard version only (teams, access policies).
    pub dashboard_only: bool,
    /// The query parameters besides paging (and whether it pages at all).
    pub query: &'static [Query],
    /// Whether it is a paged list.
    pub paged: bool,
    /// The request body's schema, when it takes one.
    pub body: Option<fn() -> Value>,
    /// The answer's schema.
    pub output: fn() -> Value,
    /// What answers it.
    pub handler: Handler,
}

impl Route {
    /// A route with no query, no body.
    pub fn new(
        method: Method,
        path: &'static str,
        op: &'static str,
        area: &'static str,
        summary: &'static str,
        output: fn() -> Value,
        handler: Handler,
    ) -> Self {
        Self {
            method,
            path,
            op,
            area,
            summary,
            dashboard_only: false,
            query: &[],
            paged: false,
            body: None,
            output,
            handler,
        }
    }

    /// A paged list with these filters.
    pub fn list(mut self, query: &'static [Query]) -> Self {
        self.paged = true;
        self.query = query;
        self
    }

    /// Query parameters of a route that does not page.
    pub fn query(mut self, query: &'static [Query]) -> Self {
        self.query = query;
        self
    }

    /// Takes a JSON body of this schema.
    pub fn body(mut self, schema: fn() -> Value) -> Self {
        self.body = Some(schema);
        self
    }

    /// Only the dashboard version lists it.
    pub fn dashboard_only(mut self) -> Self {
        self.dashboard_only = true;
        self
    }

    /// Whether a version lists this route.
    pub fn served_in(&self, v: Version) -> bool {
        v == Version::Dashboard || !self.dashboard_only
    }

    /// The path with `:name` placeholders, as introspection writes it.
    pub fn colon_path(&self) -> String {
        self.path.replace('{', ":").replace('}', "")
    }
}
