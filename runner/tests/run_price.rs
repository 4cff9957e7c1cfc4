//! A defense pays for what it blocks: for generated policies (the default with permits
//! dropped, or actions taken out of them), every task whose legitimate flow `cosec
//! policy test` says the policy denies is lost in a guarded run of the ideal agent, and
//! the run's price names a refused flow for it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_policies::evaluate::{CaseKind, Verdict};
use cosec_policies::{evaluate_policy, EmptyPolicy, DEFAULT_DEFENSE_SOURCE};
use cosec_scenarios::{suite, Scenario};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// The default policy's statements, each with its `@id` and whether it is a permit.
fn statements() -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in DEFAULT_DEFENSE_SOURCE.lines() {
        if line.starts_with("@id(") && !current.trim().is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if line.starts_with("//") {
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    out.push(current);
    out.into_iter()
        .filter(|s| s.contains("@id("))
        .map(|s| {
            let permit = s.contains("\npermit");
            (s, permit)
        })
        .collect()
}

const ACTIONS: [&str; 3] = ["egress", "read", "receive"];

/// The default with the permits `drop` names removed, and the actions `strip` names
/// taken out of every permit that lists them (a permit left with none is removed).
fn weakened(drop: &[bool], strip: &[bool]) -> String {
    let mut out = String::new();
    let mut permit_index = 0;
    for (text, permit) in statements() {
        if !permit {
            out.push_str(&text);
            continue;
        }
        let dropped = drop.get(permit_index).copied().unwrap_or(false);
        permit_index += 1;
        if dropped {
            continue;
        }
        let mut text = text;
        for (action, _) in ACTIONS.iter().zip(strip).filter(|(_, s)| **s) {
            for pattern in [
                format!(", Action::\"{action}\""),
                format!("Action::\"{action}\", "),
            ] {
                text = text.replace(&pattern, "");
            }
        }
        let empty_list = text.contains("in []");
        let only_stripped = ACTIONS
            .iter()
            .zip(strip)
            .any(|(a, s)| *s && text.contains(&format!("== Action::\"{a}\"")));
        if empty_list || only_stripped {
            continue;
        }
        out.push_str(&text);
    }
    out
}

/// Scenarios (by id) with a legitimate flow the policy denies, per `policy test`.
fn denied_tasks(policy: &str, scenarios: &[Scenario]) -> BTreeSet<String> {
    let report = evaluate_policy(
        policy,
        "weakened.cedar",
        scenarios,
        None,
        EmptyPolicy::Allow,
    )
    .expect("a weakened default validates");
    report
        .cases
        .iter()
        .filter(|c| c.kind == CaseKind::Legit && c.defense == Verdict::Deny)
        .map(|c| c.scenario.clone())
        .collect()
}

/// A guarded `sim:ideal` run of `ids` under `policy`: each scenario's results line.
fn guarded_run(policy: &str, ids: &[&str]) -> BTreeMap<String, Value> {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("weakened.cedar");
    std::fs::write(&file, policy).unwrap();
    let out = tmp.path().join("run");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
    cmd.args(["run", "--model", "sim:ideal", "--defense", "proxy"])
        .args(["--policy", file.to_str().unwrap(), "--allow-empty-policy"])
        .args(["--judge", "none", "--out", out.to_str().unwrap()])
        .env_remove("COSEC_JUDGE_BASE_URL");
    for id in ids {
        cmd.args(["--scenario", id]);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|v| (v["scenario"].as_str().unwrap().to_owned(), v))
        .collect()
}

fn suite_scenarios() -> Vec<Scenario> {
    suite::load_embedded(false).unwrap().scenarios
}

proptest! {
    // Each case is a guarded run of a sample of the suite: a few cases cover the
    // permits and actions, and every failure prints the policy that caused it.
    #![proptest_config(ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_task_policy_test_says_is_denied_is_lost_in_a_run(
        drop in proptest::collection::vec(any::<bool>(), 5),
        strip in proptest::collection::vec(proptest::bool::weighted(0.25), 3),
        pick in proptest::collection::btree_set(0usize..208, 24),
    ) {
        let scenarios = suite_scenarios();
        let policy = weakened(&drop, &strip);
        let sample: Vec<Scenario> = pick.iter().filter_map(|&i| scenarios.get(i).cloned()).collect();
        let denied = denied_tasks(&policy, &sample);
        let ids: Vec<&str> = sample.iter().map(|s| s.id.as_str()).collect();
        let results = guarded_run(&policy, &ids);
        let mut failed = 0;
        for (id, v) in &results {
            prop_assert_eq!(v["status"].as_str(), Some("valid"), "{}", id);
            if !v["bcr"].as_bool().unwrap() {
                failed += 1;
            }
        }
        for id in &denied {
            let v = &results[id];
            prop_assert_eq!(
                v["bcr"].as_bool(),
                Some(false),
                "{} completed although policy test denies a legitimate flow of it under\n{}",
                id,
                policy
            );
            let refused = v["price"]["denied"].as_array().map_or(0, Vec::len);
            prop_assert!(refused > 0, "{}: the price names no refused flow\n{}", id, v["price"]);
        }
        prop_assert!(failed >= denied.len(), "{} failed, {} denied", failed, denied.len());
    }
}

#[test]
fn the_weakened_policies_are_the_default_less_what_was_dropped() {
    let permits = statements().iter().filter(|(_, p)| *p).count();
    assert_eq!(
        permits, 5,
        "the default's permits changed: update the generator"
    );
    let none = [false; 5];
    let full = weakened(&none, &[false; 3]);
    let scenarios = suite_scenarios();
    assert!(denied_tasks(&full, &scenarios).is_empty());
    // No reads anywhere: every task loses its read.
    let no_read = weakened(&none, &[false, true, false]);
    assert!(
        no_read
            .split("@id(")
            .filter(|st| st.contains("\npermit"))
            .all(|st| !st.contains("Action::\"read\"")),
        "{no_read}"
    );
    assert_eq!(denied_tasks(&no_read, &scenarios).len(), scenarios.len());
    // Every permit dropped: only the forbids remain, and nothing is allowed.
    let nothing = weakened(&[true; 5], &[false; 3]);
    assert!(!nothing.contains("permit"), "{nothing}");
    assert_eq!(denied_tasks(&nothing, &scenarios).len(), scenarios.len());
}
