//! The console's tests, inside the crate: each module drives the real app state
//! with keys and replies and asserts on the rendered screen and the effects.

mod alerts;
mod command_completion;
mod confirm;
mod deliveries_flow;
mod deliveries_masking;
mod deliveries_names;
mod deliveries_nav;
mod deliveries_watch;
mod describe;
mod event_loop;
mod footer_help;
mod forms_e2e;
mod forms_offline;
mod forward;
mod frozen_names;
mod generations;
mod header_generation;
mod idle;
mod landing;
mod operator;
mod palette;
mod power_keys;
mod power_service;
mod recover;
mod replay;
mod resource_ops;
mod retry_timeline;
mod saved_views;
mod seams_layout;
mod seams_ops;
mod search;
mod tab_snapshots;
mod update;
mod worker;
