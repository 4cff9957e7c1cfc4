//! A sharded run on a real Slurm (started by scripts/tiers/slurm.sh): a 4-task array of
//! a whole-suite `sim:comply` run submitted with examples/slurm/submit.sh, the merge
//! step depending on the array, and the merged summary equal to the unsharded run's
//! in every rate and count.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The Slurm jobs' output files in the run folder, for a failure message.
fn job_logs(run_dir: &Path) -> String {
    let mut logs = String::new();
    for entry in std::fs::read_dir(run_dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "out") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            logs.push_str(&format!("== {}\n{text}\n", path.display()));
        }
    }
    logs
}

/// A summary without what differs between any two runs of the same trials: wall times,
/// and the opaque trial ids listed per failure class (their counts stay).
fn comparable(mut s: Value) -> Value {
    for key in ["wall_seconds", "trial_seconds"] {
        s["usage"].as_object_mut().unwrap().remove(key);
    }
    if let Some(classes) = s
        .get_mut("failure_class_trials")
        .and_then(Value::as_object_mut)
    {
        for ids in classes.values_mut() {
            *ids = Value::from(ids.as_array().map_or(0, Vec::len));
        }
    }
    s
}

#[test]
#[ignore = "tier slurm: needs a running Slurm (scripts/tiers/slurm.sh)"]
fn a_slurm_array_of_four_shards_merges_into_the_unsharded_summary() {
    let cosec = env!("CARGO_BIN_EXE_cosec");
    let submit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/slurm/submit.sh");
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = tmp.path().join("study");
    let flags = ["--model", "sim:comply", "--judge", "none"];

    let started = Instant::now();
    let o = Command::new(&submit)
        .arg(&run_dir)
        .arg("4")
        .args(flags)
        .env("COSEC", cosec)
        .env("COSEC_SUBMIT_WAIT", "1")
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap();
    println!(
        "slurm: array + merge in {:.1} s\n{}",
        started.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stderr),
        job_logs(&run_dir)
    );
    let shards_done = (0..4).all(|k| run_dir.join(format!("shards/{k}/summary.json")).is_file());
    assert!(
        shards_done,
        "a shard did not finish; the jobs' output:\n{}",
        job_logs(&run_dir)
    );
    for k in 0..4 {
        let shard = json(&run_dir.join(format!("shards/{k}/run.json")));
        assert_eq!(shard["shard"]["index"], k);
        assert_eq!(shard["shard"]["count"], 4);
    }
    let merged = json(&run_dir.join("merged/summary.json"));

    let started = Instant::now();
    let whole = tmp.path().join("whole");
    let o = Command::new(cosec)
        .arg("run")
        .args(flags)
        .arg("--out")
        .arg(&whole)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    println!(
        "slurm: unsharded run in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let whole = json(&whole.join("summary.json"));
    assert_eq!(merged["trials"]["total"], 208);
    assert_eq!(comparable(merged), comparable(whole));
    println!("slurm: merged summary == unsharded summary (208 trials)");
}
