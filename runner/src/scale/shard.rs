//! `--shard K/N`: a deterministic slice of a run's trials. Trial `i` of the run's
//! selection (in suite order) belongs to shard `i mod N`, so every trial is in exactly
//! one shard, the shards are balanced across the suite's halves, and the slice depends
//! only on the selection, which `--resume` already pins.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The `index`-th (0-based) of `count` slices of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, `0..count`.
    pub index: u32,
    /// How many slices the run is cut into.
    pub count: u32,
}

/// Why a `K/N` spelling is not a shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not two numbers around a slash.
    #[error("`{0}` is not K/N (two whole numbers, e.g. 0/4)")]
    Syntax(String),
    /// K outside `0..N`, or N zero.
    #[error("shard {index}/{count} does not exist: K counts from 0 and must be below N (N >= 1)")]
    Range {
        /// K.
        index: u32,
        /// N.
        count: u32,
    },
}

impl Shard {
    /// Whether the trial at `position` in the run's selection belongs to this shard.
    pub fn contains(self, position: usize) -> bool {
        position % self.count as usize == self.index as usize
    }

    /// The items of a run's selection (in order) that belong to this shard.
    pub fn select<T>(self, items: impl IntoIterator<Item = T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.contains(*i))
            .map(|(_, item)| item)
            .collect()
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || ShardError::Syntax(s.to_owned());
        let (k, n) = s.trim().split_once('/').ok_or_else(syntax)?;
        let index: u32 = k.trim().parse().map_err(|_| syntax())?;
        let count: u32 = n.trim().parse().map_err(|_| syntax())?;
        if count == 0 || index >= count {
            return Err(ShardError::Range { index, count });
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_in_exactly_one_shard() {
        let items: Vec<usize> = (0..208).collect();
        let mut seen = vec![0u32; items.len()];
        for index in 0..5 {
            let shard = Shard { index, count: 5 };
            let slice = shard.select(items.iter().copied());
            assert!(
                (41..=42).contains(&slice.len()),
                "balanced: {}",
                slice.len()
            );
            for i in slice {
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
    }

    #[test]
    fn spellings_are_checked() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(
            "4/4".parse::<Shard>(),
            Err(ShardError::Range { index: 4, count: 4 })
        );
        assert!(matches!(
            "0/0".parse::<Shard>(),
            Err(ShardError::Range { .. })
        ));
        assert!(matches!("1-4".parse::<Shard>(), Err(ShardError::Syntax(_))));
        assert!(matches!("a/4".parse::<Shard>(), Err(ShardError::Syntax(_))));
        assert_eq!(Shard { index: 3, count: 8 }.to_string(), "3/8");
    }
}
