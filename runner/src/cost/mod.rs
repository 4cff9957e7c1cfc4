//! Cost and time of runs: cost per trial, per run and per scenario from the tokens in
//! `results.jsonl` and a price file, and wall time per trial (median, p90) and per run.
//!
//! Token counts are those the runner's proxy saw on every model call: the upstream's
//! own usage report for real models (whatever the harness), a length-based estimate
//! (about four characters per token) for the simulated models. The input tokens an
//! upstream reports as served from its prompt cache (`cached_tokens` in both OpenAI
//! wire formats) are priced at the file's `cached_input` price when it has one.

pub mod prices;

pub use prices::{ModelPrice, PriceError, PriceTable};

use crate::compare::LoadedRun;
use crate::verify::{UsageTotals, Verdict};
use std::fmt::Write as _;

/// Cost of one trial's tokens at `price` (per million tokens); cached input tokens at the
/// cached price, or at the input price when the file gives none.
pub fn trial_cost(price: &ModelPrice, usage: &UsageTotals) -> f64 {
    let cached = usage.cached_input_tokens.min(usage.input_tokens);
    let uncached = usage.input_tokens - cached;
    let cached_price = price.cached_input.unwrap_or(price.input);
    (uncached as f64 * price.input
        + cached as f64 * cached_price
        + usage.output_tokens as f64 * price.output)
        / 1e6
}

/// Wall-time figures of a run, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimeSummary {
    /// The run's wall time (the sum of its trials' when the run's own is unknown).
    pub run_wall: f64,
    /// Median trial wall time (nearest rank).
    pub trial_median: f64,
    /// 90th percentile (nearest rank) of trial wall time.
    pub trial_p90: f64,
}

/// The median and 90th percentile of `values`, by nearest rank (0 for none).
pub fn median_p90(values: &[f64]) -> (f64, f64) {
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |pct| cosec_proxy::percentile::nearest_rank(&v, pct).unwrap_or(0.0);
    (at(50), at(90))
}

/// The time figures of a loaded run.
pub fn time_summary(run: &LoadedRun) -> TimeSummary {
    let walls: Vec<f64> = run.verdicts.iter().map(|v| v.wall_seconds).collect();
    let (trial_median, trial_p90) = median_p90(&walls);
    TimeSummary {
        run_wall: run.summary.usage.wall_seconds,
        trial_median,
        trial_p90,
    }
}

/// Cost of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCost {
    /// Currency of the price file.
    pub currency: String,
    /// The prices applied.
    pub price: ModelPrice,
    /// Cost of every trial, by scenario id, in file order.
    pub by_scenario: Vec<(String, f64)>,
    /// Sum over the trials.
    pub total: f64,
    /// Caveats about the token counts.
    pub notes: Vec<String>,
}

impl RunCost {
    /// Mean cost of a trial.
    pub fn per_trial(&self) -> f64 {
        if self.by_scenario.is_empty() {
            0.0
        } else {
            self.total / self.by_scenario.len() as f64
        }
    }
}

/// Caveats on a run's token counts: estimated by a simulated model, or missing where the
/// upstream sent no usage.
pub fn token_notes(simulated: bool, verdicts: &[Verdict]) -> Vec<String> {
    let mut notes = Vec::new();
    if simulated {
        notes.push("token counts are ESTIMATED by the simulated model (about 4 characters per token), not billed by a provider".to_owned());
    }
    let unreported = verdicts
        .iter()
        .filter(|v| v.usage.model_calls > 0 && v.usage.input_tokens + v.usage.output_tokens == 0)
        .count();
    if unreported > 0 && !simulated {
        notes.push(format!(
            "{unreported} trial(s) made model calls whose upstream reported no token usage; they count as 0 (cost is a lower bound)"
        ));
    }
    notes
}

/// A caveat when upstreams reported cached input tokens but `price` has no cached price.
fn cached_price_note(price: &ModelPrice, model: &str, verdicts: &[Verdict]) -> Option<String> {
    let cached: u64 = verdicts.iter().map(|v| v.usage.cached_input_tokens).sum();
    (cached > 0 && price.cached_input.is_none()).then(|| {
        format!(
            "{cached} input tokens were served from the upstream's prompt cache but the price file gives no cached_input for {model}; they are priced as uncached input (an upper bound)"
        )
    })
}

/// The cost of a run at the prices of its model; an error when the file has none.
pub fn run_cost(run: &LoadedRun, prices: &PriceTable) -> Result<RunCost, PriceError> {
    let price = *prices.require(&run.record.model)?;
    let mut notes = token_notes(run.summary.config.simulated_model, &run.verdicts);
    notes.extend(cached_price_note(&price, &run.record.model, &run.verdicts));
    let by_scenario: Vec<(String, f64)> = run
        .verdicts
        .iter()
        .map(|v| (v.scenario.to_string(), trial_cost(&price, &v.usage)))
        .collect();
    Ok(RunCost {
        currency: prices.currency.clone(),
        price,
        total: by_scenario.iter().map(|(_, c)| c).sum(),
        by_scenario,
        notes,
    })
}

/// The cost and time lines printed after a run's table.
pub fn render_cost_and_time(run: &LoadedRun, cost: Option<&RunCost>) -> String {
    let mut out = String::new();
    let t = time_summary(run);
    let _ = writeln!(
        out,
        "time: {:.1} s for the run; per trial median {:.2} s, p90 {:.2} s",
        t.run_wall, t.trial_median, t.trial_p90
    );
    if let Some(c) = cost {
        let max = c
            .by_scenario
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, v)| format!(", most {} ({id})", money(*v)))
            .unwrap_or_default();
        let cached = c
            .price
            .cached_input
            .map(|p| format!(" / cached input {p}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "cost: {} {} for the run ({} trials at input {}{cached} / output {} {} per million tokens); per trial mean {}{max}",
            money(c.total),
            c.currency,
            c.by_scenario.len(),
            c.price.input,
            c.price.output,
            c.currency,
            money(c.per_trial()),
        );
        for note in &c.notes {
            let _ = writeln!(out, "NOTE: {note}");
        }
    }
    out
}

/// A cost with enough digits for a cheap trial.
pub fn money(x: f64) -> String {
    if x == 0.0 {
        "0".to_owned()
    } else if x < 0.01 {
        format!("{x:.6}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p90_by_hand() {
        assert_eq!(median_p90(&[]), (0.0, 0.0));
        assert_eq!(median_p90(&[3.0, 1.0, 2.0]), (2.0, 3.0));
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_p90(&ten), (5.0, 9.0));
    }

    #[test]
    fn trial_cost_is_tokens_times_price_per_million() {
        let price = ModelPrice {
            input: 2.0,
            output: 8.0,
            cached_input: None,
        };
        let usage = UsageTotals {
            model_calls: 3,
            input_tokens: 1_500_000,
            output_tokens: 250_000,
            upstream_retries: 0,
            cached_input_tokens: 0,
        };
        assert!((trial_cost(&price, &usage) - 5.0).abs() < 1e-12);
    }

    #[test]
    fn cached_input_tokens_are_priced_at_the_cached_price_when_the_file_has_one() {
        let usage = UsageTotals {
            model_calls: 1,
            input_tokens: 1_000_000,
            output_tokens: 0,
            upstream_retries: 0,
            cached_input_tokens: 800_000,
        };
        let with_cached = ModelPrice {
            input: 1.0,
            output: 4.0,
            cached_input: Some(0.1),
        };
        // 200k uncached at 1.0 plus 800k cached at 0.1 per million.
        assert!((trial_cost(&with_cached, &usage) - 0.28).abs() < 1e-12);
        let without = ModelPrice {
            cached_input: None,
            ..with_cached
        };
        assert!((trial_cost(&without, &usage) - 1.0).abs() < 1e-12);
        // A report of more cached than input tokens never prices input below zero.
        let odd = UsageTotals {
            cached_input_tokens: 2_000_000,
            ..usage
        };
        assert!((trial_cost(&with_cached, &odd) - 0.1).abs() < 1e-12);
    }
}
