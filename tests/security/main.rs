//! The security pass and the properties over outside input in one binary (one link step):
//! secrets never shown, file modes, the service's limits, hostile text against the real binary,
//! and property tests of every parser and of the replay plan.
#[path = "../common/mod.rs"]
mod common;
#[path = "../support_hostile/mod.rs"]
mod support_hostile;

mod checks;
mod hostile_text;
mod proptest_inputs;
mod replay_plan_props;
