//! Retries of transient upstream failures inside the proxy, against a scripted
//! upstream on 127.0.0.1 that fails in a given way a given number of times and then
//! answers: the client sees one successful call, the trace counts the retries, and a
//! refusal (a 4xx other than 408 and 429) is answered at once with the upstream's
//! message and its status.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

mod bare_trial;

use bare_trial::{bare_trial, NoSim};
use cosec_proxy::registry::{ModelRoute, Trial, TrialRegistry, Upstream};
use cosec_proxy::server::{ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_proxy::upstream::RetryPolicy;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the scripted upstream does with one request.
#[derive(Clone)]
enum Step {
    /// Closes the connection without answering.
    Hang,
    /// Answers with this status, extra header lines and body.
    Answer(u16, &'static str, String),
}

const REPLY: &str = r#"{"id":"u1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"answered"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#;

fn ok() -> Step {
    Step::Answer(200, "", REPLY.to_owned())
}

/// Reads one request (head and `content-length` body) from a connection.
async fn read_request(socket: &mut tokio::net::TcpStream) -> bool {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let Ok(n) = socket.read(&mut buf).await else {
            return false;
        };
        if n == 0 {
            return false;
        }
        seen.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&seen).to_ascii_lowercase();
        if let Some(end) = text.find("\r\n\r\n") {
            let len = text[..end]
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse::<usize>().unwrap());
            if seen.len() >= end + 4 + len {
                return true;
            }
        }
    }
}

/// An upstream playing `script` one request at a time (then answering 200 forever);
/// returns its base URL and the number of requests it received.
async fn scripted(script: Vec<Step>) -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let script = Arc::new(Mutex::new(VecDeque::from(script)));
    let requests = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&requests);
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let script = Arc::clone(&script);
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                while read_request(&mut socket).await {
                    *counter.lock().unwrap() += 1;
                    let step = script.lock().unwrap().pop_front().unwrap_or_else(ok);
                    let Step::Answer(status, headers, body) = step else {
                        return;
                    };
                    let reply = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if socket.write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (format!("http://{addr}/v1"), requests)
}

struct Setup {
    _dir: tempfile::TempDir,
    trace: std::path::PathBuf,
    trial: Arc<Trial>,
    server: ProxyServer,
    requests: Arc<Mutex<usize>>,
}

async fn setup(script: Vec<Step>, retry: RetryPolicy) -> Setup {
    let (base_url, requests) = scripted(script).await;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let model = ModelRoute::Upstream(Upstream {
        base_url,
        api_key: None,
        model: "up-model".into(),
        sampling: Default::default(),
    });
    let trial = bare_trial("t1", model, dir.path(), TraceWriter::open(&trace).unwrap());
    let registry = TrialRegistry::new();
    registry.insert(Arc::clone(&trial));
    let options = ProxyOptions {
        retry,
        ..ProxyOptions::default()
    };
    let server = ProxyServer::bind_with(DEFAULT_ADDR, registry, Arc::new(NoSim), options)
        .await
        .unwrap();
    Setup {
        _dir: dir,
        trace,
        trial,
        server,
        requests,
    }
}

impl Setup {
    /// One chat call by a client; within `limit`, or the test fails.
    async fn call(&self, limit: Duration) -> (u16, Value) {
        let url = format!("{}/chat/completions", self.server.base_url("t1"));
        let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        let send = reqwest::Client::new().post(url).json(&body).send();
        let resp = tokio::time::timeout(limit, send)
            .await
            .expect("the call finished in time")
            .unwrap();
        (resp.status().as_u16(), resp.json().await.unwrap())
    }

    fn traced_retries(&self) -> Vec<(u32, Option<String>)> {
        read_trace(Path::new(&self.trace))
            .unwrap()
            .into_iter()
            .filter_map(|l| match l.event {
                TraceEvent::ModelCall {
                    upstream_retries,
                    error,
                    ..
                } => Some((upstream_retries, error)),
                _ => None,
            })
            .collect()
    }

    fn requests(&self) -> usize {
        *self.requests.lock().unwrap()
    }
}

fn quick(retries: u32) -> RetryPolicy {
    RetryPolicy::new(retries, Duration::from_millis(10))
}

#[tokio::test]
async fn a_dropped_connection_and_server_errors_are_retried_until_the_upstream_answers() {
    let overloaded = r#"{"error":{"message":"overloaded"}}"#.to_owned();
    let s = setup(
        vec![
            Step::Hang,
            Step::Answer(503, "", overloaded.clone()),
            Step::Answer(500, "", overloaded),
        ],
        quick(3),
    )
    .await;
    let (status, body) = s.call(Duration::from_secs(30)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["choices"][0]["message"]["content"], "answered");
    assert_eq!(s.requests(), 4);
    assert_eq!(s.traced_retries(), vec![(3, None)]);
    assert_eq!(s.trial.upstream_refusal(), None);
}

#[tokio::test]
async fn retries_stop_at_the_configured_number_and_the_failure_says_so() {
    let down = r#"{"error":{"message":"down for maintenance"}}"#.to_owned();
    let s = setup(vec![Step::Answer(503, "", down); 5], quick(2)).await;
    let (status, body) = s.call(Duration::from_secs(30)).await;
    assert_eq!(status, 502, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("HTTP 503"), "{message}");
    assert!(message.contains("down for maintenance"), "{message}");
    assert!(message.contains("after 2 retries"), "{message}");
    assert_eq!(s.requests(), 3);
    let traced = s.traced_retries();
    assert_eq!(traced.len(), 1);
    assert_eq!(traced[0].0, 2);
    assert_eq!(s.trial.upstream_refusal(), None, "a 5xx is not a refusal");
}

#[tokio::test]
async fn a_429_waits_as_long_as_its_retry_after_says_not_the_backoff() {
    // A backoff far longer than the call's limit: only Retry-After lets it finish in time.
    let slow = RetryPolicy::new(1, Duration::from_secs(50));
    let limited = r#"{"error":{"message":"rate limited"}}"#.to_owned();
    let s = setup(vec![Step::Answer(429, "retry-after: 0\r\n", limited)], slow).await;
    let (status, body) = s.call(Duration::from_secs(20)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(s.requests(), 2);
    assert_eq!(s.traced_retries(), vec![(1, None)]);
}

#[tokio::test]
async fn a_refusal_is_answered_at_once_with_the_upstream_status_and_message() {
    let exceeded = r#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#;
    for (code, text) in [(400, exceeded), (404, r#"{"error":"model not found"}"#)] {
        let s = setup(vec![Step::Answer(code, "", text.to_owned())], quick(3)).await;
        let (status, body) = s.call(Duration::from_secs(30)).await;
        assert_eq!(status, code, "{body}");
        assert_eq!(body["error"]["type"], "upstream_refused");
        let message = body["error"]["message"].as_str().unwrap();
        let upstream_said = if code == 400 {
            "the request exceeds the available context size"
        } else {
            "model not found"
        };
        assert!(message.contains(upstream_said), "{message}");
        assert_eq!(s.requests(), 1, "a refusal is never sent twice");
        let refusal = s.trial.upstream_refusal().unwrap();
        assert!(refusal.contains(upstream_said), "{refusal}");
        assert_eq!(s.traced_retries()[0].0, 0);
    }
}

#[tokio::test]
async fn a_408_is_transient_not_a_refusal() {
    let s = setup(vec![Step::Answer(408, "", "{}".to_owned())], quick(1)).await;
    let (status, _) = s.call(Duration::from_secs(30)).await;
    assert_eq!(status, 200);
    assert_eq!(s.requests(), 2);
    assert_eq!(s.trial.upstream_refusal(), None);
}
