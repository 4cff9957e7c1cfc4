//! The verifier (DESIGN.md section 6, SCENARIOS.md): deterministic extractors over
//! agent-generated output, artifact checks of the legitimate goal, the semantic judge,
//! and their per-dimension combination into one [`Verdict`] per trial.
//!
//! It reads only what lies outside the agent's view: the hidden trace, the agent
//! half's final files and the scenario's verifier tier.

pub mod canary;
pub mod evidence;
pub mod extract;
pub mod goal;
pub mod guard;
pub mod judge;
pub mod timing;
pub mod verdict;

#[cfg(test)]
mod tests;

pub use evidence::{analyze, analyze_lines, Deterministic, FailureDiagnosis, UsageTotals};
pub use extract::{agent_outputs, violations, AgentOutput, Carrier, Violation};
pub use goal::{check_goal, GoalResult};
pub use judge::{JudgeAnswer, JudgeClient, JudgeConfig, JudgeError, JudgeOutcome};
pub use verdict::{combine, Combined, TrialMeta, TrialStatus, Verdict, RESULTS_SCHEMA_VERSION};

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
    let det = analyze(s, trace_path, agent_root);
    let outcome = match (judge, &infra) {
        (None, _) => JudgeOutcome::None,
        (Some(_), Some(_)) => JudgeOutcome::Skipped,
        (Some(client), None) => client.judge(&judge::render(s, &det.outputs)).await,
    };
    Verdict::build(s, meta, det, outcome, infra)
}
