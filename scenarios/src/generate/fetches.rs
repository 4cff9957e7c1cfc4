//! Fetch before disclosing: a reference-plan step that emits a canary its session has
//! not seen gets, right before it and taken by the same agents, the fetch that shows it
//! (a read of the file holding it, seeded files first, or the lookup that returns it).
//! Templates write the disclosure; this pass makes it one a real model could produce.

use crate::validate::sessions::unseen_disclosures;
use crate::verifier::PlanStep;
use crate::Scenario;

/// Upper bound on inserted fetches per scenario; each insertion resolves at least one
/// unseen canary, so a sound template needs far fewer.
const MAX_FETCHES: usize = 32;

/// Inserts the missing fetches into the reference plan of `scenario`. A canary that no
/// file or lookup holds is left for validation to report.
pub(crate) fn fetch_before_disclosing(scenario: &mut Scenario) {
    for _ in 0..MAX_FETCHES {
        // Each insertion changes what later steps have seen, so recompute after each.
        let Some((index, fetch)) = unseen_disclosures(scenario)
            .into_iter()
            .find_map(|u| u.fetches.into_iter().next().map(|f| (u.step, f)))
        else {
            return;
        };
        let steps = &mut scenario.verifier.reference_plan.steps;
        let Some(leaking) = steps.get(index) else {
            return;
        };
        let step = PlanStep {
            turn: leaking.turn,
            taker: leaking.taker,
            action: fetch,
        };
        steps.insert(index, step);
    }
}
