//! Reading a finished run folder back: its record, its verdicts (last line per
//! scenario) and the summary recomputed from them, for comparison and reports.

use crate::json_file::JsonFileError;
use crate::metrics::{self, Summary};
use crate::run::record::{config_from_record, read_record, RunRecord};
use crate::run::results::{read_results, ResultsError};
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
    /// One verdict per trial, a scenario and its repeat (the last line written for
    /// it), in file order.
    pub verdicts: Vec<Verdict>,
    /// The metrics of those verdicts.
    pub summary: Summary,
    /// The run's own name (`label` in `run.json`), when it was given one.
    pub given_label: Option<String>,
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

    /// What the run is called where runs are named: its `label` from `run.json`, else
    /// its folder's name.
    pub fn name(&self) -> String {
        match &self.given_label {
            Some(label) => label.clone(),
            None => self.dir.file_name().map_or_else(
                || self.dir.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        }
    }

    /// Everything that makes two runs the same condition (so that averaging them
    /// estimates one rate): harness, model, defense with its guard settings, policy,
    /// guardrail, judge and suite.
    pub fn condition_key(&self) -> String {
        let r = &self.record;
        let opt = |o: &Option<String>| o.clone().unwrap_or_default();
        [
            r.harness.clone(),
            r.model.clone(),
            r.defense.clone(),
            opt(&r.guard_mode),
            opt(&r.guard_layers),
            opt(&r.policy_digest),
            opt(&r.guardrail_digest),
            r.judge.clone(),
            r.suite_digest.clone(),
            self.attack_settings(),
        ]
        .join("\u{1f}")
    }

    /// Who played the participants, in words (`seed` for the benchmark's setting).
    pub fn attack_settings(&self) -> String {
        self.record.attack.as_ref().map_or_else(
            || "attacker seed, 1 attempt(s)".to_owned(),
            |a| a.describe(),
        )
    }

    /// The verdict of a scenario's repeat `epoch` (0 for the first), if the run has one.
    pub fn verdict_of(&self, key: (&str, u32)) -> Option<&Verdict> {
        self.verdicts.iter().find(|v| v.key() == key)
    }
}

/// The first 8 hex digits of a digest, enough to tell policies apart in a table.
pub fn short_digest(digest: &str) -> &str {
    digest.get(..8).unwrap_or(digest)
}

/// Why a run folder could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Its `run.json` (or a matrix folder's `matrix.json`) could not be read.
    #[error(transparent)]
    Record(#[from] JsonFileError),
    /// Its `results.jsonl` could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
}

/// Reads `DIR/run.json` and `DIR/results.jsonl`; the run's own wall time is taken from
/// `DIR/summary.json` when `cosec run` finished and wrote it.
pub fn load_run(dir: &Path) -> Result<LoadedRun, LoadError> {
    let record = read_record(dir)?;
    let all: Vec<Verdict> = read_results(&dir.join("results.jsonl"))?;
    let mut last: BTreeMap<(&str, u32), usize> = BTreeMap::new();
    for (i, v) in all.iter().enumerate() {
        last.insert(v.key(), i);
    }
    let verdicts: Vec<Verdict> = all
        .iter()
        .enumerate()
        .filter(|(i, v)| last.get(&v.key()) == Some(i))
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
        given_label: given_label(dir),
    })
}

/// The `label` of `DIR/run.json`, read as plain JSON so that run folders written with
/// or without the field both load; a blank label counts as none.
fn given_label(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("run.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let label = value.get("label")?.as_str()?.trim();
    (!label.is_empty()).then(|| label.to_owned())
}

/// Loads every folder, naming the one that fails.
pub fn load_runs(dirs: &[PathBuf]) -> Result<Vec<LoadedRun>, LoadError> {
    let mut runs = Vec::new();
    for dir in dirs {
        if crate::scale::matrix::index::is_matrix_dir(dir) {
            // A matrix folder stands for its cells' run folders, in the matrix's order;
            // cells that have not started hold nothing to load.
            for (_, folder) in crate::scale::matrix::index::run_folders(dir)? {
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
