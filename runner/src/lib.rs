//! The CoSec runner as a library: the CLI definition and commands, the harness
//! adapters (built-in agent, Codex CLI, OpenClaw, Hermes Agent) and their sandbox, the
//! trial driver, the verifier and the metrics. The `cosec` binary is a thin `main`
//! over [`commands::dispatch`]; tests use the modules directly.

#[macro_use]
mod out;

pub mod attack;
pub mod audit;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod cost;
pub mod error;
pub mod export;
pub mod harness;
pub mod json_file;
pub mod logging;
pub mod metrics;
pub mod replay;
pub mod report;
pub mod run;
pub mod sandbox;
pub mod scale;
pub mod verify;
