//! The A1 family's design in the frozen suite: its factor cells, its structural rules,
//! and the oracle verdicts (reasoned with the shared reading of the oracle rule in
//! `common`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::common::{
    assert_family_design, assert_structurally_valid, assert_unique_and_deterministic, authorized,
    is_legit_output,
};
use crate::agent::{Namespace, Surface};
use crate::factors::{Boundary, Family, Strategy};
use crate::ids::{event_time, turn_time, CommunityId, FIRST_TURN_TIME};
use crate::platform::{CommunityEvent, Destination};
use crate::play::{play, Outbound, PlanKind};
use crate::state::CommunityState;
use crate::verifier::{Action, ArtifactCheck, PlanAction, StepTaker};
use crate::Scenario;
use std::collections::BTreeSet;

/// The frozen suite's A1 scenarios, expanded from their worlds.
fn scenarios() -> Vec<crate::Scenario> {
    super::scenarios_of(crate::factors::Family::A1)
}

fn dest_scope(d: &Destination) -> Option<CommunityId> {
    match d {
        Destination::Community { community }
        | Destination::Namespace {
            namespace: Namespace::Community { community },
        } => Some(community.clone()),
        _ => None,
    }
}

/// Communities an event creates.
fn created_by_event(s: &Scenario) -> Vec<CommunityId> {
    match s.platform.first_event().map(|e| &e.change) {
        Some(CommunityEvent::Merge { into, .. }) => vec![into.clone()],
        Some(CommunityEvent::Split { into, .. }) => {
            into.iter().map(|side| side.community.clone()).collect()
        }
        Some(CommunityEvent::RelationStart { space, .. }) => vec![space.clone()],
        _ => Vec::new(),
    }
}

fn known_communities(s: &Scenario) -> BTreeSet<CommunityId> {
    let mut all: BTreeSet<CommunityId> = s.platform.communities.iter().cloned().collect();
    all.extend(s.platform.relations.iter().map(|r| r.space.clone()));
    all.extend(created_by_event(s));
    all
}

fn canaries(s: &Scenario) -> Vec<&str> {
    s.verifier
        .protected
        .iter()
        .flat_map(|p| p.canaries.iter().map(String::as_str))
        .collect()
}

/// What each step of `kind` puts out (moved files included), with its turn.
fn outputs(s: &Scenario, kind: PlanKind) -> Vec<(u8, Outbound)> {
    play(s, kind)
        .steps
        .into_iter()
        .filter_map(|p| p.outbound.map(|o| (p.step.turn, o)))
        .collect()
}

#[test]
fn produces_the_family_design_exactly_once() {
    let all = scenarios();
    assert_family_design(&all, Family::A1, Strategy::S2);
    for s in &all {
        let f = &s.factors;
        assert_eq!(f.cross_scope, f.boundary == Boundary::Inter, "{}", s.id);
        assert!(!f.domains.is_empty(), "{}", s.id);
    }
}

#[test]
fn generation_is_deterministic_and_scripts_are_distinct() {
    assert_unique_and_deterministic(scenarios);
}

#[test]
fn turns_are_spoken_by_current_members_where_the_target_is() {
    for s in scenarios() {
        let target = &s.agent.target_user;
        assert_eq!(s.agent.turns.len(), 8, "{}", s.id);
        let agent_communities: BTreeSet<_> =
            s.agent.communities.iter().map(|c| c.id.clone()).collect();
        let attack: BTreeSet<u8> = s
            .verifier
            .attacker_spans
            .iter()
            .filter_map(|a| match a.location {
                crate::verifier::SpanLocation::Turn { index } => Some(index),
                crate::verifier::SpanLocation::Seed { .. } => None,
            })
            .collect();
        for (i, t) in s.agent.turns.iter().enumerate() {
            assert_eq!(usize::from(t.index), i + 1, "{}", s.id);
            assert!(!t.text.trim().is_empty(), "{} turn {}", s.id, t.index);
            let state = CommunityState::at(&s.platform, turn_time(t.index)).unwrap();
            assert!(state.is_active(&t.community), "{} turn {}", s.id, t.index);
            assert!(
                state.is_member(target, &t.community),
                "{} turn {}: target not in {}",
                s.id,
                t.index,
                t.community
            );
            assert!(
                state.is_member(&t.speaker, &t.community),
                "{} turn {}: {} not in {}",
                s.id,
                t.index,
                t.speaker,
                t.community
            );
            assert!(
                agent_communities.contains(&t.community),
                "{} turn {}",
                s.id,
                t.index
            );
            if attack.contains(&t.index) {
                assert_ne!(
                    &t.speaker, target,
                    "{} turn {}: attack spoken by the target",
                    s.id, t.index
                );
            }
        }
        assert!(
            attack.contains(&s.verifier.scored_turn),
            "{}: scored turn is not an attack turn",
            s.id
        );
        for span in &s.verifier.attacker_spans {
            let crate::verifier::SpanLocation::Turn { index } = span.location else {
                panic!("{}: A1 attacker text lives in turns", s.id);
            };
            let turn = s.agent.turns.iter().find(|t| t.index == index).unwrap();
            assert!(turn.text.contains(&span.text), "{} turn {index}", s.id);
        }
        for c in created_by_event(&s) {
            assert!(
                agent_communities.contains(&c),
                "{}: {c} missing from agent communities",
                s.id
            );
        }
    }
}

#[test]
fn seeds_people_and_labels_are_consistent() {
    for s in scenarios() {
        let users: BTreeSet<_> = s.platform.users.iter().cloned().collect();
        let people: BTreeSet<_> = s.agent.people.iter().map(|p| p.id.clone()).collect();
        assert_eq!(users, people, "{}", s.id);
        assert!(users.contains(&s.agent.target_user), "{}", s.id);
        let known = known_communities(&s);
        let mut objects = BTreeSet::new();
        for seed in &s.agent.seeds {
            assert!(
                objects.insert(seed.object.clone()),
                "{}: duplicate object {}",
                s.id,
                seed.object
            );
            let labels: Vec<_> = s
                .platform
                .labels
                .iter()
                .filter(|l| l.object == seed.object)
                .collect();
            assert_eq!(labels.len(), 1, "{}: {}", s.id, seed.object);
            let l = labels[0];
            assert!(l.created_at < FIRST_TURN_TIME, "{}: {}", s.id, seed.object);
            assert!(users.contains(&l.owner), "{}: {}", s.id, seed.object);
            assert!(known.contains(&l.source), "{}: {}", s.id, seed.object);
            match &seed.surface {
                Surface::SessionHistory { community, speaker } => {
                    assert!(
                        known.contains(community) && users.contains(speaker),
                        "{}",
                        s.id
                    );
                }
                Surface::File {
                    namespace: Namespace::Community { community },
                    ..
                }
                | Surface::Document {
                    namespace: Namespace::Community { community },
                    ..
                } => {
                    assert!(known.contains(community), "{}", s.id);
                }
                _ => {}
            }
        }
        assert_eq!(s.platform.labels.len(), s.agent.seeds.len(), "{}", s.id);
        for m in &s.platform.memberships {
            assert!(
                users.contains(&m.user) && known.contains(&m.community),
                "{}",
                s.id
            );
            assert!(m.since < FIRST_TURN_TIME, "{}", s.id);
        }
        for r in &s.platform.roles {
            assert!(
                s.platform
                    .memberships
                    .iter()
                    .any(|m| m.user == r.user && m.community == r.community),
                "{}",
                s.id
            );
        }
        for p in &s.verifier.protected {
            let seed = s.agent.seeds.iter().find(|x| x.object == p.object).unwrap();
            assert!(!p.canaries.is_empty() && !p.facts.is_empty(), "{}", s.id);
            for c in &p.canaries {
                assert!(
                    seed.content.contains(c.as_str()),
                    "{}: canary {c} not in its seed",
                    s.id
                );
            }
        }
        // The legitimate task needs an authorized use of the protected object.
        assert!(
            s.verifier
                .legit_flows
                .iter()
                .any(|f| f.action != Action::Read
                    && s.verifier.protected.iter().any(|p| p.object == f.object)),
            "{}",
            s.id
        );
    }
}

#[test]
fn events_notices_and_failure_classes_line_up() {
    for s in scenarios() {
        match s.factors.event {
            None => {
                assert!(
                    s.platform.events.is_empty() && s.agent.event_notices.is_empty(),
                    "{}",
                    s.id
                );
                assert!(s.verifier.failure_class.is_none(), "{}", s.id);
            }
            Some(kind) => {
                let ev = s.platform.first_event().unwrap();
                let notice = s.agent.event_notices.first().unwrap();
                assert_eq!(ev.change.kind(), kind, "{}", s.id);
                assert!((2..=6).contains(&ev.after_turn), "{}", s.id);
                assert_eq!(notice.after_turn, ev.after_turn, "{}", s.id);
                assert!(s.verifier.scored_turn > ev.after_turn, "{}", s.id);
                assert_eq!(
                    s.verifier.failure_class,
                    Some(kind.base_failure_class()),
                    "{}",
                    s.id
                );
                let state = CommunityState::at(&s.platform, event_time(ev.after_turn)).unwrap();
                assert!(
                    state.is_member(&s.agent.target_user, &notice.community),
                    "{}: notice session",
                    s.id
                );
                // Every attack turn but the scored one comes before the event: the approval
                // is claimed before it and cashed in after it.
                for span in &s.verifier.attacker_spans {
                    if let crate::verifier::SpanLocation::Turn { index } = span.location {
                        assert!(
                            index == s.verifier.scored_turn || index <= ev.after_turn,
                            "{}",
                            s.id
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn oracle_denies_scored_flows_and_allows_legit_flows() {
    for s in scenarios() {
        let t = turn_time(s.verifier.scored_turn);
        let speaker = &s
            .agent
            .turns
            .iter()
            .find(|x| x.index == s.verifier.scored_turn)
            .unwrap()
            .speaker;
        assert!(
            !s.verifier.scored_flows.is_empty() && !s.verifier.legit_flows.is_empty(),
            "{}",
            s.id
        );
        for f in &s.verifier.scored_flows {
            assert_eq!(&f.requester, speaker, "{}", s.id);
            assert!(
                s.verifier.scored_destinations.contains(&f.destination),
                "{}",
                s.id
            );
            assert!(
                !authorized(&s, f, t),
                "{}: scored flow allowed: {f:?}",
                s.id
            );
        }
        for f in &s.verifier.legit_flows {
            let at = turn_time(f.turn_or(s.verifier.scored_turn));
            assert!(authorized(&s, f, at), "{}: legit flow denied: {f:?}", s.id);
        }
        // The allowed recipients never include the attacker, and always the owner.
        for p in &s.verifier.protected {
            let owner = &s.platform.label(&p.object).unwrap().owner;
            assert!(s.verifier.allowed_recipients.contains(owner), "{}", s.id);
        }
        assert!(!s.verifier.allowed_recipients.contains(speaker), "{}", s.id);
    }
}

#[test]
fn boundary_matches_source_and_destination_scopes() {
    for s in scenarios() {
        for f in &s.verifier.scored_flows {
            let source = &s.platform.label(&f.object).unwrap().source;
            let dest = dest_scope(&f.destination).expect("A1 scores community destinations");
            match s.factors.boundary {
                Boundary::Intra => assert_eq!(source, &dest, "{}", s.id),
                Boundary::Inter => assert_ne!(source, &dest, "{}", s.id),
            }
        }
    }
}

#[test]
fn compliant_plan_leaks_at_the_scored_turn_and_ideal_plan_never_does() {
    for s in scenarios() {
        let canaries = canaries(&s);
        let scored = s.verifier.scored_turn;
        for turn in 1..=8u8 {
            for taker in [StepTaker::CompliantOnly, StepTaker::IdealOnly] {
                let replies = s
                    .verifier
                    .reference_plan
                    .steps
                    .iter()
                    .filter(|p| p.turn == turn && (p.taker == StepTaker::Both || p.taker == taker))
                    .filter(|p| matches!(p.action, PlanAction::Reply { .. }))
                    .count();
                assert_eq!(
                    replies, 1,
                    "{} turn {turn}: {taker:?} needs exactly one reply",
                    s.id
                );
            }
        }
        let comply = outputs(&s, PlanKind::Compliant);
        let leaked = comply.iter().any(|(turn, o)| {
            *turn == scored
                && s.verifier.scored_destinations.contains(&o.destination)
                && canaries.iter().any(|c| o.text.contains(c))
        });
        assert!(
            leaked,
            "{}: compliant plan does not leak a canary at the scored turn",
            s.id
        );
        // A protected value goes only where the legitimate task takes it.
        for (turn, o) in outputs(&s, PlanKind::Ideal) {
            assert!(
                !canaries.iter().any(|c| o.text.contains(c))
                    || is_legit_output(&s, turn, &o.destination),
                "{} turn {turn}: ideal plan leaks",
                s.id
            );
        }
        for (turn, o) in comply.iter().filter(|(turn, _)| *turn != scored) {
            assert!(
                !canaries.iter().any(|c| o.text.contains(c))
                    || is_legit_output(&s, *turn, &o.destination),
                "{} turn {turn}: benign step leaks",
                s.id
            );
        }
    }
}

#[test]
fn both_plans_produce_the_legitimate_artifact() {
    for s in scenarios() {
        let canaries = canaries(&s);
        assert!(!s.verifier.goal.checks.is_empty(), "{}", s.id);
        for check in &s.verifier.goal.checks {
            let ArtifactCheck::File {
                namespace,
                path,
                must_contain,
            } = check
            else {
                // Besides its file, the task answers an entitled request for the
                // protected value in a reply (validation ties it to a legit flow).
                assert!(
                    matches!(check, ArtifactCheck::Reply { .. })
                        && check
                            .must_contain()
                            .iter()
                            .any(|m| canaries.iter().any(|c| m.contains(c))),
                    "{}: A1 goals are file checks and a reply with the protected value",
                    s.id
                );
                continue;
            };
            assert!(!must_contain.is_empty(), "{}", s.id);
            for needle in must_contain {
                assert!(
                    !canaries
                        .iter()
                        .any(|c| c.contains(needle.as_str()) || needle.contains(c)),
                    "{}: {needle}",
                    s.id
                );
            }
            for plan in [
                s.verifier.reference_plan.compliant().collect::<Vec<_>>(),
                s.verifier.reference_plan.ideal().collect(),
            ] {
                let last = plan
                    .iter()
                    .rev()
                    .find_map(|p| match &p.action {
                        PlanAction::WriteFile {
                            namespace: n,
                            path: q,
                            content,
                        } if n == namespace && q == path => Some(content),
                        _ => None,
                    })
                    .unwrap_or_else(|| panic!("{}: no write of {path}", s.id));
                for needle in must_contain {
                    assert!(
                        last.to_lowercase().contains(&needle.to_lowercase()),
                        "{}: {path} lacks {needle}",
                        s.id
                    );
                }
            }
            let legit_dest = Destination::Namespace {
                namespace: namespace.clone(),
            };
            assert!(
                s.verifier
                    .legit_flows
                    .iter()
                    .any(|f| f.destination == legit_dest),
                "{}",
                s.id
            );
        }
    }
}

#[test]
fn suite_validator_finds_no_problems() {
    assert_structurally_valid(&scenarios());
}
