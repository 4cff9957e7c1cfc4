//! `cosec report --html`: one self-contained HTML file over one or more runs. No
//! network, no external script or style: tables and inline SVG charts are rendered
//! here; each trial's condensed trace sits in its own JSON data island, packed against
//! one string table shared by all trials (see [`pack`]), and is expanded and rendered by
//! the page's small script only when opened, so a 13-run matrix stays small and quick.
//!
//! A trace can be opened at load with `#trace=R/SCENARIO` (run number from 1).

mod attack;
pub mod charts;
mod html;
pub mod pack;
mod sections;
pub mod svg;
pub mod traces;

use crate::compare::paired::METRICS;
use crate::compare::{compare_all, LoadedRun};
use crate::cost::{self, PriceError, PriceTable, RunCost};
use crate::verify::TrialStatus;
use html::{esc, json_island};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// Significance level of the report's paired comparisons.
pub const REPORT_ALPHA: f64 = 0.05;

/// Errors building the report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A run's model has no price in the price file.
    #[error(transparent)]
    Price(#[from] PriceError),
    /// No run was given.
    #[error("no run folder given")]
    NoRuns,
}

/// The whole page.
pub fn render_report(
    runs: &[LoadedRun],
    prices: Option<&PriceTable>,
) -> Result<String, ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    let costs: Vec<Option<RunCost>> = match prices {
        Some(p) => runs
            .iter()
            .map(|r| cost::run_cost(r, p).map(Some))
            .collect::<Result<_, _>>()?,
        None => vec![None; runs.len()],
    };
    let changed = changed_metrics(runs);
    let mut islands = String::new();
    let mut index = Vec::new();
    let mut guard_by_run = Vec::new();
    let mut packer = pack::Packer::default();
    for (r, run) in runs.iter().enumerate() {
        let mut guard = BTreeMap::new();
        let run_cost = costs.get(r).and_then(Option::as_ref);
        for (t, v) in run.verdicts.iter().enumerate() {
            let data = traces::trial_data(&run.dir, v);
            for (layer, counts) in data.guard_by_layer {
                let slot: &mut [u64; 6] = guard.entry(layer).or_insert([0; 6]);
                for (a, b) in slot.iter_mut().zip(counts) {
                    *a += b;
                }
            }
            islands.push_str(&json_island(
                &format!("t{r}-{t}"),
                &packer.trial(&data.verdict, &data.events, &data.problems),
            ));
            let f = &v.factors;
            index.push(json!([
                r,
                t,
                v.scenario.as_str(),
                f.family.as_str(),
                f.event.map_or("none", |e| e.as_str()),
                traces::verdict_class(v),
                format!("{}-{}", f.family, f.strategy),
                f.boundary.as_str(),
                (v.wall_seconds * 100.0).round() / 100.0,
                run_cost.and_then(|c| c.by_scenario.get(t)).map(|(_, x)| *x),
                changed
                    .get(v.scenario.as_str())
                    .cloned()
                    .unwrap_or_default(),
            ]));
        }
        guard_by_run.push(guard);
    }
    let runs_json = json!(runs
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": sections::run_name(i), "title": r.name(), "label": r.label()}))
        .collect::<Vec<_>>());
    let comparisons = compare_all(runs, REPORT_ALPHA);
    let mut notes: Vec<String> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for n in &run.summary.notes {
            let n = format!("{}: {n}", sections::run_name(i));
            notes.push(n);
        }
    }
    let mut page = String::with_capacity(islands.len() + 200_000);
    let _ = writeln!(page, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>CoSec report: {} run(s)</title><style>{STYLE}</style></head><body>",
        runs.len()
    );
    let _ = writeln!(page, "<header><h1>CoSec report</h1><p>{} run(s), {} trials. Rates in % with 95% Wilson intervals over valid trials; PVR and CCPVR lower is better, BCR and STCR higher is better. PVR is the scored action's (paper-comparable), PVR all every output's.</p></header>",
        runs.len(),
        index.len()
    );
    page.push_str("<nav><a href=\"#s-matrix\">matrix</a> <a href=\"#s-heatmaps\">heatmaps</a> <a href=\"#s-plots\">differences and trade-off</a> <a href=\"#s-figures\">PVR figures</a> <a href=\"#s-breakdowns\">carriers and failure classes</a> <a href=\"#s-guard\">guard</a> <a href=\"#s-attack\">attackers</a> <a href=\"#s-paired\">paired comparison</a> <a href=\"#s-cost\">cost and time</a> <a href=\"#s-trials\">trials</a></nav>\n");
    if !notes.is_empty() {
        page.push_str("<details class=\"notes\"><summary>caveats of these runs</summary><ul>");
        for n in &notes {
            let _ = write!(page, "<li>{}</li>", esc(n));
        }
        page.push_str("</ul></details>\n");
    }
    let _ = writeln!(
        page,
        "<section id=\"s-matrix\"><h2>Matrix</h2>{}</section>",
        sections::matrix_section(runs)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-heatmaps\"><h2>Heatmaps</h2>{}</section>",
        sections::heatmap_section(runs)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-plots\"><h2>Differences between runs and the leak-work trade-off</h2>{}</section>",
        sections::plots_section(runs, &comparisons)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-figures\"><h2>PVR of the scored action and over all outputs</h2>{}</section>",
        sections::differences_section(runs)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-breakdowns\"><h2>Carriers and failure classes</h2>{}</section>",
        sections::breakdown_section(runs)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-guard\"><h2>Guard decisions per layer</h2>{}</section>",
        sections::guard_section(runs, &guard_by_run)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-attack\"><h2>Attackers: PVR per attempt budget</h2>{}</section>",
        attack::attack_section(runs)
    );
    let _ = writeln!(
        page,
        "<section id=\"s-paired\"><h2>Paired comparison</h2>{}</section>",
        if comparisons.is_empty() {
            "<p>Give two or more runs to compare them trial by trial against the first.</p>"
                .to_owned()
        } else {
            sections::paired_section(&comparisons)
        }
    );
    let _ = writeln!(
        page,
        "<section id=\"s-cost\"><h2>Cost and time</h2>{}</section>",
        sections::cost_section(runs, &costs, prices)
    );
    page.push_str(TRIALS_SECTION);
    page.push_str(&json_island("runs", &runs_json.to_string()));
    page.push_str(&json_island(
        "index",
        &serde_json::Value::Array(index).to_string(),
    ));
    page.push_str(&json_island("strings", &packer.strings_json()));
    page.push_str(&json_island("layouts", &packer.layouts_json()));
    page.push_str(&islands);
    let _ = writeln!(page, "<script>{SCRIPT}</script>\n</body></html>");
    Ok(page)
}

/// Per scenario, the metrics (in [`METRICS`] order, by their JSON names) whose verdict
/// differs among the runs where its trial is valid; scenarios valid in fewer than two
/// runs, or alike in all, are absent. CCPVR only counts for cross-scope scenarios.
fn changed_metrics(runs: &[LoadedRun]) -> BTreeMap<&str, Vec<&'static str>> {
    let mut values: BTreeMap<&str, Vec<[bool; 5]>> = BTreeMap::new();
    for run in runs {
        for v in run
            .verdicts
            .iter()
            .filter(|v| v.status == TrialStatus::Valid)
        {
            let cross = v.factors.cross_scope;
            values.entry(v.scenario.as_str()).or_default().push([
                v.pvr,
                v.all_outputs_pvr(),
                cross && v.ccpvr,
                v.bcr,
                v.stcr,
            ]);
        }
    }
    values
        .into_iter()
        .filter_map(|(id, seen)| {
            let first = seen.first()?;
            let names: Vec<&'static str> = METRICS
                .iter()
                .enumerate()
                .filter(|(m, _)| seen.iter().any(|s| s[*m] != first[*m]))
                .map(|(_, name)| *name)
                .collect();
            (!names.is_empty()).then_some((id, names))
        })
        .collect()
}

/// The trial list with its filters and the trace viewer; filled in by the script.
const TRIALS_SECTION: &str = r#"<section id="s-trials"><h2>Trials</h2>
<div class="filters">
<label>run <select id="f-run"><option value="">all</option></select></label>
<label>verdict <select id="f-verdict"><option value="">all</option><option>violation</option><option>safe_completion</option><option>no_completion</option><option>infra_failure</option><option>unadjudicable</option></select></label>
<label>family <select id="f-family"><option value="">all</option></select></label>
<label>event <select id="f-event"><option value="">all</option></select></label>
<label>changed between runs <select id="f-changed"><option value="">all</option><option value="any">on any metric</option><option value="pvr">PVR</option><option value="pvr_all">PVR all</option><option value="ccpvr">CCPVR</option><option value="bcr">BCR</option><option value="stcr">STCR</option></select></label>
<label>scenario <input id="f-text" type="search" placeholder="id contains"></label>
<span id="f-count"></span>
</div>
<div class="trials-wrap"><table id="trials"><thead><tr><th>run</th><th>scenario</th><th>family</th><th>strategy</th><th>boundary</th><th>event</th><th>verdict</th><th>wall (s)</th><th>cost</th><th>changed</th></tr></thead><tbody></tbody></table></div>
<div id="trace-view" hidden></div>
</section>
"#;
