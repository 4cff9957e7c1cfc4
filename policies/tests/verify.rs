//! `cosec policy verify` proofs with real Cedar and a real cvc5: the built-in policies'
//! verdicts, loosened copies refuted with replayable counterexamples, and every
//! single-conjunct or single-policy drop of the default policy checked against the suite
//! (a proof must never contradict `cosec policy test`).
//!
//! These need cvc5; they are ignored in the plain test run and run by the
//! `policy-proofs` tier (`scripts/tiers/policy-proofs.sh`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_policies::verify::{verify, Counterexample, PolicyText, VerifyReport, VerifyRequest};
use cosec_policies::{evaluate_policy, EmptyPolicy};
use cosec_scenarios::Scenario;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

const TIER: &str = "tier policy-proofs: needs cvc5";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn text(path: &str) -> PolicyText {
    PolicyText {
        name: path.to_owned(),
        text: std::fs::read_to_string(repo(path)).expect("policy file readable"),
    }
}

fn request(defense: PolicyText) -> VerifyRequest {
    VerifyRequest {
        defense,
        against: None,
        property: None,
        timeout: Duration::from_secs(60),
    }
}

fn check<'a>(report: &'a VerifyReport, name: &str) -> &'a cosec_policies::verify::CheckResult {
    report
        .checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no check {name}"))
}

/// The default policy with the membership test of its creation-audience rule dropped.
fn loosened_default() -> PolicyText {
    let src = text("policies/defense/default.cedar").text;
    let loose = src.replacen("  principal in resource.source &&\n", "", 1);
    assert_ne!(loose, src, "the default policy's membership test moved");
    PolicyText {
        name: "loosened-default.cedar".into(),
        text: loose,
    }
}

/// A counterexample of `defense ⇒ oracle`: the defense allows, the oracle denies.
fn assert_false_allow(cex: &Counterexample) {
    assert_eq!(cex.replay.len(), 2, "{cex:?}");
    assert!(cex.replay[0].allowed && !cex.replay[1].allowed, "{cex:?}");
    assert!(!cex.words.is_empty());
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn default_policy_never_errors_and_implies_the_oracle() {
    let _ = TIER;
    let report = verify(&request(text("policies/defense/default.cedar"))).unwrap();
    for c in &report.checks {
        assert!(c.holds(), "{} fails: {:#?}", c.name, c.results);
    }
    assert!(report.proved());
    // Five shared environments (disclose, receive, send, share, write) and read.
    assert_eq!(check(&report, "implies-oracle").results.len(), 5);
    assert_eq!(check(&report, "read-implies-oracle").results.len(), 1);
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn the_oracle_itself_is_proved_sound() {
    let report = verify(&request(PolicyText {
        name: "oracle.cedar".into(),
        text: std::fs::read_to_string(repo("policies/oracle.cedar")).unwrap(),
    }))
    .unwrap();
    assert!(check(&report, "implies-oracle").holds());
    assert!(check(&report, "never-errors").holds());
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn a_loosened_default_is_refuted_with_replayed_counterexamples() {
    let report = verify(&request(loosened_default())).unwrap();
    assert!(!report.proved());
    let implies = check(&report, "implies-oracle");
    assert!(!implies.holds());
    let found: Vec<_> = implies.counterexamples().collect();
    assert!(!found.is_empty());
    for cex in found {
        assert_false_allow(cex);
        // The situation the dropped test guarded: someone meant for the object who is
        // not a member of its source community.
        assert!(
            cex.replay[0]
                .reasons
                .iter()
                .any(|r| r == "defense-creation-audience"),
            "{cex:?}"
        );
    }
    assert!(report.oracle_counterexample().is_some());
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn example_defenses_have_the_verdicts_their_readme_states() {
    for (file, sound) in [
        ("examples/defenses/strict-no-cross-community.cedar", true),
        ("examples/defenses/lockdown.cedar", true),
        ("examples/defenses/owner-consent.cedar", false),
        ("examples/defenses/sensitivity-tiered.cedar", false),
    ] {
        let report = verify(&request(text(file))).unwrap();
        assert!(check(&report, "never-errors").holds(), "{file}");
        assert_eq!(check(&report, "implies-oracle").holds(), sound, "{file}");
        assert_eq!(
            check(&report, "read-implies-oracle").holds(),
            sound,
            "{file}"
        );
        for cex in check(&report, "implies-oracle").counterexamples() {
            assert_false_allow(cex);
        }
    }
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn against_reports_every_relation_with_counterexamples() {
    let mut req = request(text("examples/defenses/lockdown.cedar"));
    req.against = Some(text("examples/defenses/owner-consent.cedar"));
    let report = verify(&req).unwrap();
    let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_str()).collect();
    for relation in ["implies", "implied-by", "equivalent", "disjoint"] {
        assert!(names.contains(&relation), "{names:?}");
        let c = check(&report, relation);
        if !c.holds() {
            assert!(c.counterexamples().next().is_some(), "{relation}");
        }
    }
    // Lockdown keeps only the owner, grants and public data: owner-consent allows all of it.
    assert!(check(&report, "implies").holds());
    assert!(!check(&report, "implied-by").holds());
    assert!(!check(&report, "equivalent").holds());
    assert!(!check(&report, "disjoint").holds());
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn a_property_is_checked_as_an_implication() {
    let property = PolicyText {
        name: "health-stays-home.cedar".into(),
        text: r#"
permit (principal, action, resource);
@id("health-stays-home")
forbid (principal, action in [Action::"egress", Action::"receive"], resource)
when {
  resource.sensitivity.contains("health") && resource.audience == "owner" &&
  context.destination has community && context.destination.community != resource.source &&
  principal != resource.owner && context.requester != resource.owner &&
  !resource.grantees.contains(principal)
};
"#
        .into(),
    };
    let mut req = request(text("policies/defense/default.cedar"));
    req.property = Some(property.clone());
    let report = verify(&req).unwrap();
    let prop = check(&report, "implies-property");
    assert!(prop.holds(), "{:#?}", prop.counterexamples().next());
    let mut req = request(text("examples/defenses/owner-consent.cedar"));
    req.property = Some(property);
    let report = verify(&req).unwrap();
    let prop = check(&report, "implies-property");
    assert!(!prop.holds());
    for cex in prop.counterexamples() {
        assert_false_allow(cex);
    }
}

fn suite() -> &'static [Scenario] {
    static SUITE: OnceLock<Vec<Scenario>> = OnceLock::new();
    SUITE.get_or_init(|| {
        cosec_scenarios::suite::load_embedded(false)
            .expect("built-in suite loads")
            .scenarios
    })
}

/// Every policy set that drops one policy or one `&&` conjunct of one condition from
/// the default policy, with a name saying what was dropped.
fn mutants() -> Vec<(String, String)> {
    let src = text("policies/defense/default.cedar").text;
    let pset: cedar_policy::PolicySet = src.parse().unwrap();
    let policies: Vec<Value> = pset.policies().map(|p| p.to_json().unwrap()).collect();
    let render = |list: &[Value]| -> String {
        list.iter()
            .map(|j| {
                cedar_policy::Policy::from_json(None, j.clone())
                    .unwrap()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut out = Vec::new();
    for i in 0..policies.len() {
        let id = policies[i]["annotations"]["id"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        let mut rest = policies.clone();
        rest.remove(i);
        out.push((format!("without {id}"), render(&rest)));
        let body = &policies[i]["conditions"][0]["body"];
        for (n, dropped) in drops(body).into_iter().enumerate() {
            let mut changed = policies.clone();
            changed[i]["conditions"][0]["body"] = dropped;
            out.push((format!("{id} without conjunct {n}"), render(&changed)));
        }
    }
    out
}

/// Each way to drop one side of one `&&` in an expression tree.
fn drops(expr: &Value) -> Vec<Value> {
    let Some(obj) = expr.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(and) = obj.get("&&") {
        out.push(and["left"].clone());
        out.push(and["right"].clone());
        for side in ["left", "right"] {
            for d in drops(&and[side]) {
                let mut copy = expr.clone();
                copy["&&"][side] = d;
                out.push(copy);
            }
        }
    }
    out
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn proofs_never_contradict_the_suite_on_generated_mutants() {
    let all = mutants();
    assert!(all.len() >= 10, "{}", all.len());
    let mut refuted = 0;
    for (what, src) in all {
        let report = match verify(&request(PolicyText {
            name: format!("default.cedar {what}"),
            text: src.clone(),
        })) {
            Ok(report) => report,
            // A drop that leaves an unguarded optional attribute is no valid policy.
            Err(cosec_policies::verify::VerifyError::Policy(
                cosec_policies::PolicyError::InvalidPolicies { .. },
            )) => continue,
            Err(e) => panic!("{what}: {e}"),
        };
        let sound = check(&report, "implies-oracle").holds()
            && check(&report, "read-implies-oracle").holds();
        if sound {
            // Proof ⇒ the suite agrees: no false allow on any flow or read.
            let tested = evaluate_policy(&src, &what, suite(), None, EmptyPolicy::Allow).unwrap();
            assert_eq!(
                tested.false_allow, 0,
                "{what}: proved sound, yet the suite leaks"
            );
            assert_eq!(
                tested.read.false_allow, 0,
                "{what}: proved sound, yet a read leaks"
            );
        } else {
            refuted += 1;
            for c in report.checks.iter().filter(|c| c.name.contains("oracle")) {
                for cex in c.counterexamples() {
                    assert_false_allow(cex);
                }
            }
        }
    }
    assert!(
        refuted > 0,
        "no mutant was refuted: the checks prove nothing"
    );
}
