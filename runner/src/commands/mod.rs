//! One module per command group; `dispatch` routes a parsed command to it.

mod policy;
mod scenarios;

use crate::cli::{Command, PolicyCommand, ScenariosCommand};
use crate::error::CliError;
use std::process::ExitCode;

/// Runs one parsed command.
pub fn dispatch(command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::Scenarios(sc) => match sc {
            ScenariosCommand::List { suite, json, source } => scenarios::list(suite, json, &source),
            ScenariosCommand::Show { id, source } => scenarios::show(&id, &source),
            ScenariosCommand::Validate {
                paths,
                allow_modified,
            } => scenarios::validate(&paths, allow_modified),
            ScenariosCommand::Generate { out, check } => scenarios::generate(out, check),
        },
        Command::Policy(PolicyCommand::Check { files, schema }) => policy::check(&files, schema.as_deref()),
    }
}
