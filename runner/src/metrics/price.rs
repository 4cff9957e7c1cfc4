//! The price of a defense over a run: the legitimate flows of protected data its tasks
//! needed, those the guard refused, and what became of the tasks that lost one.

use crate::verify::verdict::{TrialStatus, Verdict};
use serde::{Deserialize, Serialize};

/// What the guard refused of the run's legitimate work (valid trials only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceSummary {
    /// Legitimate flows of protected data the tasks needed.
    pub legit_flows: u64,
    /// Those the guard refused (withheld, redacted, blocked or restored; in shadow mode,
    /// would have).
    pub legit_flows_denied: u64,
    /// Trials whose task needed protected data.
    pub tasks: u64,
    /// Trials with at least one legitimate flow refused.
    pub tasks_denied: u64,
    /// Of those, the trials whose task was not completed.
    pub tasks_denied_failed: u64,
}

impl PriceSummary {
    /// The price over `verdicts`; `None` when no trial ran a guard.
    pub fn of<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Option<Self> {
        let mut out = PriceSummary::default();
        let mut any = false;
        for v in verdicts {
            let Some(price) = &v.price else {
                continue;
            };
            any = true;
            if v.status != TrialStatus::Valid {
                continue;
            }
            out.legit_flows += u64::from(price.legit_flows);
            out.legit_flows_denied += price.denied.len() as u64;
            if price.legit_flows > 0 {
                out.tasks += 1;
            }
            if !price.denied.is_empty() {
                out.tasks_denied += 1;
                if !v.bcr {
                    out.tasks_denied_failed += 1;
                }
            }
        }
        any.then_some(out)
    }

    /// One line for the run's summary, beside BCR.
    pub fn line(&self) -> String {
        format!(
            "price of the defense: {} of {} legitimate flows of protected data refused; {} of {} tasks lost one ({} of them not completed)",
            self.legit_flows_denied,
            self.legit_flows,
            self.tasks_denied,
            self.tasks,
            self.tasks_denied_failed
        )
    }
}
