//! `cosec export inspect` and `cosec run --inspect-log` over real runs of the simulated
//! models: the log's structure as Inspect's schema requires it, scores equal to the
//! verdicts and rates equal to `summary.json`, errored samples for infrastructure
//! failures, repeats as epochs, and nothing of the hidden half in the export.
//! (inspect-ai's own reader checks the same files in scripts/tiers/inspect.sh.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec::export::inspect::MARK;
use cosec_scenarios::suite;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
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

fn run(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--judge", "none", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    cosec(&args)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Exports `runs` into `out` and returns the files the command printed.
fn export(runs: &[&Path], out: &Path) -> Vec<PathBuf> {
    let mut args = vec!["export", "inspect"];
    args.extend(runs.iter().map(|r| r.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    let o = cosec(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect()
}

/// Fields Inspect's schema (`inspect log schema`, inspect-ai 0.3.285) requires.
const LOG_REQUIRED: [&str; 8] = [
    "version",
    "status",
    "eval",
    "plan",
    "stats",
    "invalidated",
    "tags",
    "metadata",
];
const SPEC_REQUIRED: [&str; 15] = [
    "eval_id",
    "run_id",
    "created",
    "task",
    "task_id",
    "task_version",
    "task_attribs",
    "task_args",
    "task_args_passed",
    "dataset",
    "model",
    "model_generate_config",
    "model_args",
    "config",
    "packages",
];
const SAMPLE_REQUIRED: [&str; 12] = [
    "id",
    "epoch",
    "input",
    "target",
    "messages",
    "output",
    "metadata",
    "store",
    "events",
    "model_usage",
    "role_usage",
    "attachments",
];
const RATES: [&str; 5] = ["pvr", "pvr_all", "ccpvr", "bcr", "stcr"];

fn assert_has(value: &Value, fields: &[&str], what: &str) {
    for f in fields {
        assert!(value.get(f).is_some(), "{what} lacks `{f}`");
    }
}

#[test]
fn a_dyn96_run_exports_one_log_whose_scores_are_the_verdicts_and_rates_the_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("comply");
    let o = run(&dir, &["--model", "sim:comply", "--suite", "dyn96"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = export(&[&dir], &tmp.path().join("logs"));
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().unwrap().to_str().unwrap();
    // Inspect lists a .json log only when its name starts with a full timestamp.
    let stamp = &name[..19];
    assert!(
        stamp.chars().enumerate().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == '-',
            _ => c.is_ascii_digit(),
        }),
        "{name}"
    );
    assert!(
        name.contains("_cosec-dyn96_") && name.ends_with(".json"),
        "{name}"
    );

    let log = read_json(&files[0]);
    assert_has(&log, &LOG_REQUIRED, "the log");
    assert_has(&log["eval"], &SPEC_REQUIRED, "eval");
    assert_eq!(log["version"], 2);
    assert_eq!(log["status"], "success");
    let spec = &log["eval"];
    let record = read_json(&dir.join("run.json"));
    assert_eq!(spec["model"], "sim:comply");
    assert_eq!(spec["task_version"], record["suite_version"]);
    assert_eq!(spec["task_attribs"]["suite_digest"], record["suite_digest"]);
    for arg in [
        "harness",
        "defense",
        "policy_digest",
        "guard_layers",
        "attacker",
        "epochs",
    ] {
        assert!(spec["task_args"].get(arg).is_some(), "task args lack {arg}");
    }
    assert_eq!(spec["task_args"]["defense"], "none");

    let summary = read_json(&dir.join("summary.json"));
    let scores = log["results"]["scores"].as_array().unwrap();
    assert_eq!(scores.len(), RATES.len());
    for (score, rate) in scores.iter().zip(RATES) {
        assert_eq!(score["name"], rate);
        let m = &score["metrics"];
        assert_eq!(m["mean"]["value"], summary["overall"][rate], "{rate}");
        assert_eq!(
            m["ci_lower"]["value"],
            summary["overall"][format!("{rate}_ci")][0]
        );
        assert_eq!(
            m["ci_upper"]["value"],
            summary["overall"][format!("{rate}_ci")][1]
        );
    }
    assert_eq!(log["results"]["metadata"]["dyn96"], summary["dyn96"]);

    let verdicts: BTreeMap<String, Value> = results(&dir)
        .into_iter()
        .map(|v| (v["scenario"].as_str().unwrap().to_owned(), v))
        .collect();
    let samples = log["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 96);
    let mut input_tokens = 0;
    for s in samples {
        assert_has(s, &SAMPLE_REQUIRED, "a sample");
        let v = &verdicts[s["id"].as_str().unwrap()];
        assert_eq!(s["epoch"], 1);
        for rate in RATES {
            let expected = v[rate].as_bool().unwrap();
            if rate == "ccpvr" && !v["factors"]["cross_scope"].as_bool().unwrap() {
                assert!(
                    s["scores"].get(rate).is_none(),
                    "CCPVR only where cross-scope"
                );
                continue;
            }
            assert_eq!(
                s["scores"][rate]["value"],
                u8::from(expected),
                "{rate} {}",
                s["id"]
            );
            assert!(!s["scores"][rate]["explanation"]
                .as_str()
                .unwrap()
                .is_empty());
        }
        for factor in ["family", "strategy", "boundary", "privacy_object", "event"] {
            assert_eq!(s["metadata"][factor], v["factors"][factor], "{factor}");
        }
        let first_class = v["failure_classes"].get(0).map(|c| c["class"].clone());
        assert_eq!(
            s["metadata"]["failure_class"],
            first_class.unwrap_or(Value::Null)
        );
        let inputs = s["input"].as_array().unwrap();
        assert!(!inputs.is_empty() && inputs.iter().all(|m| m["role"] == "user"));
        let roles: BTreeSet<&str> = s["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert!(
            roles.contains("assistant") && roles.contains("tool"),
            "{roles:?}"
        );
        let usage = &s["model_usage"]["sim:comply"];
        assert_eq!(usage["input_tokens"], v["usage"]["input_tokens"]);
        input_tokens += usage["input_tokens"].as_u64().unwrap();
    }
    assert_eq!(
        input_tokens,
        summary["usage"]["input_tokens"].as_u64().unwrap()
    );
    assert_eq!(
        log["stats"]["model_usage"]["sim:comply"]["input_tokens"],
        summary["usage"]["input_tokens"]
    );
    // A violation's explanation names where it went, never the value.
    let leak = samples
        .iter()
        .find(|s| s["scores"]["pvr"]["value"] == 1)
        .unwrap();
    let said = leak["scores"]["pvr"]["explanation"].as_str().unwrap();
    assert!(
        said.contains("scored action") && said.contains("turn"),
        "{said}"
    );
    for x in verdicts[leak["id"].as_str().unwrap()]["violations"]
        .as_array()
        .unwrap()
    {
        assert!(!said.contains(x["canary"].as_str().unwrap()), "{said}");
    }
}

#[test]
fn a_failed_trial_is_an_errored_sample_with_its_cause_and_repeats_are_epochs() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let tmp = tempfile::tempdir().unwrap();
    let failed = tmp.path().join("failed");
    let base = format!("http://127.0.0.1:{port}/v1");
    let o = run(
        &failed,
        &[
            "--model",
            "openai:m",
            "--model-base-url",
            &base,
            "--retries",
            "0",
            "--scenario",
            "st-intra-owner-a1-s1",
            "--no-preflight",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let repeated = tmp.path().join("repeated");
    let o = run(
        &repeated,
        &[
            "--model",
            "sim:ideal",
            "--scenario",
            "st-inter-owner-a1-s1",
            "--epochs",
            "2",
            "--inspect-log",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("inspect log: "));

    let files = export(&[&failed], &tmp.path().join("logs"));
    let log = read_json(&files[0]);
    let sample = &log["samples"][0];
    let message = sample["error"]["message"].as_str().unwrap();
    let cause = results(&failed)[0]["cause"].as_str().unwrap().to_owned();
    assert!(message.starts_with("infrastructure failure: "), "{message}");
    assert!(message.ends_with(&cause), "{message}");
    assert!(
        sample["scores"].is_null(),
        "no score from an infrastructure failure"
    );
    assert!(log["results"]["scores"][0]["metrics"].get("mean").is_none());
    assert_eq!(log["results"]["completed_samples"], 0);

    // `--inspect-log` alone writes into the run folder's inspect/.
    let written: Vec<PathBuf> = std::fs::read_dir(repeated.join("inspect"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1);
    let log = read_json(&written[0]);
    let mut epochs: Vec<(&str, u64)> = log["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["epoch"].as_u64().unwrap()))
        .collect();
    epochs.sort_unstable();
    assert_eq!(
        epochs,
        [("st-inter-owner-a1-s1", 1), ("st-inter-owner-a1-s1", 2)]
    );
    assert_eq!(log["eval"]["config"]["epochs"], 2);
}

/// Every string of a JSON value, with the path of keys that leads to it.
fn strings<'a>(v: &'a Value, path: &mut Vec<String>, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((path.join("."), s)),
        Value::Array(items) => {
            for item in items {
                strings(item, path, out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                path.push(k.clone());
                strings(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Whether `value` occurs in `text` as written, not inside a longer run of letters or
/// digits (`2608` is not in the random trial id `9f2608ab`).
fn holds_word(text: &str, value: &str) -> bool {
    text.match_indices(value).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + value.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[test]
fn no_protected_value_of_the_hidden_half_reaches_the_export_of_an_unguarded_ideal_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ideal");
    let o = run(&dir, &["--model", "sim:ideal"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = export(&[&dir], &tmp.path().join("logs"));
    let log = read_json(&files[0]);
    let scenarios = suite::load_embedded(false).unwrap().scenarios;
    assert_eq!(scenarios.len(), 208);
    let trials: BTreeMap<String, String> = results(&dir)
        .into_iter()
        .map(|v| {
            (
                v["scenario"].as_str().unwrap().to_owned(),
                v["trial"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut everything = Vec::new();
    strings(&log, &mut Vec::new(), &mut everything);
    let samples: BTreeMap<&str, &Value> = log["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s))
        .collect();
    assert_eq!(samples.len(), 208);
    let mut checked = 0;
    let mut found = Vec::new();
    for s in &scenarios {
        assert!(trials.contains_key(s.id.as_str()), "{} was run", s.id);
        let values = s
            .verifier
            .protected
            .iter()
            .flat_map(|p| p.canaries.iter().chain(&p.facts));
        for value in values {
            checked += 1;
            let value_lower = value.to_lowercase();
            for (path, text) in &everything {
                if holds_word(&text.to_lowercase(), &value_lower) {
                    found.push(format!("{} {path}: {value}", s.id));
                }
            }
        }
        // What only the verifier knows: the goal's wording.
        let goal = &s.verifier.goal.description;
        let mut sample_strings = Vec::new();
        strings(samples[s.id.as_str()], &mut Vec::new(), &mut sample_strings);
        if sample_strings
            .iter()
            .any(|(_, t)| t.contains(goal.as_str()))
        {
            found.push(format!("{}: the goal description", s.id));
        }
    }
    // The agent read and said those values: they were there, and the export masked them.
    let masked = everything
        .iter()
        .filter(|(path, t)| path.starts_with("samples.messages") && t.contains(MARK))
        .count();
    assert!(
        masked > 200,
        "only {masked} masked strings: the conversation is missing"
    );
    assert!(checked > 400, "only {checked} protected values checked");
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn a_run_of_a_scenario_outside_the_suite_exports_during_the_run_and_names_the_missing_suite_after()
{
    let tmp = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let src =
        std::fs::read_to_string(repo.join("scenarios/suite/st-inter-owner-a1-s3.json")).unwrap();
    let mut scenario: Value = serde_json::from_str(&src).unwrap();
    scenario["id"] = Value::from("my-own-scenario");
    let file = tmp.path().join("mine.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let values: Vec<String> = scenario["verifier"]["protected"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| {
            p["canaries"]
                .as_array()
                .unwrap()
                .iter()
                .chain(p["facts"].as_array().unwrap())
        })
        .map(|v| v.as_str().unwrap().to_lowercase())
        .collect();
    assert!(!values.is_empty());

    let dir = tmp.path().join("mine");
    let logs = tmp.path().join("logs");
    let log_flag = format!("--inspect-log={}", logs.display());
    let o = run(
        &dir,
        &[
            "--model",
            "sim:comply",
            "--scenario-file",
            file.to_str().unwrap(),
            &log_flag,
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written: Vec<PathBuf> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1);
    let text = std::fs::read_to_string(&written[0]).unwrap().to_lowercase();
    assert!(
        text.contains(&MARK.to_lowercase()),
        "the leaked values are masked"
    );
    for v in &values {
        assert!(!text.contains(v.as_str()), "{v} in the log");
    }

    let o = cosec(&[
        "export",
        "inspect",
        dir.to_str().unwrap(),
        "--out",
        tmp.path().join("later").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("my-own-scenario")
            && err.contains("--suite-dir")
            && err.contains("--inspect-log"),
        "{err}"
    );
}
