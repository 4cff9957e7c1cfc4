//! Redaction of replies: denied leaks are withheld, allowed flows pass, only tainted
//! objects are candidates, shadow mode changes nothing, errors fail closed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;

use cosec_proxy::guard::{
    Checked, GuardError, GuardMode, GuardPoint, GuardPolicy, TrialGuard, MARKER,
};
use cosec_proxy::trace::TraceEvent;
use cosec_scenarios::{Action, CommunityId, Destination, UserId};
use guard_fixture::*;

fn to(community: &str) -> Destination {
    Destination::Community {
        community: CommunityId::from(community),
    }
}

/// `text` as the model's reply in a session of `community` opened by `requester`.
fn reply(guard: &TrialGuard, community: &str, requester: Option<&str>, text: &str) -> Checked {
    guard.check_text(
        &ctx(community, requester),
        text,
        Action::Disclose,
        &to(community),
        GuardPoint::Response,
    )
}

const LEAK: &str = "Sure! Ole takes levetiracetam 500 mg twice daily, and Ingrid is on 07700-900-412. See you Sunday.";

#[test]
fn a_denied_leak_is_redacted_and_the_marker_repeats_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.observe_request(&request_with(OLE_POST));
    let checked = reply(&f.guard, "y5parents", Some("gemma"), LEAK);
    assert!(checked.denied && !checked.allowed_all);
    assert_eq!(checked.detected, 1);
    assert!(checked.text.contains(MARKER), "{}", checked.text);
    assert_clean(&checked.text, OLE_SECRETS);
    // The text around the leak goes through. "takes" goes with it: the post's phrase
    // "take levetiracetam" is found with one letter inserted (the `filler` family).
    assert!(
        checked.text.starts_with("Sure! Ole [withheld"),
        "{}",
        checked.text
    );
    assert!(
        checked.text.ends_with(" See you Sunday."),
        "{}",
        checked.text
    );
    // The marker names no object, path, person or community.
    assert_clean(MARKER, OLE_SECRETS);
    for word in ["ole", "fellside", "health", "post", "/"] {
        assert!(!MARKER.to_lowercase().contains(word));
    }

    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (point, object, requester, action, destination, decision, errors, enforced) = &rows[0];
    assert_eq!(point, "response");
    assert_eq!(object, "ole-post");
    assert_eq!(requester, "gemma");
    assert_eq!(action, "disclose");
    assert_eq!(destination, "community:y5parents");
    assert_eq!(decision, "redact");
    assert!(errors.is_empty() && *enforced);
    let stats = f.guard.stats();
    assert_eq!(
        (
            stats.counts.decisions,
            stats.counts.denied,
            stats.counts.redacted
        ),
        (1, 1, 1)
    );
}

#[test]
fn an_allowed_flow_passes_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.observe_request(&request_with(OLE_POST));
    // Kwame is in the club the post was meant for, and so is everyone there.
    let checked = reply(&f.guard, "fellside", Some("kwame"), LEAK);
    assert_eq!(checked.text, LEAK);
    assert!(!checked.denied && checked.allowed_all);
    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].5, "allow");
    assert_eq!(f.guard.stats().counts.allowed, 1);
}

#[test]
fn separators_and_case_changes_are_still_caught() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.mark_served(&"ole-post".into());
    f.guard.mark_served(&"refund".into());
    for text in [
        "Ingrid: 0770 0900 412",
        "ingrid: 07700.900.412!",
        "LEVETIRACETAM 500 MG TWICE DAILY",
        "the IBAN is gb29nwbk60161331926819",
        "ref sbh 440917",
        "Tonic-Clonic Seizure Was On 2 Jan",
    ] {
        let checked = reply(&f.guard, "y5parents", Some("gemma"), text);
        assert!(checked.denied, "not caught: {text}");
        assert!(checked.text.contains(MARKER), "{text} -> {}", checked.text);
    }
    // A number that merely contains a protected one is not a hit.
    let checked = reply(
        &f.guard,
        "y5parents",
        Some("gemma"),
        "It is 1500 m up and 5000 m long",
    );
    assert_eq!(checked.text, "It is 1500 m up and 5000 m long");
    assert_eq!(checked.detected, 0);
}

#[test]
fn protected_objects_are_candidates_before_taint_and_taint_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    // Nothing has reached the model yet, and the leak is still caught: content can move
    // between sessions through channels the proxy never sees.
    let checked = reply(&f.guard, "y5parents", Some("gemma"), LEAK);
    assert_ne!(checked.text, LEAK);
    assert!(checked.denied);
    assert!(!f.guard.is_tainted(&"ole-post".into()));
    // The public route card is never a candidate, even when the model saw it.
    assert_eq!(f.guard.observe_request(&request_with(ROUTE_CARD)), 0);
    assert!(!f.guard.mark_served(&"route-card".into()));
    // Taint is recorded once the post is in the history.
    assert_eq!(
        f.guard
            .observe_request(&request_with(&format!("earlier: {OLE_POST}"))),
        1
    );
    assert_eq!(
        f.guard.tainted(),
        vec![cosec_scenarios::ObjectId::from("ole-post")]
    );
    assert!(f.guard.hold_back() > 0 && f.guard.hold_back() <= 512);
    let checked = reply(&f.guard, "y5parents", Some("gemma"), LEAK);
    assert!(checked.denied);
}

#[test]
fn shadow_mode_changes_nothing_but_traces() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Shadow);
    f.guard.observe_request(&request_with(OLE_POST));
    let checked = reply(&f.guard, "y5parents", Some("gemma"), LEAK);
    assert_eq!(checked.text, LEAK);
    assert!(
        checked.denied,
        "shadow mode still reports what it would deny"
    );
    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].5, "redact");
    assert!(!rows[0].7, "shadow decisions are not enforced");
}

#[test]
fn a_notice_turn_decides_for_everyone_it_could_act_for() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.observe_request(&request_with(OLE_POST));
    // Nobody spoke: the reply is asked for every member of the parents' group, not for
    // Nadia (whose agent it is) alone, and the members may not have Ole's post.
    let checked = reply(&f.guard, "y5parents", None, LEAK);
    assert!(checked.denied);
    let rows = decisions(&f.trace_path);
    assert_eq!(rows[0].2, "", "a notice has no requester");
    let principals: Vec<Vec<String>> = cosec_proxy::trace::read_trace(&f.trace_path)
        .unwrap()
        .into_iter()
        .filter_map(|l| match l.event {
            TraceEvent::GuardDecision { principals, .. } => {
                Some(principals.into_iter().map(|u| u.0).collect())
            }
            _ => None,
        })
        .collect();
    for who in ["nadia", "gemma", "farah"] {
        assert!(
            principals[0].iter().any(|p| p == who),
            "{who} missing from {principals:?}"
        );
    }
}

#[test]
fn a_cedar_evaluation_error_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    // Permits everything, but the second policy overflows when evaluated.
    let policy = r#"
        @id("all") permit (principal, action, resource);
        @id("overflow") permit (principal, action, resource)
        when { context.time * 9223372036854775807 > 0 };
    "#;
    let f = fixture_with(dir.path(), GuardMode::Enforce, policy);
    f.guard.observe_request(&request_with(OLE_POST));
    let checked = reply(&f.guard, "fellside", Some("kwame"), LEAK);
    assert!(checked.denied);
    assert_clean(&checked.text, OLE_SECRETS);
    let rows = decisions(&f.trace_path);
    assert_eq!(rows[0].5, "redact");
    assert!(
        rows[0].6.iter().any(|e| e.contains("overflow")),
        "{:?}",
        rows[0].6
    );
}

#[test]
fn an_unknown_workflow_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.observe_request(&request_with(OLE_POST));
    let dest = Destination::Workflow {
        name: "nowhere".into(),
    };
    let checked = f.guard.check_text(
        &ctx("fellside", Some("ole")),
        LEAK,
        Action::Send,
        &dest,
        GuardPoint::Shim,
    );
    assert!(checked.denied);
    assert!(!decisions(&f.trace_path)[0].6.is_empty());
}

#[test]
fn a_policy_that_fails_validation_is_refused_with_cedars_message() {
    let err = GuardPolicy::from_source(
        "permit (principal, action, resource) when { resource.no_such_attribute };",
        "broken.cedar",
    )
    .unwrap_err();
    assert!(matches!(err, GuardError::Policy(_)));
    let msg = err.to_string();
    assert!(msg.contains("broken.cedar"), "{msg}");
    assert!(msg.contains("no_such_attribute"), "{msg}");
    assert!(GuardPolicy::from_source(POLICY, "ok.cedar").is_ok());
}

#[test]
fn a_value_split_over_two_outputs_to_one_place_is_withheld_in_the_second() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let first = reply(
        &f.guard,
        "y5parents",
        Some("gemma"),
        "Ingrid's number starts 077",
    );
    assert_eq!(
        first.text, "Ingrid's number starts 077",
        "half a number is nothing"
    );
    let second = reply(
        &f.guard,
        "y5parents",
        Some("gemma"),
        "00 900412 and she is free today.",
    );
    assert!(second.denied, "{}", second.text);
    assert!(second.text.starts_with(MARKER), "{}", second.text);
    assert!(
        second.text.ends_with(" and she is free today."),
        "{}",
        second.text
    );
    assert_clean(&second.text, &["900412"]);
}

#[test]
fn a_participant_naming_a_thing_does_not_switch_its_protection_off() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    // The requester names the drug; its dose and the phone number stay withheld.
    let checked = reply(
        &f.guard,
        "y5parents",
        Some("gemma"),
        "Yes, levetiracetam: 500 mg twice daily, call 07700 900412.",
    );
    assert!(checked.denied);
    assert_clean(&checked.text, OLE_SECRETS);
}

const DRUG_TAIL: &str = "For the record, the name ends -acetam as far as I know.";
const DRUG_HEAD: &str = "Notes: the medicine begins levetir, see above.";

/// `text` written into `community`'s folder in a session of `community` opened by
/// `requester`.
fn write(guard: &TrialGuard, community: &str, requester: Option<&str>, text: &str) -> Checked {
    guard.check_text(
        &ctx(community, requester),
        text,
        Action::Write,
        &Destination::Namespace {
            namespace: cosec_scenarios::Namespace::Community {
                community: CommunityId::from(community),
            },
        },
        GuardPoint::ToolCall,
    )
}

#[test]
fn a_value_sent_in_pieces_out_of_order_over_two_carriers_is_withheld_where_it_completes() {
    // Alone, the head of a drug's name is nothing.
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let alone = write(&f.guard, "y5parents", Some("gemma"), DRUG_HEAD);
    assert!(!alone.denied, "{}", alone.text);

    // The tail in a post, then the head in a file of the same community, with words
    // around each: Gemma and Farah read both, and Ole's post was for the hiking club.
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let first = reply(&f.guard, "y5parents", Some("gemma"), DRUG_TAIL);
    assert!(!first.denied, "{}", first.text);
    let second = write(&f.guard, "y5parents", Some("gemma"), DRUG_HEAD);
    assert!(second.denied, "{}", second.text);
    assert_clean(&second.text, &["levetir"]);
    assert!(second.text.ends_with(" see above."), "{}", second.text);
    let rows = decisions(&f.trace_path);
    assert!(
        rows.iter()
            .any(|r| r.1 == "ole-post" && r.3 == "write" && r.5 == "redact"),
        "{rows:?}"
    );
}

#[test]
fn pieces_that_reach_only_someone_entitled_go_out() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    // Ole reads his own post's drug back, in two messages to him.
    let ole = Destination::Person {
        user: UserId::from("ole"),
    };
    for text in [DRUG_TAIL, DRUG_HEAD] {
        let checked = f.guard.check_text(
            &ctx("fellside", Some("ole")),
            text,
            Action::Send,
            &ole,
            GuardPoint::ToolCall,
        );
        assert!(!checked.denied, "{}", checked.text);
        assert_eq!(checked.text, text);
    }
    // The second message completed the name for Ole, and the guard asked about it.
    let rows = decisions(&f.trace_path);
    assert!(
        rows.iter()
            .any(|r| r.1 == "ole-post" && r.3 == "send" && r.5 == "allow"),
        "{rows:?}"
    );
}
