//! The guard and the verifier must ask Cedar the same question about an output: this
//! module checks that they did, trial by trial, from the trace alone.
//!
//! For every decision the guard traced (`guard_decision` lines that name who they were
//! asked for), the verifier builds its own question from what it reads off the trace
//! (the delivery in force at that line, through `cosec_policies::ask`) and compares:
//! the principals and the time always; the action too where the verifier saw an output
//! of the same delivery reaching the same destination (an output the guard blocked
//! never happened, so only its who-and-when can be compared). A difference means that
//! the guard decided a question the oracle is never asked, and a proof of the defense
//! policy against the oracle says nothing about it.

use super::extract::agent_outputs;
use cosec_policies::{Outlet, TurnContext};
use cosec_proxy::trace::{delivery_contexts, TraceEvent, TraceLine};
use cosec_scenarios::{Action, CommunityState, Scenario, Time, UserId};
use serde::Serialize;
use std::fmt;

/// One side's question, as far as the trace can say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AskedQuestion {
    /// Who it was asked for.
    pub principals: Vec<UserId>,
    /// What was done with the object.
    pub action: Action,
    /// Where it went, rendered as the guard traces destinations.
    pub destination: String,
    /// The community state it was asked at.
    pub time: Option<Time>,
}

impl fmt::Display for AskedQuestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who: Vec<&str> = self.principals.iter().map(UserId::as_str).collect();
        write!(
            f,
            "[{}] {} to {} at {}",
            who.join(", "),
            self.action,
            self.destination,
            self.time.map_or_else(|| "?".to_owned(), |t| t.to_string())
        )
    }
}

/// A guard decision whose question is not the verifier's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionMismatch {
    /// The trace line of the guard's decision (0-based).
    pub line: usize,
    /// Its turn.
    pub turn: u8,
    /// The object decided.
    pub object: String,
    /// What the guard asked.
    pub guard: AskedQuestion,
    /// What the verifier asks about the same output.
    pub verifier: AskedQuestion,
}

impl fmt::Display for QuestionMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "trace line {} (turn {}, object `{}`): guard asked {}, verifier asks {}",
            self.line + 1,
            self.turn,
            self.object,
            self.guard,
            self.verifier
        )
    }
}

/// Every guard decision of `trace` whose question differs from the one the verifier
/// builds for the same output of `s`; empty when both ask alike (or the guard decided
/// nothing).
pub fn question_mismatches(s: &Scenario, trace: &[TraceLine]) -> Vec<QuestionMismatch> {
    let contexts = delivery_contexts(trace);
    let outputs = agent_outputs(trace, s);
    let mut states: Vec<(Time, Option<CommunityState>)> = Vec::new();
    let mut out = Vec::new();
    for (line, (entry, ctx)) in trace.iter().zip(&contexts).enumerate() {
        let TraceEvent::GuardDecision {
            turn,
            object,
            principals,
            time,
            action,
            destination,
            ..
        } = &entry.event
        else {
            continue;
        };
        // Unreadable or unchecked content is refused without a question.
        if principals.is_empty() {
            continue;
        }
        let guard = AskedQuestion {
            principals: principals.clone(),
            action: *action,
            destination: destination.clone(),
            time: *time,
        };
        let Some(ctx) = ctx.as_ref().filter(|c| c.turn == *turn) else {
            out.push(QuestionMismatch {
                line,
                turn: *turn,
                object: object.to_string(),
                verifier: AskedQuestion {
                    principals: Vec::new(),
                    ..guard.clone()
                },
                guard,
            });
            continue;
        };
        let state = state_at(&mut states, s, ctx.time);
        let verifier = AskedQuestion {
            principals: state.map(|st| ctx.principals(st)).unwrap_or_default(),
            action: verifier_action(&outputs, ctx, *action, destination),
            destination: destination.clone(),
            time: Some(ctx.time),
        };
        if verifier != guard {
            out.push(QuestionMismatch {
                line,
                turn: *turn,
                object: object.to_string(),
                guard,
                verifier,
            });
        }
    }
    out
}

/// The action the verifier gives the output of delivery `ctx` that reached
/// `destination`: that of its own outputs there, or the guard's where it saw none
/// (a blocked output, a read).
fn verifier_action(
    outputs: &[super::AgentOutput],
    ctx: &TurnContext,
    guard_action: Action,
    destination: &str,
) -> Action {
    if guard_action == Action::Read {
        return Outlet::context(ctx).action;
    }
    let mut actions = outputs
        .iter()
        .filter(|o| &o.context == ctx)
        .map(|o| o.outlet())
        .filter(|outlet| outlet.destination.to_string() == destination)
        .map(|outlet| outlet.action);
    let first = actions.next();
    match first {
        // Two carriers to one destination (a post and a reply to one community) share
        // the action; any other would be the verifier's to report.
        Some(a) if a == guard_action || actions.any(|b| b == guard_action) => guard_action,
        Some(a) => a,
        None => guard_action,
    }
}

fn state_at<'a>(
    states: &'a mut Vec<(Time, Option<CommunityState>)>,
    s: &Scenario,
    time: Time,
) -> Option<&'a CommunityState> {
    let i = match states.iter().position(|(t, _)| *t == time) {
        Some(i) => i,
        None => {
            states.push((time, CommunityState::at(&s.platform, time).ok()));
            states.len() - 1
        }
    };
    states.get(i).and_then(|(_, st)| st.as_ref())
}
