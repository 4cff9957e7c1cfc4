//! A matrix folder's index, `matrix.json`: which cells it holds and where their run
//! folders are, read by everything that reads a matrix folder cell by cell.

use super::spec::Cell;
use crate::json_file::{self, JsonFileError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The file that makes a folder a matrix folder.
pub const MATRIX_FILE: &str = "matrix.json";
/// Version of `matrix.json`.
pub const MATRIX_SCHEMA_VERSION: u32 = 1;

/// `matrix.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MatrixIndex {
    /// Format version.
    pub schema_version: u32,
    /// The matrix file the folder was last run from.
    pub spec: String,
    /// The cells; each cell's run folder is the folder of its name.
    pub cells: Vec<Cell>,
}

/// Whether `dir` is a matrix folder.
pub fn is_matrix_dir(dir: &Path) -> bool {
    dir.join(MATRIX_FILE).is_file()
}

/// Reads a matrix folder's `matrix.json`.
pub fn read_index(dir: &Path) -> Result<MatrixIndex, JsonFileError> {
    let hint = format!(
        " (is {} a matrix folder made by `cosec matrix run`?)",
        dir.display()
    );
    json_file::read(&dir.join(MATRIX_FILE), &hint)
}

/// The cells of a matrix folder with their run folders, in the matrix's order.
pub fn run_folders(dir: &Path) -> Result<Vec<(Cell, PathBuf)>, JsonFileError> {
    Ok(read_index(dir)?
        .cells
        .into_iter()
        .map(|c| {
            let folder = dir.join(&c.name);
            (c, folder)
        })
        .collect())
}
