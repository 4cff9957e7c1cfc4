//! `cosec policy check`: strict validation of Cedar files against the CoSec schema.

use crate::error::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `cosec policy check FILE... [--schema FILE]`.
pub fn check(files: &[PathBuf], schema: Option<&Path>) -> Result<ExitCode, CliError> {
    let report = cosec_policies::check_policy_files(files, schema)?;
    if report.diagnostics.is_empty() {
        println!("{} policy file(s) valid against the schema", files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for d in &report.diagnostics {
        let location = match (d.line, d.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", d.file.display()),
            _ => d.file.display().to_string(),
        };
        let policy = d.policy_id.as_deref().map(|p| format!(" policy `{p}`:")).unwrap_or_default();
        eprintln!("{location}:{policy} {}", d.message);
        if let Some(help) = &d.help {
            eprintln!("  help: {help}");
        }
    }
    eprintln!("{} error(s)", report.diagnostics.len());
    Ok(ExitCode::from(1))
}
