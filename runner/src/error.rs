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
    /// A proof could not run (the outcome of one that ran is the exit code).
    #[error(transparent)]
    Verify(#[from] cosec_policies::verify::VerifyError),
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
    /// A JSON file of a run could not be read or written.
    #[error(transparent)]
    RunFile(#[from] crate::json_file::JsonFileError),
    /// A run folder could not be loaded.
    #[error(transparent)]
    Load(#[from] crate::compare::LoadError),
    /// A recorded run could not be replayed.
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    /// An audit command failed.
    #[error(transparent)]
    Audit(#[from] crate::audit::AuditError),
    /// A flag, a combination of flags or a run folder that does not fit; the message
    /// names the flag or folder and the fix (no underlying error to keep).
    #[error("{0}")]
    Run(String),
    /// A file or folder could not be read, written or created.
    #[error("{path}: {source}{hint}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
        /// What the path should have been, if that helps (may be empty).
        hint: String,
    },
    /// A JSON file of a run or matrix folder is not what this version writes.
    #[error("{path}: {source}")]
    JsonFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A run's `results.jsonl` could not be read or appended.
    #[error(transparent)]
    Results(#[from] crate::run::results::ResultsError),
    /// A price file is invalid or has no price for a run's model.
    #[error(transparent)]
    Prices(#[from] crate::cost::PriceError),
    /// Shards could not be merged.
    #[error(transparent)]
    Merge(#[from] crate::scale::merge::MergeError),
    /// A matrix file is invalid.
    #[error(transparent)]
    Matrix(#[from] crate::scale::matrix::spec::SpecError),
    /// The judge panel could not be set up.
    #[error(transparent)]
    Judge(#[from] crate::verify::JudgeError),
    /// The HTML report could not be built.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// A run could not be exported.
    #[error(transparent)]
    Export(#[from] crate::export::inspect::ExportError),
    /// A harness could not be prepared.
    #[error(transparent)]
    Harness(#[from] crate::harness::HarnessError),
    /// The harness a run asked for could not be made ready.
    #[error(transparent)]
    HarnessSetup(#[from] crate::harness::SetupError),
    /// The run's model-API proxy could not start.
    #[error(transparent)]
    Proxy(#[from] cosec_proxy::server::ProxyError),
    /// `cosec proxy` could not start.
    #[error(transparent)]
    Serve(#[from] cosec_proxy::standalone::StandaloneError),
    /// The socket the native harnesses reach the shim through could not be opened.
    #[error(transparent)]
    ShimSocket(#[from] cosec_proxy::shim::ShimSocketError),
    /// A defense policy (`--policy FILE` or the built-in one) does not compile.
    #[error("{origin}: {source}")]
    GuardPolicy {
        /// `--policy FILE` or `built-in defense policy`.
        origin: String,
        /// Why.
        #[source]
        source: cosec_proxy::guard::GuardError,
    },
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// `cosec proxy` could not wait for Ctrl-C.
    #[error("cannot wait for Ctrl-C: {0}")]
    CtrlC(#[source] std::io::Error),
    /// A trial task ended abnormally, so its verdict was not recorded.
    #[error("a trial task failed, its verdict is not recorded: {0}")]
    TrialTask(#[source] tokio::task::JoinError),
    /// One cell of a matrix failed.
    #[error("matrix {cell}: {source}")]
    Cell {
        /// The cell's tag.
        cell: String,
        /// Why.
        #[source]
        source: Box<CliError>,
    },
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
    /// `generate --worlds` needs an output folder.
    #[error(
        "--worlds needs --out DIR: the frozen suite's folder is only written from its own worlds"
    )]
    NoGenerateOut,
    /// `scenarios new` would write into a folder that already holds files.
    #[error("{0} already exists and is not empty; name a new folder")]
    NewWorldExists(PathBuf),
    /// `scenarios new --from` names no world.
    #[error("`{from}` is neither a folder holding world.toml nor a frozen world; frozen worlds: {known}")]
    UnknownWorld {
        /// What was given.
        from: String,
        /// The frozen worlds' names.
        known: String,
    },
    /// The world to copy could not be scaffolded.
    #[error("cannot copy world `{from}`: {source}")]
    Scaffold {
        /// The world given to `--from`.
        from: String,
        /// Why.
        #[source]
        source: cosec_scenarios::worlds::ScaffoldError,
    },
    /// World folders could not be read.
    #[error(transparent)]
    Worlds(#[from] cosec_scenarios::worlds::WorldError),
}

impl CliError {
    /// A filesystem failure at `path`, for `map_err`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
        move |source| CliError::Io {
            path: path.to_owned(),
            source,
            hint: String::new(),
        }
    }

    /// A JSON file that does not parse, for `map_err`.
    pub fn json_file(path: &std::path::Path) -> impl FnOnce(serde_json::Error) -> CliError + '_ {
        move |source| CliError::JsonFile {
            path: path.to_owned(),
            source,
        }
    }

    /// Whether the reader of standard output went away (`cosec scenarios list | head`);
    /// the command then stops quietly with success, as other Unix tools do.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, CliError::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}
