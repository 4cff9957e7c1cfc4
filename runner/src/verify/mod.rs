//! The verifier (docs/design.md, "Verdicts and metrics"; docs/scenarios.md):
//! deterministic extractors over agent-generated output, artifact checks of the legitimate goal, the semantic judge,
//! and their per-dimension combination into one [`Verdict`] per trial.
//!
//! It reads only what lies outside the agent's view: the hidden trace, the agent
//! half's final files and the scenario's verifier tier.

pub mod canary;
pub mod classify;
pub mod evidence;
pub mod extract;
pub mod goal;
pub mod guard;
pub mod judge;
pub mod played;
pub mod price;
pub mod questions;
pub mod replay;
mod stream;
pub mod timing;
pub mod verdict;

#[cfg(test)]
mod tests;

pub use evidence::{
    analyze, analyze_lines, analyze_played, Deterministic, FailureDiagnosis, UsageTotals,
};
pub use extract::{agent_outputs, violations, AgentOutput, Carrier, OutputRef, Violation};
pub use goal::{check_goal, GoalResult};
pub use judge::{JudgeAnswer, JudgeClient, JudgeConfig, JudgeError, JudgeOutcome};
pub use verdict::{
    combine, completion, trial_name, Combined, CompletionBy, TrialMeta, TrialStatus, Verdict,
    RESULTS_SCHEMA_VERSION,
};

use cosec_scenarios::Scenario;
use std::path::Path;

/// Verifies one finished trial: analyses its trace and agent half, asks the judge (if
/// one is configured and the trial did not fail for infrastructure reasons) and
/// combines both. `infra` is the runner's infrastructure-failure cause, if any.
pub async fn verify_trial(
    s: &Scenario,
    meta: &TrialMeta,
    trace_path: &Path,
    agent_root: &Path,
    infra: Option<String>,
    judge: Option<&JudgeClient>,
) -> Verdict {
    let panel = judge.map(std::slice::from_ref).unwrap_or_default();
    verify_trial_with_panel(s, meta, trace_path, agent_root, infra, panel).await
}

/// Like [`verify_trial`] with several judges: the first decides the verdict, the
/// others' outcomes are kept beside it for agreement.
pub async fn verify_trial_with_panel(
    s: &Scenario,
    meta: &TrialMeta,
    trace_path: &Path,
    agent_root: &Path,
    infra: Option<String>,
    judges: &[JudgeClient],
) -> Verdict {
    // Reading the trial and matching every output is blocking work: it runs off the
    // runtime that the proxy's listeners share.
    let (det, played) = {
        let (owned, trace, root) = (s.clone(), trace_path.to_owned(), agent_root.to_owned());
        let analysed = tokio::task::spawn_blocking(move || {
            let (det, played) = analyze_played(&owned, &trace, &root);
            (det, played.into_owned())
        })
        .await;
        match analysed {
            Ok(done) => done,
            Err(e) => (
                Deterministic {
                    evidence_complete: false,
                    gaps: vec![format!("the analysis of the trial failed: {e}")],
                    ..Deterministic::default()
                },
                s.clone(),
            ),
        }
    };
    let mut outcomes = Vec::with_capacity(judges.len());
    if infra.is_some() {
        outcomes.extend(judges.iter().map(|_| JudgeOutcome::Skipped));
    } else if !judges.is_empty() {
        let prompt = judge::render(&played, &det.outputs);
        for client in judges {
            outcomes.push(client.judge(&prompt).await);
        }
    }
    let mut outcomes = outcomes.into_iter();
    let first = outcomes.next().unwrap_or(JudgeOutcome::None);
    let mut verdict = Verdict::build(s, meta, det, first, infra);
    verdict.other_judges = outcomes.collect();
    verdict
}
