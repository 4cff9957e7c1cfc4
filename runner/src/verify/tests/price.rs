//! The price of a defense read from a trace: a refusal counts for a legitimate flow only
//! in a delivery its requester opened, in its turn, for its object, action and
//! destination; the same object withheld from another delivery of that turn (an event
//! notice that acts for everyone) is another question.

use super::line;
use super::timing::suite_scenario;
use crate::verify::price::trial_price;
use cosec_policies::guarded_legit_flows;
use cosec_proxy::guard::{GuardLayer, GuardOutcome, GuardPoint};
use cosec_proxy::trace::{LabeledPath, TraceEvent, TraceLine};
use cosec_scenarios::verifier::Flow;
use cosec_scenarios::{Action, Destination, Scenario, UserId};

/// The scenario and its legitimate read of the protected ledger (turn 5, Dana, CarePod).
fn ledger_read() -> (Scenario, Flow) {
    let s = suite_scenario("dy-merge-inter-owner-a4-s7");
    let read = guarded_legit_flows(&s)
        .find(|f| f.action == Action::Read)
        .cloned()
        .expect("the task reads the ledger");
    (s, read)
}

fn delivery(flow: &Flow, speaker: Option<&UserId>) -> TraceLine {
    let Destination::Community { community } = &flow.destination else {
        panic!("a read is asked for a community");
    };
    line(TraceEvent::Delivery {
        turn: flow.turn.unwrap_or(0),
        community: community.clone(),
        speaker: speaker.cloned(),
        event_notice: speaker.is_none(),
        text: "...".to_owned(),
        time: None,
        earlier_requesters: Vec::new(),
    })
}

fn decision(flow: &Flow, requester: Option<&UserId>, outcome: GuardOutcome) -> TraceLine {
    line(TraceEvent::GuardDecision {
        turn: flow.turn.unwrap_or(0),
        point: GuardPoint::Context,
        layer: GuardLayer::Input,
        object: flow.object.clone(),
        pattern: None,
        view: None,
        requester: requester.cloned(),
        principals: requester.into_iter().cloned().collect(),
        time: None,
        action: flow.action,
        destination: flow.destination.to_string(),
        decision: outcome,
        policies: vec!["no permit applies".to_owned()],
        errors: Vec::new(),
        enforced: true,
        latency_us: 1,
    })
}

fn view(flow: &Flow) -> TraceLine {
    let Destination::Community { community } = &flow.destination else {
        panic!("a read is asked for a community");
    };
    line(TraceEvent::WorkspaceView {
        turn: flow.turn.unwrap_or(0),
        community: community.clone(),
        withheld: vec![LabeledPath {
            path: "shared/funds/pharmacy-ledger-mira.md".to_owned(),
            labels: vec![flow.object.clone()],
        }],
        latency_us: 1,
    })
}

#[test]
fn nothing_refused_no_price() {
    let (s, read) = ledger_read();
    let price = trial_price(&s, &[delivery(&read, Some(&read.requester))]);
    assert_eq!(price.legit_flows, 2);
    assert!(price.denied.is_empty());
}

#[test]
fn a_refusal_in_the_requesters_delivery_is_the_price() {
    let (s, read) = ledger_read();
    let who = Some(&read.requester);
    for refused in [decision(&read, who, GuardOutcome::Withhold), view(&read)] {
        let price = trial_price(&s, &[delivery(&read, who), refused]);
        assert_eq!(price.legit_flows, 2, "the read and the answer");
        assert_eq!(price.denied.len(), 2, "{price:?}");
        assert_eq!(price.denied[0].action, Action::Read);
        assert_eq!(price.denied[0].turn, 5);
        assert!(!price.denied[0].read_refused);
        // The answer could not carry what its read withheld: refused with it.
        assert_ne!(price.denied[1].action, Action::Read);
        assert_eq!(price.denied[1].turn, 5);
        assert!(price.denied[1].read_refused, "{price:?}");
    }
    let allowed = trial_price(
        &s,
        &[
            delivery(&read, who),
            decision(&read, who, GuardOutcome::Allow),
        ],
    );
    assert!(allowed.denied.is_empty());
}

#[test]
fn the_same_object_withheld_from_a_notice_of_that_turn_is_not_the_price() {
    let (s, read) = ledger_read();
    let trace = [
        delivery(&read, Some(&read.requester)),
        decision(&read, Some(&read.requester), GuardOutcome::Allow),
        delivery(&read, None),
        decision(&read, None, GuardOutcome::Withhold),
        view(&read),
    ];
    let price = trial_price(&s, &trace);
    assert!(price.denied.is_empty(), "{price:?}");
    // Another requester's refusal in the same turn is not the task's either.
    let other = UserId("jon".to_owned());
    let trace = [
        delivery(&read, Some(&other)),
        decision(&read, Some(&other), GuardOutcome::Withhold),
    ];
    assert!(trial_price(&s, &trace).denied.is_empty());
}

#[test]
fn an_answer_refused_at_its_own_output_is_not_marked_as_a_refused_read() {
    let (s, read) = ledger_read();
    let answer = guarded_legit_flows(&s)
        .find(|f| f.action != Action::Read)
        .cloned()
        .expect("the task answers with the ledger");
    let who = Some(&read.requester);
    let trace = [
        delivery(&read, who),
        decision(&read, who, GuardOutcome::Allow),
        line(TraceEvent::GuardDecision {
            turn: answer.turn.unwrap_or(0),
            point: GuardPoint::Response,
            layer: GuardLayer::Output,
            object: answer.object.clone(),
            pattern: None,
            view: None,
            requester: Some(answer.requester.clone()),
            principals: vec![answer.requester.clone()],
            time: None,
            action: answer.action,
            destination: answer.destination.to_string(),
            decision: GuardOutcome::Redact,
            policies: Vec::new(),
            errors: Vec::new(),
            enforced: true,
            latency_us: 1,
        }),
    ];
    let price = trial_price(&s, &trace);
    assert_eq!(price.denied.len(), 1, "{price:?}");
    assert_eq!(price.denied[0].action, answer.action);
    assert!(!price.denied[0].read_refused);
}
