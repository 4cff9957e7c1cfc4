//! Stratified, seeded selection of trials for the human audit.
//!
//! Allocation rule: when the requested size `n` is at least the population, every
//! trial is taken. Otherwise every non-empty stratum first gets one trial, and each
//! further trial goes to the stratum furthest below its proportional quota
//! `n * N_h / N` (ties go to the earlier stratum in key order), never beyond the
//! stratum's size. `n` smaller than the number of non-empty strata is refused, since
//! the minimum of one per stratum could not be kept.
//!
//! Within a stratum the trials with the smallest `sha256(seed, trial key)` are taken,
//! which is a uniform random choice fixed by the seed: the same seed and the same runs
//! give the same sample whatever the order the runs are named in.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// Why no sample could be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllocationError {
    /// `n` is smaller than the number of non-empty strata.
    #[error("--n {n} is smaller than the {strata} non-empty strata; each stratum needs at least one trial, so pass --n {strata} or more")]
    TooFewForStrata {
        /// Requested size.
        n: usize,
        /// Non-empty strata.
        strata: usize,
    },
    /// There is nothing to sample from.
    #[error("the runs hold no valid trial to sample")]
    EmptyPopulation,
}

/// How many trials each stratum gives, under the rule of the module documentation.
/// `sizes` maps each stratum to its population; empty strata get nothing.
pub fn allocate<K: Ord + Clone>(
    sizes: &BTreeMap<K, usize>,
    n: usize,
) -> Result<BTreeMap<K, usize>, AllocationError> {
    let total: usize = sizes.values().sum();
    if total == 0 {
        return Err(AllocationError::EmptyPopulation);
    }
    if n >= total {
        return Ok(sizes.clone());
    }
    let non_empty = sizes.values().filter(|&&s| s > 0).count();
    if n < non_empty {
        return Err(AllocationError::TooFewForStrata {
            n,
            strata: non_empty,
        });
    }
    let mut taken: BTreeMap<K, usize> = sizes
        .iter()
        .map(|(k, &s)| (k.clone(), usize::from(s > 0)))
        .collect();
    for _ in non_empty..n {
        // Deficit below quota, compared exactly: quota_h - a_h = (n*N_h - a_h*N) / N.
        let pick = sizes
            .iter()
            .filter(|(k, &s)| taken.get(*k).copied().unwrap_or(0) < s)
            .map(|(k, &s)| {
                let a = taken.get(k).copied().unwrap_or(0);
                let deficit = (n * s) as i128 - (a * total) as i128;
                (k, deficit)
            })
            .fold(None::<(&K, i128)>, |best, cand| match best {
                Some(b) if b.1 >= cand.1 => Some(b),
                _ => Some(cand),
            });
        if let Some((k, _)) = pick {
            if let Some(a) = taken.get_mut(k) {
                *a += 1;
            }
        }
    }
    Ok(taken)
}

/// The seeded rank of a trial: smaller ranks are taken first.
pub fn rank(seed: u64, purpose: &str, key: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(purpose.as_bytes());
    h.update([0u8]);
    h.update(key.as_bytes());
    h.finalize().into()
}

/// The `k` keys of smallest seeded rank, in rank order.
pub fn choose<'a>(seed: u64, keys: &[&'a str], k: usize) -> Vec<&'a str> {
    let mut ranked: Vec<([u8; 32], &str)> = keys
        .iter()
        .map(|key| (rank(seed, "select", key), *key))
        .collect();
    ranked.sort_unstable();
    ranked.into_iter().take(k).map(|(_, key)| key).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(list: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
        list.iter().copied().collect()
    }

    #[test]
    fn allocation_table() {
        // (population per stratum, n, expected allocation)
        type Strata = &'static [(&'static str, usize)];
        let cases: &[(Strata, usize, Strata)] = &[
            // n at least the population: everything.
            (&[("a", 3), ("b", 2)], 5, &[("a", 3), ("b", 2)]),
            (&[("a", 3), ("b", 2)], 9, &[("a", 3), ("b", 2)]),
            // Proportional: 100/50/50 with n 8 -> quotas 4/2/2.
            (
                &[("a", 100), ("b", 50), ("c", 50)],
                8,
                &[("a", 4), ("b", 2), ("c", 2)],
            ),
            // Small strata keep their minimum of one (quotas 0.1 and 0.2); "a" gives way.
            (
                &[("a", 97), ("b", 1), ("c", 2)],
                10,
                &[("a", 8), ("b", 1), ("c", 1)],
            ),
            // Empty strata get nothing; a stratum never gives more than it has.
            (
                &[("a", 0), ("b", 2), ("c", 40)],
                10,
                &[("a", 0), ("b", 1), ("c", 9)],
            ),
            (&[("a", 1), ("b", 3)], 3, &[("a", 1), ("b", 2)]),
            // Ties go to the earlier key.
            (&[("a", 5), ("b", 5)], 3, &[("a", 2), ("b", 1)]),
        ];
        for (pop, n, want) in cases {
            let got = allocate(&sizes(pop), *n).unwrap();
            let want: BTreeMap<&str, usize> = want.iter().copied().collect();
            assert_eq!(got, want, "population {pop:?}, n {n}");
            let sum: usize = got.values().sum();
            assert_eq!(sum, (*n).min(pop.iter().map(|p| p.1).sum()));
        }
    }

    #[test]
    fn too_small_a_sample_or_no_population_is_refused() {
        assert_eq!(
            allocate(&sizes(&[("a", 3), ("b", 2), ("c", 1)]), 2),
            Err(AllocationError::TooFewForStrata { n: 2, strata: 3 })
        );
        assert_eq!(
            allocate(&sizes(&[("a", 0)]), 2),
            Err(AllocationError::EmptyPopulation)
        );
    }

    #[test]
    fn choice_depends_on_the_seed_not_on_the_order_of_keys() {
        let keys: Vec<String> = (0..50).map(|i| format!("trial-{i}")).collect();
        let forward: Vec<&str> = keys.iter().map(String::as_str).collect();
        let mut backward = forward.clone();
        backward.reverse();
        assert_eq!(choose(7, &forward, 10), choose(7, &backward, 10));
        assert_ne!(choose(7, &forward, 10), choose(8, &forward, 10));
        let picked = choose(7, &forward, 10);
        assert_eq!(picked.len(), 10);
        assert_eq!(choose(7, &forward, 60).len(), 50);
    }
}
