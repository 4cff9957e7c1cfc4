//! `cosec`: the CoSec command-line runner.

mod cli;
mod commands;
mod error;
mod harness;
#[allow(dead_code)]
mod metrics;
mod run;
#[allow(dead_code)]
mod sandbox;
#[allow(dead_code)]
mod verify;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
