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
mod replay;
mod sections;
pub mod svg;
pub mod traces;

use crate::compare::paired::METRICS;
use crate::compare::{compare_all, LoadedRun};
use crate::cost::{self, PriceError, PriceTable, RunCost};
use crate::verify::TrialStatus;
use html::json_island;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use serde_json::json;
use std::collections::BTreeMap;

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
    let mut islands: Vec<Markup> = Vec::new();
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
            islands.push(json_island(
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
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "CoSec report: " (runs.len()) " run(s)" }
                // Our own stylesheet, compiled in: CSS is raw text that escaping would break.
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { "CoSec report" }
                    p {
                        (runs.len()) " run(s), " (index.len()) " trials. Rates in % with 95% Wilson intervals over valid trials; PVR and CCPVR lower is better, BCR and STCR higher is better. PVR is the scored action's (paper-comparable), PVR all every output's."
                    }
                }
                (navigation())
                @if !notes.is_empty() {
                    details class="notes" {
                        summary { "caveats of these runs" }
                        ul { @for n in &notes { li { (n) } } }
                    }
                }
                section id="s-matrix" { h2 { "Matrix" } (sections::matrix_section(runs)) }
                section id="s-heatmaps" { h2 { "Heatmaps" } (sections::heatmap_section(runs)) }
                section id="s-plots" {
                    h2 { "Differences between runs and the leak-work trade-off" }
                    (sections::plots_section(runs, &comparisons))
                }
                section id="s-figures" {
                    h2 { "PVR of the scored action and over all outputs" }
                    (sections::differences_section(runs))
                }
                section id="s-breakdowns" {
                    h2 { "Carriers and failure classes" }
                    (sections::breakdown_section(runs))
                }
                section id="s-guard" {
                    h2 { "Guard decisions per layer" }
                    (sections::guard_section(runs, &guard_by_run))
                }
                section id="s-attack" {
                    h2 { "Attackers: PVR per attempt budget" }
                    (attack::attack_section(runs))
                }
                section id="s-paired" {
                    h2 { "Paired comparison" }
                    @if comparisons.is_empty() {
                        p { "Give two or more runs to compare them trial by trial against the first." }
                    } @else {
                        (sections::paired_section(&comparisons))
                    }
                }
                section id="s-cost" {
                    h2 { "Cost and time" }
                    (sections::cost_section(runs, &costs, prices))
                }
                (trials_section())
                (json_island("runs", &runs_json.to_string()))
                (json_island("index", &serde_json::Value::Array(index).to_string()))
                (json_island("strings", &packer.strings_json()))
                (json_island("layouts", &packer.layouts_json()))
                @for island in &islands { (island) }
                // Our own script, compiled in; it holds no `</script`, and escaping would break it.
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    Ok(page.into_string())
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

/// Links to the page's sections.
fn navigation() -> Markup {
    const LINKS: [(&str, &str); 10] = [
        ("#s-matrix", "matrix"),
        ("#s-heatmaps", "heatmaps"),
        ("#s-plots", "differences and trade-off"),
        ("#s-figures", "PVR figures"),
        ("#s-breakdowns", "carriers and failure classes"),
        ("#s-guard", "guard"),
        ("#s-attack", "attackers"),
        ("#s-paired", "paired comparison"),
        ("#s-cost", "cost and time"),
        ("#s-trials", "trials"),
    ];
    html! {
        nav {
            @for (i, (href, text)) in LINKS.iter().enumerate() {
                @if i > 0 { " " }
                a href=(href) { (text) }
            }
        }
    }
}

/// The trial list with its filters and the trace viewer; filled in by the script,
/// which finds its parts by these ids.
fn trials_section() -> Markup {
    const VERDICTS: [&str; 5] = [
        "violation",
        "safe_completion",
        "no_completion",
        "infra_failure",
        "unadjudicable",
    ];
    const CHANGED: [(&str, &str); 6] = [
        ("any", "on any metric"),
        ("pvr", "PVR"),
        ("pvr_all", "PVR all"),
        ("ccpvr", "CCPVR"),
        ("bcr", "BCR"),
        ("stcr", "STCR"),
    ];
    const COLUMNS: [&str; 10] = [
        "run", "scenario", "family", "strategy", "boundary", "event", "verdict", "wall (s)",
        "cost", "changed",
    ];
    html! {
        section id="s-trials" {
            h2 { "Trials" }
            div class="filters" {
                label { "run " select id="f-run" { option value="" { "all" } } }
                " "
                label {
                    "verdict "
                    select id="f-verdict" {
                        option value="" { "all" }
                        @for v in VERDICTS { option { (v) } }
                    }
                }
                " "
                label { "family " select id="f-family" { option value="" { "all" } } }
                " "
                label { "event " select id="f-event" { option value="" { "all" } } }
                " "
                label {
                    "changed between runs "
                    select id="f-changed" {
                        option value="" { "all" }
                        @for (value, text) in CHANGED { option value=(value) { (text) } }
                    }
                }
                " "
                label { "scenario " input id="f-text" type="search" placeholder="id contains"; }
                " "
                span id="f-count" {}
            }
            div class="trials-wrap" {
                table id="trials" {
                    thead { tr { @for c in COLUMNS { th { (c) } } } }
                    tbody {}
                }
            }
            div id="trace-view" hidden {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inlined_script_and_style_cannot_end_their_elements() {
        // Both are written into the page unescaped.
        assert!(!SCRIPT.to_ascii_lowercase().contains("</script"));
        assert!(!SCRIPT.contains("<!--"));
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
    }
}
