//! Command-line interface definition: every flag is declared once here and turned into
//! `--help` by clap.

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
    /// Checks the schema, references, turn count, event placement before the scored
    /// action, and oracle consistency: the oracle denies every scored protected flow and
    /// allows every legitimate flow at scoring time.
    Validate {
        /// Scenario files (custom scenarios) or suite folders with a manifest.
        paths: Vec<PathBuf>,
        /// Accept a suite whose files differ from its manifest.
        #[arg(long)]
        allow_modified: bool,
    },
    /// Regenerate the frozen suite deterministically from the templates.
    Generate {
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
    },
}
