//! Statistics of paired binary outcomes: Newcombe's hybrid score interval for the
//! difference of two paired proportions and the exact McNemar test, both widened by
//! the design effect when runs repeat scenarios (`--epochs`).
//!
//! A paired 2x2 table counts, over the trials valid in both runs, `both` (positive in
//! both), `only_a` (positive in A only), `only_b` (positive in B only) and `neither`.

use crate::metrics::wilson::wilson;
use serde::{Deserialize, Serialize};

/// The paired 2x2 table of one metric over trials valid in both runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedTable {
    /// Positive in both runs.
    pub both: u64,
    /// Positive in run A only.
    pub only_a: u64,
    /// Positive in run B only.
    pub only_b: u64,
    /// Positive in neither.
    pub neither: u64,
}

impl PairedTable {
    /// Adds one pair of outcomes.
    pub fn add(&mut self, a: bool, b: bool) {
        match (a, b) {
            (true, true) => self.both += 1,
            (true, false) => self.only_a += 1,
            (false, true) => self.only_b += 1,
            (false, false) => self.neither += 1,
        }
    }

    /// Pairs in the table.
    pub fn n(&self) -> u64 {
        self.both + self.only_a + self.only_b + self.neither
    }

    /// The rate of run A, `None` for an empty table.
    pub fn rate_a(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.both + self.only_a) as f64 / n as f64)
    }

    /// The rate of run B, `None` for an empty table.
    pub fn rate_b(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| (self.both + self.only_b) as f64 / n as f64)
    }

    /// `rate_b - rate_a`: negative when B has fewer positives.
    pub fn delta(&self) -> Option<f64> {
        Some(self.rate_b()? - self.rate_a()?)
    }

    /// The 95% interval of [`PairedTable::delta`] (Newcombe's method 10).
    pub fn delta_ci(&self) -> Option<[f64; 2]> {
        // Newcombe's formula is stated for p1 - p2; B - A is its mirror image.
        let mirrored = PairedTable {
            both: self.both,
            only_a: self.only_b,
            only_b: self.only_a,
            neither: self.neither,
        };
        newcombe_paired_ci(&mirrored)
    }

    /// The exact two-sided McNemar p-value on the discordant pairs.
    pub fn p_value(&self) -> f64 {
        mcnemar_exact_p(self.only_a, self.only_b)
    }

    /// [`PairedTable::delta_ci`] with its two half-widths stretched by the square root
    /// of `design_effect` (1 leaves it as it is).
    pub fn delta_ci_clustered(&self, design_effect: f64) -> Option<[f64; 2]> {
        if design_effect <= 1.0 {
            return self.delta_ci();
        }
        let [lo, hi] = self.delta_ci()?;
        let d = self.delta()?;
        let stretch = design_effect.sqrt();
        Some([
            (d - (d - lo) * stretch).max(-1.0),
            (d + (hi - d) * stretch).min(1.0),
        ])
    }

    /// [`PairedTable::p_value`] on the discordant counts divided by `design_effect`
    /// (the Rao-Scott way of carrying a test for independent pairs over to clustered
    /// ones; 1 is the exact test itself).
    pub fn p_value_clustered(&self, design_effect: f64) -> f64 {
        if design_effect <= 1.0 {
            return self.p_value();
        }
        let shrink = |count: u64| (count as f64 / design_effect).round() as u64;
        mcnemar_exact_p(shrink(self.only_a), shrink(self.only_b))
    }
}

/// How much the repeats of a scenario inflate the variance of a paired difference:
/// the cluster-robust variance of the mean difference over its variance with every
/// pair independent; at least 1, and 1 when every scenario has a single pair or the
/// differences do not vary. `clusters` holds, per scenario, the differences `b - a`
/// (each -1, 0 or 1) of its pairs.
pub fn design_effect(clusters: &[Vec<i8>]) -> f64 {
    let n: usize = clusters.iter().map(Vec::len).sum();
    if n == 0 || clusters.iter().all(|c| c.len() <= 1) {
        return 1.0;
    }
    let mean = clusters
        .iter()
        .flatten()
        .map(|&d| f64::from(d))
        .sum::<f64>()
        / n as f64;
    let independent: f64 = clusters
        .iter()
        .flatten()
        .map(|&d| (f64::from(d) - mean).powi(2))
        .sum();
    if independent <= 0.0 {
        return 1.0;
    }
    let clustered: f64 = clusters
        .iter()
        .map(|c| {
            let total: f64 = c.iter().map(|&d| f64::from(d)).sum();
            (total - mean * c.len() as f64).powi(2)
        })
        .sum();
    (clustered / independent).max(1.0)
}

/// Newcombe (1998) method 10, the hybrid score interval for `p1 - p2` where
/// `p1 = (both + only_a) / n` and `p2 = (both + only_b) / n`: the two Wilson intervals
/// combined by square-and-add with the continuity-corrected phi of the paired table.
/// `None` for an empty table.
pub fn newcombe_paired_ci(t: &PairedTable) -> Option<[f64; 2]> {
    let n = t.n();
    let [l1, u1] = wilson(t.both + t.only_a, n)?;
    let [l2, u2] = wilson(t.both + t.only_b, n)?;
    let n_f = n as f64;
    let p1 = (t.both + t.only_a) as f64 / n_f;
    let p2 = (t.both + t.only_b) as f64 / n_f;
    let phi = corrected_phi(t);
    let d = p1 - p2;
    let lower = d
        - ((p1 - l1).powi(2) - 2.0 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2).powi(2))
            .max(0.0)
            .sqrt();
    let upper = d
        + ((p2 - l2).powi(2) - 2.0 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1).powi(2))
            .max(0.0)
            .sqrt();
    Some([lower.max(-1.0), upper.min(1.0)])
}

/// The correlation of the paired table with Newcombe's correction: `ad - bc` shrunk by
/// `n/2` towards zero when positive, kept when negative, and 0 when a margin is empty.
fn corrected_phi(t: &PairedTable) -> f64 {
    let (a, b, c, d) = (
        t.both as f64,
        t.only_a as f64,
        t.only_b as f64,
        t.neither as f64,
    );
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    if margins == 0.0 {
        return 0.0;
    }
    let cross = a * d - b * c;
    let half_n = t.n() as f64 / 2.0;
    let numerator = if cross > half_n {
        cross - half_n
    } else if cross >= 0.0 {
        0.0
    } else {
        cross
    };
    numerator / margins.sqrt()
}

/// The exact two-sided McNemar p-value: twice the smaller binomial tail of the
/// discordant pairs under p = 1/2, capped at 1 (1 when there are no discordant pairs).
pub fn mcnemar_exact_p(only_a: u64, only_b: u64) -> f64 {
    let m = only_a + only_b;
    if m == 0 {
        return 1.0;
    }
    let k = only_a.min(only_b);
    // Summed in log space: C(m, i) / 2^m underflows f64 long before m reaches a suite.
    let ln_half_m = m as f64 * std::f64::consts::LN_2;
    let mut ln_binom = 0.0_f64; // ln C(m, 0)
    let mut tail = 0.0_f64;
    for i in 0..=k {
        if i > 0 {
            ln_binom += ((m - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_binom - ln_half_m).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod clustered_tests {
    use super::*;

    #[test]
    fn single_pairs_have_no_design_effect() {
        assert_eq!(design_effect(&[vec![1], vec![0], vec![-1], vec![1]]), 1.0);
        assert_eq!(design_effect(&[]), 1.0);
    }

    #[test]
    fn agreeing_repeats_count_as_one_pair() {
        // Three repeats that always agree: the variance is that of the scenarios alone,
        // three times the variance of as many independent pairs.
        let repeated = [vec![1, 1, 1], vec![0, 0, 0], vec![1, 1, 1], vec![0, 0, 0]];
        assert!((design_effect(&repeated) - 3.0).abs() < 1e-9);
        // Repeats that disagree inside every scenario carry as much as independent pairs.
        let mixed = [vec![1, 0], vec![0, 1], vec![1, 0], vec![0, 1]];
        assert_eq!(design_effect(&mixed), 1.0);
    }

    #[test]
    fn a_design_effect_widens_the_interval_and_weakens_the_test() {
        let t = PairedTable {
            both: 2,
            only_a: 12,
            only_b: 0,
            neither: 10,
        };
        let [lo, hi] = t.delta_ci().unwrap();
        let [clo, chi] = t.delta_ci_clustered(3.0).unwrap();
        assert!(clo < lo && chi > hi, "{clo} {chi} vs {lo} {hi}");
        assert_eq!(t.delta_ci_clustered(1.0), t.delta_ci());
        assert!(t.p_value_clustered(3.0) > t.p_value());
        assert_eq!(t.p_value_clustered(1.0), t.p_value());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    /// Complete response before and after consolidation therapy (Cavo et al. 2012), the
    /// worked example of the paired 2x2 table in Fagerland, Lydersen and Laake,
    /// "Statistical Analysis of Contingency Tables" (2017), chapter 8: estimate -0.0621,
    /// Newcombe square-and-add 95% CI -0.1186 to -0.0046, McNemar exact P = 0.052479.
    fn cavo() -> PairedTable {
        PairedTable {
            both: 59,
            only_a: 6,
            only_b: 16,
            neither: 80,
        }
    }

    #[test]
    fn newcombe_matches_the_published_worked_example() {
        let t = cavo();
        let [lo, hi] = newcombe_paired_ci(&t).unwrap();
        let p1_minus_p2 = (59.0 + 6.0) / 161.0 - (59.0 + 16.0) / 161.0;
        assert!(close(p1_minus_p2, -0.0621, 5e-5));
        assert!(close(lo, -0.1186, 5e-5), "{lo}");
        assert!(close(hi, -0.0046, 5e-5), "{hi}");
    }

    #[test]
    fn delta_is_b_minus_a_with_the_mirrored_interval() {
        let t = cavo();
        let d = t.delta().unwrap();
        assert!(close(d, 10.0 / 161.0, 1e-12));
        let [lo, hi] = t.delta_ci().unwrap();
        assert!(
            close(lo, 0.0046, 5e-5) && close(hi, 0.1186, 5e-5),
            "{lo} {hi}"
        );
    }

    #[test]
    fn mcnemar_matches_the_published_worked_example() {
        assert!(close(mcnemar_exact_p(6, 16), 0.052479, 5e-7));
        assert!(close(mcnemar_exact_p(16, 6), 0.052479, 5e-7));
    }

    #[test]
    fn mcnemar_small_cases_by_hand() {
        // 0 vs 3 discordant: 2 * (1/8) = 0.25; 1 vs 1: capped at 1.
        assert!(close(mcnemar_exact_p(0, 3), 0.25, 1e-12));
        assert_eq!(mcnemar_exact_p(1, 1), 1.0);
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
    }

    #[test]
    fn mcnemar_stays_finite_for_a_whole_suite() {
        // 200 discordant pairs all one way: 2 / 2^200, far below 1e-6 and above 0.
        let p = mcnemar_exact_p(200, 0);
        assert!(p > 0.0 && p < 1e-50, "{p}");
        assert!(close(
            p.ln(),
            (2.0_f64).ln() - 200.0 * std::f64::consts::LN_2,
            1e-9
        ));
    }

    #[test]
    fn all_flipped_gives_a_tight_interval_near_minus_one() {
        let t = PairedTable {
            both: 0,
            only_a: 208,
            only_b: 0,
            neither: 0,
        };
        assert_eq!(t.delta(), Some(-1.0));
        let [lo, hi] = t.delta_ci().unwrap();
        assert!(
            (-1.0..-0.98).contains(&lo) && (-0.99..-0.95).contains(&hi),
            "{lo} {hi}"
        );
    }

    #[test]
    fn no_change_is_an_interval_around_zero() {
        let t = PairedTable {
            both: 100,
            only_a: 0,
            only_b: 0,
            neither: 108,
        };
        let [lo, hi] = t.delta_ci().unwrap();
        assert!(lo < 0.0 && hi > 0.0 && hi - lo < 0.05, "{lo} {hi}");
        assert_eq!(t.p_value(), 1.0);
    }

    #[test]
    fn empty_table_has_no_interval() {
        assert_eq!(PairedTable::default().delta_ci(), None);
        assert_eq!(PairedTable::default().delta(), None);
    }
}
