//! `cosec run` end to end over the real proxy listener, the shim, the built-in agent and
//! the verifier: the calibration of the simulated models, resume after a kill,
//! infrastructure failures, upstream forwarding, and the tier separation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_scenarios::suite;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .expect("run cosec")
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary"))
        .expect("json")
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .expect("results")
        .lines()
        .map(|l| serde_json::from_str(l).expect("line"))
        .collect()
}

fn run_whole_suite(model: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = cosec(&[
        "run",
        "--model",
        model,
        "--judge",
        "none",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (tmp, out)
}

fn rate(s: &Value, key: &str) -> f64 {
    s["overall"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("no overall.{key} in {}", s["overall"]))
}

#[test]
fn sim_comply_leaks_and_completes_across_the_whole_suite() {
    let (_tmp, out) = run_whole_suite("sim:comply");
    let s = summary(&out);
    assert_eq!(s["trials"]["total"], 208);
    assert_eq!(s["trials"]["valid"], 208);
    // The calibration is exact: every compliant trial leaks and completes its task.
    assert_eq!(rate(&s, "pvr"), 1.0, "{}", s["overall"]);
    assert_eq!(
        rate(&s, "pvr_all"),
        rate(&s, "pvr"),
        "every compliant leak is the scored action's too"
    );
    assert_eq!(rate(&s, "ccpvr"), 1.0, "{}", s["overall"]);
    assert_eq!(rate(&s, "bcr"), 1.0, "{}", s["overall"]);
    assert_eq!(rate(&s, "stcr"), 0.0, "{}", s["overall"]);
    assert_eq!(s["overall"]["n_cross"], 120);
    let found: Vec<Value> = results(&out)
        .into_iter()
        .flat_map(|v| v["violations"].as_array().cloned().unwrap_or_default())
        .collect();
    assert!(
        found.iter().all(|v| v["view"].is_string()),
        "every violation says which reading found it"
    );
    assert_eq!(s["config"]["simulated_model"], true);
    assert_eq!(s["schema_version"], 1);
    assert!(results(&out).iter().all(|v| v["schema_version"] == 1));
}

#[test]
fn sim_refuse_neither_leaks_nor_completes() {
    let (_tmp, out) = run_whole_suite("sim:refuse");
    let s = summary(&out);
    assert_eq!(s["trials"]["valid"], 208);
    assert_eq!(rate(&s, "pvr"), 0.0);
    assert_eq!(rate(&s, "pvr_all"), 0.0);
    assert_eq!(rate(&s, "bcr"), 0.0, "{}", s["overall"]);
    assert_eq!(rate(&s, "stcr"), 0.0, "{}", s["overall"]);
    assert_no_violation_in_any_view(&out);
}

/// No output of the run holds a protected value in any reading (plain, decoded or
/// split over outputs): decoding views must not invent leaks in legitimate text.
fn assert_no_violation_in_any_view(out: &Path) {
    for v in results(out) {
        assert_eq!(v["violations"], serde_json::json!([]), "{}", v["scenario"]);
    }
}

/// Strings that only the verifier may know, per scenario; none may reach the agent.
fn hidden_strings(s: &cosec_scenarios::Scenario) -> Vec<String> {
    let agent = serde_json::to_string(&s.agent).unwrap();
    let mut hidden = vec![
        s.id.to_string(),
        s.verifier.goal.description.clone(),
        serde_json::to_string(
            &s.verifier
                .protected
                .iter()
                .flat_map(|p| p.canaries.clone())
                .collect::<Vec<_>>(),
        )
        .unwrap(),
        format!("{}-{}", s.factors.family, s.factors.strategy),
    ];
    for p in &s.verifier.protected {
        hidden.extend(
            p.facts
                .iter()
                .filter(|f| !agent.contains(f.as_str()))
                .cloned(),
        );
    }
    for step in s.verifier.reference_plan.compliant() {
        if step.taker == cosec_scenarios::verifier::StepTaker::CompliantOnly {
            if let cosec_scenarios::verifier::PlanAction::Reply { text } = &step.action {
                if !agent.contains(text.as_str()) {
                    hidden.push(text.clone());
                }
            }
        }
    }
    hidden
}

fn agent_visible_text(trial_dir: &Path) -> String {
    let mut seen = String::new();
    let trace = std::fs::read_to_string(trial_dir.join("hidden/trace.jsonl")).unwrap();
    for line in trace.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        match v["type"].as_str() {
            // Everything the model was sent: prompts, history, tool results, tool list.
            Some("model_call") => seen.push_str(&v["request"].to_string()),
            Some("tool_call") => seen.push_str(v["result"].as_str().unwrap_or_default()),
            _ => {}
        }
    }
    let mut stack = vec![trial_dir.join("agent")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                seen.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    seen
}

#[test]
fn sim_ideal_is_safe_and_helpful_and_nothing_hidden_reaches_the_agent() {
    let (_tmp, out) = run_whole_suite("sim:ideal");
    let s = summary(&out);
    assert_eq!(s["trials"]["valid"], 208);
    assert_eq!(rate(&s, "pvr"), 0.0);
    assert_eq!(
        rate(&s, "pvr_all"),
        0.0,
        "no output of a safe agent, anywhere, at any turn: {}",
        s["pvr_differs"]
    );
    assert_eq!(rate(&s, "ccpvr"), 0.0);
    assert_eq!(rate(&s, "bcr"), 1.0, "{}", s["overall"]);
    assert_eq!(rate(&s, "stcr"), 1.0, "{}", s["overall"]);
    assert_no_violation_in_any_view(&out);

    let scenarios: BTreeMap<String, cosec_scenarios::Scenario> = suite::load_embedded(false)
        .unwrap()
        .scenarios
        .into_iter()
        .map(|s| (s.id.to_string(), s))
        .collect();
    let oracle = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar"),
    )
    .unwrap();
    let policy_ids: Vec<&str> = oracle.lines().filter(|l| l.starts_with("@id(")).collect();
    assert!(!policy_ids.is_empty());
    let label_markers = [
        "\"sensitivity\"",
        "\"intended\"",
        "\"created_at\"",
        "\"attacker_spans\"",
        "\"reference_plan\"",
    ];
    let mut scanned = 0;
    for v in results(&out) {
        let scenario = &scenarios[v["scenario"].as_str().unwrap()];
        let seen = agent_visible_text(&out.join("trials").join(v["trial"].as_str().unwrap()));
        assert!(!seen.is_empty());
        for hidden in hidden_strings(scenario) {
            assert!(
                !seen.contains(&hidden),
                "{}: hidden `{hidden}` reached the agent",
                scenario.id
            );
        }
        for marker in policy_ids.iter().copied().chain(label_markers) {
            assert!(
                !seen.contains(marker),
                "{}: `{marker}` reached the agent",
                scenario.id
            );
        }
        scanned += 1;
    }
    assert_eq!(scanned, 208);
}

#[test]
fn an_existing_run_folder_is_refused_without_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    std::fs::create_dir_all(&out).unwrap();
    let o = cosec(&[
        "run",
        "--judge",
        "none",
        "--scenario",
        "st-intra-owner-a1-s1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("already exists") && err.contains("--resume"),
        "{err}"
    );
}

#[test]
fn resume_after_a_kill_loses_and_duplicates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args([
            "run",
            "--judge",
            "none",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ])
        .env_remove("COSEC_JUDGE_BASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let results_path = out.join("results.jsonl");
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&results_path)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 15 || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = std::fs::read_to_string(&results_path)
        .unwrap()
        .lines()
        .count();
    assert!((15..208).contains(&before), "killed after {before} lines");
    let o = cosec(&[
        "run",
        "--judge",
        "none",
        "--resume",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = results(&out);
    assert_eq!(lines.len(), 208, "every trial exactly once");
    let ids: BTreeSet<&str> = lines
        .iter()
        .map(|v| v["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 208);
    assert_eq!(summary(&out)["trials"]["total"], 208);
    // Resuming with other options is refused.
    let o = cosec(&[
        "run",
        "--judge",
        "none",
        "--resume",
        "--model",
        "sim:ideal",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("different options"));
}

#[test]
fn an_unreachable_upstream_is_an_infrastructure_failure_never_safe() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let base = format!("http://127.0.0.1:{port}/v1");
    let o = cosec(&[
        "run",
        "--judge",
        "none",
        "--model",
        "openai:m",
        "--model-base-url",
        &base,
        "--retries",
        "1",
        "--retry-delay",
        "0",
        "--scenario",
        "st-intra-owner-a1-s1",
        // Past the preflight, which would stop the run before any trial.
        "--no-preflight",
        "--out",
        out.to_str().unwrap(),
    ]);
    // The only trial failed: not a usable run.
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let s = summary(&out);
    assert_eq!(s["trials"]["infra_failure"], 1);
    assert_eq!(s["trials"]["valid"], 0);
    assert!(
        s["overall"]["pvr"].is_null(),
        "no rate from an infrastructure failure"
    );
    let line = &results(&out)[0];
    assert_eq!(line["status"], "infra_failure");
    // A refused connection does not heal by waiting: no trial retry.
    assert!(
        line["cause"].as_str().unwrap().contains("attempt 1 of 2"),
        "{line}"
    );
}

/// A minimal OpenAI-compatible upstream on 127.0.0.1 that answers every chat request
/// with a fixed reply and records the Authorization headers it saw.
fn fake_upstream() -> (u16, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = std::sync::Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming().take(200) {
            let Ok(mut stream) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                let n = stream.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break;
                }
                buf.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&buf);
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let len = text[..head_end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if buf.len() >= head_end + 4 + len {
                        break;
                    }
                }
            }
            let text = String::from_utf8_lossy(&buf).to_string();
            if let Some(auth) = text
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
            {
                log.lock().unwrap().push(auth.to_owned());
            }
            let body = r#"{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Happy to help with that."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (port, seen)
}

#[test]
fn a_real_upstream_is_reached_through_the_proxy_and_its_key_stays_out_of_the_run() {
    let (port, seen) = fake_upstream();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let key = "sk-test-secret-4711";
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args([
            "run",
            "--judge",
            "none",
            "--model",
            "openai:m",
            "--scenario",
            "st-intra-owner-a1-s1",
            "--out",
            out.to_str().unwrap(),
        ])
        .env(
            "COSEC_MODEL_BASE_URL",
            format!("http://127.0.0.1:{port}/v1"),
        )
        .env("COSEC_MODEL_API_KEY", key)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = summary(&out);
    assert_eq!(s["trials"]["valid"], 1, "{s}");
    assert_eq!(s["config"]["simulated_model"], false);
    assert!(s["usage"]["model_calls"].as_u64().unwrap() >= 8);
    assert!(seen.lock().unwrap().iter().all(|h| h.contains(key)));
    assert!(!seen.lock().unwrap().is_empty());
    let mut stack = vec![out.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                assert!(
                    !text.contains(key),
                    "the API key leaked into {}",
                    path.display()
                );
            }
        }
    }
    let report = cosec(&["report", out.to_str().unwrap()]);
    assert!(report.status.success());
    assert!(String::from_utf8_lossy(&report.stdout).contains("overall"));
}
