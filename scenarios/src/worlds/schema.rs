//! JSON Schemas of the world and variant files, for editors that check TOML against a
//! schema (a `#:schema` line at the top of a file points to one).

use super::format::{VariantFile, WorldFile};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// File name of the world file schema, next to the world folders.
pub const WORLD_SCHEMA_FILE: &str = "world.schema.json";

/// File name of the variant file schema, next to the world folders.
pub const VARIANT_SCHEMA_FILE: &str = "variant.schema.json";

/// The schema of `world.toml`, pretty-printed with a final newline.
pub fn world_schema() -> String {
    render::<WorldFile>()
}

/// The schema of a variant file, pretty-printed with a final newline.
pub fn variant_schema() -> String {
    render::<VariantFile>()
}

fn render<T: JsonSchema>() -> String {
    let schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut text =
        serde_json::to_string_pretty(&Sorted::from(schema.to_value())).unwrap_or_default();
    text.push('\n');
    text
}

/// A JSON value with object keys in sorted order, whatever map type serde_json was built
/// with, so the schema text is the same in every build.
#[derive(Serialize)]
#[serde(untagged)]
enum Sorted {
    Object(BTreeMap<String, Sorted>),
    Array(Vec<Sorted>),
    Leaf(Value),
}

impl From<Value> for Sorted {
    fn from(value: Value) -> Self {
        match value {
            Value::Object(map) => {
                Sorted::Object(map.into_iter().map(|(k, v)| (k, v.into())).collect())
            }
            Value::Array(items) => Sorted::Array(items.into_iter().map(Sorted::from).collect()),
            leaf => Sorted::Leaf(leaf),
        }
    }
}
