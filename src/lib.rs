//! Switchboard: a terminal console, headless CLI and embedded local service for the management API.
pub mod api;
pub mod config;
pub mod console;
pub mod headless;
pub mod mcp;
pub mod resource;
pub mod service;
pub mod text;
