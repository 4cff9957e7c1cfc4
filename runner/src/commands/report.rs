//! `cosec report`: the metrics table of run folders again, or the HTML report.

use crate::cli::ReportArgs;
use crate::compare;
use crate::cost::{self, PriceTable};
use crate::error::CliError;
use crate::metrics;
use std::process::ExitCode;

/// Runs `cosec report`.
pub fn report(args: &ReportArgs) -> Result<ExitCode, CliError> {
    if let [dir] = args.dirs.as_slice() {
        if crate::scale::matrix::is_matrix_dir(dir) && args.html.is_none() && args.prices.is_none()
        {
            return crate::scale::matrix::report(dir);
        }
    }
    let runs = compare::load_runs(&args.dirs)?;
    let prices = match &args.prices {
        Some(path) => Some(PriceTable::load(path)?),
        None => None,
    };
    if let Some(out) = &args.html {
        let page = crate::report::render_report(&runs, prices.as_ref())?;
        std::fs::write(out, &page).map_err(CliError::io(out))?;
        eprintln!(
            "report: {} ({} runs, {} bytes)",
            out.display(),
            runs.len(),
            page.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::new();
    for (i, run) in runs.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text.push_str(&metrics::render_table(&run.summary));
        text.push('\n');
        let cost = match &prices {
            Some(p) => Some(cost::run_cost(run, p)?),
            None => None,
        };
        text.push_str(&cost::render_cost_and_time(run, cost.as_ref()));
        text.push_str(&crate::run::render_infra_causes(
            &crate::run::infra_causes(&run.verdicts),
            run.summary.trials.total,
        ));
    }
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
