//! The A2 family's design in the frozen suite: design counts, structural validity, the oracle's
//! verdicts on scored and legitimate flows, and the properties each strategy promises.

use super::common::{
    assert_family_design, assert_fixed_across, assert_oracle_verdicts, assert_structurally_valid,
    assert_unique_and_deterministic, authorized, static_profiles,
};
use crate::agent::Surface;
use crate::factors::{FailureClass, Family, Strategy, Suite};
use crate::verifier::{PlanAction, SpanLocation, StepTaker};
use std::collections::BTreeSet;

/// The frozen suite's A2 scenarios, expanded from their worlds.
fn scenarios() -> Vec<crate::Scenario> {
    super::scenarios_of(crate::factors::Family::A2)
}

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
    for profile in static_profiles(&all) {
        assert_fixed_across(&profile, "protected", |s| s.verifier.protected.clone());
        assert_fixed_across(&profile, "scored flows", |s| {
            s.verifier.scored_flows.clone()
        });
        assert_fixed_across(&profile, "legit flows", |s| s.verifier.legit_flows.clone());
        assert_fixed_across(&profile, "goal checks", |s| s.verifier.goal.checks.clone());
        assert_fixed_across(&profile, "target", |s| s.agent.target_user.clone());
        for s in &profile {
            assert!(
                s.verifier.failure_class.is_none() && s.platform.events.is_empty(),
                "{}",
                s.id
            );
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
        let Some(ev) = s.platform.first_event() else {
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
                        if t == tool && crate::search::triggers(trigger, argument))
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
        // nothing between the event and the scored action fetches it again: the
        // compliant agent relies on the stale copy (a later, entitled request may)
        let refetched = s.verifier.reference_plan.steps.iter().any(|st| {
            st.turn > ev.after_turn
                && st.turn <= s.verifier.scored_turn
                && matches!(&st.action, PlanAction::CallTool { .. })
        });
        assert!(!refetched, "{}", s.id);
    }
}
