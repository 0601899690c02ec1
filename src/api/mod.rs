//! The management API: wire model, request descriptions and the async client. No UI, no server.
pub mod budget;
pub mod callback_export;
pub mod callback_forward;
pub mod callback_gen;
pub mod callback_health;
pub mod callback_recover;
pub mod capture;
pub mod client;
pub mod compare;
pub mod delivery_compare;
pub mod delivery_follow;
pub mod delivery_forward;
pub mod delivery_health;
pub mod delivery_replay;
pub mod detect;
pub mod edited_replay;
pub mod error;
pub mod export;
pub mod follow;
pub mod forward;
pub mod generation;
pub mod health;
pub mod identity;
pub mod journal;
pub mod jq;
pub mod lookup;
pub mod members;
pub mod model;
pub mod newer_requests;
pub mod newer_search;
pub mod page;
pub mod platform_retry;
pub mod recover;
pub mod replay;
pub mod request;
pub mod retry;
pub mod sample_send;
pub mod samples;
pub mod search;
pub mod secret;
pub mod selection;
pub mod signature;
pub mod versions;
pub mod window;

pub use client::{Client, ClientOptions};
pub use error::{ApiError, Error};
pub use lookup::{NameCache, destination_is_active, list_all};
pub use members::{MemberLookupError, resolve_member};
pub use page::{ListQuery, Order, Page, Pagination};
pub use request::{ApiRequest, NotificationFilter, check_segment, encode_segment};
pub use secret::Secret;

/// The API version this client speaks, sent as `Metorial-Version`.
pub const API_VERSION: &str = "2025-01-01-pulsar";
/// Base URL of the real service.
pub const DEFAULT_BASE_URL: &str = "https://api.metorial.com";
