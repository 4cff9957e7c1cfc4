//! Errors the CLI reports; each names the file, field or policy and the fix.

use std::path::PathBuf;

/// A failure that stops a command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Reading or checking the suite or a scenario file failed.
    #[error(transparent)]
    Suite(#[from] cosec_scenarios::suite::SuiteError),
    /// Loading or checking policies failed.
    #[error(transparent)]
    Policy(#[from] cosec_policies::PolicyError),
    /// An id that is not in the suite.
    #[error("no scenario `{id}` in the suite; `cosec scenarios list` shows the ids{hint}")]
    UnknownScenario {
        /// The requested id.
        id: String,
        /// A close match, if any.
        hint: String,
    },
    /// Output could not be serialized.
    #[error("could not serialize output: {0}")]
    Json(#[from] serde_json::Error),
    /// An audit command failed.
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    /// A run could not start or finish; the message names the file or flag.
    #[error("{0}")]
    Run(String),
    /// The sandbox the native harnesses run in is unavailable.
    #[error("the native harnesses cannot run: {0}")]
    Sandbox(#[from] crate::sandbox::SandboxError),
    /// Installing a native harness failed.
    #[error("{harness}: {source}")]
    Install {
        /// The harness.
        harness: &'static str,
        /// Why.
        #[source]
        source: crate::harness::install::InstallError,
    },
    /// Standard output could not be written (a closed pipe is not an error: see
    /// [`CliError::is_closed_pipe`]).
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    /// The default output folder of `generate` is not available.
    #[error("the source tree's suite folder {0} does not exist here; pass --out DIR")]
    NoSourceTree(PathBuf),
}

impl CliError {
    /// Whether the reader of standard output went away (`cosec scenarios list | head`);
    /// the command then stops quietly with success, as other Unix tools do.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, CliError::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
