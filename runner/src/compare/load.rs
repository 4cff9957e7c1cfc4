//! Reading a finished run folder back: its record, its verdicts (last line per
//! scenario) and the summary recomputed from them, for comparison and reports.

use crate::error::CliError;
use crate::metrics::{self, Summary};
use crate::run::options::{config_from_record, read_record, RunRecord};
use crate::run::results::read_results;
use crate::verify::Verdict;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One run folder, loaded.
#[derive(Debug, Clone)]
pub struct LoadedRun {
    /// The folder.
    pub dir: PathBuf,
    /// `run.json`.
    pub record: RunRecord,
    /// One verdict per scenario (the last line written for it), in file order.
    pub verdicts: Vec<Verdict>,
    /// The metrics of those verdicts.
    pub summary: Summary,
}

impl LoadedRun {
    /// A short human label: harness, model, condition and policy digest.
    pub fn label(&self) -> String {
        let r = &self.record;
        let mut label = format!("{} {} {}", r.harness, r.model, r.defense);
        if let Some(mode) = r.guard_mode.as_deref().filter(|m| *m != "enforce") {
            label.push_str(&format!(" ({mode})"));
        }
        if let Some(policy) = &r.policy_digest {
            label.push_str(&format!(" policy {}", short_digest(policy)));
        }
        label
    }

    /// The verdict of a scenario, if the run has one.
    pub fn verdict_of(&self, scenario: &str) -> Option<&Verdict> {
        self.verdicts
            .iter()
            .find(|v| v.scenario.as_str() == scenario)
    }
}

/// The first 8 hex digits of a digest, enough to tell policies apart in a table.
pub fn short_digest(digest: &str) -> &str {
    digest.get(..8).unwrap_or(digest)
}

/// Reads `DIR/run.json` and `DIR/results.jsonl`; the run's own wall time is taken from
/// `DIR/summary.json` when `cosec run` finished and wrote it.
pub fn load_run(dir: &Path) -> Result<LoadedRun, CliError> {
    let record = read_record(dir)?;
    let all: Vec<Verdict> = read_results(&dir.join("results.jsonl"))?;
    let mut last: BTreeMap<String, usize> = BTreeMap::new();
    for (i, v) in all.iter().enumerate() {
        last.insert(v.scenario.to_string(), i);
    }
    let verdicts: Vec<Verdict> = all
        .iter()
        .enumerate()
        .filter(|(i, v)| last.get(v.scenario.as_str()) == Some(i))
        .map(|(_, v)| v.clone())
        .collect();
    let wall = std::fs::read_to_string(dir.join("summary.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Summary>(&text).ok())
        .map(|s| s.usage.wall_seconds);
    let summary = metrics::summarize(config_from_record(&record), &verdicts, wall);
    Ok(LoadedRun {
        dir: dir.to_owned(),
        record,
        verdicts,
        summary,
    })
}

/// Loads every folder, naming the one that fails.
pub fn load_runs(dirs: &[PathBuf]) -> Result<Vec<LoadedRun>, CliError> {
    let mut runs = Vec::new();
    for dir in dirs {
        if crate::scale::matrix::is_matrix_dir(dir) {
            // A matrix folder stands for its cells' run folders, in the matrix's order;
            // cells that have not started hold nothing to load.
            for (_, folder) in crate::scale::matrix::run_folders(dir)? {
                if folder.join("run.json").is_file() {
                    runs.push(load_run(&folder)?);
                }
            }
        } else {
            runs.push(load_run(dir)?);
        }
    }
    Ok(runs)
}
