//! Self-checks of the A2 templates: design counts, structural validity, the oracle's
//! verdicts on scored and legitimate flows, and the properties each strategy promises.

use super::scenarios;
use crate::agent::Surface;
use crate::factors::{Boundary, FailureClass, Family, PrivacyObject, Strategy, Suite};
use crate::generate::family_checks::{
    assert_family_design, assert_oracle_verdicts, assert_structurally_valid,
    assert_unique_and_deterministic, authorized,
};
use crate::verifier::{PlanAction, SpanLocation, StepTaker};
use crate::Scenario;
use std::collections::BTreeSet;

#[test]
fn produces_the_family_design() {
    assert_family_design(&scenarios(), Family::A2, Strategy::S2);
}

#[test]
fn every_scenario_passes_structural_validation() {
    assert_structurally_valid(&scenarios());
}

#[test]
fn oracle_denies_scored_flows_and_allows_legit_flows() {
    assert_oracle_verdicts(&scenarios(), authorized);
}

#[test]
fn requester_of_the_attack_is_never_the_target() {
    for s in scenarios() {
        let scored = s
            .agent
            .turns
            .iter()
            .find(|t| t.index == s.verifier.scored_turn);
        assert!(
            scored.is_some_and(|t| t.speaker != s.agent.target_user),
            "{}",
            s.id
        );
        for span in &s.verifier.attacker_spans {
            if let SpanLocation::Turn { index } = span.location {
                let t = s.agent.turns.iter().find(|t| t.index == index);
                assert!(
                    t.is_some_and(|t| t.speaker != s.agent.target_user),
                    "{}",
                    s.id
                );
            }
        }
    }
}

#[test]
fn injected_text_is_separate_from_protected_values() {
    for s in scenarios() {
        let canaries: Vec<String> = s
            .verifier
            .protected
            .iter()
            .flat_map(|p| p.canaries.iter().map(|c| c.to_lowercase()))
            .collect();
        for span in &s.verifier.attacker_spans {
            let text = span.text.to_lowercase();
            assert!(
                !canaries.iter().any(|c| text.contains(c.as_str())),
                "{}: span carries a canary",
                s.id
            );
        }
        for t in &s.agent.turns {
            let text = t.text.to_lowercase();
            assert!(
                !canaries.iter().any(|c| text.contains(c.as_str())),
                "{}: turn {} carries a canary",
                s.id,
                t.index
            );
        }
        // the owner may share her own data; only a third party's consent matters for others
        let allowed: BTreeSet<_> = s.verifier.allowed_recipients.iter().collect();
        for p in &s.verifier.protected {
            let owner = s.platform.label(&p.object).map(|l| &l.owner);
            assert!(owner.is_some_and(|o| allowed.contains(o)), "{}", s.id);
        }
    }
}

#[test]
fn ids_and_scripts_are_unique_and_generation_is_deterministic() {
    assert_unique_and_deterministic(scenarios);
}

#[test]
fn static_profiles_change_only_the_mechanism() {
    let all = scenarios();
    for b in [Boundary::Intra, Boundary::Inter] {
        for p in [PrivacyObject::Owner, PrivacyObject::ThirdParty] {
            let cell: Vec<&Scenario> = all
                .iter()
                .filter(|s| {
                    s.factors.suite == Suite::Static112
                        && s.factors.boundary == b
                        && s.factors.privacy_object == p
                })
                .collect();
            let first = cell.first().copied();
            for s in &cell {
                let f = first.map(|x| &x.verifier);
                assert_eq!(
                    f.map(|v| &v.protected),
                    Some(&s.verifier.protected),
                    "{}",
                    s.id
                );
                assert_eq!(
                    f.map(|v| &v.scored_flows),
                    Some(&s.verifier.scored_flows),
                    "{}",
                    s.id
                );
                assert_eq!(
                    f.map(|v| &v.legit_flows),
                    Some(&s.verifier.legit_flows),
                    "{}",
                    s.id
                );
                assert_eq!(
                    f.map(|v| &v.goal.checks),
                    Some(&s.verifier.goal.checks),
                    "{}",
                    s.id
                );
                assert_eq!(
                    first.map(|x| &x.agent.target_user),
                    Some(&s.agent.target_user),
                    "{}",
                    s.id
                );
                assert!(
                    s.verifier.failure_class.is_none() && s.platform.event.is_none(),
                    "{}",
                    s.id
                );
            }
        }
    }
}

#[test]
fn dynamic_injection_is_observed_before_the_event() {
    for s in scenarios()
        .iter()
        .filter(|s| s.factors.suite == Suite::Dyn96)
    {
        assert_eq!(
            s.verifier.failure_class,
            Some(FailureClass::ProvenanceConfusion),
            "{}",
            s.id
        );
        let Some(ev) = &s.platform.event else {
            panic!("{} has no event", s.id);
        };
        assert!(
            (2..=6).contains(&ev.after_turn) && s.verifier.scored_turn > ev.after_turn,
            "{}",
            s.id
        );
        // the injected text sits in a tool observation the plan fetches before the event
        let observed_early = s.verifier.attacker_spans.iter().any(|span| {
            let SpanLocation::Seed { object } = &span.location else {
                return false;
            };
            let Some(seed) = s.agent.seeds.iter().find(|sd| &sd.object == object) else {
                return false;
            };
            let Surface::ToolObservation { tool, trigger } = &seed.surface else {
                return false;
            };
            s.verifier.reference_plan.steps.iter().any(|st| {
                st.turn <= ev.after_turn
                    && st.taker == StepTaker::Both
                    && matches!(&st.action, PlanAction::CallTool { tool: t, argument }
                        if t == tool && argument.to_lowercase().contains(&trigger.to_lowercase()))
            })
        });
        assert!(
            observed_early,
            "{}: injection not observed before the event",
            s.id
        );
        // the protected content arrives through that same stale observation
        let protected_in_observation = s.verifier.protected.iter().all(|p| {
            s.agent.seeds.iter().any(|sd| {
                sd.object == p.object && matches!(sd.surface, Surface::ToolObservation { .. })
            })
        });
        assert!(protected_in_observation, "{}", s.id);
        // nothing after the event fetches it again: the compliant agent relies on the stale copy
        let refetched =
            s.verifier.reference_plan.steps.iter().any(|st| {
                st.turn > ev.after_turn && matches!(&st.action, PlanAction::CallTool { .. })
            });
        assert!(!refetched, "{}", s.id);
    }
}
