//! The console tests' helpers: the loopback servers and receivers shared with the test binaries
//! (`tests/common`), the public-face helpers (fixtures, a fixed clock, keys), an offline app
//! with canned replies, and a world of real deliveries.
#![allow(dead_code, unused_imports)] // each test module uses a different part of it

#[path = "../../../tests/common/console.rs"]
pub mod console;
pub mod deliveries;
#[path = "../../../tests/common/fake.rs"]
pub mod fake;
pub mod offline;
#[path = "../../../tests/common/proxy.rs"]
pub mod proxy;
#[path = "../../../tests/common/replay.rs"]
pub mod replay;
pub mod sent;
#[path = "../../../tests/common/service.rs"]
pub mod service;

pub use console::*;
pub use offline::*;
pub use sent::{Sent, sent};

pub(crate) use switchboard::console::harness::{
    buffer, ctrl, row_ids, screen, screen_sized, shown_ids, typed,
};
