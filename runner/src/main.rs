//! `cosec`: the CoSec command-line runner.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cosec::cli::Cli::parse();
    match cosec::commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
