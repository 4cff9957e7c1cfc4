//! What the runtime guard did in a trial, read back from its `guard_decision` trace
//! lines: counts by outcome and the decision latencies, for the summary's guard block.

use cosec_proxy::trace::{TraceEvent, TraceLine};

pub use cosec_proxy::guard::GuardCounts;

/// Guard activity recorded in a trace; `None` when the guard never decided anything.
pub fn guard_counts(trace: &[TraceLine]) -> Option<GuardCounts> {
    let mut c = GuardCounts::default();
    for line in trace {
        if let TraceEvent::GuardDecision {
            layer,
            decision,
            enforced,
            latency_us,
            ..
        } = &line.event
        {
            c.record(*layer, *decision, *enforced, *latency_us);
        }
    }
    (c.counts.decisions > 0).then_some(c)
}
