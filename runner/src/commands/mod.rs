//! One module per command group; `dispatch` routes a parsed command to it.

mod harness;
mod policy;
mod policy_test;
mod proxy;
mod scenarios;

use crate::cli::{Command, HarnessCommand, PolicyCommand, ProxyCommand, ScenariosCommand};
use crate::error::CliError;
use std::process::ExitCode;

/// Runs one parsed command.
pub fn dispatch(command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::Scenarios(sc) => match sc {
            ScenariosCommand::List {
                suite,
                json,
                source,
            } => scenarios::list(suite, json, &source),
            ScenariosCommand::Show { id, source } => scenarios::show(&id, &source),
            ScenariosCommand::Validate {
                paths,
                allow_modified,
            } => scenarios::validate(&paths, allow_modified),
            ScenariosCommand::Generate { out, check } => scenarios::generate(out, check),
        },
        Command::Policy(PolicyCommand::Check { files, schema }) => {
            policy::check(&files, schema.as_deref())
        }
        Command::Policy(PolicyCommand::Test {
            file,
            json,
            strict,
            schema,
        }) => policy_test::test(&file, json, strict, schema.as_deref()),
        Command::Run(args) => crate::run::run(*args),
        Command::Report { dir } => crate::run::report(&dir),
        Command::Shim { socket, trial } => shim(&socket, &trial),
        Command::Harness(HarnessCommand::Install { which, dir }) => harness::install(which, dir),
        Command::Harness(HarnessCommand::List { dir }) => harness::list(dir),
        Command::Proxy(ProxyCommand::Serve(args)) => proxy::serve(args),
    }
}

/// `cosec shim`: the MCP relay a harness launches; it serves until stdin closes.
fn shim(socket: &std::path::Path, trial: &str) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Run(format!("cannot start the async runtime: {e}")))?;
    runtime
        .block_on(cosec_proxy::shim::mcp::run_stdio_relay(socket, trial))
        .map_err(|e| CliError::Run(format!("shim relay: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
