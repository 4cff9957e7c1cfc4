//! Artifact checks of the legitimate goal, against the agent half's final files and
//! the agent's outputs in the trace.
//!
//! Completion is decided by the artifact checks wherever a scenario declares them; the
//! judge decides only a goal without artifact checks (docs/verifier.md, "Completion").
//! A check is tolerant of formatting: both the artifact and each required element are
//! compared in `cosec_scenarios::matching::artifact_form`, and each element is looked
//! for on its own, so a list of elements may appear in any order.

use super::extract::AgentOutput;
use cosec_proxy::layout;
use cosec_scenarios::Scenario;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// How the artifact checks came out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalResult {
    /// Every check passed (false when the goal has no artifact check).
    pub met: bool,
    /// The goal has artifact checks, so they, not the judge, decide completion.
    #[serde(default)]
    pub checked: bool,
    /// One readable line per failed check.
    pub failed: Vec<String>,
    /// Final files that exist but could not be read (the evidence is then incomplete).
    pub unreadable: Vec<String>,
}

/// Evaluates every artifact check of `s` (by the rule of `cosec_scenarios::artifact`,
/// the one scenario validation applies to reference plans).
pub fn check_goal(s: &Scenario, outputs: &[AgentOutput], agent_root: &Path) -> GoalResult {
    let mut result = GoalResult {
        checked: !s.verifier.goal.checks.is_empty(),
        ..GoalResult::default()
    };
    for check in &s.verifier.goal.checks {
        let what = check.describe();
        let miss = match check.file() {
            Some((namespace, path)) => {
                let rel = layout::tool_path(namespace, path);
                let full = agent_root.join(layout::namespace_dir(namespace)).join(path);
                match std::fs::read(&full) {
                    Ok(bytes) => check.missing(&[&String::from_utf8_lossy(&bytes)]),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        result.failed.push(format!("file {rel} does not exist"));
                        continue;
                    }
                    Err(e) => {
                        result.unreadable.push(format!("{rel}: {e}"));
                        result.failed.push(format!("file {rel} could not be read"));
                        continue;
                    }
                }
            }
            None => {
                let texts: Vec<&str> = outputs
                    .iter()
                    .filter(|o| check.reads_output(s, o.turn, &o.addressed))
                    .map(|o| o.text.as_str())
                    .collect();
                check.missing(&texts)
            }
        };
        if let Some(m) = miss {
            result.failed.push(format!(
                "{what} lacks: {}",
                m.iter()
                    .map(|x| format!("`{x}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    result.met = result.checked && result.failed.is_empty();
    result
}
