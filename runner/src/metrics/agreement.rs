//! Agreement between two raters of the same items (annotators, judges, the verifier).

use std::collections::BTreeMap;

/// Cohen's kappa of two raters' labels for the same items, given as pairs
/// `(rater_a, rater_b)`: `(p_o - p_e) / (1 - p_e)`, where `p_o` is the observed share
/// of agreement and `p_e` the agreement expected from each rater's own label
/// frequencies. `None` without items. When both raters use one and the same label for
/// every item (`p_e` = 1) agreement is perfect and kappa is 1.
pub fn cohen_kappa<T: Ord>(pairs: &[(T, T)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut agree = 0usize;
    let mut first: BTreeMap<&T, usize> = BTreeMap::new();
    let mut second: BTreeMap<&T, usize> = BTreeMap::new();
    for (a, b) in pairs {
        if a == b {
            agree += 1;
        }
        *first.entry(a).or_default() += 1;
        *second.entry(b).or_default() += 1;
    }
    let observed = agree as f64 / n;
    let expected: f64 = first
        .iter()
        .map(|(label, count)| {
            let other = second.get(label).copied().unwrap_or(0);
            (*count as f64 / n) * (other as f64 / n)
        })
        .sum();
    if (1.0 - expected).abs() < f64::EPSILON {
        return Some(1.0);
    }
    Some((observed - expected) / (1.0 - expected))
}

#[cfg(test)]
mod tests {
    use super::cohen_kappa;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn no_items_has_no_kappa() {
        let empty: [(bool, bool); 0] = [];
        assert_eq!(cohen_kappa(&empty), None);
    }

    #[test]
    fn textbook_example() {
        // 50 items: both yes 20, a yes / b no 5, a no / b yes 10, both no 15.
        // p_o = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5, kappa = 0.4.
        let mut pairs = Vec::new();
        pairs.extend(std::iter::repeat_n((true, true), 20));
        pairs.extend(std::iter::repeat_n((true, false), 5));
        pairs.extend(std::iter::repeat_n((false, true), 10));
        pairs.extend(std::iter::repeat_n((false, false), 15));
        let k = cohen_kappa(&pairs).unwrap_or(f64::NAN);
        assert!(close(k, 0.4), "{k}");
    }

    #[test]
    fn perfect_and_chance_level_agreement() {
        let perfect = [(1, 1), (2, 2), (3, 3), (1, 1)];
        assert!(close(cohen_kappa(&perfect).unwrap_or(f64::NAN), 1.0));
        // Rater b always says the opposite on a balanced set: kappa -1.
        let opposite = [(true, false), (false, true), (true, false), (false, true)];
        assert!(close(cohen_kappa(&opposite).unwrap_or(f64::NAN), -1.0));
        // One constant label shared by both: perfect by definition.
        let constant = [("safe", "safe"), ("safe", "safe")];
        assert!(close(cohen_kappa(&constant).unwrap_or(f64::NAN), 1.0));
    }
}
