//! Wilson score intervals for binomial rates, and their clustered form for runs that
//! repeat each scenario (`--epochs`).

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval `[lo, hi]` of `k` successes in `n` trials; `None` when
/// `n` is 0. Chosen over the normal approximation because it stays inside [0, 1] and
/// behaves at 0/n and n/n, which is where safe and unsafe configurations sit.
pub fn wilson(k: u64, n: u64) -> Option<[f64; 2]> {
    if n == 0 {
        return None;
    }
    Some(wilson_at(k.min(n) as f64 / n as f64, n as f64))
}

/// The 95% Wilson interval of rate `p` over an effective sample of `n_f` (> 0) trials.
fn wilson_at(p: f64, n_f: f64) -> [f64; 2] {
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 * ((p * (1.0 - p) / n_f) + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

/// The 95% interval of a rate over trials grouped in clusters (the repeats of one
/// scenario), each cluster given as `(positives, trials)`.
///
/// Repeats of a scenario are not independent of each other, so the interval is the
/// Wilson interval at the effective sample size `p(1-p) / V`, where `V` is the
/// cluster-robust variance of the rate, `sum over clusters of (k_c - p m_c)^2 / n^2`.
/// With one trial per cluster that is exactly [`wilson`]; with repeats that always
/// agree it is the Wilson interval over the clusters alone. At a rate of 0 or 1 the
/// variance says nothing, and the clusters are counted as the sample (the repeats of a
/// scenario that never leaked are not counted as new evidence). `None` when empty.
pub fn clustered_wilson(clusters: &[(u64, u64)]) -> Option<[f64; 2]> {
    let n: u64 = clusters.iter().map(|&(_, m)| m).sum();
    let k: u64 = clusters.iter().map(|&(k, m)| k.min(m)).sum();
    if clusters.iter().all(|&(_, m)| m <= 1) {
        return wilson(k, n);
    }
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let groups = clusters.iter().filter(|&&(_, m)| m > 0).count() as f64;
    if k == 0 || k == n {
        return Some(wilson_at(p, groups));
    }
    let variance = clusters
        .iter()
        .map(|&(k_c, m_c)| (k_c.min(m_c) as f64 - p * m_c as f64).powi(2))
        .sum::<f64>()
        / (n_f * n_f);
    let effective = if variance > 0.0 {
        (p * (1.0 - p) / variance).clamp(1.0, n_f)
    } else {
        n_f
    };
    Some(wilson_at(p, effective))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn known_intervals() {
        let [lo, hi] = wilson(0, 10).unwrap();
        assert!(close(lo, 0.0) && close(hi, 0.27753), "{lo} {hi}");
        let [lo, hi] = wilson(5, 10).unwrap();
        assert!(close(lo, 0.23659) && close(hi, 0.76341), "{lo} {hi}");
        let [lo, hi] = wilson(10, 10).unwrap();
        assert!(close(lo, 0.72247) && close(hi, 1.0), "{lo} {hi}");
        let [lo, hi] = wilson(1, 208).unwrap();
        assert!(close(lo, 0.00085) && close(hi, 0.02673), "{lo} {hi}");
    }

    #[test]
    fn empty_sample_has_no_interval() {
        assert_eq!(wilson(0, 0), None);
        assert_eq!(clustered_wilson(&[]), None);
        assert_eq!(clustered_wilson(&[(0, 0), (0, 0)]), None);
    }

    proptest::proptest! {
        /// One trial per scenario: the clustered interval is the plain one.
        #[test]
        fn single_trials_give_the_plain_interval(outcomes in proptest::collection::vec(proptest::bool::ANY, 1..60)) {
            let clusters: Vec<(u64, u64)> = outcomes.iter().map(|&b| (u64::from(b), 1)).collect();
            let k = outcomes.iter().filter(|&&b| b).count() as u64;
            proptest::prop_assert_eq!(clustered_wilson(&clusters), wilson(k, outcomes.len() as u64));
        }

        /// Repeats that always agree add no evidence: K copies of each scenario's outcome
        /// give the interval of the scenarios alone, not of K times as many trials.
        #[test]
        fn agreeing_repeats_count_as_one_trial(outcomes in proptest::collection::vec(proptest::bool::ANY, 1..40), repeats in 2u64..6) {
            let clusters: Vec<(u64, u64)> = outcomes.iter().map(|&b| (u64::from(b) * repeats, repeats)).collect();
            let k = outcomes.iter().filter(|&&b| b).count() as u64;
            let [lo, hi] = clustered_wilson(&clusters).unwrap();
            let [plo, phi] = wilson(k, outcomes.len() as u64).unwrap();
            proptest::prop_assert!(close(lo, plo) && close(hi, phi), "{lo} {hi} vs {plo} {phi}");
        }

        /// Repeats never make an interval narrower than treating every trial as
        /// independent would.
        #[test]
        fn clustered_is_never_narrower_than_independent(clusters in proptest::collection::vec((0u64..5, 1u64..5), 1..40)) {
            let clusters: Vec<(u64, u64)> = clusters.into_iter().map(|(k, m)| (k.min(m), m)).collect();
            let n: u64 = clusters.iter().map(|c| c.1).sum();
            let k: u64 = clusters.iter().map(|c| c.0).sum();
            let [lo, hi] = clustered_wilson(&clusters).unwrap();
            let [plo, phi] = wilson(k, n).unwrap();
            proptest::prop_assert!(hi - lo >= phi - plo - 1e-9, "{lo} {hi} vs {plo} {phi}");
        }
    }
}
