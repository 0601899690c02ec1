//! The fake server now lives in `tests/common/fake.rs`; this shim keeps tests written before the
//! move building with `mod support_fake;`.
#[allow(dead_code)] // each test binary uses a different part of it
#[path = "../common/fake.rs"]
mod fake;
#[allow(unused_imports)]
pub use fake::*;
