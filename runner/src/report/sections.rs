//! The report's tables and charts, one function per section, each returning HTML.

use super::charts::{
    render_forest, render_guard_bars, render_scatter, ForestRow, GuardBar, ScatterPoint,
};
use super::html::{esc, pct, pct_ci};
use super::svg::{render_heatmap, HeatCell, Heatmap};
use crate::compare::matrix::{condition_averages, format_cell, COLUMNS};
use crate::compare::paired::METRICS;
use crate::compare::render::format_p;
use crate::compare::{matrix_rows, Comparison, LoadedRun};
use crate::cost::{self, PriceTable, RunCost};
use crate::metrics::RateBlock;
use std::collections::BTreeMap;
use std::fmt::Write as _;

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
pub fn matrix_section(runs: &[LoadedRun]) -> String {
    let rows = matrix_rows(runs);
    let mut out = String::from(
        "<table class=\"matrix\" id=\"matrix\"><thead><tr><th>run</th><th>harness</th><th>model</th><th>condition</th><th>policy</th><th>n</th>",
    );
    for col in COLUMNS {
        let _ = write!(out, "<th>{}</th>", esc(col));
    }
    out.push_str("</tr></thead><tbody>");
    for r in &rows {
        let _ = write!(
            out,
            "<tr><td title=\"{}\">{} {}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td>",
            esc(&runs.get(r.run).map(|x| x.dir.display().to_string()).unwrap_or_default()),
            run_name(r.run),
            esc(&runs.get(r.run).map(LoadedRun::name).unwrap_or_default()),
            esc(&r.harness),
            esc(&r.model),
            esc(&r.condition),
            esc(&r.policy),
            r.n
        );
        for c in &r.cells {
            let _ = write!(out, "<td>{}</td>", pct_ci(c.rate, c.ci));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody>");
    let averages = condition_averages(runs, &rows);
    if !averages.is_empty() {
        out.push_str("<tfoot>");
    }
    for avg in &averages {
        let names: Vec<String> = avg.runs.iter().map(|i| run_name(*i)).collect();
        let _ = write!(
            out,
            "<tr class=\"average\"><td colspan=\"6\">average of {} runs of one condition ({}), unweighted</td>",
            avg.runs.len(),
            esc(&names.join(", "))
        );
        for c in &avg.cells {
            let _ = write!(out, "<td>{}</td>", esc(&format_cell(c)));
        }
        out.push_str("</tr>");
    }
    if !averages.is_empty() {
        out.push_str("</tfoot>");
    }
    out.push_str("</table>\n");
    out
}

/// The forest plot of paired differences (every run against the first, overall, on
/// PVR, CCPVR, BCR and STCR) and the PVR-versus-BCR scatter of runs.
pub fn plots_section(runs: &[LoadedRun], comparisons: &[Comparison]) -> String {
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
    let forest = if rows.is_empty() {
        "<p>Give two or more runs to see their paired differences.</p>".to_owned()
    } else {
        render_forest(&rows)
    };
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
    format!(
        "<div class=\"charts\"><figure><figcaption>Paired differences, run minus R1, in points with 95% intervals (Newcombe); overall</figcaption>{forest}</figure><figure><figcaption>PVR against BCR, one point per run (best: top left)</figcaption>{}{}</figure></div>\n",
        render_scatter(&points),
        if left_out > 0 {
            format!("<p class=\"note\">{left_out} run(s) without a valid trial are not drawn.</p>")
        } else {
            String::new()
        }
    )
}

fn heatmap_of(
    runs: &[LoadedRun],
    id: &str,
    title: &str,
    pick: impl Fn(&LoadedRun) -> &BTreeMap<String, RateBlock>,
) -> String {
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
pub fn heatmap_section(runs: &[LoadedRun]) -> String {
    format!(
        "<div class=\"charts\"><figure><figcaption>PVR (%) by attack family x run</figcaption>{}</figure><figure><figcaption>PVR (%) by community event x run (Dyn96)</figcaption>{}</figure></div>\n",
        heatmap_of(runs, "heatmap-family", "PVR by family and run", |r| &r.summary.by_family),
        heatmap_of(runs, "heatmap-event", "PVR by event and run", |r| &r.summary.by_event),
    )
}

/// The trials whose PVR over all outputs differs from the paper-comparable PVR, per
/// run, each with the violations outside the scored action and a link to its trace.
pub fn differences_section(runs: &[LoadedRun]) -> String {
    let mut out = String::from("<p class=\"note\">PVR counts the scenario's scored action (its scored destinations in its scored turn), as the paper does; PVR all counts every output at every turn that the oracle denies where it actually went.</p><table id=\"differences\"><thead><tr><th>run</th><th>PVR</th><th>PVR all</th><th>trials that differ</th><th>scenario</th><th>violations outside the scored action</th></tr></thead><tbody>");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let differs = &s.pvr_differs;
        let head = format!(
            "<td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td>",
            esc(&run_title(run)),
            run_name(i),
            pct_ci(s.overall.pvr, s.overall.pvr_ci),
            pct_ci(s.overall.pvr_all, s.overall.pvr_all_ci),
            differs.len()
        );
        if differs.is_empty() {
            let _ = write!(out, "<tr>{head}<td colspan=\"2\">none</td></tr>");
        }
        for (k, d) in differs.iter().enumerate() {
            let lead = if k == 0 {
                head.clone()
            } else {
                "<td></td><td></td><td></td><td></td>".to_owned()
            };
            let _ = write!(
                out,
                "<tr>{lead}<td><a href=\"#trace={}/{}\">{}</a></td><td>{}</td></tr>",
                i + 1,
                esc(&d.scenario),
                esc(&d.scenario),
                esc(&d.outside.join("; "))
            );
        }
    }
    out.push_str("</tbody></table>\n");
    out
}

/// Violating trials per carrier and Dyn96 failure classes, one row per run.
pub fn breakdown_section(runs: &[LoadedRun]) -> String {
    let carriers: Vec<String> = runs
        .first()
        .map(|r| r.summary.by_carrier.keys().cloned().collect())
        .unwrap_or_default();
    let classes: Vec<String> = runs
        .first()
        .map(|r| r.summary.failure_classes.keys().cloned().collect())
        .unwrap_or_default();
    let mut out = String::from("<table id=\"breakdowns\"><thead><tr><th>run</th><th>valid</th><th>infra</th><th>unadj.</th>");
    for c in &carriers {
        let _ = write!(out, "<th>carrier: {}</th>", esc(c));
    }
    for c in &carriers {
        let _ = write!(out, "<th>carrier over all outputs: {}</th>", esc(c));
    }
    for c in &classes {
        let _ = write!(out, "<th>{}</th>", esc(&c.replace('_', " ")));
    }
    out.push_str("</tr></thead><tbody>");
    for (i, run) in runs.iter().enumerate() {
        let t = &run.summary.trials;
        let _ = write!(
            out,
            "<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td>",
            esc(&run_title(run)),
            run_name(i),
            t.valid,
            t.infra_failure,
            t.unadjudicable
        );
        for c in &carriers {
            let _ = write!(
                out,
                "<td>{}</td>",
                run.summary.by_carrier.get(c).copied().unwrap_or(0)
            );
        }
        for c in &carriers {
            let _ = write!(
                out,
                "<td>{}</td>",
                run.summary.by_carrier_all.get(c).copied().unwrap_or(0)
            );
        }
        for c in &classes {
            let _ = write!(
                out,
                "<td>{}</td>",
                run.summary.failure_classes.get(c).copied().unwrap_or(0)
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n<p class=\"note\">Carriers: valid violating trials with at least one deterministic violation of the scored action by that carrier; over all outputs: valid trials violating anywhere with at least one violation by that carrier. Failure classes: valid Dyn96 trials violating over all outputs.</p>\n");
    out
}

/// Guard decisions per run and layer: bars of the run summaries' counts (allowed and
/// denied, input and output layer), then the table of the traces' decisions (`all`
/// when the trace names no layer).
pub fn guard_section(runs: &[LoadedRun], by_run: &[BTreeMap<String, [u64; 6]>]) -> String {
    let mut bars = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(g) = &run.summary.guard else {
            continue;
        };
        for (layer, c) in [("input", &g.input), ("output", &g.output)] {
            bars.push(GuardBar {
                run: run_name(i),
                layer: layer.to_owned(),
                title: run_title(run),
                allowed: c.allowed,
                denied: c.denied,
            });
        }
    }
    let mut out = if bars.is_empty() {
        String::new()
    } else {
        format!(
            "<figure><figcaption>Decisions per layer (run summaries)</figcaption>{}</figure>\n",
            render_guard_bars(&bars)
        )
    };
    out.push_str("<table id=\"guard\"><thead><tr><th>run</th><th>layer</th><th>decisions</th><th>allowed</th><th>withheld or redacted</th><th>blocked</th><th>restored</th><th>shadow only</th><th>latency p50 / p99 (us)</th></tr></thead><tbody>");
    let mut any = false;
    for (i, layers) in by_run.iter().enumerate() {
        let latency = runs
            .get(i)
            .and_then(|r| r.summary.guard.as_ref())
            .map(|g| format!("{} / {}", g.latency_p50_us, g.latency_p99_us))
            .unwrap_or_else(|| "-".to_owned());
        for (layer, c) in layers {
            any = true;
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                run_name(i),
                esc(layer),
                c[0], c[1], c[2], c[3], c[4], c[5],
                esc(&latency)
            );
        }
    }
    if !any {
        out.push_str("<tr><td colspan=\"9\">No run had the runtime guard on.</td></tr>");
    }
    out.push_str("</tbody></table>\n");
    out
}

fn comparison_rows(out: &mut String, c: &Comparison, filter: impl Fn(&str) -> bool) {
    for block in c.blocks.iter().filter(|b| filter(&b.name)) {
        for (name, m) in METRICS.iter().zip(&block.metrics) {
            let ci = m.ci.map_or_else(
                || "-".to_owned(),
                |[lo, hi]| format!("[{:+.1}, {:+.1}]", lo * 100.0, hi * 100.0),
            );
            let _ = write!(
                out,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{} / {}</td></tr>",
                if m.significant { " class=\"sig\"" } else { "" },
                esc(&block.name),
                name.to_ascii_uppercase(),
                m.n,
                pct(m.a),
                pct(m.b),
                m.delta.map_or_else(|| "-".to_owned(), |d| format!("{:+.1}", d * 100.0)),
                ci,
                esc(&format_p(m.p)),
                if m.significant { " *" } else { "" },
                m.discordant[0],
                m.discordant[1],
            );
        }
    }
}

/// Every run after the first against the first: main blocks open, the rest folded.
pub fn paired_section(comparisons: &[Comparison]) -> String {
    let mut out = String::new();
    let head = "<thead><tr><th>block</th><th>metric</th><th>pairs</th><th>A %</th><th>B %</th><th>B - A</th><th>95% CI (Newcombe)</th><th>p (McNemar)</th><th>A only / B only</th></tr></thead>";
    for (i, c) in comparisons.iter().enumerate() {
        let _ = write!(
            out,
            "<h3>{} vs R1: {} vs {}</h3><p>{} scenarios valid in both; {} left out{}. * marks p &lt; {}.</p><table class=\"paired\" id=\"paired-{}\">{head}<tbody>",
            run_name(i + 1),
            esc(&format!("{}: {}", c.names[1], c.runs[1])),
            esc(&format!("{}: {}", c.names[0], c.runs[0])),
            c.paired_n,
            c.unpaired.len(),
            if c.unpaired.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    esc(&c
                        .unpaired
                        .iter()
                        .take(12)
                        .map(|u| format!("{}: A {}, B {}", u.scenario, u.a, u.b))
                        .collect::<Vec<_>>()
                        .join("; "))
                )
            },
            c.alpha,
            i + 2
        );
        let main = |n: &str| matches!(n, "overall" | "static112" | "dyn96");
        comparison_rows(&mut out, c, main);
        out.push_str("</tbody></table><details><summary>by family, strategy, event, boundary and privacy object</summary><table class=\"paired\">");
        out.push_str(head);
        out.push_str("<tbody>");
        comparison_rows(&mut out, c, |n| !main(n));
        out.push_str("</tbody></table></details>\n");
    }
    out
}

/// Time per run and trial and, with prices, cost per trial, run and scenario.
pub fn cost_section(
    runs: &[LoadedRun],
    costs: &[Option<RunCost>],
    prices: Option<&PriceTable>,
) -> String {
    let mut out = String::from("<table id=\"cost\"><thead><tr><th>run</th><th>model calls</th><th>input tokens</th><th>output tokens</th><th>run wall (s)</th><th>trial median (s)</th><th>trial p90 (s)</th><th>cost</th><th>per trial</th></tr></thead><tbody>");
    let mut notes: Vec<String> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let t = cost::time_summary(run);
        let u = &run.summary.usage;
        let (total, per) = match costs.get(i).and_then(Option::as_ref) {
            Some(c) => (
                format!("{} {}", cost::money(c.total), c.currency),
                cost::money(c.per_trial()),
            ),
            None => ("-".to_owned(), "-".to_owned()),
        };
        let _ = write!(
            out,
            "<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td></tr>",
            esc(&run_title(run)),
            run_name(i),
            u.model_calls,
            u.input_tokens,
            u.output_tokens,
            t.run_wall,
            t.trial_median,
            t.trial_p90,
            esc(&total),
            esc(&per)
        );
        let run_notes = match costs.get(i).and_then(Option::as_ref) {
            Some(c) => c.notes.clone(),
            None => cost::token_notes(run.summary.config.simulated_model, &run.verdicts),
        };
        for n in run_notes {
            let n = format!("{}: {n}", run_name(i));
            notes.push(n);
        }
    }
    out.push_str("</tbody></table>\n");
    match prices {
        Some(p) => {
            let _ = write!(out, "<p class=\"note\">Prices from <code>{}</code> ({} per million tokens).</p>", esc(&p.path.display().to_string()), esc(&p.currency));
            let mut by_scenario: BTreeMap<&str, f64> = BTreeMap::new();
            for c in costs.iter().flatten() {
                for (id, v) in &c.by_scenario {
                    *by_scenario.entry(id.as_str()).or_default() += v;
                }
            }
            let mut top: Vec<(&str, f64)> = by_scenario.into_iter().collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1));
            out.push_str("<details><summary>cost per scenario (all runs, most expensive first)</summary><table><thead><tr><th>scenario</th><th>cost</th></tr></thead><tbody>");
            for (id, v) in top {
                let _ = write!(out, "<tr><td>{}</td><td>{}</td></tr>", esc(id), cost::money(v));
            }
            out.push_str("</tbody></table></details>\n");
        }
        None => out.push_str("<p class=\"note\">No price file given (<code>--prices prices.toml</code> adds cost).</p>"),
    }
    notes.dedup();
    for n in notes {
        let _ = write!(out, "<p class=\"note\">{}</p>", esc(&n));
    }
    out
}
