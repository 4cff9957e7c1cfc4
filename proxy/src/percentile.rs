//! The one percentile of the project: nearest rank, so every figure it reports (guard
//! latency, trial wall time) is a value that was measured, and the median of an even
//! count is the lower of the two middle values.

/// The nearest-rank `pct`th percentile of `sorted` (ascending); `None` when empty.
pub fn nearest_rank<T: Copy>(sorted: &[T], pct: u32) -> Option<T> {
    let n = sorted.len();
    let rank = (usize::try_from(pct.min(100)).ok()? * n)
        .div_ceil(100)
        .max(1);
    sorted.get(rank.min(n).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn the_percentile_is_a_measured_value_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(nearest_rank(&v, 50), Some(50));
        assert_eq!(nearest_rank(&v, 99), Some(99));
        assert_eq!(nearest_rank(&v, 100), Some(100));
        assert_eq!(nearest_rank(&v, 0), Some(1));
        assert_eq!(nearest_rank(&[7], 99), Some(7));
        assert_eq!(nearest_rank::<u64>(&[], 50), None);
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(nearest_rank(&ten, 50), Some(5.0));
        assert_eq!(nearest_rank(&ten, 90), Some(9.0));
    }
}
