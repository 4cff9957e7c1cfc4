//! `results.jsonl`: one verdict per finished trial, appended whole.
//!
//! Each line is written with a single `write_all` of the complete line and synced
//! before the next trial's line, so a run killed at any moment leaves at most one
//! trailing fragment without its newline; opening the file again cuts that fragment
//! off, and `--resume` re-runs exactly the trials without a complete line.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Errors of the results file.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The results file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A complete line is not a verdict.
    #[error("{path}:{line}: not a verdict line: {source}")]
    Parse {
        /// The results file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
}

/// An append-only results file shared by concurrent trials.
pub struct ResultsFile {
    path: PathBuf,
    file: Mutex<File>,
}

impl ResultsFile {
    /// Opens (creating if needed) and drops a trailing partial line left by a killed run.
    pub fn open(path: &Path) -> Result<Self, ResultsError> {
        let io = |source| ResultsError::Io {
            path: path.to_owned(),
            source,
        };
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        let bytes = std::fs::read(path).map_err(io)?;
        let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if complete != bytes.len() {
            file.set_len(u64::try_from(complete).unwrap_or(0))
                .map_err(io)?;
        }
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(ResultsFile {
            path: path.to_owned(),
            file: Mutex::new(file),
        })
    }

    /// Appends one value as a whole line and syncs it to disk.
    pub fn append<T: Serialize>(&self, value: &T) -> Result<(), ResultsError> {
        let mut line = serde_json::to_string(value).map_err(|source| ResultsError::Parse {
            path: self.path.clone(),
            line: 0,
            source,
        })?;
        line.push('\n');
        let io = |source| ResultsError::Io {
            path: self.path.clone(),
            source,
        };
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)
    }
}

/// Reads every complete line of a results file (a trailing fragment is ignored).
pub fn read_results<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, ResultsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ResultsError::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    let complete = text.rfind('\n').map_or("", |i| &text[..i]);
    complete
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| ResultsError::Parse {
                path: path.to_owned(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Removes the complete lines `drop` picks (read as JSON) and returns them; every other
/// line is kept byte for byte. The file is replaced in one rename, so a kill leaves
/// either the old file or the new one. A line that is not JSON is kept.
pub fn remove_lines(
    path: &Path,
    drop: impl Fn(&serde_json::Value) -> bool,
) -> Result<Vec<serde_json::Value>, ResultsError> {
    let io = |source| ResultsError::Io {
        path: path.to_owned(),
        source,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(io(source)),
    };
    let mut kept = String::with_capacity(text.len());
    let mut dropped = Vec::new();
    for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(value) if drop(&value) => dropped.push(value),
            _ => kept.push_str(line),
        }
    }
    if !dropped.is_empty() {
        let tmp = path.with_extension("jsonl.tmp");
        std::fs::write(&tmp, kept).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)?;
    }
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn a_fragment_left_by_a_kill_is_cut_and_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"a\":2}\n{\"a\":").unwrap();
        let before: Vec<Value> = read_results(&path).unwrap();
        assert_eq!(before, vec![json!({"a":1}), json!({"a":2})]);
        let file = ResultsFile::open(&path).unwrap();
        file.append(&json!({"a":3})).unwrap();
        let after: Vec<Value> = read_results(&path).unwrap();
        assert_eq!(after, vec![json!({"a":1}), json!({"a":2}), json!({"a":3})]);
        assert!(std::fs::read_to_string(&path)
            .unwrap()
            .ends_with("{\"a\":3}\n"));
    }

    #[test]
    fn removing_lines_keeps_every_other_line_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let text =
            "{\"s\":\"valid\",  \"k\":1}\n{\"s\":\"infra_failure\"}\n{\"s\":\"valid\",\"k\":2}\n";
        std::fs::write(&path, text).unwrap();
        let dropped = remove_lines(&path, |v| v["s"] == "infra_failure").unwrap();
        assert_eq!(dropped, vec![json!({"s": "infra_failure"})]);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"s\":\"valid\",  \"k\":1}\n{\"s\":\"valid\",\"k\":2}\n"
        );
    }

    #[test]
    fn concurrent_appends_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.jsonl");
        let file = std::sync::Arc::new(ResultsFile::open(&path).unwrap());
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let file = std::sync::Arc::clone(&file);
                std::thread::spawn(move || {
                    for i in 0..25 {
                        file.append(&json!({"t": t, "i": i, "pad": "x".repeat(500)}))
                            .unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let rows: Vec<Value> = read_results(&path).unwrap();
        assert_eq!(rows.len(), 200);
    }
}
