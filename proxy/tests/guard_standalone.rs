//! The standalone guard (`cosec proxy serve`) over real HTTP with the example state
//! file and the default defense policy: a request naming requester and community by
//! headers (or by a session of the state file) is guarded, one naming neither is
//! refused, and a broken state file is refused at start naming the field.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;
mod guard_server;

use cosec_proxy::guard::{GuardMode, MARKER};
use cosec_proxy::server::limits::ServerLimits;
use cosec_proxy::standalone::{
    serve_standalone, serve_unguarded, StandaloneConfig, StandaloneError,
};
use cosec_proxy::upstream::UpstreamTimeouts;
use guard_fixture::{assert_clean, OLE_POST, OLE_SECRETS};
use guard_server::{default_policy, FakeUpstream};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const LEAK: &str = "Ole takes levetiracetam 500 mg twice daily; Ingrid is on 07700 900412.";

fn example_state() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/proxy-serve/state.json")
}

fn config(state: PathBuf, upstream: String, trace: PathBuf) -> StandaloneConfig {
    StandaloneConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        upstream,
        api_key: None,
        model: None,
        policy: default_policy(),
        mode: GuardMode::Enforce,
        state,
        trace: Some(trace),
        workspace: None,
        guardrail: None,
        threads: 2,
        timeouts: UpstreamTimeouts::SERVE,
        limits: ServerLimits::default(),
    }
}

fn body() -> Value {
    json!({"model": "client-model", "messages": [
        {"role": "system", "content": "You are Nadia's assistant."},
        {"role": "user", "content": OLE_POST},
        {"role": "user", "content": "What should the school know about Ole?"}
    ]})
}

#[tokio::test]
async fn requests_are_guarded_by_headers_or_session_and_refused_without() {
    let fake = FakeUpstream::default();
    let up = fake.start().await;
    let reply = json!({"id": "u1", "object": "chat.completion", "model": "client-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": LEAK}, "finish_reason": "stop"}]});
    fake.answer(
        "application/json",
        vec![bytes::Bytes::from(reply.to_string())],
    );
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let server = serve_standalone(config(
        example_state(),
        format!("http://{up}/v1"),
        trace.clone(),
    ))
    .await
    .unwrap();
    let http = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.base_url());
    let send = |headers: Vec<(&'static str, &'static str)>| {
        let mut req = http.post(&url).json(&body()).bearer_auth("sk-client");
        for (k, v) in headers {
            req = req.header(k, v);
        }
        req.send()
    };

    let resp = send(vec![
        ("x-cosec-requester", "gemma"),
        ("x-cosec-community", "y5parents"),
    ])
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    let text = v["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(text.contains(MARKER), "{text}");
    assert_clean(text, OLE_SECRETS);

    // The session mapping stands in for headers (gemma in y5parents again).
    let resp = send(vec![("session-id", "school-chat")]).await.unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(text.contains("withheld by policy"), "{text}");
    assert_clean(&text, OLE_SECRETS);

    // In Ole's own club, asked by a member who was there: allowed.
    let resp = send(vec![("x-cosec-session", "fellside-chat")])
        .await
        .unwrap();
    let text = resp.text().await.unwrap();
    assert!(text.contains("900412"), "{text}");

    // Neither headers nor a known session: refused before anything is forwarded.
    let forwarded = fake.seen.lock().unwrap().len();
    for headers in [
        vec![],
        vec![("x-cosec-requester", "gemma")],
        vec![("x-cosec-session", "nope")],
        vec![
            ("x-cosec-requester", "mallory"),
            ("x-cosec-community", "y5parents"),
        ],
    ] {
        let resp = send(headers.clone()).await.unwrap();
        assert_eq!(resp.status(), 400, "{headers:?}");
        let msg = resp.text().await.unwrap();
        assert!(msg.contains("refused by the guard"), "{msg}");
    }
    assert_eq!(fake.seen.lock().unwrap().len(), forwarded);
    // The client's key went upstream (no key configured), the client's model too.
    let seen = fake.seen.lock().unwrap();
    let (headers, sent) = seen.last().unwrap();
    assert_eq!(headers["authorization"], "Bearer sk-client");
    assert_eq!(sent["model"], "client-model");
    drop(seen);
    assert!(server.guard().stats_all().counts.redacted >= 2);
    assert!(std::fs::read_to_string(&trace)
        .unwrap()
        .contains("guard_decision"));
}

#[tokio::test]
async fn a_broken_state_file_is_refused_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(example_state()).unwrap()).unwrap();
    state["objects"][1]["label"]["owner"] = json!("nobody");
    let path = dir.path().join("state.json");
    std::fs::write(&path, state.to_string()).unwrap();
    let cfg = config(
        path.clone(),
        "http://127.0.0.1:9/v1".into(),
        dir.path().join("t"),
    );
    let Err(e) = serve_standalone(cfg).await else {
        panic!("a state with an unknown owner must be refused");
    };
    assert!(matches!(e, StandaloneError::State { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("objects[1].label.owner") && msg.contains("nobody"),
        "{msg}"
    );

    state["objects"][1]["label"]["owner"] = json!("farah");
    state["sessions"]["x"] = json!({"community": "chess", "requester": "nadia"});
    std::fs::write(&path, state.to_string()).unwrap();
    let cfg = config(path, "http://127.0.0.1:9/v1".into(), dir.path().join("t"));
    let msg = serve_standalone(cfg).await.err().unwrap().to_string();
    assert!(msg.contains("sessions.x.community"), "{msg}");
}

#[tokio::test]
async fn listener_threads_share_the_port_and_stop_on_shutdown() {
    let fake = FakeUpstream::default();
    let up = fake.start().await;
    let reply = json!({"id": "u1", "object": "chat.completion", "model": "client-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]});
    fake.answer(
        "application/json",
        vec![bytes::Bytes::from(reply.to_string())],
    );
    let mut cfg = config(example_state(), format!("http://{up}/v1"), PathBuf::new());
    cfg.trace = None;
    cfg.threads = 3;
    let server = serve_unguarded(cfg).await.unwrap();
    let addr = server.local_addr();
    let url = format!("{}/chat/completions", server.base_url());
    // Separate connections, so the kernel spreads them over the threads.
    let calls = (0..24).map(|_| {
        let url = url.clone();
        async move {
            let http = reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .unwrap();
            let resp = http
                .post(&url)
                .header("x-cosec-requester", "gemma")
                .header("x-cosec-community", "y5parents")
                .json(&body())
                .send()
                .await
                .unwrap();
            (resp.status().as_u16(), resp.text().await.unwrap())
        }
    });
    for (status, text) in futures_util::future::join_all(calls).await {
        assert_eq!(status, 200, "{text}");
        assert_eq!(text, reply.to_string(), "unguarded: relayed unchanged");
    }
    assert_eq!(fake.seen.lock().unwrap().len(), 24);
    // Still refused without a requester, with no guard installed.
    let resp = reqwest::Client::new()
        .post(&url)
        .json(&body())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);

    // A second proxy asked for the same port is refused rather than sharing it.
    let mut twin = config(example_state(), format!("http://{up}/v1"), PathBuf::new());
    twin.trace = None;
    twin.threads = 2;
    twin.listen = addr;
    match serve_unguarded(twin).await {
        Err(StandaloneError::Proxy(e)) => {
            assert!(e.to_string().contains("cannot listen on"), "{e}")
        }
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("a second proxy took the same port"),
    }

    server.shutdown().await;
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no thread still accepts after shutdown"
    );
}
