//! Guard counters for a trial's (or a run's) summary.

use super::GuardLayer;
use serde::{Deserialize, Serialize};

/// Guard activity of a trial or a run: the one set of counters that the guard keeps
/// live, the verifier reads back from a trace, and the summaries add up.
///
/// Every traced decision counts once in `decisions` and once in `allowed` or `denied`;
/// an enforced denial counts once more as `withheld`, `redacted`, `blocked` or
/// `restored`, one that was only recorded (shadow mode) as `shadow_only`. The same
/// decisions are also counted per layer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardCounts {
    /// The decisions by outcome and layer.
    #[serde(flatten)]
    pub counts: DecisionCounts,
    /// Decision latencies (detection excluded), microseconds.
    pub latencies_us: Vec<u64>,
}

/// How many decisions the guard took, by outcome and by layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionCounts {
    /// Decisions traced.
    pub decisions: u64,
    /// Decisions that allowed the flow.
    pub allowed: u64,
    /// Decisions that denied it (fail-closed errors included).
    pub denied: u64,
    /// Enforced denials answered by keeping content out of the model's context.
    #[serde(default)]
    pub withheld: u64,
    /// Enforced denials answered by redacting spans.
    pub redacted: u64,
    /// Enforced denials answered by blocking a whole operation.
    pub blocked: u64,
    /// Enforced denials answered by restoring a file after the turn.
    pub restored: u64,
    /// Denials only recorded (shadow mode).
    pub shadow_only: u64,
    /// Decisions of the input layer.
    #[serde(default)]
    pub input: LayerCounts,
    /// Decisions of the output layer.
    #[serde(default)]
    pub output: LayerCounts,
}

impl DecisionCounts {
    fn add(&mut self, other: &DecisionCounts) {
        let sums = [
            (&mut self.decisions, other.decisions),
            (&mut self.allowed, other.allowed),
            (&mut self.denied, other.denied),
            (&mut self.withheld, other.withheld),
            (&mut self.redacted, other.redacted),
            (&mut self.blocked, other.blocked),
            (&mut self.restored, other.restored),
            (&mut self.shadow_only, other.shadow_only),
        ];
        for (mine, theirs) in sums {
            *mine += theirs;
        }
        self.input.add(&other.input);
        self.output.add(&other.output);
    }
}

/// The decisions of one guard layer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerCounts {
    /// Decisions traced.
    pub decisions: u64,
    /// Decisions that allowed the flow.
    pub allowed: u64,
    /// Decisions that denied it.
    pub denied: u64,
}

impl LayerCounts {
    fn add(&mut self, other: &LayerCounts) {
        self.decisions += other.decisions;
        self.allowed += other.allowed;
        self.denied += other.denied;
    }
}

/// [`GuardCounts`] summed up for `summary.json` and `cosec proxy serve`: the counts
/// and the latency percentiles.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardStats {
    /// The decisions by outcome and layer.
    #[serde(flatten)]
    pub counts: DecisionCounts,
    /// Median decision latency (detection excluded), microseconds.
    pub latency_p50_us: u64,
    /// 99th percentile decision latency, microseconds.
    pub latency_p99_us: u64,
}

/// What the guard did about one flow (the trace's `decision`; in shadow mode, what it
/// would have done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardOutcome {
    /// The flow was allowed.
    Allow,
    /// The content was kept out of the model's context.
    Withhold,
    /// The denied spans were redacted.
    Redact,
    /// The whole operation was blocked.
    Block,
    /// A file written against policy was restored after the turn.
    Restore,
}

impl GuardOutcome {
    /// The trace spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardOutcome::Allow => "allow",
            GuardOutcome::Withhold => "withhold",
            GuardOutcome::Redact => "redact",
            GuardOutcome::Block => "block",
            GuardOutcome::Restore => "restore",
        }
    }
}

impl GuardCounts {
    /// Counts one traced decision; `enforced` is false in shadow mode.
    pub fn record(
        &mut self,
        layer: GuardLayer,
        outcome: GuardOutcome,
        enforced: bool,
        latency_us: u64,
    ) {
        self.latencies_us.push(latency_us);
        let c = &mut self.counts;
        c.decisions += 1;
        let per_layer = match layer {
            GuardLayer::Input => &mut c.input,
            GuardLayer::Output => &mut c.output,
        };
        per_layer.decisions += 1;
        if outcome == GuardOutcome::Allow {
            per_layer.allowed += 1;
            c.allowed += 1;
            return;
        }
        per_layer.denied += 1;
        c.denied += 1;
        let kind = match (outcome, enforced) {
            (_, false) => &mut c.shadow_only,
            (GuardOutcome::Withhold, true) => &mut c.withheld,
            (GuardOutcome::Redact, true) => &mut c.redacted,
            (GuardOutcome::Block, true) => &mut c.blocked,
            (GuardOutcome::Restore | GuardOutcome::Allow, true) => &mut c.restored,
        };
        *kind += 1;
    }

    /// Adds another trial's counters.
    pub fn merge(&mut self, other: &GuardCounts) {
        self.counts.add(&other.counts);
        self.latencies_us.extend_from_slice(&other.latencies_us);
    }

    /// The summary form.
    pub fn stats(&self) -> GuardStats {
        let mut sorted = self.latencies_us.clone();
        sorted.sort_unstable();
        GuardStats {
            counts: self.counts,
            latency_p50_us: percentile(&sorted, 50),
            latency_p99_us: percentile(&sorted, 99),
        }
    }
}

/// Nearest-rank percentile of sorted values (0 when empty).
fn percentile(sorted: &[u64], pct: u32) -> u64 {
    crate::percentile::nearest_rank(sorted, pct).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denials_count_by_kind() {
        let mut c = GuardCounts::default();
        c.record(GuardLayer::Output, GuardOutcome::Allow, true, 3);
        c.record(GuardLayer::Output, GuardOutcome::Redact, true, 5);
        c.record(GuardLayer::Input, GuardOutcome::Block, true, 9);
        c.record(GuardLayer::Output, GuardOutcome::Redact, false, 7);
        c.record(GuardLayer::Input, GuardOutcome::Withhold, true, 4);
        let stats = c.stats();
        let s = stats.counts;
        assert_eq!((s.decisions, s.allowed, s.denied), (5, 1, 4));
        assert_eq!(
            (s.withheld, s.redacted, s.blocked, s.restored),
            (1, 1, 1, 0)
        );
        assert_eq!((s.input.decisions, s.input.denied), (2, 2));
        assert_eq!(
            (s.output.decisions, s.output.allowed, s.output.denied),
            (3, 1, 2)
        );
        assert_eq!(s.shadow_only, 1, "a shadow denial changes nothing");
        assert_eq!(stats.latency_p50_us, 5);
        let mut total = GuardCounts::default();
        total.merge(&c);
        total.merge(&c);
        assert_eq!((total.counts.decisions, total.counts.shadow_only), (10, 2));
        assert_eq!(total.counts.input.decisions, 4);
        assert_eq!(total.latencies_us.len(), 10);
    }

    #[test]
    fn summaries_keep_their_flat_fields() {
        let mut c = GuardCounts::default();
        c.record(GuardLayer::Input, GuardOutcome::Withhold, true, 4);
        let json = serde_json::to_value(c.stats()).unwrap_or_default();
        assert_eq!(json["decisions"], 1);
        assert_eq!(json["withheld"], 1);
        assert_eq!(json["input"]["denied"], 1);
        assert_eq!(json["latency_p50_us"], 4);
        assert!(json.get("counts").is_none(), "{json}");
        let back: GuardStats = serde_json::from_value(json).unwrap_or_default();
        assert_eq!(back, c.stats());
    }
}
