//! The combined sets answer every request of a flow exactly like Cedar's authorizer.

use super::*;
use cedar_policy::{Authorizer, Context, EntityUid};

/// Syntax that printing must carry through: escapes in strings and `like` patterns,
/// quoted attribute names, `is` and `in` scopes, extension functions, records and
/// `if`, `unless`, and a condition that errors on some principals; and conditions that
/// name only the action or only the principal, which a flow's requests share or not.
const TRICKY: &str = r#"
@id("action-only")
permit (principal, action == Action::"view", resource)
when { resource.tags.contains("b") };
@id("bob-only")
permit (principal == User::"bob", action, resource)
when { resource has name };
@id("escapes")
permit (principal == User::"al\"ice", action == Action::"view", resource in Folder::"f")
when { resource.name like "*re\*port*" };
@id("odd-key")
forbid (principal is User in Group::"g", action in [Action::"view", Action::"edit"], resource is Doc)
unless { context has "odd key" && context["odd key"] == "x\n" };
@id("extensions")
permit (principal, action, resource)
when {
  ip("10.0.0.1").isInRange(ip("10.0.0.0/8")) &&
  decimal("1.5").lessThan(decimal("2.0")) &&
  datetime("2024-10-15").toDate() == datetime("2024-10-15") &&
  resource.tags.containsAny(["a", "b"])
};
@id("errors-without-age")
permit (principal, action == Action::"edit", resource)
when { principal.age > 3 }
unless { resource has secret && resource.secret };
@id("records")
forbid (principal, action, resource == Doc::"locked")
when { { "k": [1, -2, 3] }.k.contains(-2) && !(1 == 2) && (if principal is User then true else false) };
"#;

const ENTITIES: &str = r#"[
  {"uid": {"type": "User", "id": "al\"ice"}, "attrs": {"age": 30}, "parents": [{"type": "Group", "id": "g"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Group", "id": "g"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Folder", "id": "f"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Doc", "id": "report"}, "attrs": {"name": "my re*port v2", "tags": ["b"]}, "parents": [{"type": "Folder", "id": "f"}]},
  {"uid": {"type": "Doc", "id": "plain"}, "attrs": {"name": "report", "tags": [], "secret": true}, "parents": []},
  {"uid": {"type": "Doc", "id": "locked"}, "attrs": {"name": "x", "tags": ["a"]}, "parents": []}
]"#;

fn uid(s: &str) -> EntityUid {
    EntityUid::from_str(s).unwrap()
}

/// Policies of a recipient side that differs from the requester side (TRICKY):
/// one is left out, and one condition that names neither `principal` nor `action`
/// and one that names `principal` exist only here.
const RECIPIENT_ONLY: &str = r#"
@id("recipient-flow")
forbid (principal, action, resource)
when { context has "odd key" && resource has secret && resource.secret };
@id("recipient-principal")
permit (principal, action, resource)
when { principal == User::"bob" && resource.tags.contains("a") };
"#;

/// Cedar's authorizer on one request: its decision and reasons, `None` when it
/// reported an error.
fn cedar(set: &PolicySet, request: &Request, entities: &Entities) -> Option<(bool, Vec<String>)> {
    let response = Authorizer::new().is_authorized(request, set, entities);
    if response.diagnostics().errors().next().is_some() {
        return None;
    }
    let mut reasons: Vec<String> = response
        .diagnostics()
        .reason()
        .map(ToString::to_string)
        .collect();
    reasons.sort();
    Some((
        response.decision() == cedar_policy::Decision::Allow,
        reasons,
    ))
}

/// How many requests were decided (allowed, forbidden by a policy, denied with no
/// permit) and how many were left to Cedar's authorizer.
#[derive(Default, Debug)]
struct Tally {
    allowed: usize,
    forbidden: usize,
    no_permit: usize,
    fell_back: usize,
}

/// Asks every flow of a grid (each requester and action, resource and context, with
/// every principal as a recipient under each recipient action) and compares each
/// request with Cedar's authorizer. With `same_sets`, a request left to the
/// authorizer must be one on which Cedar errors.
fn grid(requester_set: &PolicySet, recipient_set: &PolicySet, same_sets: bool) -> Tally {
    let combined = Combined::build(
        requester_set,
        |_| false,
        recipient_set,
        |_| false,
        ToString::to_string,
    )
    .expect("every policy converts");
    let entities = Entities::from_json_str(ENTITIES, None).unwrap();
    let principals = [r#"User::"al\"ice""#, r#"User::"bob""#, r#"User::"nobody""#];
    let actions = [r#"Action::"view""#, r#"Action::"edit""#];
    let resources = [r#"Doc::"report""#, r#"Doc::"plain""#, r#"Doc::"locked""#];
    let contexts = [
        Context::empty(),
        Context::from_json_str(r#"{"odd key": "x\n"}"#, None).unwrap(),
    ];
    let mut tally = Tally::default();
    let mut check =
        |what: &str, ours: Option<Verdict<'_>>, theirs: Option<(bool, Vec<String>)>| match (
            ours, theirs,
        ) {
            (Some(verdict), Some((allowed, reasons))) => {
                let mut ours: Vec<String> =
                    verdict.reasons.iter().map(|r| (*r).to_owned()).collect();
                ours.sort();
                assert_eq!(
                    (verdict.allowed, ours),
                    (allowed, reasons.clone()),
                    "{what}"
                );
                match (allowed, reasons.is_empty()) {
                    (true, _) => tally.allowed += 1,
                    (false, false) => tally.forbidden += 1,
                    (false, true) => tally.no_permit += 1,
                }
            }
            (Some(_), None) => panic!("{what}: Cedar errored, combined did not"),
            (None, theirs) => {
                assert!(
                    !same_sets || theirs.is_none(),
                    "{what}: combined gave up without an error"
                );
                tally.fell_back += 1;
            }
        };
    for requester in principals {
        for asked_action in actions {
            for receive_action in actions {
                for r in resources {
                    for c in &contexts {
                        let request = Request::new(
                            uid(requester),
                            uid(asked_action),
                            uid(r),
                            c.clone(),
                            None,
                        )
                        .unwrap();
                        let (verdict, asked) = combined.ask_requester(&request, &entities);
                        let what = format!("{requester} {asked_action} {r} {c:?}");
                        check(&what, verdict, cedar(requester_set, &request, &entities));
                        for recipient in principals {
                            let request = Request::new(
                                uid(recipient),
                                uid(receive_action),
                                uid(r),
                                c.clone(),
                                None,
                            )
                            .unwrap();
                            let verdict = combined.ask_recipient(
                                &asked,
                                recipient == requester,
                                &request,
                                &entities,
                            );
                            let what = format!("{what}: recipient {recipient} {receive_action}");
                            check(&what, verdict, cedar(recipient_set, &request, &entities));
                        }
                    }
                }
            }
        }
    }
    tally
}

#[test]
fn combined_decisions_match_cedars_authorizer() {
    let set = PolicySet::from_str(TRICKY).unwrap();
    let tally = grid(&set, &set, true);
    // The grid reaches every outcome, so a wrong bit or effect cannot pass.
    assert!(
        tally.allowed > 0 && tally.forbidden > 0 && tally.no_permit > 0 && tally.fell_back > 0,
        "{tally:?}"
    );
}

#[test]
fn a_flow_with_different_sets_per_side_matches_cedars_authorizer() {
    let requester = PolicySet::from_str(TRICKY).unwrap();
    let mut recipient = PolicySet::new();
    for policy in requester.policies() {
        if policy.annotation("id") != Some("records") {
            recipient.add(policy.clone()).unwrap();
        }
    }
    for (i, policy) in PolicySet::from_str(RECIPIENT_ONLY)
        .unwrap()
        .policies()
        .enumerate()
    {
        let id = PolicyId::new(format!("recipient-{i}"));
        recipient.add(policy.new_id(id)).unwrap();
    }
    let tally = grid(&requester, &recipient, false);
    assert!(
        tally.allowed > 0 && tally.forbidden > 0 && tally.no_permit > 0,
        "{tally:?}"
    );
}

#[test]
fn a_set_with_a_template_is_left_to_the_authorizer() {
    let mut set = PolicySet::from_str(TRICKY).unwrap();
    let template = cedar_policy::Template::parse(
        Some(cedar_policy::PolicyId::new("t")),
        "permit (principal == ?principal, action, resource);",
    )
    .unwrap();
    set.add_template(template).unwrap();
    let plain = PolicySet::from_str(TRICKY).unwrap();
    let show = ToString::to_string;
    assert!(Combined::build(&set, |_| false, &plain, |_| false, show).is_none());
    assert!(Combined::build(&plain, |_| false, &set, |_| false, show).is_none());
}
