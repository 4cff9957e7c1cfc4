//! Guard counters for a trial's (or a run's) summary.

use serde::{Deserialize, Serialize};

/// What the guard decided, for `summary.json`'s `guard` block.
///
/// Every traced decision counts once in `decisions` and once in `allowed` or
/// `denied`; a denied one counts once more as `redacted`, `blocked` or `restored`
/// (what the guard did or, in shadow mode, would have done).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GuardStats {
    /// Decisions traced.
    pub decisions: u64,
    /// Decisions that allowed the flow.
    pub allowed: u64,
    /// Decisions that denied it (fail-closed errors included).
    pub denied: u64,
    /// Denials answered by redacting spans.
    pub redacted: u64,
    /// Denials answered by blocking a whole call.
    pub blocked: u64,
    /// Denials answered by restoring a file after the turn.
    pub restored: u64,
    /// Median decision latency (detection excluded), microseconds.
    pub latency_p50_us: u64,
    /// 99th percentile decision latency, microseconds.
    pub latency_p99_us: u64,
}

/// Raw counters of one trial.
#[derive(Debug, Clone, Default)]
pub(crate) struct Counters {
    pub decisions: u64,
    pub allowed: u64,
    pub denied: u64,
    pub redacted: u64,
    pub blocked: u64,
    pub restored: u64,
    pub latencies: Vec<u64>,
}

/// What a traced decision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Allow,
    Redact,
    Block,
    Restore,
}

impl Outcome {
    /// The trace spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allow => "allow",
            Outcome::Redact => "redact",
            Outcome::Block => "block",
            Outcome::Restore => "restore",
        }
    }
}

impl Counters {
    /// Counts one traced decision.
    pub fn record(&mut self, outcome: Outcome, latency_us: u64) {
        self.decisions += 1;
        match outcome {
            Outcome::Allow => self.allowed += 1,
            Outcome::Redact => {
                self.denied += 1;
                self.redacted += 1;
            }
            Outcome::Block => {
                self.denied += 1;
                self.blocked += 1;
            }
            Outcome::Restore => {
                self.denied += 1;
                self.restored += 1;
            }
        }
        self.latencies.push(latency_us);
    }

    /// Adds another trial's counters.
    pub fn merge(&mut self, other: &Counters) {
        self.decisions += other.decisions;
        self.allowed += other.allowed;
        self.denied += other.denied;
        self.redacted += other.redacted;
        self.blocked += other.blocked;
        self.restored += other.restored;
        self.latencies.extend_from_slice(&other.latencies);
    }

    /// The summary form.
    pub fn stats(&self) -> GuardStats {
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        GuardStats {
            decisions: self.decisions,
            allowed: self.allowed,
            denied: self.denied,
            redacted: self.redacted,
            blocked: self.blocked,
            restored: self.restored,
            latency_p50_us: percentile(&sorted, 50),
            latency_p99_us: percentile(&sorted, 99),
        }
    }
}

/// Nearest-rank percentile of sorted values (0 when empty).
pub(crate) fn percentile(sorted: &[u64], pct: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (pct * sorted.len()).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), 50);
        assert_eq!(percentile(&v, 99), 99);
        assert_eq!(percentile(&[7], 99), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn denials_count_by_kind() {
        let mut c = Counters::default();
        c.record(Outcome::Allow, 3);
        c.record(Outcome::Redact, 5);
        c.record(Outcome::Block, 9);
        let s = c.stats();
        assert_eq!((s.decisions, s.allowed, s.denied), (3, 1, 2));
        assert_eq!((s.redacted, s.blocked, s.restored), (1, 1, 0));
        assert_eq!(s.latency_p50_us, 5);
    }
}
