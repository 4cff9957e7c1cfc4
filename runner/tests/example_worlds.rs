//! The example world in `examples/worlds/` expanded with the real `cosec` binary and run
//! with the built-in agent and the simulated models: it validates, the compliant model
//! leaks in every variant while doing the legitimate work, the ideal model does the
//! work without leaking, and the runtime guard stops the compliant leaks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .expect("run cosec")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn example_worlds() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/worlds")
}

/// Expands `worlds` into a suite folder inside `tmp`; the output of `generate`.
fn generate(worlds: &Path, tmp: &Path) -> (Output, PathBuf) {
    let suite = tmp.join("suite");
    let o = cosec(&[
        "scenarios",
        "generate",
        "--worlds",
        worlds.to_str().unwrap(),
        "--out",
        suite.to_str().unwrap(),
    ]);
    (o, suite)
}

/// Expands the example worlds and runs them with `model` under `defense`.
fn run_examples(model: &str, defense: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (generated, suite) = generate(&example_worlds(), tmp.path());
    assert!(
        generated.status.success(),
        "examples/worlds does not expand:\n{}",
        stderr(&generated)
    );
    let out = tmp.path().join("run");
    let run = cosec(&[
        "run",
        "--suite-dir",
        suite.to_str().unwrap(),
        "--model",
        model,
        "--defense",
        defense,
        "--judge",
        "none",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    (tmp, out)
}

fn summary(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

fn results(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The run covered static and dynamic variants, every trial was adjudicated, and the
/// results lines are returned.
fn valid_trials(out: &Path) -> Vec<Value> {
    let s = summary(out);
    let total = s["trials"]["total"].as_u64().unwrap();
    assert!(
        total >= 4,
        "the example world has a handful of variants: {s}"
    );
    assert_eq!(s["trials"]["valid"], total, "{}", s["trials"]);
    assert!(
        s["static112"]["n"].as_u64().unwrap() >= 2,
        "{}",
        s["static112"]
    );
    assert!(s["dyn96"]["n"].as_u64().unwrap() >= 1, "{}", s["dyn96"]);
    let lines = results(out);
    assert_eq!(lines.len() as u64, total);
    lines
}

#[test]
fn the_compliant_model_leaks_in_every_example_variant_and_completes_the_goal() {
    let (_tmp, out) = run_examples("sim:comply", "none");
    for v in valid_trials(&out) {
        assert_eq!(v["pvr"], true, "{} did not leak: {v}", v["scenario"]);
        assert_eq!(v["bcr"], true, "{} missed its goal: {v}", v["scenario"]);
        assert_eq!(v["completion_by"], "artifacts", "{}", v["scenario"]);
    }
    let s = summary(&out);
    assert_eq!(s["overall"]["pvr"], 1.0, "{}", s["overall"]);
    assert_eq!(s["overall"]["ccpvr"], 1.0, "{}", s["overall"]);
    assert_eq!(s["overall"]["bcr"], 1.0, "{}", s["overall"]);
    assert_eq!(
        s["unclassified_failures"], 0,
        "every dynamic leak gets a failure class: {}",
        s["failure_classes"]
    );
}

#[test]
fn the_ideal_model_completes_every_example_goal_without_a_leak() {
    let (_tmp, out) = run_examples("sim:ideal", "none");
    for v in valid_trials(&out) {
        assert_eq!(v["pvr"], false, "{} leaked: {v}", v["scenario"]);
        assert_eq!(v["violations"], serde_json::json!([]), "{}", v["scenario"]);
        assert_eq!(v["bcr"], true, "{} missed its goal: {v}", v["scenario"]);
    }
    let s = summary(&out);
    assert_eq!(s["overall"]["pvr"], 0.0, "{}", s["overall"]);
    assert_eq!(s["overall"]["stcr"], 1.0, "{}", s["overall"]);
}

#[test]
fn the_guard_stops_the_compliant_leaks_of_every_example_variant() {
    let (_tmp, out) = run_examples("sim:comply", "proxy");
    for v in valid_trials(&out) {
        assert_eq!(
            v["pvr"], false,
            "{} leaked past the guard: {v}",
            v["scenario"]
        );
        assert_eq!(v["bcr"], true, "{} lost its goal: {v}", v["scenario"]);
    }
    let s = summary(&out);
    assert_eq!(s["overall"]["pvr"], 0.0, "{}", s["overall"]);
    let g = &s["guard"];
    assert!(g["input"]["denied"].as_u64().unwrap() > 0, "{g}");
}
