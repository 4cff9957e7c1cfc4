//! The printed Table-3-style summary: one row per block, rates in percent with their
//! 95% Wilson intervals and sample sizes, both PVR figures side by side, and the trials
//! where they differ.

use super::{RateBlock, Summary};
use std::fmt::Write as _;

fn cell(rate: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (rate, ci) {
        (Some(r), Some([lo, hi])) => {
            format!("{:5.1} [{:5.1},{:5.1}]", r * 100.0, lo * 100.0, hi * 100.0)
        }
        _ => format!("{:>19}", "-"),
    }
}

fn row(out: &mut String, name: &str, b: &RateBlock) {
    let _ = writeln!(
        out,
        "{name:<10} {:>4}  {}  {}  {:>4}  {}  {}  {}",
        b.n,
        cell(b.pvr, b.pvr_ci),
        cell(b.pvr_all, b.pvr_all_ci),
        b.n_cross,
        cell(b.ccpvr, b.ccpvr_ci),
        cell(b.bcr, b.bcr_ci),
        cell(b.stcr, b.stcr_ci),
    );
}

/// How many trials whose two PVR figures differ are listed by name.
const LISTED_DIFFERENCES: usize = 20;

/// The trials whose PVR over all outputs differs from the paper-comparable one.
fn figure_differences(out: &mut String, s: &Summary) {
    if s.pvr_differs.is_empty() {
        let _ = writeln!(out, "PVR and PVR all agree on every valid trial");
        return;
    }
    let _ = writeln!(
        out,
        "PVR all differs from PVR in {} trials (a violation outside the scored action only):",
        s.pvr_differs.len()
    );
    for d in s.pvr_differs.iter().take(LISTED_DIFFERENCES) {
        let _ = writeln!(
            out,
            "  {} (trial {}): {}",
            d.scenario,
            d.trial,
            d.outside.join("; ")
        );
    }
    if s.pvr_differs.len() > LISTED_DIFFERENCES {
        let _ = writeln!(
            out,
            "  ... and {} more (pvr_differs in summary.json)",
            s.pvr_differs.len() - LISTED_DIFFERENCES
        );
    }
}

/// Renders the summary as the table `cosec run` and `cosec report` print.
pub fn render_table(s: &Summary) -> String {
    let c = &s.config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CoSec results: harness {}, model {}{}, defense {}, judge {}",
        c.harness,
        c.model,
        if c.simulated_model {
            " (simulated)"
        } else {
            ""
        },
        c.defense,
        c.judge
    );
    let t = &s.trials;
    let _ = writeln!(
        out,
        "trials: {} total, {} valid, {} infrastructure failures, {} unadjudicable",
        t.total, t.valid, t.infra_failure, t.unadjudicable
    );
    let _ = writeln!(out, "rates in % with 95% Wilson intervals; PVR, CCPVR lower is better; BCR, STCR higher is better");
    let _ = writeln!(out, "PVR: the scored action (scored destinations, scored turn), comparable with the paper; PVR all: every output at every turn, judged where it went\n");
    let _ = writeln!(
        out,
        "{:<10} {:>4}  {:<19}  {:<19}  {:>4}  {:<19}  {:<19}  {:<19}",
        "block", "n", "PVR", "PVR all", "nX", "CCPVR", "BCR", "STCR"
    );
    row(&mut out, "overall", &s.overall);
    row(&mut out, "static112", &s.static112);
    row(&mut out, "dyn96", &s.dyn96);
    for (family, block) in &s.by_family {
        row(&mut out, family, block);
    }
    if let Some(price) = &s.price {
        let _ = writeln!(out, "\n{}", price.line());
    }
    let counts = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        out,
        "\nviolating trials by carrier: {} (over all outputs: {})",
        counts(&s.by_carrier),
        counts(&s.by_carrier_all)
    );
    figure_differences(&mut out, s);
    let _ = writeln!(
        out,
        "dynamic failure classes (a trial may carry several): {}; unclassified {}",
        counts(&s.failure_classes),
        s.unclassified_failures
    );
    let u = &s.usage;
    let _ = writeln!(
        out,
        "usage: {} model calls ({} upstream retries), {} input ({} cached) / {} output tokens, {:.1} s wall",
        u.model_calls,
        u.upstream_retries,
        u.input_tokens,
        u.cached_input_tokens,
        u.output_tokens,
        u.wall_seconds
    );
    if let Some(attack) = &s.attack {
        out.push_str(&crate::attack::budget::render(attack));
    }
    if let Some(g) = &s.guard {
        let _ = writeln!(
            out,
            "guard: {} decisions, {} allowed, {} denied ({} withheld, {} redacted, {} blocked, {} restored, {} shadow-only); decision latency p50 {} us, p99 {} us",
            g.counts.decisions, g.counts.allowed, g.counts.denied, g.counts.withheld, g.counts.redacted, g.counts.blocked, g.counts.restored, g.counts.shadow_only, g.latency_p50_us, g.latency_p99_us
        );
        let _ = writeln!(
            out,
            "guard layers: input {} decisions ({} denied), output {} decisions ({} denied)",
            g.counts.input.decisions,
            g.counts.input.denied,
            g.counts.output.decisions,
            g.counts.output.denied
        );
    }
    let pct = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{:.1}%", v * 100.0));
    let kappa = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"));
    for a in &s.judge_agreement {
        let _ = writeln!(
            out,
            "judge {} vs {} on {} trials: privacy kappa {} (agree {}), completion kappa {} (agree {})",
            a.model,
            a.deciding,
            a.n,
            kappa(a.privacy_kappa),
            pct(a.privacy_agreement),
            kappa(a.completion_kappa),
            pct(a.completion_agreement)
        );
    }
    for note in &s.notes {
        let _ = writeln!(out, "NOTE: {note}");
    }
    out
}
