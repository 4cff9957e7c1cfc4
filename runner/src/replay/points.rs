//! The guard decision points of a recorded trial, in trace order.
//!
//! A trial the guard ran in (enforcing or shadowing) traced every question it asked as a
//! `guard_decision` line, views included: those are its decision points, each with the
//! delivery in force at its line. A trial without a guard left no such line; its points
//! are the ones a guard would have met on the same recording: every protected object
//! served to the agent or found by the guard's detector in a request to the model (a
//! `read` into the delivery's context, input layer), and every protected object the
//! detector finds in an output (the output's own question, output layer, as the
//! verifier builds it for that output).

use crate::verify::extract::AgentOutput;
use cosec_policies::TurnContext;
use cosec_proxy::guard::{GuardLayer, GuardOutcome, GuardPoint, TrialGuard};
use cosec_proxy::trace::{delivery_contexts, TraceEvent, TraceLine};
use cosec_scenarios::{Action, CommunityId, Destination, Namespace, ObjectId, UserId};
use std::collections::{BTreeSet, HashMap};

/// What the recording holds about a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// The guard decided it: what it did (in shadow mode, would have done) and whether
    /// that took effect.
    Decided {
        /// The traced decision.
        outcome: GuardOutcome,
        /// Whether it changed the trial.
        enforced: bool,
    },
    /// No guard ran: whatever flowed there went through.
    Unguarded,
}

impl Recorded {
    /// Whether the recorded trial went on as if the point was allowed.
    pub fn went_through(self) -> bool {
        match self {
            Recorded::Decided { outcome, enforced } => !enforced || outcome == GuardOutcome::Allow,
            Recorded::Unguarded => true,
        }
    }

    /// The recorded policy's answer (`true` = allow); no guard allows everything.
    pub fn allowed(self) -> bool {
        match self {
            Recorded::Decided { outcome, .. } => outcome == GuardOutcome::Allow,
            Recorded::Unguarded => true,
        }
    }
}

/// One decision point: a question the guard asks, where it asks it.
#[derive(Debug, Clone)]
pub struct Point {
    /// The trace line it belongs to (0-based): its `guard_decision` line, or the request,
    /// serve or output line that raised it.
    pub line: usize,
    /// The delivery it is asked in.
    pub ctx: TurnContext,
    /// Where it is taken.
    pub point: GuardPoint,
    /// The deciding layer.
    pub layer: GuardLayer,
    /// The object.
    pub object: ObjectId,
    /// What is done with it.
    pub action: Action,
    /// Where it goes.
    pub destination: Destination,
    /// What a deny does there.
    pub on_deny: GuardOutcome,
    /// What the recording holds.
    pub recorded: Recorded,
}

/// Parses a destination as the trace renders it (`community:c`, `person:u`,
/// `workflow:w`, `workspace:c`, `shared`, `memory`).
pub fn parse_destination(text: &str) -> Option<Destination> {
    let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
    Some(match (kind, rest) {
        ("community", c) if !c.is_empty() => Destination::Community {
            community: CommunityId::from(c),
        },
        ("person", u) if !u.is_empty() => Destination::Person {
            user: UserId::from(u),
        },
        ("workflow", w) if !w.is_empty() => Destination::Workflow { name: w.to_owned() },
        ("workspace", c) if !c.is_empty() => Destination::Namespace {
            namespace: Namespace::Community {
                community: CommunityId::from(c),
            },
        },
        ("shared", "") => Destination::Namespace {
            namespace: Namespace::Shared,
        },
        ("memory", "") => Destination::Namespace {
            namespace: Namespace::Memory,
        },
        _ => return None,
    })
}

/// Whether any line of `trace` is a guard decision: the guard ran in the trial.
pub fn guard_ran(trace: &[TraceLine]) -> bool {
    trace
        .iter()
        .any(|l| matches!(l.event, TraceEvent::GuardDecision { .. }))
}

/// The decision points of a trial (see the module docs); `outputs` are the verifier's
/// outputs of the same trace, in trace order.
pub fn decision_points(
    trace: &[TraceLine],
    outputs: &[AgentOutput],
    guard: &TrialGuard,
) -> Vec<Point> {
    if guard_ran(trace) {
        recorded_points(trace, guard)
    } else {
        derived_points(trace, outputs, guard)
    }
}

/// The traced decisions, each with the delivery in force at its line. Decisions on
/// content the guard could not read, or on an object it does not protect, ask no
/// policy question and are left out.
fn recorded_points(trace: &[TraceLine], guard: &TrialGuard) -> Vec<Point> {
    let contexts = delivery_contexts(trace);
    let mut out = Vec::new();
    for (line, (l, ctx)) in trace.iter().zip(contexts).enumerate() {
        let TraceEvent::GuardDecision {
            turn,
            point,
            layer,
            object,
            requester,
            time,
            action,
            destination,
            decision,
            enforced,
            ..
        } = &l.event
        else {
            continue;
        };
        let Some(destination) = parse_destination(destination) else {
            continue;
        };
        if !guard.is_protected(object) {
            continue;
        }
        let ctx = match ctx {
            Some(c) if c.turn == *turn && c.requester == *requester => c,
            _ => {
                let community = match &destination {
                    Destination::Community { community } => community.clone(),
                    _ => CommunityId::from(""),
                };
                let at = time.unwrap_or(cosec_scenarios::ids::turn_time(*turn));
                TurnContext::new(*turn, community, requester.clone(), at)
            }
        };
        out.push(Point {
            line,
            ctx,
            point: *point,
            layer: *layer,
            object: object.clone(),
            action: *action,
            destination,
            on_deny: match *decision {
                GuardOutcome::Allow => default_on_deny(*point),
                other => other,
            },
            recorded: Recorded::Decided {
                outcome: *decision,
                enforced: *enforced,
            },
        });
    }
    out
}

/// What a deny does at a point the recording allowed.
fn default_on_deny(point: GuardPoint) -> GuardOutcome {
    match point {
        GuardPoint::Context | GuardPoint::View => GuardOutcome::Withhold,
        GuardPoint::Response => GuardOutcome::Redact,
        GuardPoint::ToolCall | GuardPoint::Shim => GuardOutcome::Block,
        GuardPoint::Restore => GuardOutcome::Restore,
    }
}

/// The points a guard would have met on a trial recorded without one.
fn derived_points(trace: &[TraceLine], outputs: &[AgentOutput], guard: &TrialGuard) -> Vec<Point> {
    let contexts = delivery_contexts(trace);
    let mut out = Vec::new();
    // Each object's read is decided once per delivery, as the live guard caches it.
    let mut read: BTreeSet<(usize, ObjectId)> = BTreeSet::new();
    let mut delivery = 0usize;
    let mut output = 0usize;
    let mut scanned: HashMap<&str, Vec<ObjectId>> = HashMap::new();
    for (line, (l, ctx)) in trace.iter().zip(contexts).enumerate() {
        if let TraceEvent::Delivery { .. } = l.event {
            delivery = line;
        }
        let mut reads = |objects: Vec<ObjectId>, point: GuardPoint, out: &mut Vec<Point>| {
            let Some(ctx) = &ctx else {
                return;
            };
            for object in objects {
                if guard.is_protected(&object) && read.insert((delivery, object.clone())) {
                    out.push(Point {
                        line,
                        ctx: ctx.clone(),
                        point,
                        layer: GuardLayer::Input,
                        object,
                        action: Action::Read,
                        destination: ctx.reply_destination(),
                        on_deny: GuardOutcome::Withhold,
                        recorded: Recorded::Unguarded,
                    });
                }
            }
        };
        match &l.event {
            TraceEvent::ObjectServed { object, .. } => {
                reads(vec![object.clone()], GuardPoint::Shim, &mut out);
            }
            TraceEvent::ModelCall { request, .. } => {
                let texts = request.messages.iter().flat_map(|m| {
                    std::iter::once(m.content.as_str())
                        .chain(m.tool_calls.iter().map(|c| c.arguments.as_str()))
                });
                let mut found = Vec::new();
                for text in texts {
                    // Harnesses send their whole history with every call: each text is
                    // scanned once per trial.
                    let objects = scanned
                        .entry(text)
                        .or_insert_with(|| guard.protected_in(text));
                    found.extend(objects.iter().cloned());
                }
                reads(found, GuardPoint::Context, &mut out);
            }
            TraceEvent::Reply { .. } | TraceEvent::Effect { .. } => {
                if let Some(o) = outputs.get(output) {
                    out.extend(output_points(line, o, guard));
                }
                output += 1;
            }
            _ => {}
        }
    }
    out
}

/// The output layer's points of one output: its question for every protected object
/// the detector finds in it.
fn output_points(line: usize, o: &AgentOutput, guard: &TrialGuard) -> Vec<Point> {
    let outlet = o.outlet();
    let (point, on_deny) = match o.effect.as_deref() {
        None => (GuardPoint::Response, GuardOutcome::Redact),
        Some("file_write") => (GuardPoint::Restore, GuardOutcome::Restore),
        Some(_) => (GuardPoint::Shim, GuardOutcome::Block),
    };
    guard
        .protected_in(&o.text)
        .into_iter()
        .map(|object| Point {
            line,
            ctx: o.context.clone(),
            point,
            layer: GuardLayer::Output,
            object,
            action: outlet.action,
            destination: outlet.destination.clone(),
            on_deny,
            recorded: Recorded::Unguarded,
        })
        .collect()
}
