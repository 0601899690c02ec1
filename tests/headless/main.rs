//! The `switchboard` binary's headless commands in one binary (one link step): run as processes
//! against the recording loopback server or the embedded service on 127.0.0.1.
#[path = "../common/mod.rs"]
mod common;

mod alerts;
mod callback_gen;
mod callback_recover;
mod callback_writes;
mod cli;
mod clocks;
mod edited_replay_generations;
mod faces;
mod forward;
mod generations;
mod generations_repro;
mod generations_views_alerts;
mod incident;
mod incident_generations;
mod members;
mod members_teams;
mod platform_retry;
mod recover;
mod replay;
mod samples;
mod samples_generations;
mod search;
mod search_generations;
mod setup;
mod team_writes;
mod views;
mod walks;
