//! One recorded trial replayed under a new policy: each decision point re-decided, the
//! changes against the baseline, the recorded violations stopped or not, the price,
//! and how far the replay is exact.

use super::points::{decision_points, Point};
use crate::verify::extract::{agent_outputs, AgentOutput, Violation};
use crate::verify::price::{trial_price, TrialPrice};
use cosec_proxy::guard::{GuardLayer, GuardOutcome, GuardPoint, OfflineDecision, TrialGuard};
use cosec_proxy::trace::{TraceEvent, TraceLine};
use cosec_scenarios::{Action, Scenario};
use serde::{Deserialize, Serialize};

/// A decision as the replay reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The flow may happen.
    Allow,
    /// The flow is refused.
    Deny,
}

impl Answer {
    fn of(allowed: bool) -> Self {
        if allowed {
            Answer::Allow
        } else {
            Answer::Deny
        }
    }
}

/// Where a replay stops being exact: the first point whose new decision changes what
/// the recorded trial did. Everything the trial did after it is an estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    /// Its trace line (1-based, as an editor shows the file).
    pub line: usize,
    /// Its turn.
    pub turn: u8,
}

/// A decision that the new policy takes otherwise than the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// Trace line of the point (1-based).
    pub line: usize,
    /// Turn.
    pub turn: u8,
    /// Where it is taken.
    pub point: GuardPoint,
    /// The deciding layer.
    pub layer: GuardLayer,
    /// The protected object.
    pub object: String,
    /// What is done with it.
    pub action: Action,
    /// Where it goes, rendered as the trace renders destinations.
    pub destination: String,
    /// Whose message opened the delivery (`None` when nobody's did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester: Option<String>,
    /// The baseline's answer.
    pub from: Answer,
    /// The new policy's answer.
    pub to: Answer,
    /// The policy ids (and denied recipients) that decided the new answer, sorted.
    pub policies: Vec<String>,
    /// Errors that made the new policy fail closed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Whether the recorded trial reached this point as recorded (at or before the
    /// first divergence).
    pub exact: bool,
}

/// A violation of the recorded trial under the new policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayedViolation {
    /// The protected object.
    pub object: String,
    /// Where it landed, rendered.
    pub destination: String,
    /// Turn of the output that completed it.
    pub turn: u8,
    /// It counts towards the paper-comparable PVR (the scored action).
    pub scored: bool,
    /// The new policy denies a decision point of the object at or before that output,
    /// in its delivery: its read into the context, or its flow to that destination.
    pub stopped: bool,
    /// The point that stops it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<StopPoint>,
    /// Whether the answer is exact: the deciding point (or, when not stopped, the
    /// output) comes no later than the first divergence.
    pub exact: bool,
}

/// The point that stops a violation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopPoint {
    /// Trace line (1-based).
    pub line: usize,
    /// Where it is taken.
    pub point: GuardPoint,
    /// The deciding layer.
    pub layer: GuardLayer,
    /// What is done with the object there.
    pub action: Action,
    /// Where it goes there.
    pub destination: String,
}

/// One trial replayed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialReplay {
    /// Trial id.
    pub trial: String,
    /// Scenario id.
    pub scenario: String,
    /// Repeat of the scenario (`--epochs`), 0 for the first.
    #[serde(default)]
    pub epoch: u32,
    /// Decision points re-decided.
    pub points: usize,
    /// Of those, the ones the new policy denies.
    pub denied: usize,
    /// The decisions that change against the baseline, in trace order.
    pub changes: Vec<Change>,
    /// The first point whose new decision changes what the recorded trial did; absent
    /// when none does, and the whole replay is exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diverges_at: Option<Divergence>,
    /// The recorded violations, each stopped or not.
    pub violations: Vec<ReplayedViolation>,
    /// The legitimate flows of protected data the new policy denies, by the run
    /// pricing's own definition.
    pub price: TrialPrice,
}

/// What the replay of one trial needs besides its trace.
pub struct TrialInput<'a> {
    /// The scenario as the trial played it.
    pub scenario: &'a Scenario,
    /// The recorded violations.
    pub violations: &'a [Violation],
    /// The trial's id, scenario and repeat.
    pub trial: &'a str,
    /// Its repeat.
    pub epoch: u32,
}

/// Replays one trial: `new` decides every point; `against`, when given, is the
/// baseline the changes are counted from (else the recording's own decisions).
pub fn replay_trial(
    input: &TrialInput<'_>,
    trace: &[TraceLine],
    new: &TrialGuard,
    against: Option<&TrialGuard>,
) -> TrialReplay {
    let outputs = agent_outputs(trace, input.scenario);
    let points = decision_points(trace, &outputs, new);
    let decided: Vec<OfflineDecision> = points
        .iter()
        .map(|p| new.decide_offline(&p.ctx, &p.object, p.action, &p.destination))
        .collect();
    let diverges_at = points
        .iter()
        .zip(&decided)
        .find(|(p, d)| p.recorded.went_through() != d.allowed)
        .map(|(p, _)| Divergence {
            line: p.line + 1,
            turn: p.ctx.turn,
        });
    let exact = |line: usize| diverges_at.is_none_or(|d| line < d.line);
    let mut changes = Vec::new();
    for (p, d) in points.iter().zip(&decided) {
        let from = match against {
            Some(old) => {
                old.decide_offline(&p.ctx, &p.object, p.action, &p.destination)
                    .allowed
            }
            None => p.recorded.allowed(),
        };
        if from != d.allowed {
            changes.push(change(p, from, d, exact(p.line)));
        }
    }
    let violations = input
        .violations
        .iter()
        .map(|v| replay_violation(v, &outputs, trace, &points, &decided, &exact))
        .collect();
    TrialReplay {
        trial: input.trial.to_owned(),
        scenario: input.scenario.id.to_string(),
        epoch: input.epoch,
        points: points.len(),
        denied: decided.iter().filter(|d| !d.allowed).count(),
        changes,
        diverges_at,
        violations,
        price: trial_price(input.scenario, &priced_trace(trace, &points, &decided)),
    }
}

fn change(p: &Point, from: bool, d: &OfflineDecision, exact: bool) -> Change {
    let mut policies = d.policies.clone();
    policies.sort();
    Change {
        line: p.line + 1,
        turn: p.ctx.turn,
        point: p.point,
        layer: p.layer,
        object: p.object.to_string(),
        action: p.action,
        destination: p.destination.to_string(),
        requester: p.ctx.requester.as_ref().map(ToString::to_string),
        from: Answer::of(from),
        to: Answer::of(d.allowed),
        policies,
        errors: d.errors.clone(),
        exact,
    }
}

/// The trace lines of each output, in the verifier's output order: every reply and
/// effect line is one output.
fn output_lines(trace: &[TraceLine]) -> Vec<usize> {
    trace
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            matches!(
                l.event,
                TraceEvent::Reply { .. } | TraceEvent::Effect { .. }
            )
        })
        .map(|(i, _)| i)
        .collect()
}

fn replay_violation(
    v: &Violation,
    outputs: &[AgentOutput],
    trace: &[TraceLine],
    points: &[Point],
    decided: &[OfflineDecision],
    exact: &dyn Fn(usize) -> bool,
) -> ReplayedViolation {
    let lines = output_lines(trace);
    // The output that completed the value: the last one it was found across.
    let carrier = v
        .outputs
        .last()
        .and_then(|r| Some((r.index, *lines.get(r.index)?, outputs.get(r.index)?)));
    let stop = carrier.and_then(|(_, line, output)| {
        points.iter().zip(decided).find(|(p, d)| {
            !d.allowed
                && p.line <= line
                && p.object == v.object
                && p.ctx == output.context
                && (p.action == Action::Read || p.destination == output.addressed)
        })
    });
    let deciding_line = match (stop, carrier) {
        (Some((p, _)), _) => Some(p.line),
        (None, Some((_, line, _))) => Some(line),
        (None, None) => None,
    };
    ReplayedViolation {
        object: v.object.to_string(),
        destination: v.destination.to_string(),
        turn: v.turn,
        scored: v.scored,
        stopped: stop.is_some(),
        stopped_at: stop.map(|(p, _)| StopPoint {
            line: p.line + 1,
            point: p.point,
            layer: p.layer,
            action: p.action,
            destination: p.destination.to_string(),
        }),
        exact: deciding_line.is_some_and(exact),
    }
}

/// The recording's deliveries with one decision line per point as the new policy takes
/// it, enforced: the trace the run pricing reads a trial's refusals from.
fn priced_trace(
    trace: &[TraceLine],
    points: &[Point],
    decided: &[OfflineDecision],
) -> Vec<TraceLine> {
    let mut out = Vec::new();
    let mut next = points.iter().zip(decided).peekable();
    for (i, l) in trace.iter().enumerate() {
        while let Some((p, d)) = next.next_if(|(p, _)| p.line <= i) {
            out.push(decision_line(p, d));
        }
        if let TraceEvent::Delivery { .. } = l.event {
            out.push(l.clone());
        }
    }
    out.extend(next.map(|(p, d)| decision_line(p, d)));
    out
}

fn decision_line(p: &Point, d: &OfflineDecision) -> TraceLine {
    TraceLine {
        ms: 0,
        event: TraceEvent::GuardDecision {
            turn: p.ctx.turn,
            point: p.point,
            layer: p.layer,
            object: p.object.clone(),
            pattern: None,
            view: None,
            requester: p.ctx.requester.clone(),
            principals: d.principals.clone(),
            time: Some(p.ctx.time),
            action: p.action,
            destination: p.destination.to_string(),
            decision: match d.allowed {
                true => GuardOutcome::Allow,
                false => p.on_deny,
            },
            policies: d.policies.clone(),
            errors: d.errors.clone(),
            enforced: true,
            latency_us: 0,
        },
    }
}
