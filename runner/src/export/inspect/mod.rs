//! `cosec export inspect`: a run folder as one Inspect evaluation log (inspect-ai's
//! JSON log format, schema version 2), so that `inspect view`, `inspect log` and
//! `inspect_ai.analysis` read a CoSec run as any other evaluation.
//!
//! Everything written is recomputed from the run folder (`run.json`, `results.jsonl`,
//! `summary.json` and the trials' traces): the eval's task is the suite, its model the
//! model route, its task args the condition; one sample per trial. The traces are read
//! for the visible half only (participants' deliveries and the model calls); docs/report.md
//! lists what maps to what.

mod conversation;
mod header;
mod sample;
mod scores;

pub use scores::SCORES;

use crate::compare::{load_runs, LoadError, LoadedRun};
use std::path::{Path, PathBuf};

/// Version of Inspect's log schema the export writes.
pub const LOG_SCHEMA_VERSION: u32 = 2;

/// Why a run could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A run folder could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A trial's trace could not be read.
    #[error(
        "run {run}: trial {trial}: {source} (the export needs every trial's hidden/trace.jsonl)"
    )]
    Trace {
        /// The run folder.
        run: PathBuf,
        /// The trial id.
        trial: String,
        /// The reading error.
        #[source]
        source: cosec_proxy::trace::TraceError,
    },
    /// The output folder or a log file could not be written.
    #[error("{path}: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The log could not be serialized.
    #[error("cannot serialize the log of {run}: {source}")]
    Json {
        /// The run folder.
        run: PathBuf,
        /// The error.
        #[source]
        source: serde_json::Error,
    },
}

/// Writes one log per run folder (a matrix folder stands for its cells) into `out`,
/// returning the files written in order.
pub fn export_runs(dirs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, ExportError> {
    let runs = load_runs(dirs)?;
    runs.iter().map(|run| export_run(run, out)).collect()
}

/// Writes the log of one loaded run into `out` (created when missing) and returns its
/// path.
pub fn export_run(run: &LoadedRun, out: &Path) -> Result<PathBuf, ExportError> {
    let log = eval_log(run)?;
    std::fs::create_dir_all(out).map_err(|source| ExportError::Write {
        path: out.to_owned(),
        source,
    })?;
    let name = header::file_name(run);
    let path = out.join(name);
    let text = serde_json::to_string(&log).map_err(|source| ExportError::Json {
        run: run.dir.clone(),
        source,
    })?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|source| ExportError::Write {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

/// The whole log of a run as JSON.
pub fn eval_log(run: &LoadedRun) -> Result<serde_json::Value, ExportError> {
    let samples = run
        .verdicts
        .iter()
        .map(|v| {
            sample::sample(&run.dir, v, &run.record.model).map_err(|source| ExportError::Trace {
                run: run.dir.clone(),
                trial: v.trial.clone(),
                source,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(header::log(run, samples))
}
