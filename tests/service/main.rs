//! The local service's tests in one binary (one link step): every operation over real HTTP on
//! 127.0.0.1, its error rules, paging, delivery, durability under injected faults, migration
//! and its OpenAPI document.
#[path = "../common/mod.rs"]
mod common;

mod api;
mod callback_destinations;
mod delivery;
mod durability;
mod errors;
mod generation;
mod migration;
mod openapi;
mod paging;
mod reliability;
mod sdk;
