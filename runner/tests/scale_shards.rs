//! `cosec run --shard K/N` and `cosec merge` end to end on the real binary: the merged
//! run equals the run done in one piece (every rate and count), and a missing, doubled
//! or foreign shard is refused naming the trials or the difference.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .output()
        .expect("run cosec")
}

fn ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A summary without what legitimately differs between two runs of the same trials:
/// wall times and guard latencies.
fn comparable(mut s: Value) -> Value {
    for key in ["wall_seconds", "trial_seconds"] {
        s["usage"].as_object_mut().unwrap().remove(key);
    }
    if let Some(guard) = s["guard"].as_object_mut() {
        guard.remove("latency_p50_us");
        guard.remove("latency_p99_us");
    }
    s
}

fn scenarios_of(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["scenario"].as_str().unwrap().to_owned()
        })
        .collect()
}

const FLAGS: &[&str] = &[
    "--model",
    "sim:comply",
    "--defense",
    "proxy",
    "--judge",
    "none",
    "--suite",
    "static112",
];

fn run(out: &Path, extra: &[&str]) {
    let mut args = vec!["run"];
    args.extend_from_slice(FLAGS);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--out", out.to_str().unwrap()]);
    ok(&cosec(&args));
}

fn merge(shards: &[&PathBuf], out: &Path) -> Output {
    let mut args = vec!["merge".to_owned()];
    args.extend(shards.iter().map(|p| p.display().to_string()));
    args.extend(["--out".to_owned(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    cosec(&args)
}

#[test]
fn merged_shards_equal_the_whole_run_and_incomplete_sets_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    run(&whole, &[]);
    let shards: Vec<PathBuf> = (0..3).map(|k| tmp.path().join(format!("s{k}"))).collect();
    for (k, dir) in shards.iter().enumerate() {
        run(dir, &["--shard", &format!("{k}/3")]);
    }
    // Every trial in exactly one shard.
    let mut seen = BTreeSet::new();
    for dir in &shards {
        for s in scenarios_of(dir) {
            assert!(seen.insert(s.clone()), "{s} in two shards");
        }
    }
    assert_eq!(seen.len(), 112);

    let merged = tmp.path().join("merged");
    let o = merge(&[&shards[2], &shards[0], &shards[1]], &merged);
    ok(&o);
    let whole_summary = json(&whole.join("summary.json"));
    let merged_summary = json(&merged.join("summary.json"));
    assert_eq!(merged_summary["trials"]["total"], 112);
    assert!(merged_summary["guard"]["denied"].as_u64().unwrap() > 0);
    assert_eq!(comparable(merged_summary), comparable(whole_summary));
    let merged_ids: BTreeSet<String> = scenarios_of(&merged).into_iter().collect();
    assert_eq!(merged_ids, seen);
    // `cosec report` reads the merged folder as any run folder.
    ok(&cosec(&["report", merged.to_str().unwrap()]));

    // A missing shard: refused, naming exactly its trials.
    let o = merge(&[&shards[0], &shards[1]], &tmp.path().join("m2"));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("37 trial(s) missing"), "{err}");
    for id in scenarios_of(&shards[2]) {
        assert!(err.contains(&id), "{id} not named: {err}");
    }
    assert!(!tmp.path().join("m2").exists());

    // A doubled shard: refused, naming the scenario and both trial ids.
    let o = merge(
        &[&shards[0], &shards[1], &shards[2], &shards[1]],
        &tmp.path().join("m3"),
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("37 trial(s) present more than once"), "{err}");
    let line: Value = serde_json::from_str(
        std::fs::read_to_string(shards[1].join("results.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(err.contains(line["scenario"].as_str().unwrap()), "{err}");
    assert!(err.contains(line["trial"].as_str().unwrap()), "{err}");

    // A shard of another configuration: refused, naming what differs.
    let other = tmp.path().join("other");
    ok(&cosec(&[
        "run",
        "--model",
        "sim:refuse",
        "--defense",
        "proxy",
        "--judge",
        "none",
        "--suite",
        "static112",
        "--shard",
        "2/3",
        "--out",
        other.to_str().unwrap(),
    ]));
    let o = merge(&[&shards[0], &shards[1], &other], &tmp.path().join("m4"));
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(err.contains("different model"), "{err}");

    // An unsharded folder is not a shard.
    let o = merge(&[&whole], &tmp.path().join("m5"));
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a shard"));
}

#[test]
fn a_shard_resumes_its_own_slice_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s1");
    run(&dir, &["--shard", "1/4"]);
    let first = scenarios_of(&dir);
    assert_eq!(first.len(), 28);
    // Resuming a finished shard runs nothing again; another slice is refused.
    run(&dir, &["--shard", "1/4", "--resume"]);
    assert_eq!(scenarios_of(&dir), first);
    let mut args = vec!["run"];
    args.extend_from_slice(FLAGS);
    args.extend_from_slice(&["--shard", "2/4", "--resume", "--out", dir.to_str().unwrap()]);
    let o = cosec(&args);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("different options"));
    let o = cosec(&["run", "--shard", "4/4", "--out", "x"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("K counts from 0"));
}

/// Shards of a run with `--epochs`: each shard runs every repeat of its slice, and the
/// merge counts a missing repeat as missing, by scenario and repeat.
#[test]
fn shards_of_a_repeated_run_merge_by_scenario_and_repeat() {
    let dir = tempfile::tempdir().unwrap();
    let repeated = |out: &Path, shard: &str| {
        ok(&cosec(&[
            "run",
            "--model",
            "sim:comply",
            "--judge",
            "none",
            "--suite",
            "static112",
            "--limit",
            "4",
            "--epochs",
            "2",
            "--shard",
            shard,
            "--out",
            out.to_str().unwrap(),
        ]));
    };
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    repeated(&a, "0/2");
    repeated(&b, "1/2");
    assert_eq!(scenarios_of(&a).len(), 4, "two scenarios, two repeats each");
    let merged = dir.path().join("merged");
    ok(&merge(&[&a, &b], &merged));
    let summary = json(&merged.join("summary.json"));
    assert_eq!(summary["trials"]["total"], 8);
    assert_eq!(summary["config"]["epochs"], 2);

    // One repeat lost from a shard: the merge names it.
    let results = b.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"epoch\":1"))
        .collect();
    assert_eq!(kept.len(), 2);
    std::fs::write(&results, kept.join("\n") + "\n").unwrap();
    let refused = merge(&[&a, &b], &dir.path().join("merged-2"));
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("#1"), "{said}");
}
