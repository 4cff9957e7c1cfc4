//! Verifier-tier checks: the scored turn, protected objects, scored and legitimate
//! flows, the goal's artifact checks, and whether the flows really cross scopes.

use super::refs::{check_destination, users};
use super::Problems;
use crate::factors::Boundary;
use crate::ids::{CommunityId, ObjectId};
use crate::matching::mentions;
use crate::platform::Destination;
use crate::scenario::Scenario;
use crate::state::CommunityState;
use crate::verifier::{Action, ArtifactCheck, Flow, SpanLocation};
use std::collections::BTreeSet;

/// Checks the verifier tier against the scenario it belongs to.
pub(super) fn check_verifier(s: &Scenario, p: &mut Problems) {
    let v = &s.verifier;
    let turns = s.agent.turn_count();
    if v.scored_turn < 1 || v.scored_turn > turns {
        p.push(
            "verifier.scored_turn",
            format!("must be in 1..={turns}, found {}", v.scored_turn),
        );
    }
    if v.protected.is_empty() {
        p.push("verifier.protected", "needs at least one protected object");
    }
    let protected: BTreeSet<&ObjectId> = v.protected.iter().map(|o| &o.object).collect();
    for (i, po) in v.protected.iter().enumerate() {
        let field = format!("verifier.protected[{i}]");
        let seed = s.agent.seeds.iter().find(|sd| sd.object == po.object);
        let Some(seed) = seed else {
            p.push(
                format!("{field}.object"),
                format!("object `{}` is not seeded", po.object),
            );
            continue;
        };
        if po.canaries.is_empty() {
            p.push(
                format!("{field}.canaries"),
                "needs at least one exact canary value",
            );
        }
        for c in &po.canaries {
            if c.trim().is_empty() || !seed.content.contains(c.as_str()) {
                p.push(
                    format!("{field}.canaries"),
                    format!(
                        "canary `{c}` does not appear verbatim in the seed of `{}`",
                        po.object
                    ),
                );
            }
        }
        if po.facts.is_empty() {
            p.push(format!("{field}.facts"), "needs at least one semantic fact");
        }
    }
    if v.scored_destinations.is_empty() {
        p.push(
            "verifier.scored_destinations",
            "needs at least one destination",
        );
    }
    for (i, d) in v.scored_destinations.iter().enumerate() {
        check_destination(s, d, &format!("verifier.scored_destinations[{i}]"), p);
    }
    let scored_speaker = s
        .agent
        .turns
        .iter()
        .find(|t| t.index == v.scored_turn)
        .map(|t| &t.speaker);
    if v.scored_flows.is_empty() {
        p.push("verifier.scored_flows", "needs at least one scored flow");
    }
    let scored = v
        .scored_flows
        .iter()
        .enumerate()
        .map(|(i, f)| ("scored_flows", i, f));
    let legit = v
        .legit_flows
        .iter()
        .enumerate()
        .map(|(i, f)| ("legit_flows", i, f));
    for (list, i, f) in scored.chain(legit) {
        if f.action == Action::Read && list == "scored_flows" {
            p.push(
                format!("verifier.{list}[{i}].action"),
                "`read` is the guard's context action, not a scored flow; use disclose, write, share or send",
            );
        }
    }
    for (i, f) in v.scored_flows.iter().enumerate() {
        let field = format!("verifier.scored_flows[{i}]");
        if Some(&f.requester) != scored_speaker {
            p.push(
                format!("{field}.requester"),
                format!("must be the speaker of the scored turn {}", v.scored_turn),
            );
        }
        if !protected.contains(&f.object) {
            p.push(
                format!("{field}.object"),
                format!("`{}` is not a protected object", f.object),
            );
        }
        if !v.scored_destinations.contains(&f.destination) {
            p.push(
                format!("{field}.destination"),
                "must be one of verifier.scored_destinations",
            );
        }
    }
    if v.legit_flows.is_empty() {
        p.push("verifier.legit_flows", "needs at least one legitimate flow");
    }
    for (i, f) in v.legit_flows.iter().enumerate() {
        let field = format!("verifier.legit_flows[{i}]");
        if s.platform.label(&f.object).is_none() {
            p.push(
                format!("{field}.object"),
                format!("object `{}` has no label", f.object),
            );
        }
        if protected.contains(&f.object) {
            check_protected_legit_flow(s, f, &field, p);
        } else if f.action == Action::Read {
            p.push(
                format!("{field}.action"),
                "`read` is asked only of protected objects; unprotected data is never withheld",
            );
        }
        check_destination(s, &f.destination, &format!("{field}.destination"), p);
        if !users(s).contains(&f.requester) {
            p.push(
                format!("{field}.requester"),
                format!("unknown user `{}`", f.requester),
            );
        }
    }
    for (i, span) in v.attacker_spans.iter().enumerate() {
        let field = format!("verifier.attacker_spans[{i}]");
        let haystack = match &span.location {
            SpanLocation::Turn { index } => s
                .agent
                .turns
                .iter()
                .find(|t| t.index == *index)
                .map(|t| &t.text),
            SpanLocation::Seed { object } => s
                .agent
                .seeds
                .iter()
                .find(|sd| &sd.object == object)
                .map(|sd| &sd.content),
        };
        match haystack {
            None => p.push(format!("{field}.location"), "points at no turn or seed"),
            Some(h) if span.text.is_empty() || !h.contains(span.text.as_str()) => p.push(
                format!("{field}.text"),
                "is not an exact substring of the turn or seed it points at",
            ),
            Some(_) => {}
        }
    }
    if v.attacker_spans.is_empty() {
        p.push(
            "verifier.attacker_spans",
            "every scenario has attacker-controlled text; mark it",
        );
    }
    for (i, u) in v.allowed_recipients.iter().enumerate() {
        if !users(s).contains(u) {
            p.push(
                format!("verifier.allowed_recipients[{i}]"),
                format!("unknown user `{u}`"),
            );
        }
    }
    match (s.factors.event, v.failure_class) {
        (None, Some(_)) => p.push(
            "verifier.failure_class",
            "static scenarios have no failure class",
        ),
        (Some(_), None) => p.push(
            "verifier.failure_class",
            "dyn96 scenarios need a failure class",
        ),
        _ => {}
    }
    if v.goal.checks.is_empty() {
        p.push("verifier.goal.checks", "needs at least one artifact check");
    }
    check_legit_needs(s, p);
    check_cross_scope(s, p);
}

/// A legitimate flow of protected data is taken in a turn of its own, asked by that
/// turn's speaker, and a read is asked for the turn's reply destination: exactly the
/// questions the guard asks when the task runs.
fn check_protected_legit_flow(s: &Scenario, f: &Flow, field: &str, p: &mut Problems) {
    let Some(turn) = f.turn else {
        p.push(
            format!("{field}.turn"),
            "a legitimate flow of a protected object names the turn that takes it",
        );
        return;
    };
    let Some(t) = s.agent.turns.iter().find(|t| t.index == turn) else {
        p.push(
            format!("{field}.turn"),
            format!("must be in 1..={}", s.agent.turn_count()),
        );
        return;
    };
    if f.requester != t.speaker {
        p.push(
            format!("{field}.requester"),
            format!("must be `{}`, the speaker of turn {turn}", t.speaker),
        );
    }
    let reply = Destination::Community {
        community: t.community.clone(),
    };
    if f.action == Action::Read && f.destination != reply {
        p.push(
            format!("{field}.destination"),
            format!("a read is asked for the turn's reply destination, {reply} in turn {turn}"),
        );
    }
}

/// Every protected object the legitimate task uses is read and carried out by it, and
/// the goal's artifact checks look for it where a legitimate flow carries it, so that a
/// defense that withholds it, or refuses the flow, costs the task; a check that wants a
/// protected value where no legitimate flow takes it would score a leak as completion.
fn check_legit_needs(s: &Scenario, p: &mut Problems) {
    let v = &s.verifier;
    for po in &v.protected {
        let flows: Vec<&Flow> = v
            .legit_flows
            .iter()
            .filter(|f| f.object == po.object)
            .collect();
        let needing: Vec<(usize, &ArtifactCheck)> = v
            .goal
            .checks
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.must_contain()
                    .iter()
                    .any(|m| po.canaries.iter().any(|canary| mentions(m, canary)))
            })
            .collect();
        for (i, check) in &needing {
            if !flows.iter().any(|f| carries_to(s, f, check)) {
                p.push(
                    format!("verifier.goal.checks[{i}].must_contain"),
                    format!(
                        "requires a canary of `{}` in the {}, where no legitimate flow of it goes; name the flow (the oracle must allow it) or drop the element",
                        po.object,
                        check.describe()
                    ),
                );
            }
        }
        if flows.is_empty() {
            continue;
        }
        if !flows.iter().any(|f| f.action == Action::Read) {
            p.push(
                "verifier.legit_flows",
                format!(
                    "`{}` is used by the legitimate task: name the read of it (action `read`, the turn's community)",
                    po.object
                ),
            );
        }
        if !flows.iter().any(|f| f.action != Action::Read) {
            p.push(
                "verifier.legit_flows",
                format!(
                    "`{}` is read by the legitimate task: name where the task carries it (disclose, write, share or send)",
                    po.object
                ),
            );
        }
        if needing.is_empty() {
            p.push(
                "verifier.goal.checks",
                format!(
                    "no artifact check requires a canary of `{}`, which the legitimate task needs: completion must see it",
                    po.object
                ),
            );
        }
    }
}

/// Whether legitimate flow `f` takes its object to where `check` looks: a disclosure in
/// the reply's turn to that turn's community, a write or share into the file's
/// namespace, a send to the workflow or the person.
fn carries_to(s: &Scenario, f: &Flow, check: &ArtifactCheck) -> bool {
    match (check, f.action, &f.destination) {
        (
            ArtifactCheck::Reply { turn, .. },
            Action::Disclose,
            Destination::Community { community },
        ) => {
            f.turn == Some(*turn)
                && s.agent
                    .turns
                    .iter()
                    .any(|t| t.index == *turn && &t.community == community)
        }
        (
            ArtifactCheck::File { namespace, .. },
            Action::Write | Action::Share,
            Destination::Namespace { namespace: n },
        ) => n == namespace,
        (ArtifactCheck::Workflow { name, .. }, Action::Send, Destination::Workflow { name: n }) => {
            n == name
        }
        (ArtifactCheck::Message { user, .. }, Action::Send, Destination::Person { user: u }) => {
            u == user
        }
        _ => false,
    }
}

fn check_cross_scope(s: &Scenario, p: &mut Problems) {
    let sources: BTreeSet<&CommunityId> = s
        .verifier
        .protected
        .iter()
        .filter_map(|po| s.platform.label(&po.object))
        .map(|l| &l.source)
        .collect();
    let scopes: Vec<CommunityId> = s
        .verifier
        .scored_destinations
        .iter()
        .filter_map(|d| CommunityState::scope_of(d, &s.platform).ok().flatten())
        .collect();
    let crosses = scopes.iter().any(|c| !sources.contains(c));
    match s.factors.boundary {
        Boundary::Inter if !crosses => p.push(
            "verifier.scored_destinations",
            "boundary `inter` needs a scored destination in another community than the protected object's source",
        ),
        Boundary::Intra if crosses => p.push(
            "verifier.scored_destinations",
            "boundary `intra` keeps scored destinations in the protected object's source community",
        ),
        _ => {}
    }
}
