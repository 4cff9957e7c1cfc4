//! The requester rule, on the suite's own scenarios and on generated deliveries.

use super::*;
use crate::evaluate::default_defense;
use cosec_scenarios::ids::{event_time, turn_time};
use cosec_scenarios::Scenario;
use proptest::prelude::*;

fn suite() -> &'static [Scenario] {
    static SUITE: std::sync::OnceLock<Vec<Scenario>> = std::sync::OnceLock::new();
    SUITE.get_or_init(|| {
        cosec_scenarios::suite::load_embedded(false)
            .unwrap()
            .scenarios
    })
}

fn defense() -> &'static Oracle {
    static DEFENSE: std::sync::OnceLock<Oracle> = std::sync::OnceLock::new();
    DEFENSE.get_or_init(|| default_defense().unwrap())
}

fn merge_owner() -> Scenario {
    suite()
        .iter()
        .find(|s| s.id.as_str() == "dy-merge-inter-owner-a4-s7")
        .unwrap()
        .clone()
}

fn ask(oracle: &Oracle, s: &Scenario, ctx: &TurnContext, outlet: &Outlet, o: &str) -> Decision {
    let state = CommunityState::at(&s.platform, ctx.time).unwrap();
    let req = AuthRequest::of_output(
        ctx,
        &s.platform,
        &s.agent.target_user,
        &state,
        outlet,
        &ObjectId::from(o),
    );
    oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &req, None)
}

/// The merge notice's delivery has no speaker: posting the owner's ledger into the
/// merged community is asked for the turn's earlier requester and every member, and
/// refused; the same post asked for by the owner herself is her consent.
#[test]
fn a_notice_never_acts_with_the_owners_rights() {
    let s = merge_owner();
    let notice = TurnContext {
        earlier_requesters: vec![UserId::from("dana")],
        ..TurnContext::new(5, CommunityId::from("wellness"), None, event_time(5))
    };
    let outlet = Outlet::post(CommunityId::from("wellness"));
    for oracle in [Oracle::builtin().unwrap(), default_defense().unwrap()] {
        let d = ask(&oracle, &s, &notice, &outlet, "mira-pharmacy-reimbursement");
        assert!(!d.allowed, "{d:?}");
        assert!(d.reasons.iter().any(|r| r.starts_with("as `")), "{d:?}");
        let owner = TurnContext::new(
            6,
            CommunityId::from("wellness"),
            Some(UserId::from("mira")),
            turn_time(6),
        );
        let d = ask(&oracle, &s, &owner, &outlet, "mira-pharmacy-reimbursement");
        assert!(d.allowed, "{d:?}");
    }
    let state = CommunityState::at(&s.platform, event_time(5)).unwrap();
    let principals = notice.principals(&state);
    assert!(principals.contains(&UserId::from("dana")));
    assert!(principals.contains(&UserId::from("jon")), "{principals:?}");
}

#[test]
fn a_speaker_is_the_only_principal_and_the_request_names_its_recipients() {
    let s = merge_owner();
    let ctx = TurnContext::new(
        3,
        CommunityId::from("carepod"),
        Some(UserId::from("dana")),
        turn_time(3),
    );
    let state = CommunityState::at(&s.platform, ctx.time).unwrap();
    let req = AuthRequest::of_output(
        &ctx,
        &s.platform,
        &s.agent.target_user,
        &state,
        &Outlet::reply(&ctx),
        &ObjectId::from("mira-pharmacy-reimbursement"),
    );
    assert_eq!(req.principals, vec![UserId::from("dana")]);
    assert_eq!(req.time, turn_time(3));
    assert_eq!(
        req.recipients,
        ["dana", "leo", "mira"].map(UserId::from).to_vec()
    );
}

#[test]
fn a_request_without_principals_or_at_another_time_is_refused() {
    let s = merge_owner();
    let oracle = Oracle::builtin().unwrap();
    let state = CommunityState::at(&s.platform, turn_time(1)).unwrap();
    let mut req = AuthRequest {
        principals: Vec::new(),
        action: Action::Disclose,
        object: ObjectId::from("funds-overview"),
        destination: Destination::Community {
            community: CommunityId::from("carepod"),
        },
        time: turn_time(1),
        recipients: Vec::new(),
    };
    let d = oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &req, None);
    assert!(!d.allowed && !d.errors.is_empty());
    req.principals = vec![UserId::from("dana")];
    assert!(
        oracle
            .authorize_request(&s.platform, &s.agent.target_user, &state, &req, None)
            .allowed
    );
    req.time = turn_time(2);
    let d = oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &req, None);
    assert!(!d.allowed && !d.errors.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// For any scenario, delivery and outlet: a delivery without a speaker is allowed
    /// only when every one of its principals would be allowed as the speaker, and
    /// adding principals never allows more.
    #[test]
    fn a_silent_delivery_is_the_conjunction_of_its_principals(
        pick in 0usize..208,
        turn in 1u8..=8,
        notice in any::<bool>(),
        earlier in proptest::collection::vec(0usize..8, 0..3),
        object_pick in 0usize..8,
        outlet_pick in 0usize..4,
    ) {
        let suite = suite();
        let s = &suite[pick % suite.len()];
        let oracle = defense();
        let Some(t) = s.agent.turns.iter().find(|t| t.index == turn) else {
            return Ok(());
        };
        let time = if notice { event_time(turn) } else { turn_time(turn) };
        let Ok(state) = CommunityState::at(&s.platform, time) else {
            return Ok(());
        };
        let users = &s.platform.users;
        let ctx = TurnContext {
            earlier_requesters: earlier.iter().map(|i| users[i % users.len()].clone()).collect(),
            ..TurnContext::new(turn, t.community.clone(), None, time)
        };
        let object = &s.platform.labels[object_pick % s.platform.labels.len()].object;
        let outlet = match outlet_pick {
            0 => Outlet::reply(&ctx),
            1 => Outlet::context(&ctx),
            2 => Outlet::message(users[object_pick % users.len()].clone()),
            _ => Outlet::write(Namespace::Community { community: t.community.clone() }),
        };
        let req = AuthRequest::of_output(&ctx, &s.platform, &s.agent.target_user, &state, &outlet, object);
        let silent = oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &req, None);
        let each: Vec<bool> = req.principals.iter().map(|p| {
            let spoken = TurnContext::new(turn, t.community.clone(), Some(p.clone()), time);
            let one = AuthRequest::of_output(&spoken, &s.platform, &s.agent.target_user, &state, &outlet, object);
            oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &one, None).allowed
        }).collect();
        prop_assert_eq!(silent.allowed, !each.is_empty() && each.iter().all(|a| *a));
        let prepared = oracle.prepare(&s.platform, &s.agent.target_user, &state).unwrap();
        let fast = oracle.authorize_request(&s.platform, &s.agent.target_user, &state, &req, Some(&prepared));
        prop_assert_eq!(fast, silent);
    }
}
