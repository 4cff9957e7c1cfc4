//! `cosec policy check`: strict validation of Cedar files against the CoSec schema.

use crate::error::CliError;
use cosec_policies::EmptyPolicy;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `cosec policy check FILE... [--schema FILE]`: prints every diagnostic with its file,
/// location, policy id and Cedar's hint; exit code 1 on any error.
pub fn check(
    files: &[PathBuf],
    schema: Option<&Path>,
    empty: EmptyPolicy,
) -> Result<ExitCode, CliError> {
    let report = cosec_policies::check_policy_files(files, schema, empty)?;
    for d in &report.diagnostics {
        eprintln!("{d}");
    }
    let errors = report.error_count();
    let warnings = report.diagnostics.len() - errors;
    if errors == 0 {
        outln!(
            "{} policy file(s) valid against the schema{}",
            files.len(),
            if warnings > 0 {
                format!(" ({warnings} warning(s))")
            } else {
                String::new()
            }
        );
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!("{errors} error(s), {warnings} warning(s)");
    Ok(ExitCode::from(1))
}
