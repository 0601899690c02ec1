//! The console's tests in one binary (one link step): each module drives the real app state
//! with keys and replies and asserts on the rendered screen and the effects.
#[path = "../common/mod.rs"]
mod common;

mod operator;
