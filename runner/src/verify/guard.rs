//! What the runtime guard did in a trial, read back from its `guard_decision` trace
//! lines: counts by outcome and the decision latencies, for the summary's guard block.

use cosec_proxy::trace::{TraceEvent, TraceLine};
use serde::{Deserialize, Serialize};

/// Guard activity of one trial.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardCounts {
    /// Decisions taken.
    pub decisions: u64,
    /// Flows allowed.
    pub allowed: u64,
    /// Flows denied (whatever was done about them).
    pub denied: u64,
    /// Denied spans redacted.
    pub redacted: u64,
    /// Whole operations blocked.
    pub blocked: u64,
    /// Files restored after a turn.
    pub restored: u64,
    /// Denials that were only recorded (shadow mode).
    pub shadow_only: u64,
    /// Decision latencies in microseconds.
    pub latencies_us: Vec<u64>,
}

/// Guard activity recorded in a trace; `None` when the guard never decided anything.
pub fn guard_counts(trace: &[TraceLine]) -> Option<GuardCounts> {
    let mut c = GuardCounts::default();
    for line in trace {
        if let TraceEvent::GuardDecision {
            decision,
            enforced,
            latency_us,
            ..
        } = &line.event
        {
            c.decisions += 1;
            c.latencies_us.push(*latency_us);
            match decision.as_str() {
                "allow" => c.allowed += 1,
                other => {
                    c.denied += 1;
                    if !enforced {
                        c.shadow_only += 1;
                    } else {
                        match other {
                            "redact" => c.redacted += 1,
                            "block" => c.blocked += 1,
                            "restore" => c.restored += 1,
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    (c.decisions > 0).then_some(c)
}
