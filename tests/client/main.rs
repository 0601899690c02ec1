//! The API client in one binary (one link step): its wire form and resilience against a
//! recording loopback server, injected faults (through the client, the binary and the console)
//! and the golden fixtures' round trip through the typed model.
#[path = "../common/mod.rs"]
mod common;

mod callback_gen;
mod detection;
mod fault_injection;
mod fixtures_roundtrip;
mod generations;
mod requests;
mod resilience;
mod standins;
