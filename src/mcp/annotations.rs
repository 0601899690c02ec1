//! What each tool does, said to the client in its MCP annotations: clients auto-approve a tool
//! marked read-only, so only a tool that changes and sends nothing may say so. A tool named here
//! by what it does; any other write tool (one added later included) gets the most cautious hints.
use rmcp::model::ToolAnnotations;

use super::ToolDef;

/// What a tool does to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads the platform; changes and sends nothing.
    Reads,
    /// Sends signed requests to receivers, which act on them as on a delivery.
    Sends,
    /// Adds something on the platform.
    Creates,
    /// Changes fields of something on the platform (the same call twice changes nothing more).
    Updates,
    /// Removes or otherwise changes the platform in a way that cannot be undone.
    Changes,
}

/// The tools that send requests to receivers: served only where writes are allowed.
pub const SENDING: &[&str] = &["replay_locally", "run_recover"];

/// What `def` does: [`SENDING`] tools send; a tool that writes nothing reads; a write tool by
/// its verb, anything unknown as [`Effect::Changes`].
#[must_use]
pub fn effect(def: &ToolDef) -> Effect {
    if SENDING.contains(&def.name) {
        return Effect::Sends;
    }
    // Counts and hands out a token, changing nothing: gated with the writes it leads to.
    if !def.write || def.name == "plan_recover" {
        return Effect::Reads;
    }
    if def.name.starts_with("create_") {
        Effect::Creates
    } else if def.name.starts_with("update_") {
        Effect::Updates
    } else {
        Effect::Changes
    }
}

/// The MCP annotations of `def`, from its [`effect`].
#[must_use]
pub fn annotations(def: &ToolDef) -> ToolAnnotations {
    let a = ToolAnnotations::new();
    match effect(def) {
        Effect::Reads => a.read_only(true).open_world(false),
        // A receiver may act on a request however it likes (as on the attack's delete-all).
        Effect::Sends => a
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(true),
        Effect::Creates => a
            .read_only(false)
            .destructive(false)
            .idempotent(false)
            .open_world(false),
        Effect::Updates => a
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
        Effect::Changes => a
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::TOOLS;

    #[test]
    fn a_tool_that_sends_or_writes_is_not_read_only_and_is_gated() {
        for t in TOOLS {
            let a = annotations(t);
            let e = effect(t);
            assert_eq!(a.read_only_hint, Some(e == Effect::Reads), "{}", t.name);
            if e != Effect::Reads {
                assert!(
                    t.write,
                    "{} changes or sends but is served read-only",
                    t.name
                );
            }
        }
        for name in SENDING {
            let t = TOOLS.iter().find(|t| t.name == *name).expect("a tool");
            assert!(t.write, "{name}");
            assert_eq!(annotations(t).destructive_hint, Some(true), "{name}");
        }
        let delete = TOOLS
            .iter()
            .find(|t| t.name == "delete_destination")
            .expect("a tool");
        assert_eq!(effect(delete), Effect::Changes);
    }
}
