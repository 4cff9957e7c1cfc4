//! The cross-run matrix (`cosec compare --table`): one row per run with its harness,
//! model, condition and policy, the paper-comparable PVR on Static112, Dyn96 and
//! overall, overall PVR over all outputs, and overall CCPVR, BCR and STCR, each with
//! its 95% Wilson interval; sorted by overall PVR, with an unweighted average row for
//! each condition run more than once (never across conditions: the mean of a guarded
//! and an unguarded run is the rate of neither).

use super::load::{short_digest, LoadedRun};
use crate::metrics::RateBlock;
use std::fmt::Write as _;

/// One cell: a rate and its interval (both absent for an empty sample).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cell {
    /// The rate.
    pub rate: Option<f64>,
    /// Its 95% interval.
    pub ci: Option<[f64; 2]>,
}

/// The column titles of the rate cells, in order.
pub const COLUMNS: [&str; 7] = [
    "Static112 PVR",
    "Dyn96 PVR",
    "PVR",
    "PVR all",
    "CCPVR",
    "BCR",
    "STCR",
];

/// The JSON keys of the rate cells, in [`COLUMNS`] order.
pub const CELL_KEYS: [&str; 7] = [
    "static112_pvr",
    "dyn96_pvr",
    "pvr",
    "pvr_all",
    "ccpvr",
    "bcr",
    "stcr",
];

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRow {
    /// Index of the run in the order given.
    pub run: usize,
    /// Harness name.
    pub harness: String,
    /// Model name (marked when simulated).
    pub model: String,
    /// Condition, with the guard mode when not enforcing.
    pub condition: String,
    /// Short digest of the defense policy, `-` when none.
    pub policy: String,
    /// Valid trials.
    pub n: u64,
    /// The cells in [`COLUMNS`] order.
    pub cells: [Cell; 7],
}

fn cells_of(s: &crate::metrics::Summary) -> [Cell; 7] {
    let c = |rate, ci| Cell { rate, ci };
    let o: &RateBlock = &s.overall;
    [
        c(s.static112.pvr, s.static112.pvr_ci),
        c(s.dyn96.pvr, s.dyn96.pvr_ci),
        c(o.pvr, o.pvr_ci),
        c(o.pvr_all, o.pvr_all_ci),
        c(o.ccpvr, o.ccpvr_ci),
        c(o.bcr, o.bcr_ci),
        c(o.stcr, o.stcr_ci),
    ]
}

/// The rows sorted by overall PVR (runs without one last), ties in the order given.
pub fn matrix_rows(runs: &[LoadedRun]) -> Vec<MatrixRow> {
    let mut rows: Vec<MatrixRow> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let rec = &r.record;
            let mut condition = rec.defense.clone();
            if let Some(mode) = rec.guard_mode.as_deref().filter(|m| *m != "enforce") {
                condition.push_str(&format!(" ({mode})"));
            }
            MatrixRow {
                run: i,
                harness: rec.harness.clone(),
                model: if r.summary.config.simulated_model {
                    format!("{} (simulated)", rec.model)
                } else {
                    rec.model.clone()
                },
                condition,
                policy: rec
                    .policy_digest
                    .as_deref()
                    .map_or_else(|| "-".to_owned(), |d| short_digest(d).to_owned()),
                n: r.summary.overall.n,
                cells: cells_of(&r.summary),
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        let key = |r: &MatrixRow| r.cells[2].rate.unwrap_or(f64::INFINITY);
        key(x).total_cmp(&key(y))
    });
    rows
}

/// The unweighted mean of each column over the rows that have it (no interval: the
/// rows' intervals are each over its own run's trials).
pub fn average_cells(rows: &[&MatrixRow]) -> [Cell; 7] {
    let mut out = [Cell::default(); 7];
    for (i, cell) in out.iter_mut().enumerate() {
        let rates: Vec<f64> = rows.iter().filter_map(|r| r.cells[i].rate).collect();
        if !rates.is_empty() {
            cell.rate = Some(rates.iter().sum::<f64>() / rates.len() as f64);
        }
    }
    out
}

/// The average of the runs of one condition (harness, model, defense and guard
/// settings, policy, guardrail, judge, suite: [`LoadedRun::condition_key`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionAverage {
    /// Harness, model, condition and policy of the group, as its rows show them.
    pub label: String,
    /// Indexes of its runs in the order given, in matrix order.
    pub runs: Vec<usize>,
    /// The unweighted mean of each column.
    pub cells: [Cell; 7],
}

/// One average per condition that more than one run has, in the order the matrix
/// first shows each condition.
pub fn condition_averages(runs: &[LoadedRun], rows: &[MatrixRow]) -> Vec<ConditionAverage> {
    let key = |r: &MatrixRow| runs.get(r.run).map(LoadedRun::condition_key);
    let mut keys: Vec<Option<String>> = Vec::new();
    for r in rows {
        let k = key(r);
        if k.is_some() && !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .filter_map(|k| {
            let group: Vec<&MatrixRow> = rows.iter().filter(|r| key(r) == k).collect();
            let first = group.first()?;
            (group.len() > 1).then(|| ConditionAverage {
                label: format!(
                    "{} {} {} {}",
                    first.harness, first.model, first.condition, first.policy
                ),
                runs: group.iter().map(|r| r.run).collect(),
                cells: average_cells(&group),
            })
        })
        .collect()
}

/// A cell as `12.3 [9.1,16.0]` in percent, `-` when empty.
pub fn format_cell(c: &Cell) -> String {
    match (c.rate, c.ci) {
        (Some(r), Some([lo, hi])) => {
            format!("{:.1} [{:.1},{:.1}]", r * 100.0, lo * 100.0, hi * 100.0)
        }
        (Some(r), None) => format!("{:.1}", r * 100.0),
        _ => "-".to_owned(),
    }
}

/// Renders the matrix as the text `cosec compare --table` prints.
pub fn render_matrix(runs: &[LoadedRun]) -> String {
    let rows = matrix_rows(runs);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rates in % with 95% Wilson intervals over each run's valid trials; sorted by overall PVR (lower is better)\n"
    );
    let mut header = format!(
        "{:<8} {:<24} {:<9} {:<8} {:>4}",
        "harness", "model", "condition", "policy", "n"
    );
    for col in COLUMNS {
        header.push_str(&format!("  {col:<19}"));
    }
    let _ = writeln!(out, "{}", header.trim_end());
    for r in &rows {
        let mut line = format!(
            "{:<8} {:<24} {:<9} {:<8} {:>4}",
            r.harness, r.model, r.condition, r.policy, r.n
        );
        for c in &r.cells {
            line.push_str(&format!("  {:<19}", format_cell(c)));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for avg in condition_averages(runs, &rows) {
        let mut line = format!(
            "{:<8} {:<24} {:<9} {:<8} {:>4}",
            "average",
            format!("({} runs of one condition)", avg.runs.len()),
            "",
            "",
            ""
        );
        for c in &avg.cells {
            line.push_str(&format!("  {:<19}", format_cell(c)));
        }
        let _ = writeln!(out, "{}  {}", line.trim_end(), avg.label);
    }
    out
}
