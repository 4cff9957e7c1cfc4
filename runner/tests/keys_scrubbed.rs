//! An upstream that echoes the API key it was sent, whole and masked its own way, in
//! its error: no more than four characters of the key reach anything `cosec run`
//! writes or prints (results, summary, traces, logs, the printed and HTML reports),
//! nor the trace and log of `cosec proxy serve`, for its own key and a client's
//! forwarded one alike.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The run's (or the proxy's) own key, and a client's key `proxy serve` forwards.
const CONFIGURED: &str = "sk-Zq8vXw3TnR5yLp2M";
const FORWARDED: &str = "Kx7Wq2Zr9Vb4Nm6Jt1Hs";

/// An upstream answering every request 401, echoing the `Authorization` it got.
fn echoing() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 65536];
            let head = loop {
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
                        break Some(text[..end].to_owned());
                    }
                }
            };
            let Some(head) = head else { continue };
            let auth = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("authorization")
                        .then(|| v.trim().to_owned())
                })
                .unwrap_or_default();
            let key = auth.trim_start_matches("Bearer ").to_owned();
            let masked = if key.len() > 12 {
                format!("{}...{}", &key[..8], &key[key.len() - 4..])
            } else {
                key.clone()
            };
            let body = serde_json::json!({"error": {"message": format!(
                "Incorrect API key provided: {key}. You passed {masked} in the header `{auth}`."),
                "type": "invalid_request_error", "code": "invalid_api_key"}})
            .to_string();
            let reply = format!(
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// Asserts that no five consecutive characters of `key` appear in `text`.
fn assert_no_part_of(key: &str, text: &str, what: &str) {
    let chars: Vec<char> = key.chars().collect();
    for w in chars.windows(5) {
        let w: String = w.iter().collect();
        assert!(!text.contains(&w), "`{w}` of a key appears in {what}");
    }
}

/// Every file under `dir`, as text.
fn every_file(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            every_file(&path, out);
        } else {
            let bytes = std::fs::read(&path).unwrap();
            out.push((
                path.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
}

#[test]
fn an_echoed_key_reaches_nothing_a_run_writes_or_prints() {
    let base = echoing();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let cosec = env!("CARGO_BIN_EXE_cosec");
    let run = Command::new(cosec)
        .args([
            "run",
            "--judge",
            "none",
            "--model",
            "openai:m",
            "--model-base-url",
            &base,
            "--scenario",
            "st-intra-owner-a1-s1",
            "--retries",
            "0",
            "--no-preflight",
            "--out",
            out.to_str().unwrap(),
        ])
        .env("COSEC_MODEL_API_KEY", CONFIGURED)
        .env("RUST_LOG", "debug")
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap();
    // The same run with its preflight stops before any trial, quoting the endpoint.
    let preflight = Command::new(cosec)
        .args([
            "run",
            "--judge",
            "none",
            "--model",
            "openai:m",
            "--model-base-url",
            &base,
        ])
        .args(["--scenario", "st-intra-owner-a1-s1"])
        .env("COSEC_MODEL_API_KEY", CONFIGURED)
        .env("RUST_LOG", "debug")
        .env_remove("COSEC_JUDGE_BASE_URL")
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let preflight_err = String::from_utf8_lossy(&preflight.stderr).into_owned();
    assert!(
        preflight_err.contains("Incorrect API key provided"),
        "{preflight_err}"
    );
    let html = tmp.path().join("report.html");
    let report = Command::new(cosec)
        .args([
            "report",
            out.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let mut texts = vec![
        (
            "run stdout".to_owned(),
            String::from_utf8_lossy(&run.stdout).into_owned(),
        ),
        (
            "run stderr".to_owned(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        ),
        (
            "report stdout".to_owned(),
            String::from_utf8_lossy(&report.stdout).into_owned(),
        ),
        (
            "report stderr".to_owned(),
            String::from_utf8_lossy(&report.stderr).into_owned(),
        ),
    ];
    texts.push(("preflight stderr".to_owned(), preflight_err));
    every_file(tmp.path(), &mut texts);
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(
        results.contains("Incorrect API key provided: ***"),
        "{results}"
    );
    for (what, text) in &texts {
        assert_no_part_of(CONFIGURED, text, what);
    }
}

#[test]
fn an_echoed_key_reaches_neither_the_trace_nor_the_log_of_proxy_serve() {
    let base = echoing();
    let tmp = tempfile::tempdir().unwrap();
    let state = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/proxy-serve/state.json");
    for configured in [Some(CONFIGURED), None] {
        let trace = tmp
            .path()
            .join(format!("trace-{}.jsonl", configured.is_some()));
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
        cmd.args([
            "proxy",
            "serve",
            "--listen",
            &listen,
            "--upstream",
            &base,
            "--state",
        ])
        .arg(&state)
        .arg("--trace")
        .arg(&trace)
        .env("RUST_LOG", "debug")
        .env_remove("COSEC_UPSTREAM_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        if let Some(key) = configured {
            cmd.args(["--api-key", key]);
        }
        let mut child = cmd.spawn().unwrap();
        let started = Instant::now();
        let mut conn = loop {
            if let Ok(c) = TcpStream::connect(&listen) {
                break c;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "proxy serve did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
        let request = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-cosec-session: school-chat\r\nauthorization: Bearer {FORWARDED}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        conn.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        conn.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        child.kill().unwrap();
        let output = child.wait_with_output().unwrap();
        let log = String::from_utf8_lossy(&output.stderr).into_owned();
        let traced = std::fs::read_to_string(&trace).unwrap();
        assert!(
            traced.contains("Incorrect API key provided: ***"),
            "{traced}"
        );
        for key in [CONFIGURED, FORWARDED] {
            assert_no_part_of(key, &answer, "the client's answer");
            assert_no_part_of(key, &traced, "the trace");
            assert_no_part_of(key, &log, "the log");
        }
    }
}
