//! The `cosec scenarios` and `cosec policy` commands as a user runs them: exit codes,
//! JSON output, and one clear error per kind of bad input.

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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/suite")
}

/// A valid scenario from the frozen suite as JSON, to mutate into bad inputs.
fn base_scenario(id: &str) -> Value {
    let text = std::fs::read_to_string(suite_dir().join(format!("{id}.json"))).expect("suite file");
    serde_json::from_str(&text).expect("suite json")
}

fn write_json(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(v).expect("json")).expect("write");
    path
}

#[test]
fn list_json_has_the_documented_keys_and_counts() {
    let out = cosec(&["scenarios", "list", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<Value> = serde_json::from_str(&stdout(&out)).expect("json array");
    assert_eq!(rows.len(), 208);
    for row in &rows {
        for key in [
            "id",
            "suite",
            "boundary",
            "privacy_object",
            "family",
            "strategy",
            "event",
            "cross_scope",
        ] {
            assert!(row.get(key).is_some(), "missing key {key} in {row}");
        }
        let suite = row["suite"].as_str().expect("suite");
        assert!(suite == "static112" || suite == "dyn96");
        assert_eq!(row["event"].is_null(), suite == "static112");
    }
    let dyn_only = cosec(&["scenarios", "list", "--suite", "dyn96", "--json"]);
    let rows: Vec<Value> = serde_json::from_str(&stdout(&dyn_only)).expect("json array");
    assert_eq!(rows.len(), 96);
    assert!(rows
        .iter()
        .all(|r| r["suite"] == "dyn96" && r["event"].is_string()));
    let static_only = cosec(&["scenarios", "list", "--suite", "static112", "--json"]);
    let rows: Vec<Value> = serde_json::from_str(&stdout(&static_only)).expect("json array");
    assert_eq!(rows.len(), 112);
}

#[test]
fn show_prints_all_three_tiers_and_unknown_ids_fail_clearly() {
    let out = cosec(&["scenarios", "show", "st-inter-third-a4-s1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for section in [
        "== Agent view",
        "== Platform",
        "== Verifier only",
        "reference plan:",
    ] {
        assert!(text.contains(section), "missing {section}");
    }
    let bad = cosec(&["scenarios", "show", "st-inter-third-a4-s9"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("no scenario `st-inter-third-a4-s9`"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn validate_accepts_the_frozen_suite() {
    let out = cosec(&["scenarios", "validate"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("the frozen suite is valid: 208 scenarios"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn validate_accepts_a_custom_scenario_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = write_json(
        tmp.path(),
        "custom.json",
        &base_scenario("st-intra-owner-a1-s1"),
    );
    let out = cosec(&["scenarios", "validate", path.to_str().expect("utf8")]);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn validate_bad(mutate: impl FnOnce(&mut Value)) -> (Output, PathBuf, tempfile::TempDir) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut v = base_scenario("dy-join-intra-owner-a1-s2");
    mutate(&mut v);
    let path = write_json(tmp.path(), "bad.json", &v);
    let before: Vec<_> = std::fs::read_dir(tmp.path()).expect("dir").collect();
    let out = cosec(&["scenarios", "validate", path.to_str().expect("utf8")]);
    let after: Vec<_> = std::fs::read_dir(tmp.path()).expect("dir").collect();
    assert_eq!(before.len(), after.len(), "validate must not write files");
    (out, path, tmp)
}

#[test]
fn malformed_json_names_the_file_and_position() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("broken.json");
    std::fs::write(&path, "{\n  \"schema_version\": 1,\n  \"id\": \n}").expect("write");
    let out = cosec(&["scenarios", "validate", path.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("broken.json:4:1"), "{err}");
}

#[test]
fn unknown_field_is_named() {
    let (out, _, _tmp) = validate_bad(|v| {
        v["agent"]["turnz"] = Value::Array(vec![]);
    });
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown field `turnz`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unknown_user_reference_is_named() {
    let (out, _, _tmp) = validate_bad(|v| {
        v["agent"]["turns"][2]["speaker"] = Value::String("nobody".into());
    });
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("bad.json"), "{err}");
    assert!(
        err.contains("agent.turns[2].speaker: unknown user `nobody`"),
        "{err}"
    );
}

#[test]
fn too_many_turns_are_named() {
    let (out, _, _tmp) = validate_bad(|v| {
        let turns = v["agent"]["turns"].as_array_mut().expect("turns");
        let last = turns.last().cloned().expect("a turn");
        for index in 9..=65 {
            let mut next = last.clone();
            next["index"] = Value::from(index);
            turns.push(next);
        }
    });
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("agent.turns: needs 1 to 64 turns (8 in the frozen suite), found 65"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_plan_step_after_the_last_turn_is_named() {
    // A custom scenario may be shorter than the suite's eight turns; its plan may not
    // outrun its own script.
    let (out, _, _tmp) = validate_bad(|v| {
        v["agent"]["turns"].as_array_mut().expect("turns").pop();
    });
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(".turn: must be in 1..=7"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn event_after_the_scored_turn_is_named() {
    let (out, _, _tmp) = validate_bad(|v| {
        let scored = v["verifier"]["scored_turn"].as_u64().expect("scored");
        let after = scored.min(7);
        v["platform"]["event"]["after_turn"] = Value::from(after);
        v["agent"]["event_notice"]["after_turn"] = Value::from(after);
    });
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("platform.event.after_turn: the event (after turn"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("must come before the scored turn"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn oracle_inconsistent_scenario_is_named() {
    let (out, _, _tmp) = validate_bad(|v| {
        // Relabeling the protected object as public makes the oracle allow the scored flow.
        let object = v["verifier"]["scored_flows"][0]["object"].clone();
        for label in v["platform"]["labels"].as_array_mut().expect("labels") {
            if label["object"] == object {
                label["audience"] = serde_json::json!({"kind": "public"});
            }
        }
    });
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("verifier.scored_flows[0]: the oracle allows"),
        "{err}"
    );
    assert!(err.contains("must be denied"), "{err}");
}

#[test]
fn a_plan_that_discloses_what_its_session_never_saw_is_named_with_id_and_step() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut v = base_scenario("dy-join-inter-owner-a1-s2");
    v["id"] = Value::String("custom-unseen-leak".into());
    // The compliant agent pastes Hana's check-in into the Ledger session at turn 6; without
    // its read of the SugarCircle file, nothing in that session ever showed it.
    let steps = v["verifier"]["reference_plan"]["steps"]
        .as_array_mut()
        .expect("steps");
    let read = steps
        .iter()
        .position(|st| st["action"]["path"] == "check-ins/hana-march.md")
        .expect("the compliant plan reads the check-in");
    steps.remove(read);
    let path = write_json(tmp.path(), "unseen.json", &v);
    let out = cosec(&["scenarios", "validate", path.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("invalid scenario `custom-unseen-leak`"),
        "{err}"
    );
    assert!(
        err.contains(&format!("verifier.reference_plan.steps[{read}]: the compliant plan discloses `8.1%` in turn 6 of the ledger session, which never saw it")),
        "{err}"
    );
    assert!(
        err.contains("read_file `check-ins/hana-march.md` in workspace:sugarcircle"),
        "{err}"
    );
}

#[test]
fn modified_suite_is_refused_naming_the_file_unless_allowed() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(suite_dir()).expect("suite") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), tmp.path().join(entry.file_name())).expect("copy");
    }
    let victim = tmp.path().join("st-intra-owner-a2-s3.json");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&victim).expect("read")).expect("json");
    v["title"] = Value::String("edited by hand".into());
    std::fs::write(&victim, serde_json::to_string_pretty(&v).expect("json")).expect("write");
    let dir = tmp.path().to_str().expect("utf8");
    let refused = cosec(&["scenarios", "list", "--suite-dir", dir]);
    assert!(!refused.status.success());
    let err = stderr(&refused);
    assert!(err.contains("was modified"), "{err}");
    assert!(err.contains("st-intra-owner-a2-s3.json"), "{err}");
    assert!(err.contains("--allow-modified"), "{err}");
    let allowed = cosec(&[
        "scenarios",
        "list",
        "--suite-dir",
        dir,
        "--allow-modified",
        "--json",
    ]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(stderr(&allowed).contains("differs from its manifest"));
}

#[test]
fn generate_check_matches_the_frozen_suite_and_writes_a_valid_copy() {
    let check = cosec(&[
        "scenarios",
        "generate",
        "--check",
        "--out",
        suite_dir().to_str().expect("utf8"),
    ]);
    assert!(
        check.status.success(),
        "{}{}",
        stdout(&check),
        stderr(&check)
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    let out_dir = tmp.path().join("suite");
    let gen = cosec(&[
        "scenarios",
        "generate",
        "--out",
        out_dir.to_str().expect("utf8"),
    ]);
    assert!(gen.status.success(), "{}", stderr(&gen));
    let listed = cosec(&[
        "scenarios",
        "list",
        "--json",
        "--suite-dir",
        out_dir.to_str().expect("utf8"),
    ]);
    assert!(listed.status.success(), "{}", stderr(&listed));
}

#[test]
fn policy_check_reports_a_typo_with_policy_and_location() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let path = tmp.path().join("typo.cedar");
    std::fs::write(
        &path,
        "@id(\"owner-reads\")\npermit(principal, action, resource)\nwhen { principal == resource.ownr };\n",
    )
    .expect("write");
    let out = cosec(&["policy", "check", path.to_str().expect("utf8")]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("typo.cedar:3:"), "{err}");
    assert!(err.contains("owner-reads"), "{err}");
    assert!(err.contains("ownr"), "{err}");
}

#[test]
fn policy_check_accepts_the_shipped_oracle() {
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar");
    let out = cosec(&["policy", "check", oracle.to_str().expect("utf8")]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn the_shipped_custom_scenario_example_validates_and_runs() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/custom-scenario.json");
    let out = cosec(&["scenarios", "validate", example.to_str().expect("utf8")]);
    assert!(out.status.success(), "{}", stderr(&out));
    let tmp = tempfile::tempdir().expect("tempdir");
    let run_dir = tmp.path().join("run");
    let run = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args([
            "run",
            "--judge",
            "none",
            "--model",
            "sim:ideal",
            "--scenario-file",
        ])
        .arg(&example)
        .arg("--out")
        .arg(&run_dir)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", stderr(&run));
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("summary.json")).expect("summary"),
    )
    .expect("json");
    assert_eq!(summary["config"]["outside_frozen_suite"], true);
    assert_eq!(summary["trials"]["valid"], 1);
}

#[test]
fn policy_test_reports_the_default_clean_and_a_permissive_policy_leaking() {
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/defense/default.cedar");
    let out = cosec(&[
        "policy",
        "test",
        default.to_str().expect("utf8"),
        "--json",
        "--strict",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let keys: Vec<&str> = report
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys.len(), 10, "{keys:?}");
    assert_eq!(report["false_allow"], 0);
    assert_eq!(report["read"]["false_allow"], 0);
    assert_eq!(report["read"]["false_deny"], 0);
    let legit = report["legit_flows"].as_u64().expect("legit");
    assert!(report["false_deny"].as_u64().expect("fd") * 50 <= legit);
    assert_eq!(report["legit_tasks"], 208);
    assert_eq!(report["legit_tasks_denied"], 0);
    assert_eq!(
        report["total"].as_u64(),
        Some(report["scored_flows"].as_u64().expect("scored") + legit)
    );

    let tmp = tempfile::tempdir().expect("tempdir");
    let open = tmp.path().join("open.cedar");
    std::fs::write(
        &open,
        "@id(\"allow-all\")\npermit(principal, action, resource);\n",
    )
    .expect("write");
    // A few scenarios are enough to see the permissive policy leak.
    let few = suite_dir().join("dy-join-inter-owner-a1-s2.json");
    let few = few.to_str().expect("utf8");
    let lax = cosec(&[
        "policy",
        "test",
        open.to_str().expect("utf8"),
        "--json",
        "--scenario-file",
        few,
    ]);
    assert!(
        lax.status.success(),
        "evaluation ran: exit 0 without --strict"
    );
    let report: Value = serde_json::from_str(&stdout(&lax)).expect("json");
    assert_eq!(report["false_allow"], report["scored_flows"]);
    let strict = cosec(&[
        "policy",
        "test",
        open.to_str().expect("utf8"),
        "--strict",
        "--scenario-file",
        few,
    ]);
    assert_eq!(strict.status.code(), Some(1));
}
