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

/// A summary without wall times, which differ between any two runs.
fn comparable(mut s: Value) -> Value {
    for key in ["wall_seconds", "trial_seconds"] {
        s["usage"].as_object_mut().unwrap().remove(key);
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
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
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
