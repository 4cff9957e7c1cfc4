//! `cosec scenarios new --from WORLD`: a custom world folder copied from an existing
//! world, with one variant renamed to the new world's name, ready to edit and expand.

use super::format::WORLD_FILE;
use super::locate::SourceFile;
use super::schema::{variant_schema, world_schema, VARIANT_SCHEMA_FILE, WORLD_SCHEMA_FILE};
use super::source::{WorldError, WorldFolder};

/// Why a scaffold could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ScaffoldError {
    /// The new world's name cannot be a scenario id prefix.
    #[error("`{0}` cannot name a world: use letters, digits, `-` and `_` only")]
    BadName(String),
    /// The source world has no variant of that id.
    #[error("world `{world}` has no variant `{id}`; its variants are {known}")]
    NoSuchVariant {
        /// The source world.
        world: String,
        /// The id asked for.
        id: String,
        /// The ids it has.
        known: String,
    },
    /// The source world has no variants at all.
    #[error("world `{0}` has no variant files to copy")]
    NoVariants(String),
    /// The copy does not expand (the source world itself is broken).
    #[error("the copied world does not expand: {0}")]
    Invalid(#[source] WorldError),
}

/// The files of a new world folder: (file name, text).
pub type ScaffoldFiles = Vec<(String, String)>;

/// Copies `from` as world `name`: its world file, one variant (`variant`, or the first)
/// renamed `<name>-1`, and the two schemas the files point to. The copy is expanded once
/// to prove it is sound.
pub fn scaffold(
    from: &WorldFolder,
    name: &str,
    variant: Option<&str>,
) -> Result<ScaffoldFiles, ScaffoldError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ScaffoldError::BadName(name.to_owned()));
    }
    let source = pick_variant(from, variant)?;
    let id = format!("{name}-1");
    let world_text = format!(
        "#:schema ./{WORLD_SCHEMA_FILE}\n# World `{name}`, copied from `{}`. See docs/authoring.md.\n\n{}",
        from.name,
        without_leading_comments(&from.world.text)
    );
    let variant_text = format!(
        "#:schema ./{VARIANT_SCHEMA_FILE}\n# A variant of `{name}`, copied from `{}`.\n\n{}",
        file_stem(&source.name),
        renamed(without_leading_comments(&source.text), &id)
    );
    let variant_file = format!("{id}.toml");
    let folder = WorldFolder {
        name: name.to_owned(),
        world: SourceFile {
            name: format!("{name}/{WORLD_FILE}"),
            text: world_text.clone(),
        },
        variants: vec![SourceFile {
            name: format!("{name}/{variant_file}"),
            text: variant_text.clone(),
        }],
    };
    super::expand(&[folder]).map_err(ScaffoldError::Invalid)?;
    Ok(vec![
        (WORLD_FILE.to_owned(), world_text),
        (variant_file, variant_text),
        (WORLD_SCHEMA_FILE.to_owned(), world_schema()),
        (VARIANT_SCHEMA_FILE.to_owned(), variant_schema()),
    ])
}

fn pick_variant<'a>(
    from: &'a WorldFolder,
    variant: Option<&str>,
) -> Result<&'a SourceFile, ScaffoldError> {
    let Some(id) = variant else {
        return from
            .variants
            .first()
            .ok_or_else(|| ScaffoldError::NoVariants(from.name.clone()));
    };
    from.variants
        .iter()
        .find(|v| file_stem(&v.name) == id)
        .ok_or_else(|| ScaffoldError::NoSuchVariant {
            world: from.name.clone(),
            id: id.to_owned(),
            known: from
                .variants
                .iter()
                .map(|v| format!("`{}`", file_stem(&v.name)))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

fn file_stem(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.strip_suffix(".toml").unwrap_or(base)
}

/// The text after its opening comment block (the copy gets its own).
fn without_leading_comments(text: &str) -> &str {
    let mut rest = text;
    while rest.starts_with('#') || rest.starts_with('\n') {
        rest = rest.split_once('\n').map_or("", |(_, tail)| tail);
    }
    rest
}

/// Replaces the top-level `id = ...` line (before the first table header).
fn renamed(text: &str, id: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut done = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with('[') {
            done = true;
        }
        if !done && line.starts_with("id = ") {
            out.push_str(&format!("id = \"{id}\"\n"));
            done = true;
        } else {
            out.push_str(line);
        }
    }
    out
}
