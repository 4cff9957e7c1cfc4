//! A run-wide cap on model calls per second, for rate-limited endpoints: calls are
//! spaced evenly rather than sent in bursts the endpoint answers with 429.

use std::time::Duration;
use tokio::sync::Mutex;
use tokio::time::Instant;

/// Spaces the calls that go through it at least `1 / rate` seconds apart.
#[derive(Debug)]
pub struct Pacer {
    gap: Duration,
    next: Mutex<Option<Instant>>,
}

impl Pacer {
    /// A pacer for `per_second` calls a second; `None` when the rate is not a positive
    /// finite number.
    pub fn new(per_second: f64) -> Option<Self> {
        (per_second.is_finite() && per_second > 0.0).then(|| Self {
            gap: Duration::from_secs_f64(1.0 / per_second),
            next: Mutex::new(None),
        })
    }

    /// Waits for this call's slot.
    pub async fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().await;
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.gap);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn calls_are_spaced_by_the_rate() {
        let pacer = std::sync::Arc::new(Pacer::new(4.0).unwrap());
        let start = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..5 {
            let p = std::sync::Arc::clone(&pacer);
            tasks.push(tokio::spawn(async move {
                p.wait().await;
                Instant::now()
            }));
        }
        let mut times = Vec::new();
        for t in tasks {
            times.push(t.await.unwrap() - start);
        }
        times.sort();
        assert_eq!(times[0], Duration::ZERO);
        assert_eq!(times[4], Duration::from_secs(1));
        assert!(Pacer::new(0.0).is_none() && Pacer::new(f64::NAN).is_none());
    }
}
