//! Wilson score intervals for binomial rates.

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval `[lo, hi]` of `k` successes in `n` trials; `None` when
/// `n` is 0. Chosen over the normal approximation because it stays inside [0, 1] and
/// behaves at 0/n and n/n, which is where safe and unsafe configurations sit.
pub fn wilson(k: u64, n: u64) -> Option<[f64; 2]> {
    if n == 0 {
        return None;
    }
    let n_f = n as f64;
    let p = k.min(n) as f64 / n_f;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = Z95 * ((p * (1.0 - p) / n_f) + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
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
    }
}
