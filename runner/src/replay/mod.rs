//! `cosec policy replay`: a recorded run re-decided under a new defense policy, offline.
//!
//! Every guard decision point of every trial ([`points`]) is asked again through the
//! live guard's own path (`TrialGuard::decide_offline`: the question builder of
//! `cosec_policies::ask`, the state cache and Cedar's authorizer), without a model or a
//! harness. The report says, per trial and in total, which decisions change against
//! the baseline (the recorded decisions, or `--against`), which recorded violations the
//! new policy would have stopped, which legitimate flows it would have denied (the run
//! pricing's definition, [`crate::verify::price`] and [`crate::metrics::price`]), and
//! up to where each trial's replay is exact: the trajectory after the first decision
//! that changes what the recorded trial did is unknown, and what follows is an estimate.

pub mod points;
pub mod trial;

use crate::metrics::price::PriceSummary;
use crate::run::record::read_record;
use crate::verify::played::played;
use crate::verify::verdict::{TrialStatus, Verdict};
use cosec_proxy::guard::{GuardPolicy, TrialGuard};
use cosec_proxy::trace::read_trace;
use cosec_scenarios::Scenario;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
pub use trial::{replay_trial, Answer, Change, Divergence, ReplayedViolation, TrialReplay};

/// The file name a replay is written under beside a run, where `cosec report` finds it.
pub const REPLAY_FILE: &str = "replay.json";

/// What can stop a replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The run folder's record or results could not be read.
    #[error("{0}")]
    Run(String),
    /// A trial's trace could not be read.
    #[error("{0}: replay needs every trial's hidden trace (was the trial folder moved?)")]
    Trace(#[from] cosec_proxy::trace::TraceError),
    /// A trial names a scenario the loaded suite does not hold.
    #[error("trial `{trial}` ran scenario `{scenario}`, which the loaded suite does not hold; pass the suite the run used with --suite-dir")]
    UnknownScenario {
        /// The trial.
        trial: String,
        /// Its scenario.
        scenario: String,
    },
}

/// What the changes are counted from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Baseline {
    /// The decisions the recorded run took (none, when no guard ran).
    Recorded,
    /// The `--against` policy, re-decided on the same points.
    Against,
}

/// Totals over the replayed trials.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayTotals {
    /// Trials replayed (valid ones; see `skipped`).
    pub trials: usize,
    /// Trials not replayed: not valid in the run (infrastructure failures and the like).
    pub skipped: usize,
    /// Trials whose replay is exact throughout (no decision changes what they did).
    pub exact_trials: usize,
    /// Decision points re-decided.
    pub points: usize,
    /// Of those, denied by the new policy.
    pub denied: usize,
    /// Decisions that change against the baseline.
    pub changed: usize,
    /// Of those, allowed by the baseline and denied now.
    pub allow_to_deny: usize,
    /// Of those, denied by the baseline and allowed now.
    pub deny_to_allow: usize,
    /// Recorded violations over all outputs (the PVR-all evidence).
    pub violations: usize,
    /// Of those, stopped by the new policy.
    pub violations_stopped: usize,
    /// Recorded violations of the scored action (the paper-comparable PVR evidence).
    pub scored_violations: usize,
    /// Of those, stopped.
    pub scored_violations_stopped: usize,
    /// Trials with a recorded violation over all outputs.
    pub pvr_all_trials: usize,
    /// Of those, the trials with a violation the new policy does not stop (an estimate
    /// of PVR-all's numerator under it, for the recorded trajectories).
    pub pvr_all_trials_left: usize,
    /// Trials with a recorded scored violation.
    pub pvr_trials: usize,
    /// Of those, the trials with a scored violation the new policy does not stop.
    pub pvr_trials_left: usize,
    /// Stopped or not-stopped answers that lie after a trial's first divergence.
    pub estimated_violations: usize,
    /// The legitimate flows of protected data denied: the run pricing's summary over
    /// the replayed trials (a task that lost a flow counts as not completed as asked).
    pub price: PriceSummary,
}

/// A whole replay: the `--json` output and the file `cosec report` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    /// The run folder, as given.
    pub run: String,
    /// The new policy file.
    pub policy: String,
    /// The baseline policy file (`--against`); absent for the recorded decisions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// What the changes are counted from.
    pub baseline: Baseline,
    /// The run's defense and guard mode as recorded (`none`, `proxy enforce`, ...).
    pub recorded_defense: String,
    /// Totals.
    pub totals: ReplayTotals,
    /// Every replayed trial, in results order.
    pub trials: Vec<TrialReplay>,
}

/// The policies of a replay.
pub struct Policies {
    /// The new policy.
    pub new: Arc<GuardPolicy>,
    /// The baseline policy, if any.
    pub against: Option<Arc<GuardPolicy>>,
}

/// Replays the run in `dir` under `policies` with the scenarios of `suite` (the suite
/// the run used).
pub fn replay_run(
    dir: &Path,
    suite: &[Scenario],
    policies: &Policies,
) -> Result<ReplayReport, ReplayError> {
    let record = read_record(dir).map_err(|e| ReplayError::Run(e.to_string()))?;
    let results = dir.join("results.jsonl");
    let lines: Vec<Verdict> =
        crate::run::results::read_results(&results).map_err(|e| ReplayError::Run(e.to_string()))?;
    if lines.is_empty() {
        return Err(ReplayError::Run(format!(
            "{}: no finished trial to replay",
            results.display()
        )));
    }
    // The last line of a scenario's repeat is its verdict (a resumed run re-ran it).
    let mut latest: BTreeMap<(String, u32), Verdict> = BTreeMap::new();
    for v in lines {
        latest.insert((v.scenario.to_string(), v.epoch), v);
    }
    let by_id: BTreeMap<&str, &Scenario> = suite.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut jobs = Vec::new();
    let mut skipped = 0;
    for v in latest.into_values() {
        if v.status != TrialStatus::Valid {
            skipped += 1;
            continue;
        }
        let s = by_id
            .get(v.scenario.as_str())
            .ok_or_else(|| ReplayError::UnknownScenario {
                trial: v.trial.clone(),
                scenario: v.scenario.to_string(),
            })?;
        jobs.push((v, *s));
    }
    let replayed =
        cosec_policies::evaluate::in_parallel(&jobs, |(v, s)| replay_one(dir, v, s, policies));
    let mut trials = Vec::new();
    for r in replayed {
        trials.push(r?);
    }
    let totals = totals(&trials, jobs.iter().map(|(v, _)| v), skipped);
    Ok(ReplayReport {
        run: dir.display().to_string(),
        policy: policies.new.file_name().to_owned(),
        against: policies.against.as_ref().map(|p| p.file_name().to_owned()),
        baseline: match policies.against {
            Some(_) => Baseline::Against,
            None => Baseline::Recorded,
        },
        recorded_defense: match (&record.defense[..], &record.guard_mode) {
            ("proxy", Some(mode)) => format!("proxy {mode}"),
            (d, _) => d.to_owned(),
        },
        totals,
        trials,
    })
}

fn replay_one(
    dir: &Path,
    v: &Verdict,
    s: &Scenario,
    policies: &Policies,
) -> Result<TrialReplay, ReplayError> {
    let trace_path: PathBuf = dir
        .join("trials")
        .join(&v.trial)
        .join("hidden")
        .join("trace.jsonl");
    let trace = read_trace(&trace_path)?;
    let s = played(s, &trace);
    let guard = |policy: &Arc<GuardPolicy>| {
        TrialGuard::new(
            v.trial.clone(),
            Arc::new(s.agent.clone()),
            Arc::new(s.platform.clone()),
            s.agent.target_user.clone(),
            Arc::clone(policy),
            cosec_proxy::guard::GuardMode::Shadow,
        )
    };
    let new = guard(&policies.new);
    let against = policies.against.as_ref().map(guard);
    let input = trial::TrialInput {
        scenario: &s,
        violations: &v.violations,
        trial: &v.trial,
        epoch: v.epoch,
    };
    Ok(replay_trial(&input, &trace, &new, against.as_ref()))
}

fn totals<'a>(
    trials: &[TrialReplay],
    verdicts: impl Iterator<Item = &'a Verdict>,
    skipped: usize,
) -> ReplayTotals {
    let mut t = ReplayTotals {
        trials: trials.len(),
        skipped,
        ..ReplayTotals::default()
    };
    let mut priced = Vec::new();
    for (r, v) in trials.iter().zip(verdicts) {
        t.exact_trials += usize::from(r.diverges_at.is_none());
        t.points += r.points;
        t.denied += r.denied;
        t.changed += r.changes.len();
        t.allow_to_deny += r.changes.iter().filter(|c| c.to == Answer::Deny).count();
        t.deny_to_allow += r.changes.iter().filter(|c| c.to == Answer::Allow).count();
        t.violations += r.violations.len();
        t.violations_stopped += r.violations.iter().filter(|x| x.stopped).count();
        let scored = r.violations.iter().filter(|x| x.scored);
        t.scored_violations += scored.clone().count();
        t.scored_violations_stopped += scored.clone().filter(|x| x.stopped).count();
        t.estimated_violations += r.violations.iter().filter(|x| !x.exact).count();
        if !r.violations.is_empty() {
            t.pvr_all_trials += 1;
            t.pvr_all_trials_left += usize::from(r.violations.iter().any(|x| !x.stopped));
        }
        if scored.clone().next().is_some() {
            t.pvr_trials += 1;
            t.pvr_trials_left += usize::from(scored.clone().any(|x| !x.stopped));
        }
        // Priced as a guarded trial whose refused tasks are not completed as asked.
        let mut v = v.clone();
        v.price = Some(r.price.clone());
        v.bcr = false;
        priced.push(v);
    }
    t.price = PriceSummary::of(&priced).unwrap_or_default();
    t
}
