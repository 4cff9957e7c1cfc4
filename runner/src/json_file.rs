//! JSON files read and written whole: a run's `run.json`, `summary.json` and the like.
//! A write goes to a temporary file renamed over the target, so a crash never leaves a
//! half-written file.

use std::path::{Path, PathBuf};

/// Why a JSON file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    /// The file could not be read.
    #[error("{path}: {source}{hint}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
        /// What the file's folder should have been, if that helps (may be empty).
        hint: String,
    },
    /// The file is not the JSON expected.
    #[error("{path}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The value could not be serialized.
    #[error("could not serialize {path}: {source}")]
    Serialize {
        /// The file it was meant for.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The file could not be written.
    #[error("{path}: {source}")]
    Write {
        /// The file (or its temporary sibling).
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Reads the JSON file `path`; a read failure carries `hint` (may be empty).
pub fn read<T: serde::de::DeserializeOwned>(path: &Path, hint: &str) -> Result<T, JsonFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| JsonFileError::Read {
        path: path.to_owned(),
        source,
        hint: hint.to_owned(),
    })?;
    serde_json::from_str(&text).map_err(|source| JsonFileError::Parse {
        path: path.to_owned(),
        source,
    })
}

/// Writes `value` as pretty JSON to `path`, atomically.
pub fn write_atomically<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), JsonFileError> {
    let mut text =
        serde_json::to_string_pretty(value).map_err(|source| JsonFileError::Serialize {
            path: path.to_owned(),
            source,
        })?;
    text.push('\n');
    let tmp = path.with_extension("json.tmp");
    let write = |path: &Path| {
        let path = path.to_owned();
        move |source| JsonFileError::Write { path, source }
    };
    std::fs::write(&tmp, text).map_err(write(&tmp))?;
    std::fs::rename(&tmp, path).map_err(write(path))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_written_file_reads_back_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        write_atomically(&path, &serde_json::json!({"model": "sim:comply"})).unwrap();
        let back: serde_json::Value = read(&path, "").unwrap();
        assert_eq!(back["model"], "sim:comply");
        assert!(!dir.path().join("run.json.tmp").exists());
    }

    #[test]
    fn errors_name_the_file_and_the_hint() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("run.json");
        let e = read::<serde_json::Value>(&missing, " (is it a run folder?)").unwrap_err();
        assert!(e.to_string().ends_with("(is it a run folder?)"), "{e}");
        std::fs::write(&missing, "{not json").unwrap();
        let e = read::<serde_json::Value>(&missing, "").unwrap_err();
        assert!(
            e.to_string().starts_with(&missing.display().to_string()),
            "{e}"
        );
    }
}
