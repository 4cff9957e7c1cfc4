//! The replay table: a run with a `cosec policy replay` file beside it
//! (`RUN/replay.json`) shows what that policy would have decided on the run.

use super::sections::run_name;
use crate::compare::LoadedRun;
use crate::replay::{ReplayReport, REPLAY_FILE};
use maud::{html, Markup};

/// One row per run with a replay file; nothing when no run has one.
pub fn replay_table(runs: &[LoadedRun]) -> Markup {
    let replays: Vec<(usize, Result<ReplayReport, String>)> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, run)| {
            let path = run.dir.join(REPLAY_FILE);
            let text = std::fs::read_to_string(&path).ok()?;
            Some((
                i,
                serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
            ))
        })
        .collect();
    html! {
        @if !replays.is_empty() {
            table id="replay" {
                caption { "Policy replay: the recorded run re-decided under another policy (" code { "cosec policy replay" } "; exact up to each trial's first divergence, estimated after it)" }
                thead {
                    tr {
                        th { "run" } th { "policy" } th { "trials (exact)" } th { "decisions changed" }
                        th { "allow → deny" } th { "deny → allow" } th { "violations stopped" }
                        th { "scored stopped" } th { "legitimate flows denied" } th { "tasks that lost a flow" }
                    }
                }
                tbody {
                    @for (i, replay) in &replays {
                        tr {
                            td { (run_name(*i)) }
                            @match replay {
                                Ok(r) => {
                                    @let t = &r.totals;
                                    td { (r.policy) }
                                    td { (t.trials) " (" (t.exact_trials) ")" }
                                    td { (t.changed) } td { (t.allow_to_deny) } td { (t.deny_to_allow) }
                                    td { (t.violations_stopped) " of " (t.violations) }
                                    td { (t.scored_violations_stopped) " of " (t.scored_violations) }
                                    td { (t.price.legit_flows_denied) " of " (t.price.legit_flows) }
                                    td { (t.price.tasks_denied) " of " (t.price.tasks) }
                                }
                                Err(e) => { td colspan="9" { "not readable: " (e) } }
                            }
                        }
                    }
                }
            }
        }
    }
}
