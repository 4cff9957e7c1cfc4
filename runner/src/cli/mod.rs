//! Command-line interface definition: every flag is declared once here and turned into
//! `--help` by clap.

mod args;
mod attack_args;
mod run_args;

pub use args::ServeArgs;
pub use attack_args::AttackArgs;
pub use run_args::RunArgs;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// CoSec: a benchmark and runtime authorization guard for LLM agents that act for one
/// user across several communities.
#[derive(Debug, Parser)]
#[command(name = "cosec", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How log events (RUST_LOG, e.g. `RUST_LOG=cosec_proxy=debug`) are written to stderr.
    #[arg(long, global = true, value_enum, default_value_t = crate::logging::LogFormat::Text)]
    pub log_format: crate::logging::LogFormat,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List, show, validate or regenerate the frozen scenario suite.
    #[command(subcommand)]
    Scenarios(ScenariosCommand),
    /// Check Cedar policies against the CoSec schema.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Run trials (scenario x harness x model x defense), verify them and print the metrics.
    Run(Box<RunArgs>),
    /// Human audit of the verifier: sample trials, write blind sheets, score them.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Print the metrics table of run folders again from their results files, or write
    /// one self-contained HTML report of them (`--html`).
    Report(ReportArgs),
    /// Compare runs trial by trial (paired by scenario), or print the cross-run matrix.
    Compare(CompareArgs),
    /// Write run folders in other tools' formats.
    #[command(subcommand)]
    Export(ExportCommand),
    /// Merge the folders of `cosec run --shard K/N` into one run folder, equal to the run
    /// done in one piece; refused unless the shards share one configuration and hold
    /// every trial exactly once.
    Merge {
        /// The shard folders.
        #[arg(required = true, value_name = "SHARD_DIR")]
        dirs: Vec<PathBuf>,
        /// The merged run folder (must not exist).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Run a matrix of configurations (harnesses x models x defenses x policies x
    /// suites), one run folder per cell (see examples/matrix.toml).
    #[command(subcommand)]
    Matrix(MatrixCommand),
    /// Install or list the native harnesses (Codex CLI, OpenClaw, Hermes Agent).
    #[command(subcommand)]
    Harness(HarnessCommand),
    /// The runtime guard standing alone in front of any agent.
    #[command(subcommand)]
    Proxy(ProxyCommand),
    /// The Docker sandbox of the native harnesses (`cosec run --sandbox docker`).
    #[command(subcommand)]
    Sandbox(SandboxCommand),
}

/// `cosec sandbox ...`
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// The sandbox image.
    #[command(subcommand)]
    Image(SandboxImageCommand),
}

/// `cosec sandbox image ...`
#[derive(Debug, Subcommand)]
pub enum SandboxImageCommand {
    /// Build the image offline: a Debian root filesystem made with `debootstrap` from
    /// the machine's configured mirror (cached in $COSEC_SANDBOX_DIR or
    /// ~/.cache/cosec/sandbox), plus every installed native harness, imported into the
    /// Docker daemon; no registry is contacted. Needs root and a running dockerd.
    Build {
        /// Image name and tag.
        #[arg(long, default_value = crate::sandbox::docker::DEFAULT_IMAGE)]
        image: String,
        /// Debian mirror (default: the first one in /etc/apt/sources.list*).
        #[arg(long, value_name = "URL")]
        mirror: Option<String>,
        /// Debian suite (default: the one of that mirror entry, e.g. bookworm).
        #[arg(long)]
        suite: Option<String>,
        /// Build only when the image is missing or lacks an installed harness.
        #[arg(long)]
        if_missing: bool,
    },
}

/// `cosec matrix ...`
#[derive(Debug, Subcommand)]
pub enum MatrixCommand {
    /// Run every unfinished cell, one after another; a cell killed midway resumes
    /// where it stopped on the next `matrix run`.
    Run {
        /// The matrix file.
        #[arg(value_name = "MATRIX.toml")]
        file: PathBuf,
        /// The matrix folder (default: `out` of the matrix file).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Show each cell's state: done, partial (trials finished of all) or not started.
    Status {
        /// The matrix file, or a matrix folder (holds matrix.json).
        #[arg(value_name = "MATRIX.toml|DIR")]
        path: PathBuf,
        /// The matrix folder, with a matrix file (default: its `out`).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// Which condition a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Defense {
    /// The harness as shipped.
    None,
    /// One guardrail paragraph appended to each native session's first system message.
    Prompt,
    /// The runtime authorization guard on every reply, write, share and send.
    Proxy,
}

impl Defense {
    /// Spelling used in folder names and results.
    pub fn as_str(self) -> &'static str {
        match self {
            Defense::None => "none",
            Defense::Prompt => "prompt",
            Defense::Proxy => "proxy",
        }
    }
}

/// Whether the guard changes anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GuardModeArg {
    /// Redact, block and restore.
    Enforce,
    /// Decide and trace only; change nothing (measures what a policy would block).
    Shadow,
}

/// The guard of `cosec proxy serve`: `run`'s two modes, plus running with none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ServeGuardModeArg {
    /// Redact and block.
    Enforce,
    /// Decide and trace only; change nothing.
    Shadow,
    /// No guard at all: a plain forwarding proxy, to measure what the guard costs.
    #[value(alias = "none")]
    Off,
}

/// Which harness runs the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HarnessName {
    /// The built-in reference agent.
    Builtin,
    /// Codex CLI (npm `@openai/codex`), sandboxed.
    Codex,
    /// OpenClaw (npm `openclaw`, Node 24), sandboxed.
    Openclaw,
    /// Hermes Agent (PyPI `hermes-agent`), sandboxed.
    Hermes,
}

impl From<HarnessName> for crate::harness::HarnessKind {
    fn from(name: HarnessName) -> Self {
        use crate::harness::HarnessKind;
        match name {
            HarnessName::Builtin => HarnessKind::Builtin,
            HarnessName::Codex => HarnessKind::Codex,
            HarnessName::Openclaw => HarnessKind::Openclaw,
            HarnessName::Hermes => HarnessKind::Hermes,
        }
    }
}

impl HarnessName {
    /// Spelling used in folder names and results.
    pub fn as_str(self) -> &'static str {
        crate::harness::HarnessKind::from(self).as_str()
    }
}

/// Which native harnesses to install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstallChoice {
    /// All three.
    All,
    /// Codex CLI.
    Codex,
    /// OpenClaw.
    Openclaw,
    /// Hermes Agent.
    Hermes,
}

/// `cosec harness ...`
#[derive(Debug, Subcommand)]
pub enum HarnessCommand {
    /// Install pinned versions into the harness cache (idempotent).
    Install {
        /// Which harness.
        #[arg(value_enum)]
        which: InstallChoice,
        /// Cache folder (default: $COSEC_HARNESS_DIR or ~/.cache/cosec/harnesses).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Show what is installed and the versions.
    List {
        /// Cache folder (default: $COSEC_HARNESS_DIR or ~/.cache/cosec/harnesses).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `cosec proxy ...`
#[derive(Debug, Subcommand)]
pub enum ProxyCommand {
    /// Serve the guard in front of an upstream model API (see examples/proxy-serve/).
    Serve(ServeArgs),
}

/// `cosec report` options.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// Run folders (each holds results.jsonl and run.json), or matrix folders (their
    /// cells; one folder alone without --html or --prices prints one line per cell).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Write one self-contained HTML report of all the runs here (no network needed to view).
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Price file: adds cost per trial, per run and per scenario.
    #[arg(long, value_name = "prices.toml")]
    pub prices: Option<PathBuf>,
}

/// `cosec export ...`
#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// One Inspect eval log (inspect-ai's JSON log) per run folder, for `inspect view`,
    /// `inspect log` and `inspect_ai.analysis` (see docs/report.md).
    Inspect {
        /// Run folders, or matrix folders (their cells).
        #[arg(required = true, value_name = "RUN")]
        dirs: Vec<PathBuf>,
        /// The folder the logs are written to (created when missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The suite the runs played (their protected values are masked out).
        #[command(flatten)]
        source: SuiteSource,
    },
}

/// `cosec compare` options.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Run folders (a matrix folder stands for its cells); every run after the first is
    /// compared with the first.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Print the cross-run matrix (one row per run) instead of paired comparisons.
    #[arg(long)]
    pub table: bool,
    /// List the scenarios whose verdict changed, per metric (PVR, PVR all, CCPVR, BCR,
    /// STCR), instead of the paired statistics.
    #[arg(long, conflicts_with = "table")]
    pub changed: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Significance level for marking differences (exact McNemar test).
    #[arg(long, default_value_t = 0.05, value_name = "ALPHA")]
    pub alpha: f64,
    /// Price file: adds each run's cost.
    #[arg(long, value_name = "prices.toml")]
    pub prices: Option<PathBuf>,
    /// Pair runs whose participants were played differently (`--attacker`,
    /// `--speaker-mode`, `--attempts`); refused by default, since the difference would
    /// then measure the attacker as much as the defense.
    #[arg(long)]
    pub allow_attacker_mismatch: bool,
}

/// Where scenarios are read from.
#[derive(Debug, Clone, Args)]
pub struct SuiteSource {
    /// Read the suite from this folder instead of the copy built into `cosec`.
    #[arg(long, value_name = "DIR")]
    pub suite_dir: Option<PathBuf>,
    /// Accept a suite whose files differ from its manifest (results are marked modified).
    #[arg(long)]
    pub allow_modified: bool,
}

/// Which half of the suite to select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SuiteFilter {
    /// Static112 and Dyn96.
    All,
    /// The 112 static scenarios.
    Static112,
    /// The 96 dynamic scenarios.
    Dyn96,
}

/// Which authoring file a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// `world.toml`.
    World,
    /// A variant file (`<id>.toml`).
    Variant,
}

/// `cosec scenarios ...`
#[derive(Debug, Subcommand)]
pub enum ScenariosCommand {
    /// List scenarios with their factors.
    List {
        /// Which part of the suite.
        #[arg(long, value_enum, default_value_t = SuiteFilter::All)]
        suite: SuiteFilter,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        source: SuiteSource,
    },
    /// Show one scenario readably, hidden part included (for researchers, not agents).
    Show {
        /// Scenario id, e.g. `st-inter-third-a4-s1`.
        id: String,
        #[command(flatten)]
        source: SuiteSource,
    },
    /// Validate the frozen suite (no PATH) or scenario files and suite folders.
    ///
    /// Checks the schema, references, turn count (8 in the suite, up to 64 in a custom
    /// scenario), the event chain's order with the first event before the scored action,
    /// and oracle consistency: the oracle denies every scored protected flow and allows
    /// every legitimate flow at scoring time.
    Validate {
        /// Scenario files (custom scenarios) or suite folders with a manifest.
        paths: Vec<PathBuf>,
        /// Accept a suite whose files differ from its manifest.
        #[arg(long)]
        allow_modified: bool,
    },
    /// Start a custom world: copy a world and one of its variants into a new folder.
    New {
        /// The new world folder (must not exist, or be empty); its name names the world.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The world to copy: a frozen world's name (e.g. `a1-fellscramblers`) or a
        /// world folder.
        #[arg(long, value_name = "WORLD")]
        from: String,
        /// Which of its variants to copy (default: the first).
        #[arg(long, value_name = "ID")]
        variant: Option<String>,
    },
    /// Print the JSON Schema of world files or of variant files, for editors.
    Schema {
        /// Which file kind.
        #[arg(value_enum)]
        kind: SchemaKind,
    },
    /// Expand world folders into scenario files (default: the frozen suite's worlds into
    /// the source tree's `scenarios/suite`).
    Generate {
        /// A world folder, or a folder of world folders, to expand instead of the frozen
        /// suite's worlds (then --out is required).
        #[arg(long, value_name = "DIR")]
        worlds: Option<PathBuf>,
        /// Output folder (default: the `scenarios/suite` folder of the source tree).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Only compare a fresh generation with the folder; write nothing, exit 1 on a difference.
        #[arg(long)]
        check: bool,
    },
}

/// `cosec policy ...`
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Validate Cedar policy files in strict mode against the CoSec schema.
    Check {
        /// Policy files (`.cedar`).
        #[arg(required = true, value_name = "FILE.cedar")]
        files: Vec<PathBuf>,
        /// Validate against this schema instead of the one built into `cosec`.
        #[arg(long, value_name = "FILE")]
        schema: Option<PathBuf>,
        /// Accept a file holding no policy (empty or only comments); refused by default,
        /// since as a defense it permits nothing.
        #[arg(long)]
        allow_empty_policy: bool,
    },
    /// Compare a defense policy with the hidden oracle on every authorization question
    /// of the suite, for both guard layers: egress (scored and legitimate flows) and
    /// `read` (which protected objects may enter each turn); no agents, seconds.
    Test {
        /// The defense policy (`.cedar`).
        #[arg(value_name = "FILE.cedar")]
        file: PathBuf,
        /// Print the report as JSON (`false_allow`, `false_deny`, `scored_flows`,
        /// `legit_flows`, `total`, `cases`, and `read` with the same for reads).
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        source: SuiteSource,
        /// Score these scenario files instead of a suite (repeatable).
        #[arg(
            long = "scenario-file",
            value_name = "PATH",
            conflicts_with = "suite_dir"
        )]
        scenario_files: Vec<PathBuf>,
        /// Exit with code 1 when any question disagrees with the oracle.
        #[arg(long)]
        strict: bool,
        /// Validate the policy against this schema instead of the built-in one.
        #[arg(long, value_name = "FILE")]
        schema: Option<PathBuf>,
        /// Accept a policy file holding no policy (it then denies every flow).
        #[arg(long)]
        allow_empty_policy: bool,
    },
    /// Re-decide every guard decision point of a recorded run (both layers) under a new
    /// defense policy, offline: the decisions that change, the recorded violations it
    /// would have stopped, the legitimate flows it would have denied, and up to where
    /// each trial's replay is exact (docs/guard.md, "Replaying a run"). No model or
    /// harness is started.
    Replay {
        /// The run folder (holding run.json, results.jsonl and trials/).
        #[arg(value_name = "RUN")]
        run: PathBuf,
        /// The new defense policy (`.cedar`).
        #[arg(long, value_name = "NEW.cedar")]
        policy: PathBuf,
        /// Count the changes from this policy, re-decided on the same points, instead
        /// of from the decisions the run recorded.
        #[arg(long, value_name = "OLD.cedar")]
        against: Option<PathBuf>,
        /// Print the report as JSON (the format of `--out`).
        #[arg(long)]
        json: bool,
        /// Also write the JSON report to this file; `RUN/replay.json` puts it beside
        /// the run, where `cosec report` shows it.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Rows of each table in the readable report (`--json` lists everything).
        #[arg(long, value_name = "N", default_value_t = 20)]
        rows: usize,
        #[command(flatten)]
        source: SuiteSource,
        /// Accept a policy file holding no policy (it then denies every flow).
        #[arg(long)]
        allow_empty_policy: bool,
    },
    /// Prove properties of a defense policy with Cedar's symbolic compiler and cvc5
    /// (docs/verify.md): it never errors, and it never allows what the oracle denies
    /// (egress, receive and read) for any entity store the schema allows under CoSec's
    /// domain assumptions. A failed check prints a counterexample. Exit code 0 when
    /// every verdict is proved, 1 when any is refuted or undecided, 2 when verification
    /// could not run (invalid policy, cvc5 missing: set CVC5=/path or install it).
    Verify {
        /// The defense policy (`.cedar`).
        #[arg(value_name = "FILE.cedar")]
        file: PathBuf,
        /// Also relate the policy to another defense: implies, implied by, equivalent,
        /// disjoint, each with a counterexample when it does not hold. These describe;
        /// they do not change the exit code.
        #[arg(long, value_name = "OTHER.cedar")]
        against: Option<PathBuf>,
        /// Also prove that the policy implies this policy set (a property written in
        /// Cedar: every request the defense allows, it allows); a verdict.
        #[arg(long, value_name = "FILE.cedar")]
        property: Option<PathBuf>,
        /// Time limit of each solver query, in seconds.
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        timeout: u64,
        /// Print the report as JSON (every check, environment, time and counterexample
        /// with its entities in Cedar's JSON format).
        #[arg(long)]
        json: bool,
        /// Turn the first counterexample of the oracle checks into a world and variant
        /// under DIR (`cosec scenarios generate --worlds DIR` expands it).
        #[arg(long, value_name = "DIR")]
        scenario_out: Option<PathBuf>,
        /// Print the domain assumptions the proofs rely on and exit.
        #[arg(long, conflicts_with_all = ["against", "property", "json", "scenario_out"])]
        show_assumptions: bool,
    },
}

/// `cosec audit ...` (docs/audit.md).
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Draw a sample of valid trials stratified by suite x family x automatic verdict.
    Sample {
        /// Run folders (each holds run.json and results.jsonl).
        #[arg(required = true, value_name = "RUN")]
        runs: Vec<PathBuf>,
        /// Trials to sample (all of them when the runs hold fewer).
        #[arg(long, default_value_t = 192)]
        n: usize,
        /// Seed of the draw; the same seed and runs give the same sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Sample folder to write (sample.json, verdicts.json).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Write the blind sheets of a sample: a CSV per annotator and a page per trial.
    Sheet {
        /// The sample folder written by `cosec audit sample`.
        dir: PathBuf,
        #[command(flatten)]
        source: SuiteSource,
    },
    /// Score the verifier, the judge and their combination against the filled sheets.
    Score {
        /// The two filled sheets, one per annotator.
        #[arg(required = true, num_args = 2, value_name = "SHEET.csv")]
        sheets: Vec<PathBuf>,
        /// Adjudicated labels of the items the annotators disagree on.
        #[arg(long, value_name = "FILE.csv")]
        adjudication: Option<PathBuf>,
        /// The sample folder (default: the nearest folder above the first sheet holding sample.json).
        #[arg(long, value_name = "DIR")]
        sample: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}
