//! `cosec policy replay` on runs the `cosec` binary recorded: the three calibrations
//! (a guarded run through its own policy changes nothing; an unguarded `sim:comply` run
//! through the default policy has every recorded violation stopped; through an empty
//! policy every violation is stopped and every legitimate flow denied), on a few
//! scenarios of both halves here and on the whole suite in the replay tier.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Scenarios of both halves, with and without a community event.
const FEW: &[&str] = &[
    "dy-join-inter-owner-a1-s2",
    "dy-join-inter-owner-a2-s2",
    "st-inter-owner-a1-s3",
    "st-inter-third-a4-s4",
    "st-intra-third-a3-s5",
    "st-intra-third-a4-s1",
];

const DEFAULT_POLICY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../policies/defense/default.cedar"
);

fn record(dir: &Path, name: &str, args: &[&str], scenarios: &[&str]) -> PathBuf {
    record_with(dir, name, args, scenarios, &[])
}

fn record_with(
    dir: &Path,
    name: &str,
    args: &[&str],
    scenarios: &[&str],
    harness: &[&str],
) -> PathBuf {
    let out = dir.join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
    cmd.arg("run")
        .args(["--model", "sim:comply", "--judge", "none", "--out"])
        .arg(&out)
        .args(args)
        .args(harness)
        .env_remove("COSEC_JUDGE_BASE_URL");
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn replay(run: &Path, policy: &Path, extra: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["policy", "replay"])
        .arg(run)
        .arg("--policy")
        .arg(policy)
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn n(v: &Value, key: &str) -> u64 {
    v["totals"][key]
        .as_u64()
        .unwrap_or_else(|| v["totals"]["price"][key].as_u64().unwrap())
}

/// The three calibrations over the runs of `scenarios` (all of the suite when empty).
fn calibrate(scenarios: &[&str], trials: u64) {
    calibrate_with(scenarios, trials, &[]);
}

/// [`calibrate`] with runs through `harness` (its `cosec run` flags).
fn calibrate_with(scenarios: &[&str], trials: u64, harness: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.cedar");
    std::fs::write(&empty, "// denies everything\n").unwrap();

    let guarded = record_with(
        tmp.path(),
        "guarded",
        &["--defense", "proxy"],
        scenarios,
        harness,
    );
    let own = replay(&guarded, &guarded.join("policy.cedar"), &[]);
    assert_eq!(n(&own, "trials"), trials);
    assert!(n(&own, "points") > 0, "a guarded run has decision points");
    assert_eq!(n(&own, "changed"), 0, "{}", own["totals"]);
    assert_eq!(n(&own, "exact_trials"), trials, "{}", own["totals"]);
    assert_eq!(n(&own, "legit_flows_denied"), 0, "{}", own["totals"]);

    let none = record_with(
        tmp.path(),
        "none",
        &["--defense", "none"],
        scenarios,
        harness,
    );
    let default = replay(&none, Path::new(DEFAULT_POLICY), &[]);
    assert_eq!(n(&default, "trials"), trials);
    assert!(n(&default, "violations") >= trials, "{}", default["totals"]);
    assert_eq!(
        n(&default, "violations_stopped"),
        n(&default, "violations"),
        "every recorded violation stopped: {}",
        default["totals"]
    );
    assert_eq!(
        n(&default, "scored_violations_stopped"),
        n(&default, "scored_violations")
    );
    assert_eq!(n(&default, "pvr_trials_left"), 0);
    assert_eq!(n(&default, "pvr_all_trials_left"), 0);
    assert!(n(&default, "allow_to_deny") > 0);
    assert_eq!(
        n(&default, "deny_to_allow"),
        0,
        "nothing was denied in the recording"
    );

    let nothing = replay(&none, &empty, &["--allow-empty-policy"]);
    assert_eq!(n(&nothing, "violations_stopped"), n(&nothing, "violations"));
    assert_eq!(n(&nothing, "denied"), n(&nothing, "points"));
    assert!(n(&nothing, "legit_flows") > 0, "{}", nothing["totals"]);
    // An answer whose value the guard's strong patterns do not find meets no point of
    // its own; it is denied with the read it needs.
    assert_eq!(
        n(&nothing, "legit_flows_denied"),
        n(&nothing, "legit_flows"),
        "every legitimate flow denied: {}",
        nothing["totals"]
    );
    assert_eq!(n(&nothing, "tasks_denied"), n(&nothing, "tasks"));
}

#[test]
fn replay_calibrates_on_a_few_scenarios() {
    calibrate(FEW, FEW.len() as u64);
}

#[test]
#[ignore = "tier replay: three whole-suite runs of the built-in agent"]
fn replay_calibrates_on_the_whole_suite() {
    calibrate(&[], 208);
}

/// One recorded `sim:comply` run of a native harness under bubblewrap, on the merge
/// scenario the harness acceptance uses.
fn calibrate_harness(name: &str) {
    calibrate_with(
        &["dy-merge-inter-owner-a4-s7"],
        1,
        &["--harness", name, "--sandbox", "bwrap", "--retries", "0"],
    );
}

#[test]
#[ignore = "tier harnesses: Codex CLI under bubblewrap"]
fn harness_codex_replay_calibrates() {
    calibrate_harness("codex");
}

#[test]
#[ignore = "tier harnesses: OpenClaw under bubblewrap"]
fn harness_openclaw_replay_calibrates() {
    calibrate_harness("openclaw");
}

#[test]
#[ignore = "tier harnesses: Hermes Agent under bubblewrap"]
fn harness_hermes_replay_calibrates() {
    calibrate_harness("hermes");
}

#[test]
fn a_changed_decision_names_its_point_and_the_replay_marks_what_is_estimated() {
    let tmp = tempfile::tempdir().unwrap();
    let guarded = record(tmp.path(), "guarded", &["--defense", "proxy"], &FEW[..2]);
    let empty = tmp.path().join("empty.cedar");
    std::fs::write(&empty, "").unwrap();
    // Against the default policy, an empty one denies what the default allowed.
    let r = replay(
        &guarded,
        &empty,
        &["--allow-empty-policy", "--against", DEFAULT_POLICY],
    );
    assert_eq!(r["baseline"], "against");
    let trial = &r["trials"][0];
    let changes = trial["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    for c in changes {
        assert_eq!(c["from"], "allow");
        assert_eq!(c["to"], "deny");
        for key in ["object", "destination", "action", "point", "layer"] {
            assert!(c[key].as_str().is_some_and(|s| !s.is_empty()), "{c}");
        }
        assert!(c["turn"].as_u64().unwrap() >= 1);
    }
    // The first change takes effect in the recorded trial: exact up to there, and a
    // later change is an estimate.
    let first = trial["diverges_at"]["line"].as_u64().unwrap();
    assert_eq!(changes[0]["line"].as_u64().unwrap(), first);
    assert_eq!(changes[0]["exact"], true);
    assert!(changes.iter().any(|c| c["exact"] == false), "{trial}");
    assert!(changes
        .iter()
        .all(|c| (c["exact"] == true) == (c["line"].as_u64().unwrap() <= first)));

    // `--out` writes the same JSON the report shows.
    let out = tmp.path().join("replay.json");
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["policy", "replay"])
        .arg(&guarded)
        .arg("--policy")
        .arg(DEFAULT_POLICY)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("decisions changed:            0"), "{text}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written["totals"]["changed"], 0);

    // Beside the run, the HTML report shows it.
    let html = tmp.path().join("report.html");
    let report = |html: &Path| {
        let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
            .arg("report")
            .arg(&guarded)
            .arg("--html")
            .arg(html)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read_to_string(html).unwrap()
    };
    assert!(
        !report(&html).contains("id=\"replay\""),
        "no replay, no section"
    );
    std::fs::copy(&out, guarded.join("replay.json")).unwrap();
    let page = report(&html);
    assert!(page.contains("id=\"replay\""), "the replay section");
    assert!(page.contains("Policy replay"));
}

#[test]
fn a_policy_or_run_that_cannot_be_read_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.cedar");
    std::fs::write(&bad, "permit(principal, action, resource").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["policy", "replay"])
        .arg(tmp.path())
        .arg("--policy")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad.cedar"));
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["policy", "replay"])
        .arg(tmp.path())
        .arg("--policy")
        .arg(DEFAULT_POLICY)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("run.json"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
