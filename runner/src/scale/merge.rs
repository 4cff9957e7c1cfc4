//! `cosec merge SHARD_DIR... --out DIR`: the shards of one run back into one run folder
//! whose `results.jsonl` and `summary.json` are those of the run done in one piece.
//!
//! Shards are refused unless they were started with one configuration (everything in
//! `run.json` but the trial-id salt and the slice) and one suite digest, and unless
//! together they hold every trial of the run exactly once. Traces stay in the shard
//! folders; `shards.json` in the merged folder names them.

use crate::json_file::{write_atomically, JsonFileError};
use crate::metrics::{self, Summary};
use crate::run::record::{config_from_record, read_record, RunRecord};
use crate::run::results::read_results;
use crate::verify::{trial_name, Verdict};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("name at least one shard folder to merge")]
    NoShards,
    /// A shard's `run.json` could not be read, or a merged file not written.
    #[error(transparent)]
    Folder(#[from] JsonFileError),
    /// A shard's `results.jsonl` could not be read.
    #[error(transparent)]
    Results(#[from] crate::run::results::ResultsError),
    /// A shard's `summary.json` is not a summary.
    #[error("{path}: {source}")]
    Summary {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A folder is not a shard (`cosec run --shard K/N`).
    #[error("{dir} is not a shard (its run.json has no shard; run it with --shard K/N)")]
    NotAShard {
        /// The folder.
        dir: PathBuf,
    },
    /// Two shards come from different configurations.
    #[error("{dir} was run with a different {field} than {first}: the shards must share one configuration and suite")]
    Mismatch {
        /// The odd shard folder.
        dir: PathBuf,
        /// The first shard folder.
        first: PathBuf,
        /// What differs.
        field: &'static str,
    },
    /// A shard holds a verdict of a trial outside its slice or outside the run.
    #[error("{dir}: trial {trial} ({scenario}) does not belong to shard {shard}")]
    Stray {
        /// The shard folder.
        dir: PathBuf,
        /// Its trial id.
        trial: String,
        /// Its scenario.
        scenario: String,
        /// The shard's slice.
        shard: String,
    },
    /// Trials are missing or present more than once.
    #[error("{}", incomplete_message(missing, doubled))]
    Incomplete {
        /// Trials without a verdict in any shard: scenario ids, `ID#e` for a repeat
        /// after the first (`--epochs`).
        missing: Vec<String>,
        /// Trials (named as in `missing`) with more than one verdict, each with its
        /// trial ids and folders.
        doubled: Vec<(String, Vec<String>)>,
    },
    /// The merged run's folder exists already.
    #[error("{0} already exists; choose another --out for the merged run")]
    OutExists(PathBuf),
    /// The merged folder could not be written.
    #[error("{path}: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A verdict could not be serialized.
    #[error("could not serialize a verdict: {0}")]
    Json(#[from] serde_json::Error),
}

fn incomplete_message(missing: &[String], doubled: &[(String, Vec<String>)]) -> String {
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!(
            "{} trial(s) missing from every shard (finish the shard with `cosec run ... --shard K/N --resume`): {}",
            missing.len(),
            missing.join(", ")
        ));
    }
    if !doubled.is_empty() {
        let list: Vec<String> = doubled
            .iter()
            .map(|(scenario, trials)| format!("{scenario} [{}]", trials.join(", ")))
            .collect();
        parts.push(format!(
            "{} trial(s) present more than once (a shard was given twice, or two shards ran one slice): {}",
            doubled.len(),
            list.join("; ")
        ));
    }
    format!("cannot merge: {}", parts.join("; "))
}

/// One shard as read from its folder.
struct ShardRun {
    dir: PathBuf,
    record: RunRecord,
    verdicts: Vec<Verdict>,
    summary: Option<Summary>,
}

fn read_shard(dir: &Path) -> Result<ShardRun, MergeError> {
    let record = read_record(dir)?;
    let verdicts = read_results(&dir.join("results.jsonl"))?;
    let summary_path = dir.join("summary.json");
    let summary = match std::fs::read_to_string(&summary_path) {
        Ok(text) => Some(
            serde_json::from_str(&text).map_err(|source| MergeError::Summary {
                path: summary_path,
                source,
            })?,
        ),
        Err(_) => None,
    };
    Ok(ShardRun {
        dir: dir.to_owned(),
        record,
        verdicts,
        summary,
    })
}

/// The first field in which two shards' records differ (salt and slice aside).
fn differing_field(a: &RunRecord, b: &RunRecord) -> Option<&'static str> {
    let checks: [(&'static str, bool); 10] = [
        ("format version", a.schema_version == b.schema_version),
        ("harness", a.harness == b.harness),
        ("model", a.model == b.model),
        ("defense", a.defense == b.defense),
        ("judge", a.judge == b.judge),
        ("suite digest", a.suite_digest == b.suite_digest),
        ("scenario selection", a.scenarios == b.scenarios),
        (
            "suite (frozen or not)",
            a.outside_frozen_suite == b.outside_frozen_suite,
        ),
        ("policy", a.policy_digest == b.policy_digest),
        (
            "guard mode or guardrail",
            a.guard_mode == b.guard_mode
                && a.guard_layers == b.guard_layers
                && a.guardrail_digest == b.guardrail_digest,
        ),
    ];
    let count = |r: &RunRecord| r.shard.map(|s| s.count);
    checks
        .into_iter()
        .find(|(_, same)| !same)
        .map(|(field, _)| field)
        .or_else(|| (count(a) != count(b)).then_some("shard count (N of K/N)"))
}

/// What the merged folder's `shards.json` records.
#[derive(Serialize)]
struct ShardsFile<'a> {
    shards: Vec<ShardEntry<'a>>,
}

#[derive(Serialize)]
struct ShardEntry<'a> {
    dir: String,
    shard: String,
    nonce: &'a str,
    trials: usize,
}

/// The merged run of `dirs`, checked; nothing is written.
pub struct Merged {
    /// The run's record (no slice).
    pub record: RunRecord,
    /// Every verdict once, in the run's scenario order.
    pub verdicts: Vec<Verdict>,
    /// The summary of the whole run.
    pub summary: Summary,
    shards: Vec<(PathBuf, String, String, usize)>,
}

/// Reads and checks the shards in `dirs` and merges them in memory.
pub fn merge_shards(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let shards: Vec<ShardRun> = dirs
        .iter()
        .map(|d| read_shard(d))
        .collect::<Result<_, _>>()?;
    let first = shards.first().ok_or(MergeError::NoShards)?;
    for s in &shards {
        if s.record.shard.is_none() {
            return Err(MergeError::NotAShard { dir: s.dir.clone() });
        }
        if let Some(field) = differing_field(&first.record, &s.record) {
            return Err(MergeError::Mismatch {
                dir: s.dir.clone(),
                first: first.dir.clone(),
                field,
            });
        }
    }
    let order: BTreeMap<&str, usize> = first
        .record
        .scenarios
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    // Keyed by scenario and repeat (`--epochs`).
    let mut by_trial: BTreeMap<(String, u32), Vec<(&Verdict, &Path)>> = BTreeMap::new();
    for s in &shards {
        let shard = s
            .record
            .shard
            .ok_or(MergeError::NotAShard { dir: s.dir.clone() })?;
        // A trial killed and resumed has one line; a repeated line keeps the last.
        let mut last: BTreeMap<(&str, u32), &Verdict> = BTreeMap::new();
        for v in &s.verdicts {
            last.insert(v.key(), v);
        }
        for ((scenario, epoch), v) in last {
            if !order.get(scenario).is_some_and(|&i| shard.contains(i)) {
                return Err(MergeError::Stray {
                    dir: s.dir.clone(),
                    trial: v.trial.clone(),
                    scenario: scenario.to_owned(),
                    shard: shard.to_string(),
                });
            }
            by_trial
                .entry((scenario.to_owned(), epoch))
                .or_default()
                .push((v, &s.dir));
        }
    }
    let missing: Vec<String> = (0..first.record.epochs)
        .flat_map(|epoch| first.record.scenarios.iter().map(move |id| (id, epoch)))
        .filter(|(id, epoch)| !by_trial.contains_key(&((*id).clone(), *epoch)))
        .map(|(id, epoch)| trial_name(id, epoch))
        .collect();
    let doubled: Vec<(String, Vec<String>)> = by_trial
        .iter()
        .filter(|(_, vs)| vs.len() > 1)
        .map(|((id, epoch), vs)| {
            let trials = vs
                .iter()
                .map(|(v, dir)| format!("trial {} in {}", v.trial, dir.display()))
                .collect();
            (trial_name(id, *epoch), trials)
        })
        .collect();
    if !missing.is_empty() || !doubled.is_empty() {
        return Err(MergeError::Incomplete { missing, doubled });
    }
    let mut verdicts: Vec<Verdict> = by_trial
        .into_values()
        .filter_map(|vs| vs.into_iter().next().map(|(v, _)| v.clone()))
        .collect();
    verdicts.sort_by_key(|v| (v.epoch, order.get(v.scenario.as_str()).copied()));
    let mut record = first.record.clone();
    record.shard = None;
    // The harness version and judge as the shards' runs saw them; the shards ran side
    // by side, so the run took as long as its slowest shard.
    let mut config = config_from_record(&record);
    let summaries: Vec<&Summary> = shards.iter().filter_map(|s| s.summary.as_ref()).collect();
    if let Some(s) = summaries.first() {
        config.harness_version = s.config.harness_version.clone();
        config.sandbox = s.config.sandbox.clone();
        config.judge = s.config.judge.clone();
    }
    let wall = (summaries.len() == shards.len()).then(|| {
        summaries
            .iter()
            .map(|s| s.usage.wall_seconds)
            .fold(0.0, f64::max)
    });
    let summary = metrics::summarize(config, &verdicts, wall);
    let shards = shards
        .iter()
        .map(|s| {
            let slice = s.record.shard.map(|x| x.to_string()).unwrap_or_default();
            (
                s.dir.clone(),
                slice,
                s.record.nonce.clone(),
                s.verdicts.len(),
            )
        })
        .collect();
    Ok(Merged {
        record,
        verdicts,
        summary,
        shards,
    })
}

/// Writes a merged run into `out` (which must not exist yet): `run.json`,
/// `results.jsonl`, `summary.json` and `shards.json`.
pub fn write_merged(merged: &Merged, out: &Path) -> Result<(), MergeError> {
    if out.exists() {
        return Err(MergeError::OutExists(out.to_owned()));
    }
    std::fs::create_dir_all(out).map_err(|source| MergeError::Write {
        path: out.to_owned(),
        source,
    })?;
    write_atomically(&out.join("run.json"), &merged.record)?;
    let mut lines = String::new();
    for v in &merged.verdicts {
        let line = serde_json::to_string(v)?;
        lines.push_str(&line);
        lines.push('\n');
    }
    let results = out.join("results.jsonl");
    std::fs::write(&results, lines).map_err(|source| MergeError::Write {
        path: results.clone(),
        source,
    })?;
    let shards = ShardsFile {
        shards: merged
            .shards
            .iter()
            .map(|(dir, shard, nonce, trials)| ShardEntry {
                dir: dir.display().to_string(),
                shard: shard.clone(),
                nonce,
                trials: *trials,
            })
            .collect(),
    };
    write_atomically(&out.join("shards.json"), &shards)?;
    write_atomically(&out.join("summary.json"), &merged.summary)?;
    Ok(())
}
