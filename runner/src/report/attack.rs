//! The report's attacker section: who played the participants in each run and, for an
//! adaptive search, PVR per attempt budget.

use super::html::{esc, pct};
use super::sections::run_name;
use crate::compare::LoadedRun;
use std::fmt::Write as _;

/// The attacker table: one row per run, PVR at each attempt budget any run reports.
pub fn attack_section(runs: &[LoadedRun]) -> String {
    let mut budgets: Vec<u32> = runs
        .iter()
        .filter_map(|r| r.summary.attack.as_ref())
        .flat_map(|a| a.pvr_by_budget.iter().map(|b| b.budget))
        .collect();
    budgets.sort_unstable();
    budgets.dedup();
    if budgets.is_empty() {
        return "<p>Every run played the frozen script (the seed attacker, one attempt): its PVR is the benchmark's.</p>".to_owned();
    }
    let mut out = String::from("<p>With a budget of b attempts a scenario counts as violated when one of its first b attempts leaked (each attempt a fresh trial whose attacker saw the earlier ones). A dash: the run did not make that many attempts.</p><table id=\"attack\"><thead><tr><th>run</th><th>participants</th>");
    for b in &budgets {
        let _ = write!(out, "<th>PVR at {b}</th>");
    }
    out.push_str("<th>rewrites delivered</th><th>rejected (by reason)</th></tr></thead><tbody>");
    for (i, run) in runs.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            run_name(i),
            esc(&run.attack_settings())
        );
        let attack = run.summary.attack.as_ref();
        for b in &budgets {
            let cell = attack
                .and_then(|a| a.pvr_by_budget.iter().find(|r| r.budget == *b))
                .map_or_else(
                    || "-".to_owned(),
                    |r| format!("{} ({}/{})", pct(Some(r.pvr)), r.violations, r.valid),
                );
            let _ = write!(out, "<td>{}</td>", esc(&cell));
        }
        let (applied, rejected) = attack.map_or((0, String::new()), |a| {
            let parts: Vec<String> = a
                .rewrites
                .rejected
                .iter()
                .map(|(reason, n)| format!("{reason} {n}"))
                .collect();
            (a.rewrites.applied, parts.join(", "))
        });
        let _ = write!(
            out,
            "<td>{applied}</td><td>{}</td></tr>",
            esc(if rejected.is_empty() {
                "none"
            } else {
                &rejected
            })
        );
    }
    out.push_str("</tbody></table>\n");
    out
}
