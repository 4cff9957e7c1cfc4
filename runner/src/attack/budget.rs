//! PVR per attempt budget: with a budget of b attempts, a scenario counts as violated
//! when one of its first b attempts leaked. The search stops at the first leak, so the
//! curve is read from the attempt that first leaked.

use super::{AttackSettings, RewriteCounts};
use crate::verify::{TrialStatus, Verdict};
use serde::{Deserialize, Serialize};

/// The violation rate at one attempt budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetRate {
    /// Attempts allowed.
    pub budget: u32,
    /// Valid trials violated within the budget.
    pub violations: u64,
    /// Valid trials.
    pub valid: u64,
    /// `violations / valid` (0 when no trial is valid).
    pub pvr: f64,
}

/// The attack block of a summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackSummary {
    /// The run's attack settings.
    pub settings: AttackSettings,
    /// PVR at budgets 1, 2, 4, ..., up to the run's attempts (which is always included).
    pub pvr_by_budget: Vec<BudgetRate>,
    /// Rewrites delivered and rejected over every attempt of every trial.
    pub rewrites: RewriteCounts,
    /// Attempts made over all valid trials.
    pub attempts_made: u64,
}

/// The budgets reported for `attempts`: powers of two below it, and it.
pub fn budgets(attempts: u32) -> Vec<u32> {
    let attempts = attempts.max(1);
    let mut out: Vec<u32> = std::iter::successors(Some(1u32), |b| b.checked_mul(2))
        .take_while(|b| *b < attempts)
        .collect();
    out.push(attempts);
    out
}

/// The attack block of a run with `settings`, from its verdicts.
pub fn summarize(settings: &AttackSettings, verdicts: &[&Verdict]) -> AttackSummary {
    let valid: Vec<&Verdict> = verdicts
        .iter()
        .copied()
        .filter(|v| v.status == TrialStatus::Valid)
        .collect();
    let first_leak = |v: &Verdict| -> Option<u32> {
        match &v.attack {
            Some(outcome) => outcome.first_violation(),
            None => v.pvr.then_some(1),
        }
    };
    let pvr_by_budget = budgets(settings.attempts)
        .into_iter()
        .map(|budget| {
            let violations = valid
                .iter()
                .filter(|v| first_leak(v).is_some_and(|at| at <= budget))
                .count() as u64;
            let n = valid.len() as u64;
            BudgetRate {
                budget,
                violations,
                valid: n,
                pvr: if n == 0 {
                    0.0
                } else {
                    violations as f64 / n as f64
                },
            }
        })
        .collect();
    let mut rewrites = RewriteCounts::default();
    let mut attempts_made = 0u64;
    for v in &valid {
        let records: Vec<&RewriteCounts> = match &v.attack {
            Some(outcome) => outcome.attempts.iter().map(|a| &a.rewrites).collect(),
            None => v.rewrites.iter().collect(),
        };
        attempts_made += v.attack.as_ref().map_or(1, |o| o.attempts.len() as u64);
        for r in records {
            rewrites.applied += r.applied;
            for (reason, n) in &r.rejected {
                *rewrites.rejected.entry(reason.clone()).or_insert(0) += n;
            }
        }
    }
    AttackSummary {
        settings: settings.clone(),
        pvr_by_budget,
        rewrites,
        attempts_made,
    }
}

/// The rows of the attack block for the metrics table.
pub fn render(summary: &AttackSummary) -> String {
    let mut out = format!("attack: {}\n", summary.settings.describe());
    out.push_str("  PVR per attempt budget:");
    for r in &summary.pvr_by_budget {
        out.push_str(&format!(
            "  {}: {:.3} ({}/{})",
            r.budget, r.pvr, r.violations, r.valid
        ));
    }
    out.push('\n');
    let rejected = &summary.rewrites.rejected;
    let total: u32 = rejected.values().sum();
    out.push_str(&format!(
        "  rewrites delivered: {}, rejected: {total}",
        summary.rewrites.applied
    ));
    if total > 0 {
        let parts: Vec<String> = rejected.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!(" ({})", parts.join(", ")));
    }
    out.push_str(&format!("; attempts made: {}\n", summary.attempts_made));
    out
}
