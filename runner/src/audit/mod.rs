//! The human audit of the verifier (docs/audit.md): draw a stratified sample of trials
//! from run folders, write blind sheets for two annotators, and score the deterministic
//! verifier, the judge and their combination against the adjudicated human labels.
//!
//! A sample folder holds `sample.json` (which trials, no verdicts), `verdicts.json`
//! (the automatic verdicts and the strata; never handed to annotators) and, after
//! `cosec audit sheet`, `sheets/` (the only folder annotators receive).

pub mod allocate;
pub mod labels;
pub mod page;
pub mod sample;
pub mod score;
pub mod sheet;

use cosec_scenarios::{Family, Suite};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of `sample.json` and `verdicts.json`.
pub const AUDIT_SCHEMA_VERSION: u32 = 1;
/// The sample's list of trials.
pub const SAMPLE_FILE: &str = "sample.json";
/// The automatic verdicts of the sampled trials (kept from annotators).
pub const VERDICTS_FILE: &str = "verdicts.json";
/// The folder handed to annotators.
pub const SHEETS_DIR: &str = "sheets";
/// The annotators' sheet files inside [`SHEETS_DIR`].
pub const SHEET_FILES: [&str; 2] = ["annotator-1.csv", "annotator-2.csv"];

/// Errors of the audit commands; each names the file, row or flag and the fix.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A JSON file does not parse, or a value could not be written as JSON.
    #[error("{path}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: serde_json::Error,
    },
    /// A sheet or adjudication file is not readable CSV.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: csv::Error,
    },
    /// The suite could not be loaded.
    #[error(transparent)]
    Suite(#[from] cosec_scenarios::suite::SuiteError),
    /// A sampled run folder could not be read (its `run.json`).
    #[error(transparent)]
    Run(#[from] crate::json_file::JsonFileError),
    /// A sampled run's `results.jsonl` could not be read.
    #[error(transparent)]
    Results(#[from] crate::run::results::ResultsError),
    /// A trial's trace could not be read.
    #[error(transparent)]
    Trace(#[from] cosec_proxy::trace::TraceError),
    /// A sheet or adjudication file is not as expected.
    #[error("{path}: {message}")]
    Sheet {
        /// The file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The sample cannot be drawn.
    #[error(transparent)]
    Allocation(#[from] allocate::AllocationError),
    /// Anything else that stops a command, named and with its fix.
    #[error("{0}")]
    Invalid(String),
}

impl AuditError {
    /// An I/O error on `path`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> AuditError + '_ {
        move |source| AuditError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// One run folder the sample draws from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampledRun {
    /// The run folder (absolute).
    pub dir: PathBuf,
    /// Harness of the run.
    pub harness: String,
    /// Model of the run.
    pub model: String,
    /// Judge of the run, `none` when it had none.
    pub judge: String,
}

/// One sampled trial as annotators may know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleItem {
    /// The item id on the sheets (`item-001`, ...), in a seeded order.
    pub item: String,
    /// Index into [`SampleFile::runs`].
    pub run: usize,
    /// Trial id inside the run.
    pub trial: String,
    /// Scenario id.
    pub scenario: String,
}

/// `sample.json`: which trials were drawn, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleFile {
    /// Format version.
    pub schema_version: u32,
    /// The seed of the draw.
    pub seed: u64,
    /// The requested size (`--n`).
    pub requested: usize,
    /// Valid trials in the runs.
    pub population: usize,
    /// The runs, in the order given.
    pub runs: Vec<SampledRun>,
    /// The sampled trials, in sheet order.
    pub items: Vec<SampleItem>,
}

/// A stratum: suite x family x the run's combined privacy verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Stratum {
    /// Static112 or Dyn96.
    pub suite: Suite,
    /// Attack family.
    pub family: Family,
    /// The combined verdict found a privacy violation.
    pub violation: bool,
}

/// One stratum's population and allocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StratumCount {
    /// The stratum.
    #[serde(flatten)]
    pub stratum: Stratum,
    /// Valid trials in it.
    pub population: usize,
    /// Trials sampled from it.
    pub sampled: usize,
}

/// The automatic verdicts of one sampled trial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutomaticVerdict {
    /// Item id.
    pub item: String,
    /// Its stratum.
    #[serde(flatten)]
    pub stratum: Stratum,
    /// The deterministic verifier found a violation.
    pub deterministic: bool,
    /// The judge's privacy answer; `None` when the run had no judge or no valid answer.
    pub judge: Option<bool>,
    /// The combined privacy verdict (`pvr` of the results line).
    pub combined: bool,
    /// The combined completion verdict (`bcr` of the results line).
    pub completion: bool,
}

/// `verdicts.json`: what the automatic verdicts said; kept from annotators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictsFile {
    /// Format version.
    pub schema_version: u32,
    /// Every non-empty stratum with its population and allocation.
    pub strata: Vec<StratumCount>,
    /// One entry per sampled item, in sheet order.
    pub items: Vec<AutomaticVerdict>,
}

/// Reads and parses a JSON file.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, AuditError> {
    let text = std::fs::read_to_string(path).map_err(AuditError::io(path))?;
    serde_json::from_str(&text).map_err(|source| AuditError::Json {
        path: path.to_owned(),
        source,
    })
}

/// Writes pretty JSON with a final newline.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), AuditError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| AuditError::Json {
        path: path.to_owned(),
        source,
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(AuditError::io(path))
}
