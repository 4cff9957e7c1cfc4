//! `cosec audit sample`: read the valid trials of run folders, stratify them by suite x
//! family x combined privacy verdict, draw the seeded sample and write `sample.json`
//! and `verdicts.json`.

use super::allocate::{allocate, choose, rank};
use super::{
    write_json, AuditError, AutomaticVerdict, SampleFile, SampleItem, SampledRun, Stratum,
    StratumCount, VerdictsFile, AUDIT_SCHEMA_VERSION, SAMPLE_FILE, VERDICTS_FILE,
};
use crate::run::record::read_record;
use crate::run::results::read_results;
use crate::verify::{TrialStatus, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One valid trial of a run.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index of its run.
    pub run: usize,
    /// Its verdict.
    pub verdict: Verdict,
}

impl Candidate {
    /// The stratum the trial falls in.
    pub fn stratum(&self) -> Stratum {
        Stratum {
            suite: self.verdict.factors.suite,
            family: self.verdict.factors.family,
            violation: self.verdict.pvr,
        }
    }

    /// The automatic verdicts of the trial under item id `item`.
    pub fn automatic(&self, item: String) -> AutomaticVerdict {
        let v = &self.verdict;
        AutomaticVerdict {
            item,
            stratum: self.stratum(),
            deterministic: !v.violations.is_empty(),
            judge: v.judge.answer().map(|a| a.privacy_violation),
            combined: v.pvr,
            completion: v.bcr,
        }
    }
}

/// Reads the runs: their descriptions and their valid trials (the last line of a
/// trial counts when a resumed run repeated it). A trial id met twice means a run was
/// named twice.
pub fn load_runs(dirs: &[PathBuf]) -> Result<(Vec<SampledRun>, Vec<Candidate>), AuditError> {
    let mut runs = Vec::new();
    let mut candidates = Vec::new();
    let mut seen = BTreeSet::new();
    for (index, dir) in dirs.iter().enumerate() {
        let abs = std::fs::canonicalize(dir).map_err(AuditError::io(dir))?;
        let record = read_record(&abs)?;
        let results = abs.join("results.jsonl");
        let verdicts: Vec<Verdict> = read_results(&results)?;
        let mut last: BTreeMap<String, Verdict> = BTreeMap::new();
        for v in verdicts {
            last.insert(v.trial.clone(), v);
        }
        for (trial, verdict) in last {
            if !seen.insert(trial.clone()) {
                return Err(AuditError::Invalid(format!(
                    "trial {trial} of {} is also in an earlier run; name each run folder once",
                    abs.display()
                )));
            }
            if verdict.status == TrialStatus::Valid {
                candidates.push(Candidate {
                    run: index,
                    verdict,
                });
            }
        }
        runs.push(SampledRun {
            dir: abs,
            harness: record.harness,
            model: record.model,
            judge: record.judge,
        });
    }
    Ok((runs, candidates))
}

/// The drawn sample: the two files' contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drawn {
    /// `sample.json`.
    pub sample: SampleFile,
    /// `verdicts.json`.
    pub verdicts: VerdictsFile,
}

/// Draws `n` trials from the candidates with `seed` (rule: [`super::allocate`]).
/// Items are numbered in a seeded order, so neither stratum nor run shows in it.
pub fn draw(
    runs: Vec<SampledRun>,
    candidates: &[Candidate],
    n: usize,
    seed: u64,
) -> Result<Drawn, AuditError> {
    let mut by_stratum: BTreeMap<Stratum, Vec<&Candidate>> = BTreeMap::new();
    for c in candidates {
        by_stratum.entry(c.stratum()).or_default().push(c);
    }
    let sizes: BTreeMap<Stratum, usize> = by_stratum.iter().map(|(k, v)| (*k, v.len())).collect();
    let allocation = allocate(&sizes, n)?;
    let mut chosen: Vec<&Candidate> = Vec::new();
    let mut strata = Vec::new();
    for (stratum, members) in &by_stratum {
        let k = allocation.get(stratum).copied().unwrap_or(0);
        let keys: Vec<&str> = members.iter().map(|c| c.verdict.trial.as_str()).collect();
        let picked: BTreeSet<&str> = choose(seed, &keys, k).into_iter().collect();
        chosen.extend(
            members
                .iter()
                .filter(|c| picked.contains(c.verdict.trial.as_str())),
        );
        strata.push(StratumCount {
            stratum: *stratum,
            population: members.len(),
            sampled: k,
        });
    }
    chosen.sort_by_key(|c| rank(seed, "order", &c.verdict.trial));
    let width = chosen.len().to_string().len().max(3);
    let mut items = Vec::new();
    let mut automatic = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        let item = format!("item-{:0width$}", i + 1);
        items.push(SampleItem {
            item: item.clone(),
            run: c.run,
            trial: c.verdict.trial.clone(),
            scenario: c.verdict.scenario.to_string(),
        });
        automatic.push(c.automatic(item));
    }
    Ok(Drawn {
        sample: SampleFile {
            schema_version: AUDIT_SCHEMA_VERSION,
            seed,
            requested: n,
            population: candidates.len(),
            runs,
            items,
        },
        verdicts: VerdictsFile {
            schema_version: AUDIT_SCHEMA_VERSION,
            strata,
            items: automatic,
        },
    })
}

/// `cosec audit sample`: draws and writes the sample into `out` (created if needed);
/// returns the lines to print.
pub fn sample(runs: &[PathBuf], n: usize, seed: u64, out: &Path) -> Result<String, AuditError> {
    if runs.is_empty() {
        return Err(AuditError::Invalid(
            "name at least one run folder (holding run.json and results.jsonl)".to_owned(),
        ));
    }
    let (described, candidates) = load_runs(runs)?;
    let drawn = draw(described, &candidates, n, seed)?;
    std::fs::create_dir_all(out).map_err(AuditError::io(out))?;
    write_json(&out.join(SAMPLE_FILE), &drawn.sample)?;
    write_json(&out.join(VERDICTS_FILE), &drawn.verdicts)?;
    Ok(describe(&drawn, out))
}

fn describe(drawn: &Drawn, out: &Path) -> String {
    use std::fmt::Write as _;
    let s = &drawn.sample;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "sampled {} of {} valid trials from {} run(s), seed {}{}",
        s.items.len(),
        s.population,
        s.runs.len(),
        s.seed,
        if s.requested >= s.population {
            format!(" (--n {} covers the whole population)", s.requested)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        text,
        "{:<10} {:<6} {:<9} {:>10} {:>7}",
        "suite", "family", "violation", "population", "sampled"
    );
    for c in &drawn.verdicts.strata {
        let _ = writeln!(
            text,
            "{:<10} {:<6} {:<9} {:>10} {:>7}",
            c.stratum.suite.as_str(),
            c.stratum.family.as_str(),
            if c.stratum.violation { "yes" } else { "no" },
            c.population,
            c.sampled
        );
    }
    let _ = writeln!(
        text,
        "wrote {} and {} (keep {} from the annotators); next: cosec audit sheet {}",
        out.join(SAMPLE_FILE).display(),
        out.join(VERDICTS_FILE).display(),
        VERDICTS_FILE,
        out.display()
    );
    text
}
