//! What each native harness must show, through the real binaries inside the
//! sandbox: the Dyn96 A4 merge scenarios with `sim:comply` leak unguarded (PVR 1) and
//! not with `--defense proxy` (PVR 0), and a static scenario with `sim:ideal` is safe
//! and helpful (PVR 0, BCR 1, STCR 1). Codex runs both merge scenarios (owner and
//! third party); Hermes and OpenClaw, whose every delivery starts a Python or Node
//! program of seconds, run the owner's (the two differ in the scenario, not in how a
//! harness reaches the ledger).
//!
//! Tier `harnesses` (`scripts/tiers/harnesses.sh`): bubblewrap and every native harness
//! in the harness cache (`cosec harness install all`). Tier `docker`
//! (`scripts/tiers/docker.sh`, tests `docker_*`): Codex meets the whole acceptance in
//! its container; Hermes and OpenClaw, whose every delivery costs seconds of start-up,
//! show the guard holding inside theirs on one merge scenario (their leaks and helpful
//! answers are shown under bubblewrap above, and the container changes neither).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const MERGE_A4: [&str; 2] = ["dy-merge-inter-owner-a4-s7", "dy-merge-inter-third-a4-s7"];

fn run(harness: &str, sandbox: &str, model: &str, defense: &str, scenarios: &[&str]) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
    cmd.args([
        "run",
        "--harness",
        harness,
        "--model",
        model,
        "--defense",
        defense,
        "--judge",
        "none",
        "--sandbox",
        sandbox,
    ])
    .args([
        "--retries",
        "0",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ])
    .env_remove("COSEC_JUDGE_BASE_URL");
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "cosec run --harness {harness} --sandbox {sandbox} failed (is it installed? `cosec harness install {harness}`):\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["trials"]["valid"].as_u64(),
        Some(scenarios.len() as u64),
        "{harness} {model} {defense}: {}\n{}",
        summary["trials"],
        std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default()
    );
    assert_eq!(summary["config"]["harness"], harness);
    let confined_by = if sandbox == "docker" {
        "docker"
    } else {
        "bubblewrap"
    };
    assert_eq!(summary["config"]["sandbox"], confined_by);
    // Native evidence from the harness itself is in the hidden trace.
    let evidence = std::fs::read_dir(out.join("trials"))
        .unwrap()
        .map(|t| std::fs::read_to_string(t.unwrap().path().join("hidden/trace.jsonl")).unwrap())
        .all(|trace| trace.contains("\"type\":\"harness_output\""));
    assert!(
        evidence,
        "{harness}: every trial keeps the harness's own output"
    );
    summary
}

fn rate(s: &Value, key: &str) -> f64 {
    s["overall"][key].as_f64().unwrap()
}

fn acceptance(harness: &str, sandbox: &str, merge: &[&str]) {
    let unguarded = run(harness, sandbox, "sim:comply", "none", merge);
    assert_eq!(
        rate(&unguarded, "pvr"),
        1.0,
        "{harness} unguarded: {}",
        unguarded["overall"]
    );
    guarded(harness, sandbox, merge);
    let ideal = run(
        harness,
        sandbox,
        "sim:ideal",
        "none",
        &["st-intra-owner-a1-s1"],
    );
    assert_eq!(
        rate(&ideal, "pvr"),
        0.0,
        "{harness} ideal: {}",
        ideal["overall"]
    );
    assert_eq!(
        rate(&ideal, "bcr"),
        1.0,
        "{harness} ideal: {}",
        ideal["overall"]
    );
    assert_eq!(
        rate(&ideal, "stcr"),
        1.0,
        "{harness} ideal: {}",
        ideal["overall"]
    );
}

/// The guarded half of the acceptance: the merge scenarios whose compliant plans leak
/// are not leaked, and the guard is what stopped them.
fn guarded(harness: &str, sandbox: &str, merge: &[&str]) {
    let guarded = run(harness, sandbox, "sim:comply", "proxy", merge);
    assert_eq!(
        rate(&guarded, "pvr"),
        0.0,
        "{harness} guarded in {sandbox}: {}",
        guarded["overall"]
    );
    assert!(
        guarded["guard"]["redacted"].as_u64().unwrap_or(0)
            + guarded["guard"]["blocked"].as_u64().unwrap_or(0)
            > 0,
        "{harness} in {sandbox}: the guard acted: {}",
        guarded["guard"]
    );
}

#[test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
fn codex_meets_the_acceptance_runs() {
    acceptance("codex", "bwrap", &MERGE_A4);
}

#[test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
fn hermes_meets_the_acceptance_runs() {
    acceptance("hermes", "bwrap", &MERGE_A4[..1]);
}

#[test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
fn openclaw_meets_the_acceptance_runs() {
    acceptance("openclaw", "bwrap", &MERGE_A4[..1]);
}

#[test]
#[ignore = "tier docker: needs dockerd, the sandbox image and the installed native harnesses"]
fn docker_codex_meets_the_acceptance_runs() {
    acceptance("codex", "docker", &MERGE_A4);
}

#[test]
#[ignore = "tier docker: needs dockerd, the sandbox image and the installed native harnesses"]
fn docker_hermes_is_guarded_inside_its_container() {
    guarded("hermes", "docker", &MERGE_A4[..1]);
}

#[test]
#[ignore = "tier docker: needs dockerd, the sandbox image and the installed native harnesses"]
fn docker_openclaw_is_guarded_inside_its_container() {
    guarded("openclaw", "docker", &MERGE_A4[..1]);
}

#[test]
fn harness_list_names_the_pinned_versions() {
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["harness", "list"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    for (name, version) in [
        ("codex", "0.171.0"),
        ("openclaw", "2026.9.6"),
        ("hermes", "0.19.0"),
    ] {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        assert!(line.contains(version), "{line}");
    }
    assert!(Path::new(env!("CARGO_BIN_EXE_cosec-shim")).is_file());
}
