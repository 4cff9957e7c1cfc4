//! The report's tables and charts, one function per section, each returning markup.

use super::charts::{
    render_forest, render_guard_bars, render_scatter, ForestRow, GuardBar, ScatterPoint,
};
use super::html::{pct, pct_ci};
use super::svg::{render_heatmap, HeatCell, Heatmap};
use crate::compare::matrix::{condition_averages, format_cell, COLUMNS};
use crate::compare::paired::METRICS;
use crate::compare::render::format_p;
use crate::compare::{matrix_rows, Comparison, LoadedRun};
use crate::cost::{self, PriceTable, RunCost};
use crate::metrics::RateBlock;
use maud::{html, Markup};
use std::collections::BTreeMap;

/// `R1`, `R2`, ... : the short name of a run in tables and charts.
pub fn run_name(i: usize) -> String {
    format!("R{}", i + 1)
}

/// A run as named in tooltips and headings: its name, then its harness, model and
/// condition.
pub fn run_title(run: &LoadedRun) -> String {
    format!("{}: {}", run.name(), run.label())
}

/// The matrix table: one row per run, sorted by overall PVR, plus one average per
/// condition that several runs share (never an average across conditions).
pub fn matrix_section(runs: &[LoadedRun]) -> Markup {
    let rows = matrix_rows(runs);
    let averages = condition_averages(runs, &rows);
    html! {
        table class="matrix" id="matrix" {
            thead {
                tr {
                    th { "run" } th { "harness" } th { "model" } th { "condition" } th { "policy" } th { "n" }
                    @for col in COLUMNS { th { (col) } }
                }
            }
            tbody {
                @for r in &rows {
                    @let run = runs.get(r.run);
                    tr {
                        td title=(run.map(|x| x.dir.display().to_string()).unwrap_or_default()) {
                            (run_name(r.run)) " " (run.map(LoadedRun::name).unwrap_or_default())
                        }
                        td { (r.harness) }
                        td { (r.model) }
                        td { (r.condition) }
                        td { code { (r.policy) } }
                        td { (r.n) }
                        @for c in &r.cells { td { (pct_ci(c.rate, c.ci)) } }
                    }
                }
            }
            @if !averages.is_empty() {
                tfoot {
                    @for avg in &averages {
                        @let names: Vec<String> = avg.runs.iter().map(|i| run_name(*i)).collect();
                        tr class="average" {
                            td colspan="6" {
                                "average of " (avg.runs.len()) " runs of one condition ("
                                (names.join(", ")) "), unweighted"
                            }
                            @for c in &avg.cells { td { (format_cell(c)) } }
                        }
                    }
                }
            }
        }
    }
}

/// The forest plot of paired differences (every run against the first, overall, on
/// PVR, CCPVR, BCR and STCR) and the PVR-versus-BCR scatter of runs.
pub fn plots_section(runs: &[LoadedRun], comparisons: &[Comparison]) -> Markup {
    let mut rows = Vec::new();
    for (i, c) in comparisons.iter().enumerate() {
        let Some(overall) = c.block("overall") else {
            continue;
        };
        for (name, m) in METRICS.iter().zip(&overall.metrics) {
            if *name == "pvr_all" {
                continue;
            }
            rows.push(ForestRow {
                pair: format!("{} - R1", run_name(i + 1)),
                metric: name.to_ascii_uppercase(),
                title: format!("{} vs {}", c.names[1], c.names[0]),
                n: m.n,
                delta: m.delta,
                ci: m.ci,
                significant: m.significant,
            });
        }
    }
    let points: Vec<ScatterPoint> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, run)| {
            let o = &run.summary.overall;
            Some(ScatterPoint {
                run: run_name(i),
                title: run_title(run),
                pvr: (o.pvr?, o.pvr_ci),
                bcr: (o.bcr?, o.bcr_ci),
            })
        })
        .collect();
    let left_out = runs.len() - points.len();
    html! {
        div class="charts" {
            figure {
                figcaption { "Paired differences, run minus R1, in points with 95% intervals (Newcombe); overall" }
                @if rows.is_empty() {
                    p { "Give two or more runs to see their paired differences." }
                } @else {
                    (render_forest(&rows))
                }
            }
            figure {
                figcaption { "PVR against BCR, one point per run (best: top left)" }
                (render_scatter(&points))
                @if left_out > 0 {
                    p class="note" { (left_out) " run(s) without a valid trial are not drawn." }
                }
            }
        }
    }
}

fn heatmap_of(
    runs: &[LoadedRun],
    id: &str,
    title: &str,
    pick: impl Fn(&LoadedRun) -> &BTreeMap<String, RateBlock>,
) -> Markup {
    let mut rows: Vec<String> = Vec::new();
    for run in runs {
        for key in pick(run).keys() {
            if !rows.contains(key) {
                rows.push(key.clone());
            }
        }
    }
    let cells = rows
        .iter()
        .map(|key| {
            runs.iter()
                .map(|run| {
                    pick(run)
                        .get(key)
                        .map_or(HeatCell::default(), |b| HeatCell {
                            rate: b.pvr,
                            n: b.n,
                        })
                })
                .collect()
        })
        .collect();
    render_heatmap(&Heatmap {
        id: id.to_owned(),
        title: title.to_owned(),
        rows,
        columns: runs
            .iter()
            .enumerate()
            .map(|(i, r)| (run_name(i), run_title(r)))
            .collect(),
        cells,
    })
}

/// PVR heatmaps by attack family and by community event.
pub fn heatmap_section(runs: &[LoadedRun]) -> Markup {
    html! {
        div class="charts" {
            figure {
                figcaption { "PVR (%) by attack family x run" }
                (heatmap_of(runs, "heatmap-family", "PVR by family and run", |r| &r.summary.by_family))
            }
            figure {
                figcaption { "PVR (%) by community event x run (Dyn96)" }
                (heatmap_of(runs, "heatmap-event", "PVR by event and run", |r| &r.summary.by_event))
            }
        }
    }
}

/// The trials whose PVR over all outputs differs from the paper-comparable PVR, per
/// run, each with the violations outside the scored action and a link to its trace.
pub fn differences_section(runs: &[LoadedRun]) -> Markup {
    html! {
        p class="note" {
            "PVR counts the scenario's scored action (its scored destinations in its scored turn), as the paper does; PVR all counts every output at every turn that the oracle denies where it actually went."
        }
        table id="differences" {
            thead {
                tr {
                    th { "run" } th { "PVR" } th { "PVR all" } th { "trials that differ" }
                    th { "scenario" } th { "violations outside the scored action" }
                }
            }
            tbody {
                @for (i, run) in runs.iter().enumerate() {
                    @let s = &run.summary;
                    @let differs = &s.pvr_differs;
                    @let head = html! {
                        td title=(run_title(run)) { (run_name(i)) }
                        td { (pct_ci(s.overall.pvr, s.overall.pvr_ci)) }
                        td { (pct_ci(s.overall.pvr_all, s.overall.pvr_all_ci)) }
                        td { (differs.len()) }
                    };
                    @if differs.is_empty() {
                        tr { (head) td colspan="2" { "none" } }
                    }
                    @for (k, d) in differs.iter().enumerate() {
                        tr {
                            @if k == 0 {
                                (head)
                            } @else {
                                td {} td {} td {} td {}
                            }
                            td { a href={ "#trace=" (i + 1) "/" (d.scenario) } { (d.scenario) } }
                            td { (d.outside.join("; ")) }
                        }
                    }
                }
            }
        }
    }
}

/// Violating trials per carrier and Dyn96 failure classes, one row per run.
pub fn breakdown_section(runs: &[LoadedRun]) -> Markup {
    let carriers: Vec<String> = runs
        .first()
        .map(|r| r.summary.by_carrier.keys().cloned().collect())
        .unwrap_or_default();
    let classes: Vec<String> = runs
        .first()
        .map(|r| r.summary.failure_classes.keys().cloned().collect())
        .unwrap_or_default();
    html! {
        table id="breakdowns" {
            thead {
                tr {
                    th { "run" } th { "valid" } th { "infra" } th { "unadj." }
                    @for c in &carriers { th { "carrier: " (c) } }
                    @for c in &carriers { th { "carrier over all outputs: " (c) } }
                    @for c in &classes { th { (c.replace('_', " ")) } }
                }
            }
            tbody {
                @for (i, run) in runs.iter().enumerate() {
                    @let t = &run.summary.trials;
                    tr {
                        td title=(run_title(run)) { (run_name(i)) }
                        td { (t.valid) }
                        td { (t.infra_failure) }
                        td { (t.unadjudicable) }
                        @for c in &carriers { td { (run.summary.by_carrier.get(c).copied().unwrap_or(0)) } }
                        @for c in &carriers { td { (run.summary.by_carrier_all.get(c).copied().unwrap_or(0)) } }
                        @for c in &classes { td { (run.summary.failure_classes.get(c).copied().unwrap_or(0)) } }
                    }
                }
            }
        }
        p class="note" {
            "Carriers: valid violating trials with at least one deterministic violation of the scored action by that carrier; over all outputs: valid trials violating anywhere with at least one violation by that carrier. Failure classes: valid Dyn96 trials violating over all outputs."
        }
    }
}

/// Guard decisions per run and layer: bars of the run summaries' counts (allowed and
/// denied, input and output layer), then the table of the traces' decisions (`all`
/// when the trace names no layer).
pub fn guard_section(runs: &[LoadedRun], by_run: &[BTreeMap<String, [u64; 6]>]) -> Markup {
    let mut bars = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(g) = &run.summary.guard else {
            continue;
        };
        for (layer, c) in [("input", &g.counts.input), ("output", &g.counts.output)] {
            bars.push(GuardBar {
                run: run_name(i),
                layer: layer.to_owned(),
                title: run_title(run),
                allowed: c.allowed,
                denied: c.denied,
            });
        }
    }
    let latency = |i: usize| {
        runs.get(i)
            .and_then(|r| r.summary.guard.as_ref())
            .map(|g| format!("{} / {}", g.latency_p50_us, g.latency_p99_us))
            .unwrap_or_else(|| "-".to_owned())
    };
    let any = by_run.iter().any(|layers| !layers.is_empty());
    html! {
        @if !bars.is_empty() {
            figure {
                figcaption { "Decisions per layer (run summaries)" }
                (render_guard_bars(&bars))
            }
        }
        table id="guard" {
            thead {
                tr {
                    th { "run" } th { "layer" } th { "decisions" } th { "allowed" }
                    th { "withheld or redacted" } th { "blocked" } th { "restored" }
                    th { "shadow only" } th { "latency p50 / p99 (us)" }
                }
            }
            tbody {
                @for (i, layers) in by_run.iter().enumerate() {
                    @for (layer, c) in layers {
                        tr {
                            td { (run_name(i)) }
                            td { (layer) }
                            @for n in c { td { (n) } }
                            td { (latency(i)) }
                        }
                    }
                }
                @if !any {
                    tr { td colspan="9" { "No run had the runtime guard on." } }
                }
            }
        }
        (price_table(runs))
        (super::replay::replay_table(runs))
    }
}

/// What each guarded run's guard refused of the legitimate work, beside its BCR: the
/// cost side of the defense.
fn price_table(runs: &[LoadedRun]) -> Markup {
    let pct = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{:.1}", v * 100.0));
    html! {
        table id="price" {
            caption { "Price of the defense: legitimate flows of protected data the guard refused (run traces)" }
            thead {
                tr {
                    th { "run" } th { "legitimate flows" } th { "refused" } th { "tasks" }
                    th { "tasks that lost a flow" } th { "of them not completed" } th { "BCR %" }
                }
            }
            tbody {
                @for (i, run) in runs.iter().enumerate() {
                    @if let Some(p) = &run.summary.price {
                        tr {
                            td { (run_name(i)) }
                            td { (p.legit_flows) } td { (p.legit_flows_denied) } td { (p.tasks) }
                            td { (p.tasks_denied) } td { (p.tasks_denied_failed) }
                            td { (pct(run.summary.overall.bcr)) }
                        }
                    }
                }
                @if runs.iter().all(|r| r.summary.price.is_none()) {
                    tr { td colspan="7" { "No run had the runtime guard on." } }
                }
            }
        }
    }
}

fn comparison_rows(c: &Comparison, filter: impl Fn(&str) -> bool) -> Markup {
    html! {
        @for block in c.blocks.iter().filter(|b| filter(&b.name)) {
            @for (name, m) in METRICS.iter().zip(&block.metrics) {
                tr class=[m.significant.then_some("sig")] {
                    td { (block.name) }
                    td { (name.to_ascii_uppercase()) }
                    td { (m.n) }
                    td { (pct(m.a)) }
                    td { (pct(m.b)) }
                    td { (m.delta.map_or_else(|| "-".to_owned(), |d| format!("{:+.1}", d * 100.0))) }
                    td {
                        (m.ci.map_or_else(
                            || "-".to_owned(),
                            |[lo, hi]| format!("[{:+.1}, {:+.1}]", lo * 100.0, hi * 100.0),
                        ))
                    }
                    td { (format_p(m.p)) @if m.significant { " *" } }
                    td { (m.discordant[0]) " / " (m.discordant[1]) }
                }
            }
        }
    }
}

fn paired_head() -> Markup {
    html! {
        thead {
            tr {
                th { "block" } th { "metric" } th { "pairs" } th { "A %" } th { "B %" } th { "B - A" }
                th { "95% CI (Newcombe)" } th { "p (McNemar)" } th { "A only / B only" }
            }
        }
    }
}

/// Every run after the first against the first: main blocks open, the rest folded.
pub fn paired_section(comparisons: &[Comparison]) -> Markup {
    let main = |n: &str| matches!(n, "overall" | "static112" | "dyn96");
    html! {
        @for (i, c) in comparisons.iter().enumerate() {
            h3 {
                (run_name(i + 1)) " vs R1: " (c.names[1]) ": " (c.runs[1]) " vs " (c.names[0]) ": " (c.runs[0])
            }
            p {
                (c.paired_n) " scenarios valid in both; " (c.unpaired.len()) " left out"
                @if !c.unpaired.is_empty() {
                    " ("
                    (c.unpaired
                        .iter()
                        .take(12)
                        .map(|u| format!("{}: A {}, B {}", u.scenario, u.a, u.b))
                        .collect::<Vec<_>>()
                        .join("; "))
                    ")"
                }
                ". * marks p < " (c.alpha) "."
            }
            table class="paired" id={ "paired-" (i + 2) } {
                (paired_head())
                tbody { (comparison_rows(c, main)) }
            }
            details {
                summary { "by family, strategy, event, boundary and privacy object" }
                table class="paired" {
                    (paired_head())
                    tbody { (comparison_rows(c, |n| !main(n))) }
                }
            }
        }
    }
}

/// Time per run and trial and, with prices, cost per trial, run and scenario.
pub fn cost_section(
    runs: &[LoadedRun],
    costs: &[Option<RunCost>],
    prices: Option<&PriceTable>,
) -> Markup {
    let mut notes: Vec<String> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let run_notes = match costs.get(i).and_then(Option::as_ref) {
            Some(c) => c.notes.clone(),
            None => cost::token_notes(run.summary.config.simulated_model, &run.verdicts),
        };
        notes.extend(
            run_notes
                .into_iter()
                .map(|n| format!("{}: {n}", run_name(i))),
        );
    }
    notes.dedup();
    html! {
        table id="cost" {
            thead {
                tr {
                    th { "run" } th { "model calls" } th { "input tokens" } th { "output tokens" }
                    th { "run wall (s)" } th { "trial median (s)" } th { "trial p90 (s)" }
                    th { "cost" } th { "per trial" }
                }
            }
            tbody {
                @for (i, run) in runs.iter().enumerate() {
                    @let t = cost::time_summary(run);
                    @let u = &run.summary.usage;
                    @let (total, per) = match costs.get(i).and_then(Option::as_ref) {
                        Some(c) => (
                            format!("{} {}", cost::money(c.total), c.currency),
                            cost::money(c.per_trial()),
                        ),
                        None => ("-".to_owned(), "-".to_owned()),
                    };
                    tr {
                        td title=(run_title(run)) { (run_name(i)) }
                        td { (u.model_calls) }
                        td { (u.input_tokens) }
                        td { (u.output_tokens) }
                        td { (format!("{:.1}", t.run_wall)) }
                        td { (format!("{:.2}", t.trial_median)) }
                        td { (format!("{:.2}", t.trial_p90)) }
                        td { (total) }
                        td { (per) }
                    }
                }
            }
        }
        @match prices {
            Some(file) => {
                p class="note" {
                    "Prices from " code { (file.path.display().to_string()) } " (" (file.currency) " per million tokens)."
                }
                details {
                    summary { "cost per scenario (all runs, most expensive first)" }
                    table {
                        thead { tr { th { "scenario" } th { "cost" } } }
                        tbody {
                            @for (id, v) in cost_by_scenario(costs) {
                                tr { td { (id) } td { (cost::money(v)) } }
                            }
                        }
                    }
                }
            }
            None => {
                p class="note" { "No price file given (" code { "--prices prices.toml" } " adds cost)." }
            }
        }
        @for n in &notes {
            p class="note" { (n) }
        }
    }
}

/// Cost per scenario summed over all runs, most expensive first.
fn cost_by_scenario(costs: &[Option<RunCost>]) -> Vec<(&str, f64)> {
    let mut by_scenario: BTreeMap<&str, f64> = BTreeMap::new();
    for c in costs.iter().flatten() {
        for (id, v) in &c.by_scenario {
            *by_scenario.entry(id.as_str()).or_default() += v;
        }
    }
    let mut top: Vec<(&str, f64)> = by_scenario.into_iter().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    top
}
