//! One route of pulsar's service, declared once: its method and path (read from the handler's
//! `#[utoipa::path]` attribute), its handler, its OpenAPI entry and where else it shows. A leaf:
//! `routes::table` lists the routes with it, and `openapi` and `router` build from that list
//! without importing each other.
use axum::handler::Handler;
use axum::routing::{MethodFilter, MethodRouter, on};
use utoipa::__dev::{SchemaReferences, Tags};
use utoipa::Path;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::schema::Schema;

use super::app::App;

/// The schemas an operation refers to, by name.
pub type Schemas = Vec<(String, RefOr<Schema>)>;

/// Where a route shows besides the router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// An operation of the management API: in the document's `paths` and among introspection's
    /// endpoints.
    Api,
    /// The service's own, in the document's `paths` only (`/openapi.json`).
    Meta,
    /// The demo's hook intake and test receiver: in the document's `x-internal-paths` only.
    Internal,
    /// The platform's introspection: in neither, as a pulsar deployment leaves it out of both.
    Introspection,
}

/// One route: what serves it and what describes it.
pub struct Route {
    /// The methods it answers (one for every route today).
    pub methods: Vec<HttpMethod>,
    /// The path, with `{name}` parameters.
    pub path: String,
    /// Where it shows.
    pub shown: Shown,
    /// What answers it.
    pub handler: MethodRouter<App>,
    /// Its OpenAPI operation and the schemas that refers to; none for introspection.
    pub doc: Option<fn() -> (Operation, Schemas)>,
}

impl Route {
    /// A route described by its handler's `#[utoipa::path]` (`P`, the attribute's `__path_…`
    /// type beside the handler): method, path and document entry all come from that attribute.
    pub fn documented<P, H, T>(shown: Shown, handler: H) -> Self
    where
        P: Path + SchemaReferences + for<'t> Tags<'t>,
        H: Handler<T, App>,
        T: 'static,
    {
        let methods = P::methods();
        Self {
            handler: on(filter(&methods), handler),
            methods,
            path: P::path(),
            shown,
            doc: Some(entry::<P>),
        }
    }

    /// A route the document leaves out (introspection).
    pub fn undocumented<H, T>(method: HttpMethod, path: &str, handler: H) -> Self
    where
        H: Handler<T, App>,
        T: 'static,
    {
        let methods = vec![method];
        Self {
            handler: on(filter(&methods), handler),
            methods,
            path: path.to_string(),
            shown: Shown::Introspection,
            doc: None,
        }
    }
}

/// The operation as `#[derive(OpenApi)]`'s `paths(…)` builds it (its tags added), and the
/// schemas it refers to.
fn entry<P>() -> (Operation, Schemas)
where
    P: Path + SchemaReferences + for<'t> Tags<'t>,
{
    let mut op = P::operation();
    let tags = <P as Tags>::tags();
    op.tags
        .get_or_insert_with(Vec::new)
        .extend(tags.iter().map(ToString::to_string));
    let mut schemas = Vec::new();
    P::schemas(&mut schemas);
    (op, schemas)
}

/// The router's filter for these methods.
fn filter(methods: &[HttpMethod]) -> MethodFilter {
    methods
        .iter()
        .map(|m| match m {
            HttpMethod::Get => MethodFilter::GET,
            HttpMethod::Post => MethodFilter::POST,
            HttpMethod::Put => MethodFilter::PUT,
            HttpMethod::Delete => MethodFilter::DELETE,
            HttpMethod::Options => MethodFilter::OPTIONS,
            HttpMethod::Head => MethodFilter::HEAD,
            HttpMethod::Patch => MethodFilter::PATCH,
            HttpMethod::Trace => MethodFilter::TRACE,
        })
        .reduce(MethodFilter::or)
        .unwrap_or(MethodFilter::GET)
}

/// The method as introspection and HTTP write it.
pub fn method_name(m: &HttpMethod) -> &'static str {
    match m {
        HttpMethod::Get => "GET",
        HttpMethod::Post => "POST",
        HttpMethod::Put => "PUT",
        HttpMethod::Delete => "DELETE",
        HttpMethod::Options => "OPTIONS",
        HttpMethod::Head => "HEAD",
        HttpMethod::Patch => "PATCH",
        HttpMethod::Trace => "TRACE",
    }
}
