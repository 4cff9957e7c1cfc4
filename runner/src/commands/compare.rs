//! `cosec compare`: paired comparisons of runs against the first, or the matrix table.

use super::print;
use crate::cli::CompareArgs;
use crate::compare::{self, matrix, LoadedRun};
use crate::cost::{self, PriceTable};
use crate::error::CliError;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::process::ExitCode;

/// Runs `cosec compare`.
pub fn compare(args: &CompareArgs) -> Result<ExitCode, CliError> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(CliError::Run(format!(
            "--alpha {} is not a significance level; use a number between 0 and 1, e.g. 0.05",
            args.alpha
        )));
    }
    if !args.table && args.dirs.len() < 2 {
        return Err(CliError::Run(
            "cosec compare needs at least two run folders (the first is the baseline), or --table for the matrix of one or more runs".to_owned(),
        ));
    }
    let runs = compare::load_runs(&args.dirs)?;
    let prices = match &args.prices {
        Some(path) => Some(PriceTable::load(path)?),
        None => None,
    };
    if args.table {
        if args.json {
            print(&format!(
                "{}\n",
                serde_json::to_string_pretty(&matrix_json(&runs))?
            ))?;
        } else {
            print(&compare::render_matrix(&runs))?;
            print(&cost_table(&runs, prices.as_ref())?)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.allow_attacker_mismatch {
        attackers_agree(&runs)?;
    }
    let comparisons = compare::compare_all(&runs, args.alpha);
    if args.changed {
        return changed(&comparisons, args.json);
    }
    if args.json {
        let value = match comparisons.as_slice() {
            [one] => one.to_json(),
            many => json!({"comparisons": many.iter().map(|c| c.to_json()).collect::<Vec<_>>()}),
        };
        print(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        let mut text = String::new();
        for (i, c) in comparisons.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&compare::render_comparison(c));
        }
        text.push_str(&cost_table(&runs, prices.as_ref())?);
        print(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to pair runs whose participants were played differently.
fn attackers_agree(runs: &[LoadedRun]) -> Result<(), CliError> {
    let Some((first, rest)) = runs.split_first() else {
        return Ok(());
    };
    for run in rest {
        if run.record.attack != first.record.attack {
            return Err(CliError::Run(format!(
                "{} ({}) and {} ({}) played the participants differently, so a difference would measure the attacker as much as the defense; compare runs with the same --attacker, --speaker-mode and --attempts, or pass --allow-attacker-mismatch",
                first.dir.display(),
                first.attack_settings(),
                run.dir.display(),
                run.attack_settings()
            )));
        }
    }
    Ok(())
}

/// `--changed`: per comparison, the scenarios whose verdict changed on each metric.
fn changed(comparisons: &[compare::Comparison], as_json: bool) -> Result<ExitCode, CliError> {
    if as_json {
        let one = |c: &compare::Comparison| {
            let mut v = c.to_json();
            json!({
                "runs": v["runs"].take(),
                "paired_n": c.paired_n,
                "changed": c.changed_json(),
            })
        };
        let value = match comparisons {
            [c] => one(c),
            many => json!({"comparisons": many.iter().map(one).collect::<Vec<_>>()}),
        };
        print(&format!("{}\n", serde_json::to_string_pretty(&value)?))?;
    } else {
        let text: Vec<String> = comparisons.iter().map(compare::render_changed).collect();
        print(&text.join("\n"))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn matrix_json(runs: &[LoadedRun]) -> Value {
    let cell = |c: &matrix::Cell| json!({"rate": c.rate, "ci": c.ci});
    let matrix_rows = compare::matrix_rows(runs);
    let rows: Vec<Value> = matrix_rows
        .iter()
        .map(|r| {
            let mut row = json!({
                "dir": runs.get(r.run).map(|x| x.dir.display().to_string()),
                "name": runs.get(r.run).map(LoadedRun::name),
                "harness": r.harness, "model": r.model, "condition": r.condition,
                "policy": r.policy, "n": r.n,
            });
            for (name, c) in matrix::CELL_KEYS.iter().zip(&r.cells) {
                row[*name] = cell(c);
            }
            row
        })
        .collect();
    let averages: Vec<Value> = matrix::condition_averages(runs, &matrix_rows)
        .iter()
        .map(|a| {
            let mut avg = json!({
                "condition": a.label,
                "dirs": a.runs.iter().filter_map(|i| runs.get(*i)).map(|r| r.dir.display().to_string()).collect::<Vec<_>>(),
            });
            for (name, c) in matrix::CELL_KEYS.iter().zip(&a.cells) {
                avg[*name] = json!(c.rate);
            }
            avg
        })
        .collect();
    json!({ "rows": rows, "averages": averages })
}

/// Time (and with prices, cost) of each run, one line per run.
fn cost_table(runs: &[LoadedRun], prices: Option<&PriceTable>) -> Result<String, CliError> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<40} {:>9} {:>9} {:>9}{}",
        "run",
        "wall s",
        "median s",
        "p90 s",
        if prices.is_some() {
            "  cost (total, per trial)"
        } else {
            ""
        }
    );
    let mut notes: Vec<String> = Vec::new();
    for run in runs {
        let t = cost::time_summary(run);
        let mut line = format!(
            "{:<40} {:>9.1} {:>9.2} {:>9.2}",
            run.label(),
            t.run_wall,
            t.trial_median,
            t.trial_p90
        );
        if let Some(prices) = prices {
            let c = cost::run_cost(run, prices)?;
            line.push_str(&format!(
                "  {} {}, {}",
                cost::money(c.total),
                c.currency,
                cost::money(c.per_trial())
            ));
            for n in c.notes {
                let n = format!("{}: {n}", run.label());
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
        let _ = writeln!(out, "{line}");
    }
    for n in notes {
        let _ = writeln!(out, "NOTE: {n}");
    }
    Ok(out)
}
