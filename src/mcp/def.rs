//! What every tool shares: its definition, why a call failed, and holding arguments to the
//! tool's schema. A leaf: `tools` and `current` both build on it, so neither imports the other
//! for these.
use serde_json::{Map, Value, json};

use crate::api::Error;
use crate::api::replay::ReplayError;

/// One tool: its name, what it does, whether it writes, and the properties it takes.
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// What it does, for the agent.
    pub description: &'static str,
    /// Changes something on the platform (listed and callable only with writes allowed).
    pub write: bool,
    /// The properties of its input object.
    pub properties: fn() -> Value,
    /// The properties it cannot do without.
    pub required: &'static [&'static str],
}

impl ToolDef {
    /// The JSON Schema of its input: an object of exactly these properties.
    pub fn input_schema(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        m.insert("properties".into(), (self.properties)());
        m.insert("required".into(), json!(self.required));
        m.insert("additionalProperties".into(), json!(false));
        m
    }
}

/// Why a tool call failed: the API's error, or bad arguments.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The API call failed.
    #[error(transparent)]
    Api(#[from] Error),
    /// The arguments are wrong or the action is refused.
    #[error("{0}")]
    Usage(String),
}

impl From<ReplayError> for ToolError {
    fn from(e: ReplayError) -> Self {
        match e {
            ReplayError::Lookup(e) => ToolError::Api(e),
            other => ToolError::Usage(other.to_string()),
        }
    }
}

impl ToolError {
    /// `{"error":{"status","code","message"}}`, as the headless commands print under `-o json`.
    pub fn to_json(&self) -> Value {
        let (status, code, message) = match self {
            ToolError::Api(e) => crate::headless::api_error_parts(e),
            ToolError::Usage(m) => (None, "usage".into(), m.clone()),
        };
        json!({ "error": { "status": status, "code": code, "message": message } })
    }
}

pub(super) fn usage(m: impl Into<String>) -> ToolError {
    ToolError::Usage(m.into())
}

/// Holds the arguments to the tool's schema: no unknown property, every required one present.
pub(super) fn check(def: &ToolDef, args: &Map<String, Value>) -> Result<(), ToolError> {
    let props = (def.properties)();
    for k in args.keys() {
        if props.get(k).is_none() {
            return Err(usage(format!(
                "{} takes no argument {:?}",
                def.name,
                crate::text::line(k)
            )));
        }
    }
    for r in def.required {
        if !args.contains_key(*r) {
            return Err(usage(format!("{} needs {r}", def.name)));
        }
    }
    Ok(())
}
