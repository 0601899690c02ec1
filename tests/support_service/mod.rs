//! The service harness now lives in `tests/common/service.rs`; this shim keeps the service
//! tests (and any test written before the move) building with `mod support_service;`.
#[allow(dead_code)] // each test binary uses a different part of it
#[path = "../common/service.rs"]
mod service;
#[allow(unused_imports)]
pub use service::*;
