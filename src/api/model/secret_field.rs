//! Serde for a nullable secret (`signing_secret`): read into [`Secret`], which never prints itself;
//! written as sent, for the faces' masking policy to mask by the field's name.
use serde::{Deserialize, Deserializer, Serializer};

use crate::api::Secret;

/// Writes the secret's value, or null.
pub fn serialize<S: Serializer>(v: &Option<Secret>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_str(v.expose()),
        None => s.serialize_none(),
    }
}

/// Reads a string or null.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Secret>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(Secret::new))
}
