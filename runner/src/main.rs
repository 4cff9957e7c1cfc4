//! `cosec`: the CoSec command-line runner.

use clap::Parser;
use std::process::ExitCode;

// The proxy's many short-lived buffers per model call made glibc's allocator a visible
// share of its CPU time under load (BENCHMARKS.md, proxy against nginx).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cosec::cli::Cli::parse();
    cosec::logging::install(cli.log_format);
    match cosec::commands::dispatch(cli.command) {
        Ok(code) => code,
        Err(err) if err.is_closed_pipe() => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}
