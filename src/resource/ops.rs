//! A resource's operations as typed values: what every face needs to offer one (its label, its
//! `[keys]` name and headless verb, its default key, whether it writes, its question) and how it
//! becomes a request, written once in the resource's module. The console binds and shows it, the
//! headless binary runs it as `<resource> <verb>`, and the MCP server lists it as a tool.
use std::collections::BTreeMap;

use serde_json::Value;

use super::{AnyItem, Kind};
use crate::api::ApiRequest;

/// What an operation is given besides its subject: named text inputs (`name` → `My copy`).
pub type OpArgs = BTreeMap<String, String>;

/// How an agent sees an operation: the MCP tool's name, description and input schema.
pub struct ToolSpec {
    /// The tool's name (`duplicate_destination`).
    pub name: &'static str,
    /// What it does, for the agent.
    pub description: &'static str,
    /// The properties of its input object (`id` names the subject).
    pub properties: fn() -> Value,
    /// The properties it cannot do without.
    pub required: &'static [&'static str],
}

/// One operation on an item of a resource.
pub struct Op {
    /// The resource it acts on (and whose item the reply is).
    pub resource: Kind,
    /// Its `[keys]` name and headless verb (`duplicate`).
    pub verb: &'static str,
    /// One line for help (`duplicate the destination`).
    pub label: &'static str,
    /// A word for the footer.
    pub hint: &'static str,
    /// The key bound to it by default.
    pub key: char,
    /// Whether it changes something on the server (refused read-only; a tool only with writes).
    pub writes: bool,
    /// Past tense for the console's toast (`duplicated`).
    pub done: &'static str,
    /// The title of the console's question.
    pub title: &'static str,
    /// The question asked before it runs, about its subject.
    pub question: fn(&AnyItem) -> String,
    /// The request it makes for its subject and inputs, or why it cannot.
    pub request: fn(&AnyItem, &OpArgs) -> Result<ApiRequest, String>,
    /// The MCP tool that runs it, if agents get one.
    pub tool: Option<ToolSpec>,
}

/// An operation by name: its resource and verb (copyable, comparable, for actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OpId {
    /// The resource.
    pub resource: Kind,
    /// The verb.
    pub verb: &'static str,
}

impl Op {
    /// Its name.
    pub fn id(&self) -> OpId {
        OpId {
            resource: self.resource,
            verb: self.verb,
        }
    }
}

impl OpId {
    /// The operation it names (every `OpId` the registry hands out names one).
    pub fn op(self) -> Option<&'static Op> {
        self.resource
            .ops()
            .iter()
            .copied()
            .find(|o| o.verb == self.verb)
    }
}

/// A write whose inputs come from a dialog, headless flags or a tool's arguments rather than
/// from its subject alone (pulsar's create, update and delete, a team's sub-operations): what
/// every face shows of it. Resources share one (`create` on every tab that has it), so its
/// `[keys]` name and default key are the same wherever it is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Verb {
    /// Its `[keys]` name (`create`).
    pub name: &'static str,
    /// One line for help.
    pub label: &'static str,
    /// A word for the footer.
    pub hint: &'static str,
    /// The key bound to it by default.
    pub key: char,
    /// Whether it changes something on the server (refused and hidden read-only).
    pub writes: bool,
    /// Past tense for the console's toast once it is done (`created`).
    pub done: &'static str,
}

/// A new item (a form).
pub const CREATE: Verb = Verb {
    name: "create",
    label: "create",
    hint: "new",
    key: 'c',
    writes: true,
    done: "created",
};

/// Changes to the item (a form); its `[keys]` name is `edit`.
pub const UPDATE: Verb = Verb {
    name: "edit",
    label: "edit",
    hint: "edit",
    key: 'e',
    writes: true,
    done: "saved",
};

/// The item removed (a question).
pub const DELETE: Verb = Verb {
    name: "delete",
    label: "delete",
    hint: "delete",
    key: 'd',
    writes: true,
    done: "deleted",
};

/// One resource's write of a [`Verb`]: the question asked before it (about what the inputs
/// name) and its request from typed inputs, the resource's write function (`F`: its signature).
pub struct Write<F: 'static> {
    /// What every face shows of it.
    pub verb: Verb,
    /// The resource it writes.
    pub resource: Kind,
    /// The question asked before it runs, about what it names (`“Ops” (dst_1)`); `None`: it
    /// is not asked about.
    pub question: Option<fn(&str) -> String>,
    /// Its request from typed inputs (the resource's write function).
    pub request: F,
}

/// Every dialog write any registered resource offers, each once: create, update and delete
/// first, then the others in tab order as each resource lists them (help and `[keys]` order).
pub fn verbs() -> Vec<Verb> {
    let mut all = vec![CREATE, UPDATE, DELETE];
    for v in Kind::ALL
        .into_iter()
        .flat_map(|k| k.writes().iter().copied())
    {
        if !all.contains(&v) {
            all.push(v);
        }
    }
    all
}

/// Every operation of every registered resource, in tab order.
pub fn all() -> impl Iterator<Item = &'static Op> {
    Kind::ALL.into_iter().flat_map(|k| k.ops().iter().copied())
}

/// The operation an MCP tool runs.
pub fn by_tool(name: &str) -> Option<&'static Op> {
    all().find(|o| o.tool.as_ref().is_some_and(|t| t.name == name))
}
