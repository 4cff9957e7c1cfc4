//! Running against real, flaky endpoints unattended: a dead or unauthorized endpoint
//! stops the run at once with its own words and a non-zero exit; a streak of one
//! failure stops scheduling; progress and warnings reach a log that is not a terminal;
//! `--resume --retry-infra` re-runs exactly the failed trials; the policy and the
//! sampling settings travel with the run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const REPLY: &str = r#"{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;

/// An upstream on 127.0.0.1 whose answer to request `n` (from 0) is `answer(n)`;
/// records every request body.
fn upstream(
    answer: impl Fn(usize) -> (u16, &'static str) + Send + 'static,
) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let count = AtomicUsize::new(0);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Some(body) = read_body(&mut stream) else {
                continue;
            };
            log.lock()
                .unwrap()
                .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
            let (status, text) = answer(count.fetch_add(1, Ordering::SeqCst));
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), seen)
}

fn read_body(stream: &mut std::net::TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return Some(buf[end + 4..end + 4 + len].to_vec());
            }
        }
    }
}

const SCENARIOS: [&str; 4] = [
    "st-intra-owner-a1-s1",
    "st-intra-owner-a1-s2",
    "st-intra-third-a1-s1",
    "st-inter-owner-a1-s1",
];

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap()
}

fn real_run(base: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--judge",
        "none",
        "--model",
        "openai:m",
        "--model-base-url",
        base,
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    cosec(&args)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_closed_port_stops_the_run_at_once_with_the_refusal() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let started = Instant::now();
    let run = real_run(
        &format!("http://127.0.0.1:{port}/v1"),
        &out,
        &["--scenario", SCENARIOS[0]],
    );
    let err = stderr(&run);
    assert!(started.elapsed() < Duration::from_secs(30), "{err}");
    assert!(!run.status.success(), "{err}");
    assert_eq!(err.matches("Connection refused").count(), 1, "{err}");
    assert!(err.contains("no trial was started"), "{err}");
    assert!(!out.join("results.jsonl").exists());
}

#[test]
fn an_unauthorized_endpoint_stops_the_run_and_says_so() {
    let (base, seen) = upstream(|_| (401, r#"{"error":{"message":"bad key"}}"#));
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let run = real_run(
        &base,
        &dir.path().join("run"),
        &["--scenario", SCENARIOS[0]],
    );
    let err = stderr(&run);
    assert!(started.elapsed() < Duration::from_secs(30), "{err}");
    assert!(!run.status.success(), "{err}");
    assert!(err.contains("unauthorized"), "{err}");
    assert!(err.contains("bad key"), "{err}");
    assert_eq!(seen.lock().unwrap().len(), 1, "only the preflight was sent");
}

#[test]
fn a_streak_of_one_failure_stops_scheduling_and_names_the_resume_command() {
    // The preflight passes; then the key is revoked.
    let (base, _) = upstream(|n| {
        if n == 0 {
            (200, REPLY)
        } else {
            (401, r#"{"error":{"message":"key revoked"}}"#)
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut extra = vec!["--max-consecutive-infra", "2"];
    for s in SCENARIOS {
        extra.extend(["--scenario", s]);
    }
    let run = real_run(&base, &out, &extra);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("2 infrastructure failures in a row"), "{err}");
    assert!(err.contains("unauthorized"), "{err}");
    assert!(err.contains("2 of 4 trials not run"), "{err}");
    assert!(err.contains("--resume --out"), "{err}");
    let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 2, "{lines}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("infrastructure failures: 2 of 2 trials"),
        "{stdout}"
    );
}

#[test]
fn a_log_that_is_not_a_terminal_gets_progress_lines_and_retry_warnings() {
    // The preflight passes; every model call after it fails with a 500 (not fatal).
    let (base, _) = upstream(|n| if n == 0 { (200, REPLY) } else { (500, "{}") });
    let dir = tempfile::tempdir().unwrap();
    let run = real_run(
        &base,
        &dir.path().join("run"),
        &[
            "--scenario",
            SCENARIOS[0],
            "--scenario",
            SCENARIOS[1],
            "--upstream-retries",
            "0",
            "--retries",
            "1",
            "--retry-delay",
            "0",
            "--max-consecutive-infra",
            "0",
        ],
    );
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "no valid trial: {err}");
    assert!(
        err.contains("infrastructure failure, retrying in 0 s"),
        "{err}"
    );
    assert!(err.contains("cosec run: 2/2 trials"), "{err}");
    assert!(err.contains("infra 2"), "{err}");
    assert!(err.contains("no trial is valid"), "{err}");
}

#[test]
fn resume_retry_infra_reruns_exactly_the_failed_trials() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out_s = out.to_str().unwrap();
    let mut args = vec!["run", "--judge", "none", "--out", out_s];
    for s in &SCENARIOS[..3] {
        args.extend(["--scenario", s]);
    }
    let first = cosec(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    // Inject an infrastructure failure into the middle line.
    let path = out.join("results.jsonl");
    let before = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = before.lines().collect();
    assert_eq!(lines.len(), 3);
    let mut failed: Value = serde_json::from_str(lines[1]).unwrap();
    failed["status"] = "infra_failure".into();
    failed["cause"] = "upstream: connection reset (attempt 1 of 4)".into();
    let failed_scenario = failed["scenario"].as_str().unwrap().to_owned();
    let injected = format!("{}\n{}\n{}\n", lines[0], failed, lines[2]);
    std::fs::write(&path, &injected).unwrap();

    let report = cosec(&["report", out_s]);
    let shown = String::from_utf8_lossy(&report.stdout);
    assert!(
        shown.contains("infrastructure failures: 1 of 3 trials"),
        "{shown}"
    );
    assert!(shown.contains("upstream: connection reset"), "{shown}");

    args.extend(["--resume", "--retry-infra"]);
    let again = cosec(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("1 to run again"),
        "{}",
        stderr(&again)
    );
    let after = std::fs::read_to_string(&path).unwrap();
    let after: Vec<&str> = after.lines().collect();
    assert_eq!(after.len(), 3);
    assert_eq!(&after[..2], &[lines[0], lines[2]], "other lines unchanged");
    let rerun: Value = serde_json::from_str(after[2]).unwrap();
    assert_eq!(rerun["scenario"], failed_scenario.as_str());
    assert_eq!(rerun["status"], "valid");
}

#[test]
fn the_policy_label_and_sampling_travel_with_the_run() {
    let (base, seen) = upstream(|_| (200, REPLY));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let policy = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../policies/defense/default.cedar")
        .canonicalize()
        .unwrap();
    let run = real_run(
        &base,
        &out,
        &[
            "--scenario",
            SCENARIOS[0],
            "--defense",
            "proxy",
            "--policy",
            policy.to_str().unwrap(),
            "--label",
            "strict policy",
            "--temperature",
            "0",
            "--seed",
            "11",
            "--max-rps",
            "50",
        ],
    );
    assert!(run.status.success(), "{}", stderr(&run));
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["label"], "strict policy");
    assert_eq!(record["policy_source"], policy.to_str().unwrap());
    assert_eq!(record["temperature"], 0.0);
    assert_eq!(record["seed"], 11);
    assert_eq!(
        std::fs::read_to_string(out.join("policy.cedar")).unwrap(),
        std::fs::read_to_string(&policy).unwrap()
    );
    let seen = seen.lock().unwrap();
    // The preflight, then the trial's calls, each with the run's sampling settings.
    assert!(seen.len() >= 2, "{seen:?}");
    for body in &seen[1..] {
        assert_eq!(body["temperature"], 0.0, "{body}");
        assert_eq!(body["seed"], 11, "{body}");
    }
}

#[test]
fn limit_runs_the_first_scenarios_and_default_folders_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_cosec"))
            .args([
                "run",
                "--judge",
                "none",
                "--suite",
                "static112",
                "--limit",
                "2",
            ])
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(spawn);
        let b = s.spawn(spawn);
        (a.join().unwrap(), b.join().unwrap())
    });
    assert!(a.status.success(), "{}", stderr(&a));
    assert!(b.status.success(), "{}", stderr(&b));
    let runs: Vec<_> = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for run in runs {
        let lines = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
        assert_eq!(lines.lines().count(), 2);
        let record: Value =
            serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
        assert_eq!(
            record["label"].as_str(),
            run.file_name().and_then(|n| n.to_str())
        );
    }
}

#[test]
fn ctrl_c_finishes_the_trials_in_flight_and_prints_the_resume_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let child = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["run", "--judge", "none", "--jobs", "1", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first finished trial, then interrupt.
    let results = out.join("results.jsonl");
    let deadline = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(&results).map_or(true, |t| t.is_empty()) {
        assert!(Instant::now() < deadline, "no trial finished in 120 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let signal = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signal.success());
    let done = child.wait_with_output().unwrap();
    let err = stderr(&done);
    assert_eq!(done.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    let lines = std::fs::read_to_string(&results).unwrap().lines().count();
    assert!(lines < 208, "{lines}");
    let expected = format!(
        "trials not run; resume with: cosec run --judge none --jobs 1 --resume --out {}",
        out.display()
    );
    assert!(err.contains(&expected), "{err}");
}

/// `--epochs K`: every scenario runs K times as its own trial (repeat `e` sent seed
/// `S + e`), the summary counts every trial and says the intervals are clustered,
/// `--resume` runs again exactly a missing repeat, and `compare` pairs by repeat.
#[test]
fn epochs_repeat_every_scenario_and_resume_and_compare_by_repeat() {
    let (base, seen) = upstream(|_| (200, REPLY));
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let selection = [
        "--scenario",
        SCENARIOS[0],
        "--scenario",
        SCENARIOS[1],
        "--epochs",
        "3",
        "--seed",
        "7",
    ];
    let run = real_run(&base, &out, &selection);
    assert!(run.status.success(), "{}", stderr(&run));
    let results = out.join("results.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    let mut keys: Vec<(String, u64)> = lines
        .iter()
        .map(|v| {
            (
                v["scenario"].as_str().unwrap().to_owned(),
                v["epoch"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    keys.sort();
    let expected: Vec<(String, u64)> = [SCENARIOS[0], SCENARIOS[1]]
        .iter()
        .flat_map(|s| (0..3).map(move |e| ((*s).to_owned(), e)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(keys, expected);
    let trials: std::collections::BTreeSet<&str> =
        lines.iter().map(|v| v["trial"].as_str().unwrap()).collect();
    assert_eq!(trials.len(), 6, "every repeat is a trial of its own");
    let seeds: std::collections::BTreeSet<u64> = seen.lock().unwrap()[1..]
        .iter()
        .filter_map(|b| b["seed"].as_u64())
        .collect();
    assert_eq!(seeds, [7, 8, 9].into_iter().collect());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["overall"]["n"], 6);
    assert_eq!(summary["config"]["epochs"], 3);
    assert!(
        summary["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("ran 3 times")),
        "{}",
        summary["notes"]
    );

    // A lost line: resuming runs that repeat again and leaves the others as they were.
    let text = std::fs::read_to_string(&results).unwrap();
    let (kept, dropped): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|l| !(l.contains(SCENARIOS[1]) && l.contains("\"epoch\":2")));
    assert_eq!(dropped.len(), 1, "{text}");
    std::fs::write(&results, kept.join("\n") + "\n").unwrap();
    let resumed = real_run(&base, &out, &[&selection[..], &["--resume"]].concat());
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("1 trial(s) to run (5 already finished"),
        "{}",
        stderr(&resumed)
    );
    let after = std::fs::read_to_string(&results).unwrap();
    assert!(after.starts_with(&(kept.join("\n") + "\n")));
    assert_eq!(after.lines().count(), 6);
    assert!(after.lines().last().unwrap().contains("\"epoch\":2"));

    // Compared with a run of the same repeats, trials pair by scenario and repeat.
    let other = dir.path().join("sim");
    let sim = cosec(
        &[
            &["run", "--model", "sim:comply", "--judge", "none", "--out"][..],
            &[other.to_str().unwrap()],
            &selection[..6],
        ]
        .concat(),
    );
    assert!(sim.status.success(), "{}", stderr(&sim));
    let compared = cosec(&[
        "compare",
        out.to_str().unwrap(),
        other.to_str().unwrap(),
        "--json",
    ]);
    assert!(compared.status.success(), "{}", stderr(&compared));
    let c: Value = serde_json::from_slice(&compared.stdout).unwrap();
    assert_eq!(c["paired_n"], 6, "{c}");
}
