//! The text form of a paired comparison: one line per block and metric.

use super::paired::{Comparison, MetricComparison, METRICS};
use std::fmt::Write as _;

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{:.1}", v * 100.0))
}

/// A p-value readable at a glance: 4 significant digits, or an upper bound when tiny.
pub fn format_p(p: f64) -> String {
    if p < 1e-6 {
        // The bound keeps the exponent the exact tail would have.
        format!("<1e{}", p.log10().floor() as i64 + 1)
    } else if p < 0.001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn line(out: &mut String, block: &str, metric: &str, m: &MetricComparison) {
    let ci = m.ci.map_or_else(
        || "-".to_owned(),
        |[lo, hi]| format!("[{:.1}, {:.1}]", lo * 100.0, hi * 100.0),
    );
    let _ = writeln!(
        out,
        "{block:<22} {metric:<7} {:>4} {:>6} {:>6} {:>7} {ci:<16} {:>9}{} {:>5} {:>5}",
        m.n,
        pct(m.a),
        pct(m.b),
        m.delta
            .map_or_else(|| "-".to_owned(), |d| format!("{:+.1}", d * 100.0)),
        format_p(m.p),
        if m.significant { " *" } else { "  " },
        m.discordant[0],
        m.discordant[1],
    );
}

/// The two runs, each by name, label and folder, with what a guard refused of each
/// one's legitimate work and, for a guarded run beside its unguarded twin, the cost.
fn header(out: &mut String, c: &Comparison) {
    for (side, i) in [("A", 0), ("B", 1)] {
        let _ = writeln!(
            out,
            "{side}: {}: {}  ({})",
            c.names[i], c.runs[i], c.dirs[i]
        );
    }
    for (side, price) in ["A", "B"].iter().zip(&c.prices) {
        if let Some(price) = price {
            let _ = writeln!(out, "{side} {}", price.line());
        }
    }
    if let (Some((bcr, [lo, hi], n)), Some(g)) = (c.defense_cost(), c.guarded_twin) {
        let (guarded, twin) = if g == 1 { ("B", "A") } else { ("A", "B") };
        let _ = writeln!(
            out,
            "cost of the defense: BCR {:+.1} points [{:.1}, {:.1}] over {n} paired tasks ({guarded} guarded, {twin} its unguarded twin)",
            bcr * 100.0,
            lo * 100.0,
            hi * 100.0
        );
    }
}

/// Renders the scenarios whose verdict changed between the two runs, metric by
/// metric, as `cosec compare --changed` prints them.
pub fn render_changed(c: &Comparison) -> String {
    let mut out = String::new();
    header(&mut out, c);
    let _ = writeln!(
        out,
        "changed verdicts among the {} scenarios valid in both runs (CCPVR over cross-scope pairs only)",
        c.paired_n
    );
    for (name, changed) in METRICS.iter().zip(&c.changed) {
        let _ = writeln!(
            out,
            "\n{}: {} changed ({} true in A only, {} true in B only)",
            name.to_ascii_uppercase(),
            changed.len(),
            changed.a_only.len(),
            changed.b_only.len()
        );
        for (side, ids) in [("A only", &changed.a_only), ("B only", &changed.b_only)] {
            for id in ids {
                let _ = writeln!(out, "  {side}  {id}");
            }
        }
    }
    out
}

/// Renders one comparison as the text `cosec compare` prints.
pub fn render_comparison(c: &Comparison) -> String {
    let mut out = String::new();
    header(&mut out, c);
    let _ = writeln!(
        out,
        "paired: {} scenarios valid in both runs; {} left out{}",
        c.paired_n,
        c.unpaired.len(),
        if c.unpaired.is_empty() {
            ""
        } else {
            " (listed below)"
        }
    );
    let _ = writeln!(
        out,
        "rates in % over the pairs (CCPVR over cross-scope pairs); PVR is the scored action's (paper-comparable), PVR_ALL every output's; delta = B - A in points with its 95% interval (Newcombe, paired); p = exact McNemar; * p < {}\n",
        c.alpha
    );
    let _ = writeln!(
        out,
        "{:<22} {:<7} {:>4} {:>6} {:>6} {:>7} {:<16} {:>9}  {:>5} {:>5}",
        "block", "metric", "n", "A", "B", "delta", "95% CI", "p", "A1B0", "A0B1"
    );
    for block in &c.blocks {
        for (name, m) in METRICS.iter().zip(&block.metrics) {
            line(&mut out, &block.name, &name.to_ascii_uppercase(), m);
        }
    }
    if !c.unpaired.is_empty() {
        let _ = writeln!(out, "\nleft out (not valid in both runs):");
        for u in &c.unpaired {
            let _ = writeln!(out, "  {:<28} A {:<14} B {}", u.scenario, u.a, u.b);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format_p;

    #[test]
    fn p_values_read_at_a_glance() {
        assert_eq!(format_p(0.052479), "0.0525");
        assert_eq!(format_p(0.0004), "4.0e-4");
        assert_eq!(format_p(2.0 * 0.5_f64.powi(208)), "<1e-62");
    }
}
