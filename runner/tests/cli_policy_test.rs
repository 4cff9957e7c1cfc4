//! `cosec policy test` scores both guard layers, through the real binary: the input
//! layer's `read` questions beside the egress flows, on the built-in suite or on a
//! suite of one's own.

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

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json report")
}

fn count(v: &Value) -> u64 {
    v.as_u64().expect("a count")
}

/// The default policy with every `read` rule taken out (the action removed from each
/// action list that names it), written into `dir`.
fn default_without_read(dir: &Path) -> PathBuf {
    let src = std::fs::read_to_string(repo("policies/defense/default.cedar")).expect("default");
    let stripped = src.replace(", Action::\"read\"", "");
    assert_ne!(stripped, src, "the default policy names `read`");
    assert!(!stripped.contains("Action::\"read\""));
    let path = dir.join("no-read.cedar");
    std::fs::write(&path, stripped).expect("write");
    path
}

/// Runs `cosec ARGS...` for each argument list at once (a whole-suite evaluation takes
/// seconds in a debug build).
fn cosec_all(runs: &[Vec<&str>]) -> Vec<Output> {
    let children: Vec<_> = runs
        .iter()
        .map(|args| {
            Command::new(env!("CARGO_BIN_EXE_cosec"))
                .args(args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn cosec")
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("cosec ran"))
        .collect()
}

#[test]
fn removing_the_read_rules_shows_as_read_false_denies_and_costs_every_legitimate_task() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let default = repo("policies/defense/default.cedar");
    let default = default.to_str().expect("utf8");
    let no_read = default_without_read(tmp.path());
    let no_read = no_read.to_str().expect("utf8");
    let outs = cosec_all(&[
        vec!["policy", "test", default, "--json"],
        vec!["policy", "test", no_read, "--json"],
    ]);
    let (full, stripped) = (json_of(&outs[0]), json_of(&outs[1]));

    // The full policy lets in exactly what the oracle lets each turn pass on.
    let read = &full["read"];
    assert!(count(&read["questions"]) > 0, "{read}");
    assert!(count(&read["permitted"]) > 0, "{read}");
    assert!(
        count(&read["permitted"]) < count(&read["questions"]),
        "{read}"
    );
    assert_eq!(count(&read["false_deny"]), 0, "{read}");
    assert_eq!(count(&read["false_allow"]), 0, "{read}");

    // Without `read` rules every permitted read is withheld; no scored flow changes, but
    // every legitimate task's own read is refused, so every task is lost.
    let gone = &stripped["read"];
    assert_eq!(gone["questions"], read["questions"]);
    assert_eq!(gone["false_deny"], read["permitted"], "{gone}");
    assert_eq!(count(&gone["false_allow"]), 0);
    for key in ["false_allow", "scored_flows", "legit_flows", "legit_tasks"] {
        assert_eq!(stripped[key], full[key], "`{key}` moved");
    }
    assert_eq!(count(&full["false_deny"]), 0);
    assert_eq!(count(&full["legit_tasks_denied"]), 0);
    assert_eq!(count(&full["legit_tasks"]), 208);
    let legit_reads = full["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["kind"] == "legit" && c["action"] == "read")
        .count() as u64;
    assert!(legit_reads >= 208, "{legit_reads} legitimate reads");
    assert_eq!(count(&stripped["false_deny"]), legit_reads);
    assert_eq!(stripped["legit_tasks_denied"], full["legit_tasks"]);
    let cases = gone["cases"].as_array().expect("cases");
    assert_eq!(cases.len() as u64, count(&gone["questions"]));
    assert!(cases
        .iter()
        .filter(|c| c["mismatch"] == "false_deny")
        .all(|c| c["defense"] == "deny" && c["oracle"] == "allow" && c["turn"].is_u64()));

    // The readable report says so, and --strict fails on it (one scenario is enough).
    let one = repo("scenarios/suite/dy-join-inter-owner-a3-s6.json");
    let one = one.to_str().expect("utf8");
    let outs = cosec_all(&[
        vec!["policy", "test", no_read, "--scenario-file", one],
        vec![
            "policy",
            "test",
            no_read,
            "--scenario-file",
            one,
            "--strict",
        ],
        vec![
            "policy",
            "test",
            default,
            "--scenario-file",
            one,
            "--strict",
        ],
    ]);
    let text = String::from_utf8_lossy(&outs[0].stdout).into_owned();
    assert!(text.contains("reads the oracle permits (100.0%)"), "{text}");
    assert!(text.contains("read false denies ("), "{text}");
    assert!(text.contains("dy-join-inter-owner-a3-s6"), "{text}");
    assert_eq!(outs[1].status.code(), Some(1));
    assert_eq!(outs[2].status.code(), Some(0), "the default agrees");
}

#[test]
fn suite_dir_and_scenario_files_score_only_the_given_scenarios() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let suite = repo("scenarios/suite");
    let picked = [
        "dy-join-inter-owner-a1-s2.json",
        "dy-join-intra-owner-a1-s2.json",
    ];
    for name in picked.iter().chain(["MANIFEST.json"].iter()) {
        std::fs::copy(suite.join(name), tmp.path().join(name)).expect("copy");
    }
    let default = repo("policies/defense/default.cedar");
    let default = default.to_str().expect("utf8");
    let dir = tmp.path().to_str().expect("utf8");

    // A suite folder that differs from its manifest is refused unless allowed.
    let refused = cosec(&["policy", "test", default, "--suite-dir", dir]);
    assert_eq!(refused.status.code(), Some(2));
    let out = cosec(&[
        "policy",
        "test",
        default,
        "--suite-dir",
        dir,
        "--allow-modified",
        "--json",
    ]);
    let report = json_of(&out);
    let mut ids: Vec<&str> = report["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .chain(report["read"]["cases"].as_array().expect("read cases"))
        .map(|c| c["scenario"].as_str().expect("id"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids,
        ["dy-join-inter-owner-a1-s2", "dy-join-intra-owner-a1-s2"]
    );

    // One scenario file alone, through --scenario-file.
    let one = suite.join(picked[0]);
    let report = json_of(&cosec(&[
        "policy",
        "test",
        default,
        "--scenario-file",
        one.to_str().expect("utf8"),
        "--json",
    ]));
    assert!(report["read"]["cases"]
        .as_array()
        .expect("read cases")
        .iter()
        .all(|c| c["scenario"] == "dy-join-inter-owner-a1-s2"));
    assert!(count(&report["read"]["questions"]) > 0);
}
