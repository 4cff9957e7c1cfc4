//! Honest stream ends and key-free errors, over real HTTP against a scripted upstream
//! on 127.0.0.1: an upstream that dies mid-stream, goes silent, or ends before its
//! final event leaves the client (reqwest) with an error event and a body that fails,
//! in both wire APIs, guarded or not; an upstream that echoes the configured or the
//! forwarded key in its error leaves no more than four characters of either in the
//! client's error or the trace.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bare_trial;
mod guard_fixture;
mod guard_server;

use bare_trial::{bare_trial, NoSim};
use cosec_proxy::guard::GuardMode;
use cosec_proxy::registry::{ModelRoute, Secret, TrialRegistry, Upstream};
use cosec_proxy::server::limits::ServerLimits;
use cosec_proxy::server::{ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::standalone::{serve_standalone, StandaloneConfig};
use cosec_proxy::trace::TraceWriter;
use cosec_proxy::upstream::{RetryPolicy, UpstreamTimeouts};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The proxy's configured key and the key a client forwards.
const CONFIGURED: &str = "sk-Zq8vXw3TnR5yLp2M";
const FORWARDED: &str = "Kx7Wq2Zr9Vb4Nm6Jt1Hs";

/// How the scripted upstream ends its reply.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// Sends part of a stream, then drops the connection.
    Dies,
    /// Sends part of a stream, then nothing.
    Silent,
    /// Sends part of a stream and ends it properly, without its final event.
    Early,
    /// Answers 401 echoing the `Authorization` it received.
    EchoKey,
}

/// Reads one request: its head (lowercased) and body.
async fn read_request(s: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = s.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            break;
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
                return text;
            }
        }
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// An upstream answering every request as `end` says; `responses` picks the events.
async fn upstream(end: End, responses: bool) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (mut s, _) = listener.accept().await.unwrap();
            tokio::spawn(async move {
                let request = read_request(&mut s).await;
                if end == End::EchoKey {
                    let auth = request
                        .lines()
                        .find_map(|l| {
                            l.strip_prefix("authorization: ")
                                .or_else(|| l.strip_prefix("Authorization: "))
                        })
                        .unwrap_or("none")
                        .to_owned();
                    let key = auth.trim_start_matches("Bearer ").to_owned();
                    let masked = if key.len() > 12 {
                        format!("{}...{}", &key[..8], &key[key.len() - 4..])
                    } else {
                        key.clone()
                    };
                    let body = json!({"error": {"message": format!(
                        "Incorrect API key provided: {key} ({masked}); header was {auth}"),
                        "type": "invalid_request_error"}})
                    .to_string();
                    let reply = format!("HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
                    let _ = s.write_all(reply.as_bytes()).await;
                    return;
                }
                let events: Vec<String> = if responses {
                    vec![
                        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"status\":\"in_progress\",\"output\":[]}}\n\n".into(),
                        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":\"The walk starts at \"}\n\n".into(),
                    ]
                } else {
                    vec![
                        "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"The walk starts at \"},\"finish_reason\":null}]}\n\n".into(),
                    ]
                };
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                let _ = s.write_all(head.as_bytes()).await;
                for e in events {
                    let _ = s
                        .write_all(format!("{:x}\r\n{e}\r\n", e.len()).as_bytes())
                        .await;
                }
                let _ = s.flush().await;
                match end {
                    End::Dies => drop(s),
                    End::Silent => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                    }
                    End::Early => {
                        let _ = s.write_all(b"0\r\n\r\n").await;
                    }
                    End::EchoKey => {}
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

/// A proxy with one upstream trial (`api_key` configured or not), traced to `trace`
/// or not, with a 1 s silence limit.
async fn proxy(
    base: String,
    api_key: Option<&str>,
    trace: Option<&std::path::Path>,
) -> ProxyServer {
    let dir = trace.map_or_else(std::env::temp_dir, |t| t.parent().unwrap().to_owned());
    let writer = match trace {
        Some(t) => TraceWriter::open(t).unwrap(),
        None => TraceWriter::discard(),
    };
    let model = ModelRoute::Upstream(Upstream {
        base_url: base,
        api_key: api_key.map(Secret::new),
        model: String::new(),
        sampling: Default::default(),
    });
    let registry = TrialRegistry::new();
    registry.insert(bare_trial("t", model, &dir, writer));
    let options = ProxyOptions {
        retry: RetryPolicy::none(),
        timeouts: UpstreamTimeouts {
            first_byte: Duration::from_secs(5),
            idle: Duration::from_secs(1),
        },
        ..ProxyOptions::default()
    };
    ProxyServer::bind_with(DEFAULT_ADDR, registry, Arc::new(NoSim), options)
        .await
        .unwrap()
}

/// What a streaming client gets: the text received and whether the body failed.
async fn stream(server: &ProxyServer, responses: bool) -> (String, bool) {
    let (path, body) = if responses {
        (
            "responses",
            json!({"model": "m", "stream": true, "input": "When is the walk?"}),
        )
    } else {
        (
            "chat/completions",
            json!({"model": "m", "stream": true,
            "messages": [{"role": "user", "content": "When is the walk?"}]}),
        )
    };
    let url = format!("{}/{path}", server.base_url("t"));
    let resp = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut body = resp.bytes_stream();
    let mut text = String::new();
    let mut failed = false;
    let read = async {
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(b) => text.push_str(&String::from_utf8_lossy(&b)),
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the stream must end");
    (text, failed)
}

#[tokio::test]
async fn a_stream_that_dies_goes_silent_or_stops_short_fails_at_the_client() {
    for end in [End::Dies, End::Silent, End::Early] {
        for responses in [false, true] {
            // A proxy with nothing to check or record relays bytes as they come: a
            // break or a silence still fails the client's body, but an upstream's own
            // clean end is relayed as it is.
            let modes: &[bool] = if end == End::Early {
                &[true]
            } else {
                &[false, true]
            };
            for &traced in modes {
                let dir = tempfile::tempdir().unwrap();
                let trace = dir.path().join("t.jsonl");
                let server = proxy(
                    upstream(end, responses).await,
                    Some(CONFIGURED),
                    traced.then_some(trace.as_path()),
                )
                .await;
                let (text, failed) = stream(&server, responses).await;
                let what = format!("{end:?} responses={responses} traced={traced}");
                assert!(text.contains("The walk starts at"), "{what}: {text}");
                assert!(failed, "{what}: the body must fail, not end: {text}");
                assert!(
                    !text.contains("[DONE]") && !text.contains("response.completed"),
                    "{what}"
                );
                if traced {
                    // The client is told in its wire format, and the trace says why.
                    let marker = if responses {
                        "event: error"
                    } else {
                        "\"error\""
                    };
                    assert!(
                        text.contains(marker) && text.contains("stream_failed"),
                        "{what}: {text}"
                    );
                    let traced = std::fs::read_to_string(&trace).unwrap();
                    let why = match end {
                        End::Dies => "stream broke",
                        End::Silent => "no data from the upstream for 1 s",
                        _ => "ended before its final event",
                    };
                    assert!(traced.contains(why), "{what}: {traced}");
                }
            }
        }
    }
}

/// Asserts that no five consecutive characters of `key` appear in `text`.
fn assert_no_part_of(key: &str, text: &str) {
    let chars: Vec<char> = key.chars().collect();
    for w in chars.windows(5) {
        let w: String = w.iter().collect();
        assert!(!text.contains(&w), "`{w}` of a key appears in: {text}");
    }
}

#[tokio::test]
async fn an_echoed_key_reaches_neither_the_client_nor_the_trace() {
    let state =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/proxy-serve/state.json");
    // `proxy serve` with its own key, and without (the client's key is forwarded).
    for configured in [Some(CONFIGURED), None] {
        for stream in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let trace = dir.path().join("t.jsonl");
            let server = serve_standalone(StandaloneConfig {
                listen: "127.0.0.1:0".parse().unwrap(),
                upstream: upstream(End::EchoKey, false).await,
                api_key: configured.map(Secret::new),
                model: None,
                policy: guard_server::default_policy(),
                mode: GuardMode::Enforce,
                state: state.clone(),
                trace: Some(trace.clone()),
                workspace: None,
                guardrail: None,
                threads: 1,
                timeouts: UpstreamTimeouts::SERVE,
                limits: ServerLimits::default(),
            })
            .await
            .unwrap();
            let body = json!({"model": "m", "stream": stream,
                "messages": [{"role": "user", "content": "hi"}]});
            let resp = reqwest::Client::new()
                .post(format!("{}/chat/completions", server.base_url()))
                .header("x-cosec-session", "school-chat")
                .bearer_auth(FORWARDED)
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 401);
            let text = resp.text().await.unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            let message = v["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("Incorrect API key provided: ***"),
                "{text}"
            );
            let traced = std::fs::read_to_string(&trace).unwrap();
            assert!(traced.contains("Incorrect API key"), "{traced}");
            for key in [CONFIGURED, FORWARDED] {
                assert_no_part_of(key, &text);
                assert_no_part_of(key, &traced);
            }
        }
    }
}
