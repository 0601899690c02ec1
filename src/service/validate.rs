//! Body validation that reports every problem at once as `errors[]` with paths (api.md §3).
use serde_json::{Map, Value};

use super::errors::{Failure, issue};
use crate::api::error::ValidationIssue;

/// The longest string any field accepts.
pub const MAX_STRING: usize = 100_000;

/// How a JSON value is named in messages (`received`).
fn kind(v: Option<&Value>) -> &'static str {
    match v {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

fn type_issue(expected: &str, got: Option<&Value>, path: &[&str]) -> ValidationIssue {
    let received = kind(got);
    let mut i = issue(
        "invalid_type",
        format!("Invalid input, expected {expected}, received {received}"),
        path,
    );
    i.expected = Some(expected.into());
    i.received = Some(received.into());
    i
}

/// Collects problems while reading fields of one JSON object.
pub struct Check {
    obj: Map<String, Value>,
    issues: Vec<ValidationIssue>,
}

impl Check {
    /// Starts on a request body, which must be an object.
    pub fn body(v: Value) -> Result<Self, Failure> {
        match v {
            Value::Object(obj) => Ok(Self {
                obj,
                issues: Vec::new(),
            }),
            other => Err(Failure::invalid(
                "body",
                vec![type_issue("object", Some(&other), &[])],
            )),
        }
    }

    /// Records a problem found by the caller.
    pub fn push(&mut self, i: ValidationIssue) {
        self.issues.push(i);
    }

    /// Whether the key is present (null included).
    pub fn has(&self, key: &str) -> bool {
        self.obj.contains_key(key)
    }

    fn string_at(&mut self, v: &Value, path: &[&str]) -> Option<String> {
        match v {
            Value::String(s) if s.chars().count() > MAX_STRING => {
                let mut i = issue(
                    "max_length",
                    format!("String must contain at most {MAX_STRING} character(s)"),
                    path,
                );
                i.max = Some(MAX_STRING.into());
                self.issues.push(i);
                None
            }
            Value::String(s) => Some(s.clone()),
            other => {
                self.issues.push(type_issue("string", Some(other), path));
                None
            }
        }
    }

    /// A required string with at least `min` characters.
    pub fn required(&mut self, key: &str, min: usize) -> Option<String> {
        match self.obj.get(key).cloned() {
            None => {
                self.issues.push(type_issue("string", None, &[key]));
                None
            }
            Some(v) => {
                let s = self.string_at(&v, &[key])?;
                if s.chars().count() < min {
                    let mut i = issue(
                        "invalid_min",
                        format!("String must contain at least {min} character(s)"),
                        &[key],
                    );
                    i.min = Some(min.into());
                    self.issues.push(i);
                    return None;
                }
                Some(s)
            }
        }
    }

    /// An optional string that may not be null.
    pub fn optional(&mut self, key: &str) -> Option<String> {
        let v = self.obj.get(key).cloned()?;
        self.string_at(&v, &[key])
    }

    /// An optional string where null is allowed: `Some(None)` for an explicit null.
    pub fn nullable(&mut self, key: &str) -> Option<Option<String>> {
        match self.obj.get(key).cloned()? {
            Value::Null => Some(None),
            v => self.string_at(&v, &[key]).map(Some),
        }
    }

    /// An array of strings (required when `required`).
    pub fn string_list(&mut self, key: &str, required: bool) -> Option<Vec<String>> {
        self.string_list_at(&[key], required)
    }

    fn string_list_at(&mut self, path: &[&str], required: bool) -> Option<Vec<String>> {
        let v = self.get_path(path);
        match v {
            None if !required => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::new();
                for (n, item) in items.iter().enumerate() {
                    let idx = n.to_string();
                    let mut p = path.to_vec();
                    p.push(&idx);
                    out.extend(self.string_at(item, &p));
                }
                (out.len() == items.len()).then_some(out)
            }
            other => {
                self.issues.push(type_issue("array", other.as_ref(), path));
                None
            }
        }
    }

    fn get_path(&self, path: &[&str]) -> Option<Value> {
        let (first, rest) = path.split_first()?;
        let mut v = self.obj.get(*first)?;
        for key in rest {
            v = v.get(key)?;
        }
        Some(v.clone())
    }

    /// An optional object (`metadata`); null is refused.
    pub fn object(&mut self, key: &str) -> Option<Map<String, Value>> {
        match self.obj.get(key).cloned()? {
            Value::Object(m) => {
                let mut long = Vec::new();
                find_long_strings(
                    &Value::Object(m.clone()),
                    &mut vec![key.to_string()],
                    &mut long,
                );
                for path in long {
                    let refs: Vec<&str> = path.iter().map(String::as_str).collect();
                    let mut i = issue(
                        "max_length",
                        format!("String must contain at most {MAX_STRING} character(s)"),
                        &refs,
                    );
                    i.max = Some(MAX_STRING.into());
                    self.issues.push(i);
                }
                Some(m)
            }
            other => {
                self.issues.push(type_issue("object", Some(&other), &[key]));
                None
            }
        }
    }

    /// An optional ISO 8601 timestamp (null allowed: `Some(None)`).
    pub fn timestamp(&mut self, key: &str) -> Option<Option<chrono::DateTime<chrono::Utc>>> {
        let s = self.nullable(key)?;
        match s {
            None => Some(None),
            Some(text) => match crate::api::model::time::parse(&text) {
                Some(t) => Some(Some(t)),
                None => {
                    let mut i = issue("invalid_type", "Invalid datetime", &[key]);
                    i.expected = Some("date".into());
                    i.received = Some("string".into());
                    self.issues.push(i);
                    None
                }
            },
        }
    }

    /// An enum-valued string at a nested path.
    pub fn enum_at(&mut self, path: &[&str], allowed: &[&str]) -> Option<String> {
        let v = self.get_path(path);
        match v {
            Some(Value::String(s)) if allowed.contains(&s.as_str()) => Some(s),
            Some(Value::String(s)) => {
                let list = allowed
                    .iter()
                    .map(|a| format!("'{a}'"))
                    .collect::<Vec<_>>()
                    .join(" | ");
                let mut i = issue(
                    "invalid_enum",
                    format!("Invalid enum value. Expected {list}, received '{s}'"),
                    path,
                );
                i.expected = Some(allowed.to_vec().into());
                i.received = Some(s.into());
                self.issues.push(i);
                None
            }
            other => {
                self.issues.push(type_issue("string", other.as_ref(), path));
                None
            }
        }
    }

    /// A required object at `key` (only its presence and type).
    pub fn require_object(&mut self, key: &str) -> bool {
        match self.obj.get(key) {
            Some(Value::Object(_)) => true,
            other => {
                let other = other.cloned();
                self.issues
                    .push(type_issue("object", other.as_ref(), &[key]));
                false
            }
        }
    }

    /// A nested string list, e.g. `callbacks.callback_id`.
    pub fn nested_list(&mut self, path: &[&str]) -> Option<Vec<String>> {
        self.string_list_at(path, true)
    }

    /// Whether a nested key is present.
    pub fn has_path(&self, path: &[&str]) -> bool {
        self.get_path(path).is_some()
    }

    /// Ends the check: 400 `invalid_data` when anything was wrong.
    pub fn finish(self) -> Result<(), Failure> {
        if self.issues.is_empty() {
            Ok(())
        } else {
            Err(Failure::invalid("body", self.issues))
        }
    }
}

fn find_long_strings(v: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::String(s) if s.chars().count() > MAX_STRING => out.push(path.clone()),
        Value::Array(items) => {
            for (n, item) in items.iter().enumerate() {
                path.push(n.to_string());
                find_long_strings(item, path, out);
                path.pop();
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                path.push(k.clone());
                find_long_strings(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}
