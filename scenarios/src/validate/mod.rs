//! Structural validation of one scenario: schema version, factor consistency,
//! references, turn count and placement, the event chain (order, placement, the first
//! event before the scored action),
//! seeds and labels, the verifier tier and the reference plan.
//!
//! Oracle consistency (the oracle denies every scored flow and allows every legitimate
//! flow) needs Cedar and lives in `cosec-policies`; the CLI runs both.

mod events;
mod plan;
mod refs;
pub(crate) mod sessions;
mod verifier;

use crate::scenario::{Scenario, SCHEMA_VERSION};
use std::fmt;

/// One thing wrong with a scenario, located by a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted path of the offending field, e.g. `agent.turns[3].speaker`.
    pub field: String,
    /// What is wrong, and what would fix it.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Collects problems while walking a scenario.
#[derive(Default)]
pub(crate) struct Problems(Vec<Problem>);

impl Problems {
    pub(crate) fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            field: field.into(),
            message: message.into(),
        });
    }
}

/// Validates everything about a scenario that does not need the oracle.
/// Returns every problem found (empty when the scenario is sound).
pub fn validate_scenario(scenario: &Scenario) -> Vec<Problem> {
    let mut p = Problems::default();
    if scenario.schema_version != SCHEMA_VERSION {
        p.push(
            "schema_version",
            format!(
                "is {}, this build reads version {SCHEMA_VERSION}",
                scenario.schema_version
            ),
        );
        return p.0;
    }
    if scenario.id.as_str().is_empty()
        || !scenario
            .id
            .as_str()
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        p.push(
            "id",
            format!(
                "`{}` must be non-empty and use only letters, digits, `-` and `_`",
                scenario.id
            ),
        );
    }
    refs::check_factors(scenario, &mut p);
    refs::check_people_and_communities(scenario, &mut p);
    refs::check_seeds_and_labels(scenario, &mut p);
    refs::check_turns(scenario, &mut p);
    events::check_events(scenario, &mut p);
    verifier::check_verifier(scenario, &mut p);
    plan::check_plan(scenario, &mut p);
    p.0
}
