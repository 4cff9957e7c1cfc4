//! `cosec scenarios list|show|validate|generate|new|schema`.

pub(crate) mod author;
mod show;
mod validate;

use crate::cli::{SuiteFilter, SuiteSource};
use crate::error::CliError;
use cosec_scenarios::factors::Suite;
use cosec_scenarios::suite::{self, LoadedSuite};
use cosec_scenarios::worlds::{self, frozen_world_folders, read_world_folders, WorldError};
use cosec_scenarios::Scenario;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

pub use show::show;
pub use validate::validate;

/// Loads the suite from the flag-selected source.
pub fn load(source: &SuiteSource) -> Result<LoadedSuite, CliError> {
    let loaded = match &source.suite_dir {
        Some(dir) => suite::load_dir(dir, source.allow_modified)?,
        None => suite::load_embedded(source.allow_modified)?,
    };
    if loaded.modified {
        eprintln!(
            "warning: the suite differs from its manifest; results are outside the frozen suite"
        );
    }
    Ok(loaded)
}

fn selected(filter: SuiteFilter, s: &Scenario) -> bool {
    match filter {
        SuiteFilter::All => true,
        SuiteFilter::Static112 => s.factors.suite == Suite::Static112,
        SuiteFilter::Dyn96 => s.factors.suite == Suite::Dyn96,
    }
}

/// One row of `scenarios list --json`.
#[derive(Serialize)]
struct ListRow<'a> {
    id: &'a str,
    suite: &'static str,
    boundary: &'static str,
    privacy_object: &'static str,
    family: &'static str,
    strategy: &'static str,
    event: Option<&'static str>,
    cross_scope: bool,
    domains: &'a [String],
    title: &'a str,
}

/// `cosec scenarios list`.
pub fn list(filter: SuiteFilter, json: bool, source: &SuiteSource) -> Result<ExitCode, CliError> {
    let loaded = load(source)?;
    let rows: Vec<ListRow> = loaded
        .scenarios
        .iter()
        .filter(|s| selected(filter, s))
        .map(|s| ListRow {
            id: s.id.as_str(),
            suite: s.factors.suite.as_str(),
            boundary: s.factors.boundary.as_str(),
            privacy_object: s.factors.privacy_object.as_str(),
            family: s.factors.family.as_str(),
            strategy: s.factors.strategy.as_str(),
            event: s.factors.event.map(|e| e.as_str()),
            cross_scope: s.factors.cross_scope,
            domains: &s.factors.domains,
            title: &s.title,
        })
        .collect();
    if json {
        super::print(&format!("{}\n", serde_json::to_string_pretty(&rows)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!(
        "{:<34} {:<9} {:<5} {:<11} {:<3} {:<3} {:<14} {:<5} title\n",
        "id", "suite", "bound", "privacy", "fam", "str", "event", "cross"
    );
    for r in &rows {
        let _ = writeln!(
            text,
            "{:<34} {:<9} {:<5} {:<11} {:<3} {:<3} {:<14} {:<5} {}",
            r.id,
            r.suite,
            r.boundary,
            r.privacy_object,
            r.family,
            r.strategy,
            r.event.unwrap_or("-"),
            if r.cross_scope { "yes" } else { "no" },
            r.title
        );
    }
    let _ = writeln!(
        text,
        "{} scenarios (suite digest {})",
        rows.len(),
        loaded.suite_digest
    );
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The `scenarios/suite` folder of the source tree this binary was built from.
fn source_suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("scenarios")
        .join("suite")
}

/// `cosec scenarios generate`: expands world folders into scenario files.
pub fn generate(
    worlds: Option<PathBuf>,
    out: Option<PathBuf>,
    check: bool,
) -> Result<ExitCode, CliError> {
    let frozen = worlds.is_none();
    let folders = match &worlds {
        Some(path) => read_world_folders(path)?,
        None => frozen_world_folders(),
    };
    let dir = match (out, frozen) {
        (Some(dir), _) => dir,
        (None, true) => {
            let dir = source_suite_dir();
            if !dir.is_dir() {
                return Err(CliError::NoSourceTree(dir));
            }
            dir
        }
        (None, false) => return Err(CliError::NoGenerateOut),
    };
    let expansion = match worlds::expand(&folders) {
        Ok(expansion) => expansion,
        Err(WorldError::Invalid(problems)) => {
            for problem in &problems {
                eprintln!("{problem}");
            }
            eprintln!(
                "error: {} problem(s) in the world files; nothing was written to {}",
                problems.len(),
                dir.display()
            );
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.into()),
    };
    let scenarios = &expansion.scenarios;
    let mut failed = false;
    if frozen {
        for problem in cosec_scenarios::structure::suite_structure_problems(scenarios) {
            eprintln!("suite structure: {problem}");
            failed = true;
        }
    }
    let oracle = cosec_policies::Oracle::builtin()?;
    for s in scenarios {
        for problem in validate::oracle_problems(&oracle, s) {
            match expansion.origin(&s.id) {
                Some(origin) => eprintln!("{}", origin.locate(&problem.field, problem.message)),
                None => eprintln!("{}: {problem}", s.id),
            }
            failed = true;
        }
    }
    if failed {
        eprintln!(
            "error: the expanded scenarios are invalid; nothing was written to {}",
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    let files = suite::render_suite(scenarios)?;
    if check {
        let mut differing = Vec::new();
        for (name, bytes) in &files {
            if std::fs::read(dir.join(name)).ok().as_deref() != Some(bytes.as_slice()) {
                differing.push(name.clone());
            }
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".json") && !files.contains_key(&name) {
                    differing.push(name);
                }
            }
        }
        if differing.is_empty() {
            outln!(
                "{} is identical to a fresh generation ({} files)",
                dir.display(),
                files.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{} differs from a fresh generation: {}",
            dir.display(),
            differing.join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    suite::write_suite(&dir, &files)?;
    outln!(
        "wrote {} scenarios and {} to {}",
        scenarios.len(),
        suite::MANIFEST_FILE,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
