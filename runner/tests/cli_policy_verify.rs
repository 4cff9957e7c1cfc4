//! `cosec policy verify` through the real binary: the default policy proved, a loosened
//! copy refuted and exported as a world that `cosec scenarios generate` accepts and on
//! which the simulated compliant agent leaks through the guard with the loosened policy
//! but not with the default, `--against` relations, and the missing-solver message.
//!
//! All but the last two need cvc5 and run in the `policy-proofs` tier.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .output()
        .expect("run cosec")
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The default policy without the membership test of its creation-audience rule.
fn loosened(dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(repo("policies/defense/default.cedar")).unwrap();
    let loose = src.replacen("  principal in resource.source &&\n", "", 1);
    assert_ne!(loose, src);
    let path = dir.join("loose.cedar");
    std::fs::write(&path, loose).unwrap();
    path
}

/// `pvr` of the single trial of a run of `sim:comply` through the guard.
fn leaks(suite: &Path, out: &Path, policy: Option<&Path>) -> bool {
    let mut args = vec![
        "run",
        "--suite-dir",
        suite.to_str().unwrap(),
        "--model",
        "sim:comply",
        "--defense",
        "proxy",
        "--judge",
        "none",
        "--out",
        out.to_str().unwrap(),
    ];
    if let Some(p) = policy {
        args.extend(["--policy", p.to_str().unwrap()]);
    }
    let run = cosec(&args);
    assert!(run.status.success(), "{}", text(&run));
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let trials: Vec<Value> = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(trials.len(), 1);
    assert_eq!(trials[0]["status"], "valid");
    trials[0]["pvr"].as_bool().unwrap()
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn the_default_policy_is_proved() {
    let out = cosec(&["policy", "verify", &repo("policies/defense/default.cedar")]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("never-errors         holds"), "{all}");
    assert!(all.contains("implies-oracle       holds"), "{all}");
    assert!(all.contains("read-implies-oracle  holds"), "{all}");
    assert!(all.contains("PROVED"), "{all}");
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn a_loosened_copy_fails_and_its_counterexample_runs_as_a_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let loose = loosened(dir.path());
    let worlds = dir.path().join("worlds");
    let out = cosec(&[
        "policy",
        "verify",
        loose.to_str().unwrap(),
        "--scenario-out",
        worlds.to_str().unwrap(),
    ]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("implies-oracle       FAILS"), "{all}");
    assert!(
        all.contains("ALLOWS (by defense-creation-audience)"),
        "{all}"
    );
    assert!(all.contains("oracle: denies"), "{all}");
    let cex: Value = serde_json::from_str(
        &std::fs::read_to_string(worlds.join("cx-loose/counterexample.json")).unwrap(),
    )
    .unwrap();
    assert!(cex["entities"].as_array().is_some_and(|e| !e.is_empty()));

    let suite = dir.path().join("suite");
    let generated = cosec(&[
        "scenarios",
        "generate",
        "--worlds",
        worlds.to_str().unwrap(),
        "--out",
        suite.to_str().unwrap(),
    ]);
    assert!(generated.status.success(), "{}", text(&generated));

    assert!(leaks(&suite, &dir.path().join("run-loose"), Some(&loose)));
    assert!(!leaks(&suite, &dir.path().join("run-default"), None));
}

#[test]
#[ignore = "tier policy-proofs: needs cvc5"]
fn against_prints_every_relation() {
    let out = cosec(&[
        "policy",
        "verify",
        &repo("examples/defenses/lockdown.cedar"),
        "--against",
        &repo("examples/defenses/strict-no-cross-community.cedar"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for relation in ["implies", "implied-by", "equivalent", "disjoint"] {
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == relation)
            .unwrap_or_else(|| panic!("{relation} missing"));
        assert_eq!(check["role"], "relation");
        for r in check["results"].as_array().unwrap() {
            if r["verdict"] == "fails" {
                assert!(r["counterexample"]["entities"].is_array(), "{r}");
                assert!(!r["counterexample"]["words"].as_array().unwrap().is_empty());
            }
        }
    }
}

#[test]
fn a_missing_solver_says_how_to_install_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["policy", "verify", &repo("policies/defense/default.cedar")])
        .env("CVC5", "/nonexistent/cvc5")
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("cvc5 SMT solver was not found"), "{all}");
    assert!(all.contains("apt-get install -y cvc5"), "{all}");
    assert!(all.contains("CVC5=/path/to/cvc5"), "{all}");
}

#[test]
fn show_assumptions_needs_no_solver() {
    let out = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args([
            "policy",
            "verify",
            &repo("policies/defense/default.cedar"),
            "--show-assumptions",
        ])
        .env("CVC5", "/nonexistent/cvc5")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("assume-requester-is-principal"));
}
