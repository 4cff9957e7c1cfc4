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
    write_whole_folder(dir, &files)?;
    outln!(
        "wrote {} ({} files) from world `{}`\nedit {}/{WORLD_FILE} and the variant, then expand and check it with:\n  cosec scenarios generate --worlds {} --out OUT_DIR",
        dir.display(),
        files.len(),
        source.name,
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Writes the files into a staging folder beside `dir` and moves it into place, so a
/// failed write leaves no half-made world behind.
fn write_whole_folder(dir: &Path, files: &[(String, String)]) -> Result<(), CliError> {
    let mut staging = dir.as_os_str().to_owned();
    staging.push(".partial");
    let staging = std::path::PathBuf::from(staging);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(CliError::io(parent))?;
    }
    // Only a staging folder made here is ever removed.
    std::fs::create_dir(&staging).map_err(CliError::io(&staging))?;
    let written = (|| {
        for (file, text) in files {
            let path = staging.join(file);
            std::fs::write(&path, text).map_err(CliError::io(&path))?;
        }
        if dir.exists() {
            // Checked empty above; the rename needs the name free.
            std::fs::remove_dir(dir).map_err(CliError::io(dir))?;
        }
        std::fs::rename(&staging, dir).map_err(CliError::io(dir))
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    written
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
