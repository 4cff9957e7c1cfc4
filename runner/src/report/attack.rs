//! The report's attacker section: who played the participants in each run and, for an
//! adaptive search, PVR per attempt budget.

use super::html::pct;
use super::sections::run_name;
use crate::compare::LoadedRun;
use maud::{html, Markup};

/// The attacker table: one row per run, PVR at each attempt budget any run reports.
pub fn attack_section(runs: &[LoadedRun]) -> Markup {
    let mut budgets: Vec<u32> = runs
        .iter()
        .filter_map(|r| r.summary.attack.as_ref())
        .flat_map(|a| a.pvr_by_budget.iter().map(|b| b.budget))
        .collect();
    budgets.sort_unstable();
    budgets.dedup();
    if budgets.is_empty() {
        return html! {
            p { "Every run played the frozen script (the seed attacker, one attempt): its PVR is the benchmark's." }
        };
    }
    html! {
        p {
            "With a budget of b attempts a scenario counts as violated when one of its first b attempts leaked (each attempt a fresh trial whose attacker saw the earlier ones). A dash: the run did not make that many attempts."
        }
        table id="attack" {
            thead {
                tr {
                    th { "run" } th { "participants" }
                    @for b in &budgets { th { "PVR at " (b) } }
                    th { "rewrites delivered" } th { "rejected (by reason)" }
                }
            }
            tbody {
                @for (i, run) in runs.iter().enumerate() {
                    @let attack = run.summary.attack.as_ref();
                    @let (applied, rejected) = attack.map_or((0, String::new()), |a| {
                        let parts: Vec<String> = a
                            .rewrites
                            .rejected
                            .iter()
                            .map(|(reason, n)| format!("{reason} {n}"))
                            .collect();
                        (a.rewrites.applied, parts.join(", "))
                    });
                    tr {
                        td { (run_name(i)) }
                        td { (run.attack_settings()) }
                        @for b in &budgets {
                            td {
                                @match attack.and_then(|a| a.pvr_by_budget.iter().find(|r| r.budget == *b)) {
                                    Some(r) => (format!("{} ({}/{})", pct(Some(r.pvr)), r.violations, r.valid)),
                                    None => "-",
                                }
                            }
                        }
                        td { (applied) }
                        td { @if rejected.is_empty() { "none" } @else { (rejected) } }
                    }
                }
            }
        }
    }
}
