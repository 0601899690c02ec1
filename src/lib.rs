//! Switchboard: a terminal console, headless CLI and embedded local service for the management API.
pub mod alerts;
pub mod api;
pub mod config;
pub mod console;
pub mod headless;
pub mod mcp;
pub mod resource;
pub mod service;
pub mod text;

// The console's tests live inside the crate (ARCHITECTURE.md, "Tests"), so the console's state
// stays private to it. They share `tests/common` with the test binaries, whose paths name the
// crate `switchboard`.
#[cfg(test)]
extern crate self as switchboard;
#[cfg(test)]
#[path = "console_tests/common/mod.rs"]
mod common;
#[cfg(test)]
mod console_tests;
