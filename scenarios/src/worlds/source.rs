//! Reads world folders from disk or from the copy built into the crate.

use super::format::WORLD_FILE;
use super::locate::{Located, SourceFile};
use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};

/// The worlds of the frozen suite, as in `scenarios/worlds/` when the crate was built.
static FROZEN_WORLDS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/worlds");

/// One world folder: its world file and its variant files, sorted by file name.
#[derive(Debug, Clone)]
pub struct WorldFolder {
    /// The folder's name, used as the world's name.
    pub name: String,
    /// `world.toml`.
    pub world: SourceFile,
    /// Every other `*.toml` of the folder.
    pub variants: Vec<SourceFile>,
}

/// Why world folders could not be read or expanded.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The folder holds no `world.toml`, neither itself nor in a subfolder.
    #[error(
        "{0} holds no world: a world folder has a world.toml (or pass a folder of such folders)"
    )]
    NoWorld(PathBuf),
    /// A subfolder of a folder of worlds has no `world.toml`.
    #[error("{0} has no world.toml; every subfolder of a folder of worlds is one world")]
    MissingWorldFile(PathBuf),
    /// Files that parse but do not make sound scenarios, or do not parse.
    #[error("{}", render(.0))]
    Invalid(Vec<Located>),
}

fn render(problems: &[Located]) -> String {
    let mut text = format!("{} problem(s) in the world files:", problems.len());
    for p in problems {
        text.push_str("\n  ");
        text.push_str(&p.to_string());
    }
    text
}

/// The world folders of the frozen suite, built into the crate.
pub fn frozen_world_folders() -> Vec<WorldFolder> {
    let mut folders: Vec<WorldFolder> = FROZEN_WORLDS
        .dirs()
        .filter_map(|dir| {
            let name = dir.path().file_name()?.to_string_lossy().into_owned();
            let shown = |file: &Path| format!("scenarios/worlds/{}", file.display());
            let mut world = None;
            let mut variants = Vec::new();
            for file in dir.files() {
                let Some(text) = file.contents_utf8() else {
                    continue;
                };
                let source = SourceFile {
                    name: shown(file.path()),
                    text: text.to_owned(),
                };
                if file.path().file_name().is_some_and(|n| n == WORLD_FILE) {
                    world = Some(source);
                } else if file.path().extension().is_some_and(|e| e == "toml") {
                    variants.push(source);
                }
            }
            variants.sort_by(|a, b| a.name.cmp(&b.name));
            Some(WorldFolder {
                name,
                world: world?,
                variants,
            })
        })
        .collect();
    folders.sort_by(|a, b| a.name.cmp(&b.name));
    folders
}

/// Reads one world folder (holding `world.toml`) or a folder of world folders.
pub fn read_world_folders(path: &Path) -> Result<Vec<WorldFolder>, WorldError> {
    if path.join(WORLD_FILE).is_file() {
        return Ok(vec![read_one(path)?]);
    }
    let mut folders = Vec::new();
    for dir in sorted_entries(path)? {
        if dir.is_dir() {
            if !dir.join(WORLD_FILE).is_file() {
                return Err(WorldError::MissingWorldFile(dir));
            }
            folders.push(read_one(&dir)?);
        }
    }
    if folders.is_empty() {
        return Err(WorldError::NoWorld(path.to_path_buf()));
    }
    Ok(folders)
}

fn read_one(dir: &Path) -> Result<WorldFolder, WorldError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .map(|text| SourceFile {
                name: path.display().to_string(),
                text,
            })
            .map_err(|source| WorldError::Read {
                path: path.to_path_buf(),
                source,
            })
    };
    let world = read(&dir.join(WORLD_FILE))?;
    let mut variants = Vec::new();
    for file in sorted_entries(dir)? {
        let is_variant = file.extension().is_some_and(|e| e == "toml")
            && file.file_name().is_some_and(|n| n != WORLD_FILE);
        if is_variant && file.is_file() {
            variants.push(read(&file)?);
        }
    }
    let name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok(WorldFolder {
        name,
        world,
        variants,
    })
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, WorldError> {
    let entries = std::fs::read_dir(dir).map_err(|source| WorldError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| WorldError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        paths.push(entry.path());
    }
    paths.sort();
    Ok(paths)
}
