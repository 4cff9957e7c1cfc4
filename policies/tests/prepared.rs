//! Prepared entities give exactly the same answers as building them per question.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_policies::{Oracle, Question};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::CommunityState;

#[test]
fn prepared_and_fresh_entities_agree_on_every_suite_flow() {
    let oracle = Oracle::builtin().unwrap();
    let mut compared = 0;
    for s in cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios
    {
        let state = CommunityState::at(&s.platform, turn_time(s.verifier.scored_turn)).unwrap();
        let prepared = oracle
            .prepare(&s.platform, &s.agent.target_user, &state)
            .unwrap();
        for flow in s
            .verifier
            .scored_flows
            .iter()
            .chain(&s.verifier.legit_flows)
        {
            let q = Question::of_flow(&s, &state, flow);
            assert_eq!(
                oracle.authorize_prepared(&q, &prepared),
                oracle.authorize(&q),
                "{}",
                s.id
            );
            compared += 1;
        }
    }
    assert!(compared > 400);
}

#[test]
fn the_community_models_may_hold_agrees_with_the_cedar_oracle() {
    use cosec_scenarios::{Action, Destination};
    let oracle = Oracle::builtin().unwrap();
    let mut compared = 0;
    for s in cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios
    {
        let state = CommunityState::at(&s.platform, turn_time(s.verifier.scored_turn)).unwrap();
        for label in &s.platform.labels {
            for user in &s.platform.users {
                // Sending an object to oneself is allowed exactly when one may hold it.
                let to_self = Destination::Person { user: user.clone() };
                let q = Question {
                    platform: &s.platform,
                    target: &s.agent.target_user,
                    state: &state,
                    requester: user,
                    action: Action::Send,
                    object: &label.object,
                    destination: &to_self,
                };
                assert_eq!(
                    oracle.authorize(&q).allowed,
                    state.may_hold(&s.platform, label, user),
                    "{}: {} holding {}",
                    s.id,
                    user,
                    label.object
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 3000, "{compared}");
}
