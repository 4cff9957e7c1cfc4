//! A real run against a scripted upstream on 127.0.0.1: a transient failure is retried
//! inside the proxy and counted in the summary; a refusal (context exceeded) fails the
//! trial at once, naming the upstream's message, with no trial retry; the built-in
//! agent asks for `--max-output-tokens`; the upstream's usage report, cached input
//! tokens included, reaches the results and the priced cost.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const REPLY: &str = r#"{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}"#;

/// An upstream answering `script` (status, body) in order, then 200 with [`REPLY`];
/// records every request body.
fn scripted(script: Vec<(u16, &'static str)>) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let script = Mutex::new(VecDeque::from(script));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 16384];
            let body = loop {
                let n = stream.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break None;
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
                        break Some(buf[end + 4..end + 4 + len].to_vec());
                    }
                }
            };
            let Some(body) = body else { continue };
            log.lock()
                .unwrap()
                .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
            let (status, text) = script.lock().unwrap().pop_front().unwrap_or((200, REPLY));
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), seen)
}

fn run(base: &str, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--judge",
        "none",
        "--model",
        "openai:m",
        "--model-base-url",
        base,
        "--scenario",
        "st-intra-owner-a1-s1",
        "--retries",
        "2",
        "--retry-delay",
        "0",
        "--upstream-backoff-ms",
        "1",
        // The script answers model calls in order; a preflight would take the first.
        "--no-preflight",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first line of the run's `results.jsonl`.
fn first_result(out: &Path) -> Value {
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    serde_json::from_str(results.lines().next().unwrap()).unwrap()
}

#[test]
fn a_transient_failure_is_retried_in_the_proxy_and_counted() {
    let overloaded = r#"{"error":{"message":"server overloaded"}}"#;
    let (base, seen) = scripted(vec![(503, overloaded), (502, overloaded)]);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(&base, &out, &["--max-output-tokens", "77"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = json(&out.join("summary.json"));
    assert_eq!(s["trials"]["valid"], 1, "{s}");
    assert_eq!(s["usage"]["upstream_retries"], 2, "{}", s["usage"]);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(
        printed.contains("model calls (2 upstream retries)"),
        "the printed summary counts them too:\n{printed}"
    );
    let seen = seen.lock().unwrap();
    assert!(
        seen.len() >= 10,
        "two failures, then at least one call per turn"
    );
    assert!(seen.iter().all(|b| b["max_tokens"] == 77), "{:?}", seen[0]);
}

#[test]
fn a_refusal_fails_the_trial_once_naming_the_upstream_message() {
    let exceeded = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#;
    let (base, seen) = scripted(vec![(400, exceeded); 10]);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(&base, &out, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    // The only trial failed: the run says so and does not exit 0.
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no trial is valid"), "{stderr}");
    let line = first_result(&out);
    assert_eq!(line["status"], "infra_failure");
    let cause = line["cause"].as_str().unwrap();
    assert!(
        cause.contains("the request exceeds the available context size"),
        "{cause}"
    );
    assert!(cause.contains("HTTP 400"), "{cause}");
    assert!(cause.contains("not retried"), "{cause}");
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        1,
        "neither the proxy nor the runner sent it again"
    );
    assert_eq!(
        seen[0]["max_tokens"],
        cosec::harness::builtin::DEFAULT_MAX_OUTPUT_TOKENS
    );
}

#[test]
fn cached_input_tokens_reach_the_results_and_are_priced_at_the_cached_price() {
    const CACHED: &str = r#"{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Done."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":10,"total_tokens":1010,"prompt_tokens_details":{"cached_tokens":600}}}"#;
    let (base, _seen) = scripted(vec![(200, CACHED); 64]);
    let tmp = tempfile::tempdir().unwrap();
    let prices = tmp.path().join("prices.toml");
    std::fs::write(
        &prices,
        "[models.\"openai:m\"]\ninput = 1.0\noutput = 2.0\ncached_input = 0.1\n",
    )
    .unwrap();
    let out = tmp.path().join("run");
    let o = run(&base, &out, &["--prices", prices.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let usage = &json(&out.join("summary.json"))["usage"];
    let calls = usage["model_calls"].as_u64().unwrap();
    assert!(calls >= 8, "one call per turn at least: {usage}");
    assert_eq!(usage["input_tokens"], 1000 * calls, "{usage}");
    assert_eq!(usage["cached_input_tokens"], 600 * calls, "{usage}");
    let line = first_result(&out);
    assert_eq!(line["usage"]["cached_input_tokens"], 600 * calls);

    // 400 uncached at 1.0, 600 cached at 0.1 and 10 output at 2.0 per million, per call.
    let expected = calls as f64 * (400.0 * 1.0 + 600.0 * 0.1 + 10.0 * 2.0) / 1e6;
    let printed = String::from_utf8_lossy(&o.stdout);
    let cost = printed_cost(&printed);
    assert!(
        (cost - expected).abs() < 1e-4,
        "{cost} != {expected}:\n{printed}"
    );
    assert!(
        printed.contains(&format!("({} cached)", 600 * calls)),
        "{printed}"
    );

    // Without a cached price the same tokens cost plain input, and the report says so.
    std::fs::write(
        &prices,
        "[models.\"openai:m\"]\ninput = 1.0\noutput = 2.0\n",
    )
    .unwrap();
    let report = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["report", out.to_str().unwrap(), "--prices"])
        .arg(&prices)
        .output()
        .unwrap();
    assert!(
        report.status.success(),
        "{}",
        String::from_utf8_lossy(&report.stderr)
    );
    let printed = String::from_utf8_lossy(&report.stdout);
    let uncached = calls as f64 * (1000.0 * 1.0 + 10.0 * 2.0) / 1e6;
    let cost = printed_cost(&printed);
    assert!(
        (cost - uncached).abs() < 1e-4,
        "{cost} != {uncached}:\n{printed}"
    );
    assert!(
        printed.contains("no cached_input for openai:m"),
        "the note names the missing price:\n{printed}"
    );
}

/// The run's total from the printed `cost: X USD for the run` line.
fn printed_cost(printed: &str) -> f64 {
    let line = printed
        .lines()
        .find(|l| l.starts_with("cost: "))
        .unwrap_or_else(|| panic!("no cost line:\n{printed}"));
    line["cost: ".len()..]
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unreadable cost line: {line}"))
}
