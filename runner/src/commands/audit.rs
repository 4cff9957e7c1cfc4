//! `cosec audit sample|sheet|score`: the human audit of the verifier (docs/audit.md).

use crate::audit::{sample, score, sheet};
use crate::cli::AuditCommand;
use crate::error::CliError;
use std::process::ExitCode;

/// Runs one audit command and prints its report.
pub fn dispatch(command: AuditCommand) -> Result<ExitCode, CliError> {
    let text = match command {
        AuditCommand::Sample { runs, n, seed, out } => sample::sample(&runs, n, seed, &out)?,
        AuditCommand::Sheet { dir, source } => sheet::sheet(&dir, &source)?,
        AuditCommand::Score {
            sheets,
            adjudication,
            sample,
            json,
        } => score::score(&sheets, adjudication.as_deref(), sample.as_deref(), json)?,
    };
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
