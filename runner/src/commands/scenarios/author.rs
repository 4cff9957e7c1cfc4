//! `cosec scenarios new` and `cosec scenarios schema`: starting and editing custom worlds.

use crate::cli::SchemaKind;
use crate::error::CliError;
use cosec_scenarios::worlds::{
    frozen_world_folders, read_world_folders, scaffold, schema, WorldFolder, WORLD_FILE,
};
use std::path::Path;
use std::process::ExitCode;

/// `cosec scenarios schema world|variant`.
pub fn schema(kind: SchemaKind) -> Result<ExitCode, CliError> {
    let text = match kind {
        SchemaKind::World => schema::world_schema(),
        SchemaKind::Variant => schema::variant_schema(),
    };
    super::super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `cosec scenarios new DIR --from WORLD [--variant ID]`.
pub fn new_world(dir: &Path, from: &str, variant: Option<&str>) -> Result<ExitCode, CliError> {
    let source = find_world(from)?;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(CliError::io(dir))?
            .next()
            .is_none();
        if !empty {
            return Err(CliError::NewWorldExists(dir.to_path_buf()));
        }
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let files = scaffold(&source, &name, variant).map_err(|source| CliError::Scaffold {
        from: from.to_owned(),
        source,
    })?;
    std::fs::create_dir_all(dir).map_err(CliError::io(dir))?;
    for (file, text) in &files {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(CliError::io(&path))?;
    }
    println!(
        "wrote {} ({} files) from world `{}`\nedit {}/{WORLD_FILE} and the variant, then expand and check it with:\n  cosec scenarios generate --worlds {} --out OUT_DIR",
        dir.display(),
        files.len(),
        source.name,
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// A world folder on disk, or a frozen world by name.
fn find_world(from: &str) -> Result<WorldFolder, CliError> {
    let path = Path::new(from);
    if path.join(WORLD_FILE).is_file() {
        let mut folders = read_world_folders(path)?;
        if let Some(folder) = folders.pop() {
            return Ok(folder);
        }
    }
    let frozen = frozen_world_folders();
    let names: Vec<String> = frozen.iter().map(|f| f.name.clone()).collect();
    frozen
        .into_iter()
        .find(|f| f.name == from)
        .ok_or_else(|| CliError::UnknownWorld {
            from: from.to_owned(),
            known: names.join(", "),
        })
}
