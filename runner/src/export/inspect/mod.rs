//! `cosec export inspect`: a run folder as one Inspect evaluation log (inspect-ai's
//! JSON log format, schema version 2), so that `inspect view`, `inspect log` and
//! `inspect_ai.analysis` read a CoSec run as any other evaluation.
//!
//! Everything written is recomputed from the run folder (`run.json`, `results.jsonl`,
//! `summary.json` and the trials' traces): the eval's task is the suite, its model the
//! model route, its task args the condition; one sample per trial. The traces are read
//! for the visible half only (participants' deliveries and the model calls), and the
//! scenario's protected values are masked out of them; docs/report.md lists what maps to
//! what.

mod conversation;
mod header;
mod mask;
mod sample;
mod scores;

pub use mask::MARK;
pub use scores::SCORES;

use crate::compare::{load_runs, LoadError, LoadedRun};
use cosec_scenarios::Scenario;
use std::borrow::Borrow;
use std::collections::BTreeMap;
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
    /// A trial ran a scenario the loaded suite does not hold, so its protected values
    /// cannot be masked.
    #[error("run {run}: trial {trial} ran scenario `{scenario}`, which the loaded suite does not hold, so its protected values cannot be masked; pass the suite the run used with --suite-dir (a run of --scenario-file scenarios writes its log with `cosec run --inspect-log`)")]
    UnknownScenario {
        /// The run folder.
        run: PathBuf,
        /// The trial id.
        trial: String,
        /// The scenario id.
        scenario: String,
    },
    /// The run's protected values could not be made into one search.
    #[error("run {run}: its scenarios' protected values cannot be searched for: {source}")]
    Mask {
        /// The run folder.
        run: PathBuf,
        /// The error.
        #[source]
        source: cosec_text::SetError,
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
/// returning the files written in order; `suite` holds the scenarios the runs played.
pub fn export_runs<S: Borrow<Scenario>>(
    dirs: &[PathBuf],
    out: &Path,
    suite: &[S],
) -> Result<Vec<PathBuf>, ExportError> {
    let runs = load_runs(dirs)?;
    runs.iter().map(|run| export_run(run, out, suite)).collect()
}

/// Writes the log of one loaded run into `out` (created when missing) and returns its
/// path.
pub fn export_run<S: Borrow<Scenario>>(
    run: &LoadedRun,
    out: &Path,
    suite: &[S],
) -> Result<PathBuf, ExportError> {
    let log = eval_log(run, suite)?;
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
pub fn eval_log<S: Borrow<Scenario>>(
    run: &LoadedRun,
    suite: &[S],
) -> Result<serde_json::Value, ExportError> {
    let by_id: BTreeMap<&str, &Scenario> = suite
        .iter()
        .map(|s| (s.borrow().id.as_str(), s.borrow()))
        .collect();
    let mut played: BTreeMap<&str, &Scenario> = BTreeMap::new();
    for v in &run.verdicts {
        let id = v.scenario.as_str();
        let scenario = by_id.get(id).ok_or_else(|| ExportError::UnknownScenario {
            run: run.dir.clone(),
            trial: v.trial.clone(),
            scenario: id.to_owned(),
        })?;
        played.insert(id, scenario);
    }
    let masker =
        mask::Masker::of(played.values().copied()).map_err(|source| ExportError::Mask {
            run: run.dir.clone(),
            source,
        })?;
    let samples = run
        .verdicts
        .iter()
        .map(|v| {
            sample::sample(&run.dir, v, &run.record.model, &masker).map_err(|source| {
                ExportError::Trace {
                    run: run.dir.clone(),
                    trial: v.trial.clone(),
                    source,
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(header::log(run, samples))
}
