//! Property of `cosec policy replay` over an unguarded `sim:comply` run: for random
//! defense policies between the empty one and permit-all, every recorded violation
//! whose flow `cosec policy test` says the policy denies is counted as stopped (the
//! stopped count is never below theirs), and the same input gives byte-identical JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec::replay::{replay_run, Policies};
use cosec_policies::evaluate::CaseKind;
use cosec_policies::{evaluate_policy, EmptyPolicy, DEFAULT_DEFENSE_SOURCE};
use cosec_proxy::guard::GuardPolicy;
use cosec_scenarios::{suite, Scenario};
use proptest::prelude::*;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, OnceLock};

const SCENARIOS: &[&str] = &[
    "dy-join-inter-owner-a1-s2",
    "dy-join-inter-owner-a2-s2",
    "st-inter-owner-a1-s3",
    "st-inter-third-a4-s4",
    "st-intra-third-a3-s5",
    "st-intra-third-a4-s1",
];

/// One unguarded run, recorded once for every case.
fn recorded() -> &'static (tempfile::TempDir, PathBuf, Vec<Scenario>) {
    static RUN: OnceLock<(tempfile::TempDir, PathBuf, Vec<Scenario>)> = OnceLock::new();
    RUN.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("none");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
        cmd.args([
            "run",
            "--model",
            "sim:comply",
            "--defense",
            "none",
            "--judge",
            "none",
        ])
        .arg("--out")
        .arg(&out)
        .env_remove("COSEC_JUDGE_BASE_URL");
        for s in SCENARIOS {
            cmd.args(["--scenario", s]);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let scenarios = suite::load_embedded(false)
            .unwrap()
            .scenarios
            .into_iter()
            .filter(|s| SCENARIOS.contains(&s.id.as_str()))
            .collect();
        (tmp, out, scenarios)
    })
}

/// The default policy's statements, each kept or dropped, plus permit-all rules for
/// some actions: policies from the empty one up to permit-all.
fn policy() -> impl Strategy<Value = String> {
    let code: Vec<&str> = DEFAULT_DEFENSE_SOURCE
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    let code = code.join("\n");
    let statements: Vec<String> = code
        .split(';')
        .map(str::trim)
        .filter(|s| s.contains("permit") || s.contains("forbid"))
        .map(|s| format!("{s};"))
        .collect();
    let actions = ["read", "disclose", "send", "share", "write", "receive"];
    (
        proptest::collection::vec(any::<bool>(), statements.len()),
        proptest::collection::vec(any::<bool>(), actions.len()),
        any::<bool>(),
    )
        .prop_map(move |(keep, open, all)| {
            let mut out = String::new();
            for (s, k) in statements.iter().zip(keep) {
                if k {
                    out.push_str(s);
                    out.push('\n');
                }
            }
            for (a, o) in actions.iter().zip(open) {
                if o {
                    out.push_str(&format!(
                        "permit(principal, action == Action::\"{a}\", resource);\n"
                    ));
                }
            }
            if all {
                out.push_str("permit(principal, action, resource);\n");
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn stopped_covers_what_policy_test_denies_and_replay_is_deterministic(src in policy()) {
        let (_tmp, run, scenarios) = recorded();
        let guard = GuardPolicy::from_source_with(&src, "random.cedar", EmptyPolicy::Allow).unwrap();
        let policies = Policies { new: Arc::new(guard), against: None };
        let report = replay_run(run, scenarios, &policies).unwrap();
        let again = replay_run(run, scenarios, &policies).unwrap();
        prop_assert_eq!(
            serde_json::to_string_pretty(&report).unwrap(),
            serde_json::to_string_pretty(&again).unwrap()
        );
        let tested = evaluate_policy(&src, "random.cedar", scenarios, None, EmptyPolicy::Allow).unwrap();
        let mut denied_flows = 0;
        for t in &report.trials {
            for v in &t.violations {
                let denied = tested.cases.iter().any(|c| {
                    c.kind == CaseKind::Scored
                        && c.scenario == t.scenario
                        && c.object == v.object
                        && c.turn == v.turn
                        && c.destination == v.destination
                        && c.defense == cosec_policies::evaluate::Verdict::Deny
                });
                denied_flows += usize::from(denied);
            }
        }
        prop_assert!(
            report.totals.violations_stopped >= denied_flows,
            "stopped {} < {} violations whose flow policy test denies",
            report.totals.violations_stopped,
            denied_flows
        );
    }
}
