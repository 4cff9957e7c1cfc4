//! The fast paths (prepared state, precomputed policy ids) must answer exactly like the
//! plain evaluation, for any policy a researcher writes.

use super::*;
use crate::evaluate::{DEFAULT_DEFENSE_FILE_NAME, DEFAULT_DEFENSE_SOURCE};
use cosec_scenarios::ids::turn_time;

/// A policy whose requester-side rule and one recipient-side rule that never names the
/// principal error on most objects (overflow), next to receive-only and exact-action
/// rules, so that errors and reasons are exercised on both sides.
const ERRORING: &str = r#"
@id("owner-any")
permit (principal, action, resource) when { principal == resource.owner };
@id("overflow")
forbid (principal, action in [Action::"egress"], resource)
when { resource.created_at * 9223372036854775807 > 0 };
@id("grantee-receives")
permit (principal, action == Action::"receive", resource)
when { resource.grantees.contains(principal) };
@id("send-public")
permit (principal, action == Action::"send", resource) when { resource.public };
@id("receive-overflow")
forbid (principal, action == Action::"receive", resource)
when { resource.created_at * 9223372036854775807 > 0 };
@id("public-receives")
permit (principal, action == Action::"receive", resource) when { resource.public };
"#;

fn policies() -> Vec<(&'static str, Oracle)> {
    let sources = [
        ("oracle", ORACLE_SOURCE),
        ("default", DEFAULT_DEFENSE_SOURCE),
        (
            "lockdown",
            include_str!("../../../examples/defenses/lockdown.cedar"),
        ),
        (
            "owner-consent",
            include_str!("../../../examples/defenses/owner-consent.cedar"),
        ),
        (
            "sensitivity-tiered",
            include_str!("../../../examples/defenses/sensitivity-tiered.cedar"),
        ),
        (
            "strict-no-cross-community",
            include_str!("../../../examples/defenses/strict-no-cross-community.cedar"),
        ),
        ("erroring", ERRORING),
    ];
    sources
        .into_iter()
        .map(|(name, src)| {
            let file = if name == "default" {
                DEFAULT_DEFENSE_FILE_NAME
            } else {
                name
            };
            (
                name,
                Oracle::from_sources(SCHEMA_SOURCE, src, file).unwrap(),
            )
        })
        .collect()
}

#[test]
fn prepared_state_and_plain_evaluation_agree_on_every_suite_flow() {
    let suite = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios;
    let mut errored = 0;
    for (name, oracle) in policies() {
        for s in &suite {
            let state = CommunityState::at(&s.platform, turn_time(s.verifier.scored_turn)).unwrap();
            let prepared = oracle
                .prepare(&s.platform, &s.agent.target_user, &state)
                .unwrap();
            for f in s
                .verifier
                .scored_flows
                .iter()
                .chain(&s.verifier.legit_flows)
            {
                let q = Question::of_flow(s, &state, f);
                let reference = oracle.authorize(&q);
                assert_eq!(
                    oracle.authorize_prepared(&q, &prepared),
                    reference,
                    "{name} {} prepared",
                    s.id
                );
                errored += usize::from(!reference.errors.is_empty());
            }
        }
    }
    assert!(errored > 0, "the erroring policy never errored");
}

#[test]
fn prepared_state_agrees_on_every_destination_object_and_requester() {
    let suite = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios;
    let stranger = UserId::from("nobody-knows-me");
    let unknown = ObjectId::from("no-such-object");
    for (name, oracle) in policies() {
        for s in suite.iter().step_by(23) {
            let state = CommunityState::at(&s.platform, turn_time(s.verifier.scored_turn)).unwrap();
            let prepared = oracle
                .prepare(&s.platform, &s.agent.target_user, &state)
                .unwrap();
            let mut destinations: Vec<&Destination> = prepared.destinations.keys().collect();
            let missing = Destination::Workflow {
                name: "no-such-workflow".to_owned(),
            };
            destinations.push(&missing);
            let mut objects: Vec<&ObjectId> = s.platform.labels.iter().map(|l| &l.object).collect();
            objects.push(&unknown);
            let requesters = [&s.agent.target_user, &s.platform.users[0], &stranger];
            for d in &destinations {
                for o in &objects {
                    for r in requesters {
                        let q = Question {
                            platform: &s.platform,
                            target: &s.agent.target_user,
                            state: &state,
                            requester: r,
                            action: Action::Send,
                            object: o,
                            destination: d,
                        };
                        assert_eq!(
                            oracle.authorize_prepared(&q, &prepared),
                            oracle.authorize(&q),
                            "{name} {} {r} {o} {d:?}",
                            s.id
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn prepared_entities_skip_only_the_schema_check() {
    let suite = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios;
    let oracle = Oracle::from_sources(
        SCHEMA_SOURCE,
        DEFAULT_DEFENSE_SOURCE,
        DEFAULT_DEFENSE_FILE_NAME,
    )
    .unwrap();
    assert!(
        oracle.actions.as_ref().is_some_and(|a| !a.is_empty()),
        "the schema's actions were not listed, so every state is checked"
    );
    let mut states = 0;
    for s in &suite {
        for turn in 1..=s.agent.turns.len() as u8 {
            let state = CommunityState::at(&s.platform, turn_time(turn)).unwrap();
            let trusted = oracle
                .prepare(&s.platform, &s.agent.target_user, &state)
                .unwrap();
            // The build Cedar checks entity by entity against the schema, which also
            // supplies the action entities.
            let checked = PreparedState::build(
                &s.platform,
                &s.agent.target_user,
                &state,
                Conformance::Checked(&oracle.schema),
            )
            .unwrap();
            assert_eq!(trusted.entities, checked.entities, "{} turn {turn}", s.id);
            states += 1;
        }
    }
    assert!(states > suite.len(), "only {states} states compared");
}

#[test]
fn a_read_is_allowed_only_where_the_requester_may_also_say_it() {
    use crate::check::EmptyPolicy;
    let default = DEFAULT_DEFENSE_SOURCE;
    let no_egress = default
        .replace("Action::\"egress\", ", "")
        .replace(", Action::\"egress\"", "");
    assert_ne!(no_egress, default);
    let with = Oracle::from_sources_with(
        SCHEMA_SOURCE,
        default,
        DEFAULT_DEFENSE_FILE_NAME,
        EmptyPolicy::Refuse,
    )
    .unwrap();
    let without = Oracle::from_sources_with(
        SCHEMA_SOURCE,
        &no_egress,
        "no-egress.cedar",
        EmptyPolicy::Refuse,
    )
    .unwrap();
    let suite = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios;
    let mut reads = 0;
    for s in &suite {
        for flow in s
            .verifier
            .legit_flows
            .iter()
            .filter(|f| f.action == Action::Read)
        {
            let at = turn_time(flow.turn_or(s.verifier.scored_turn));
            if !with.authorize_flow(s, flow, at).allowed {
                continue;
            }
            reads += 1;
            let d = without.authorize_flow(s, flow, at);
            assert!(!d.allowed, "{}: {flow:?}", s.id);
            assert!(
                d.reasons
                    .iter()
                    .any(|r| r.starts_with("reply of requester")),
                "{}: {:?}",
                s.id,
                d.reasons
            );
        }
    }
    assert!(
        reads > 100,
        "only {reads} reads allowed by the default policy"
    );
}
