//! The console harness now lives in `tests/common/console.rs`; this shim keeps the benches (which
//! include it by path) building.
#[allow(dead_code)] // each user takes a different part of it
#[path = "../common/console.rs"]
mod console;
#[allow(unused_imports)]
pub use console::*;
