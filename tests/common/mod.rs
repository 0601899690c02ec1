//! The one shared test harness (each test binary declares `mod common;`): `console` drives an
//! offline app with keys and canned replies, `service` starts the embedded service on a random
//! loopback port, `fake` is a recording
//! loopback server for the client and headless tests, `proxy` a platform that omits signing
//! secrets. `screen` draws an app as text.
#![allow(dead_code, unused_imports)] // each test binary uses a different part of it

pub mod console;
pub mod fake;
pub mod proxy;
pub mod replay;
pub mod service;

pub use console::*;
