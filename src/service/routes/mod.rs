//! HTTP routes, one file per area of the API; `table` declares every route once.
pub(super) mod callbacks;
pub(super) mod destinations;
pub(super) mod hooks;
pub(super) mod imports;
pub(super) mod introspect;
pub(super) mod notifications;
pub(super) mod organization;
pub(super) mod table;
pub(super) mod teams;

pub use destinations::signing_secret;

use super::errors::Reply;
use super::paging::{ListParams, parse_pairs};

/// The raw query's pairs and its validated list parameters.
fn list_query(raw: Option<String>) -> Reply<(Vec<(String, String)>, ListParams)> {
    let pairs = parse_pairs(raw.as_deref());
    let params = ListParams::from_pairs(&pairs)?;
    Ok((pairs, params))
}
