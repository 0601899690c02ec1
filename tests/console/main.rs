//! The console's tests in one binary (one link step): each module drives the real app state
//! with keys and replies and asserts on the rendered screen and the effects.
#[path = "../common/mod.rs"]
mod common;

mod command_completion;
mod deliveries_masking;
mod deliveries_nav;
mod deliveries_watch;
mod describe;
mod event_loop;
mod forms_e2e;
mod landing;
mod operator;
mod power_service;
mod update;
mod worker;
