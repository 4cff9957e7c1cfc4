//! Forwarding to an upstream over real HTTP: a fake OpenAI-compatible server on
//! 127.0.0.1 checks what arrives, holds a stream open to prove pass-through, and
//! fails on demand; the trace must never contain the API key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

mod bare_trial;

use bare_trial::bare_trial;
use bytes::Bytes;
use cosec_proxy::api::{ModelRequest, ModelResponse, WireApi};
use cosec_proxy::registry::{ModelRoute, Secret, Trial, TrialRegistry, TurnContext, Upstream};
use cosec_proxy::server::{ModelBackend, ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_proxy::upstream::RetryPolicy;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

const KEY: &str = "sk-secret-123";

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// A request as the fake upstream received it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    auth: Option<String>,
    body: Value,
    raw: Bytes,
}

#[derive(Clone)]
struct Fake {
    seen: Arc<Mutex<Vec<Seen>>>,
    gate: Arc<Mutex<Option<oneshot::Receiver<()>>>>,
    /// Connections the fake accepted.
    connections: Arc<AtomicUsize>,
}

fn chat_chunk(delta: Value, finish: Option<&str>) -> Bytes {
    let c = json!({"id": "u1", "object": "chat.completion.chunk", "created": 0, "model": "up-model",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    Bytes::from(format!("data: {c}\n\n"))
}

fn event(name: &str, data: Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

async fn fake_handle(fake: Fake, req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let path = req.uri().path().to_owned();
    let auth = req
        .headers()
        .get("authorization")
        .map(|v| v.to_str().unwrap().to_owned());
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    fake.seen.lock().unwrap().push(Seen {
        path: path.clone(),
        auth: auth.clone(),
        body: body.clone(),
        raw: bytes.clone(),
    });
    let full = |status: u16, v: Value| {
        let mut r = Response::new(Full::new(Bytes::from(v.to_string())).boxed_unsync());
        *r.status_mut() = hyper::StatusCode::from_u16(status).unwrap();
        Ok(r)
    };
    if path.starts_with("/bad/") {
        // A careless upstream that echoes the credentials it was given.
        return full(
            500,
            json!({"error": {"message": format!("invalid key {}", auth.unwrap_or_default())}}),
        );
    }
    if body["stream"] != json!(true) {
        return full(
            200,
            json!({"id": "u1", "object": "chat.completion", "model": "up-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "upstream says hi"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}}),
        );
    }
    let (tx, rx) = mpsc::channel::<Bytes>(8);
    let gate = fake.gate.lock().unwrap().take();
    let is_chat = path.ends_with("/chat/completions");
    let hold_end = body["metadata"]["hold_end"] == json!(true);
    tokio::spawn(async move {
        if is_chat {
            tx.send(chat_chunk(
                json!({"role": "assistant", "content": "first"}),
                None,
            ))
            .await
            .unwrap();
            if let Some(gate) = gate {
                gate.await.unwrap();
            }
            tx.send(chat_chunk(json!({"content": " second"}), None))
                .await
                .unwrap();
            tx.send(chat_chunk(json!({}), Some("stop"))).await.unwrap();
            let usage = json!({"id": "u1", "choices": [], "usage": {"prompt_tokens": 20, "completion_tokens": 2}});
            tx.send(Bytes::from(format!("data: {usage}\n\n")))
                .await
                .unwrap();
            tx.send(Bytes::from_static(b"data: [DONE]\n\n"))
                .await
                .unwrap();
        } else {
            let item = json!({"type": "function_call", "id": "fc1", "call_id": "c1", "namespace": "mcp__cosec",
                              "name": "post_message", "arguments": "{\"text\":\"hi\"}"});
            tx.send(event(
                "response.created",
                json!({"type": "response.created", "response": {"id": "r1"}}),
            ))
            .await
            .unwrap();
            tx.send(event(
                "response.output_item.done",
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ))
            .await
            .unwrap();
            tx.send(event("response.completed", json!({"type": "response.completed",
                "response": {"id": "r1", "usage": {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35}}}))).await.unwrap();
            // Like a server that closes its stream a while after the final event.
            if hold_end {
                if let Some(gate) = gate {
                    gate.await.unwrap();
                }
            }
            drop(tx);
        }
    });
    let chunks = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    let mut r = Response::new(StreamBody::new(chunks).boxed_unsync());
    r.headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    Ok(r)
}

async fn start_fake(fake: Fake) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            fake.connections.fetch_add(1, Ordering::SeqCst);
            let fake = fake.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req| fake_handle(fake.clone(), req));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    addr
}

/// Upstream trials never reach the simulated backend.
struct NoSim;

impl ModelBackend for NoSim {
    fn respond(
        &self,
        _: &Trial,
        _: &TurnContext,
        _: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        Err("not a simulated trial".into())
    }
}

fn trial(dir: &Path, id: &str, base_url: String, key: Option<&str>) -> Arc<Trial> {
    let trace = TraceWriter::open(&dir.join(format!("{id}.jsonl"))).unwrap();
    trial_with(id, base_url, key, "up-model", dir, trace)
}

/// A trial with no trace kept and the client's model kept: nothing to parse.
fn untraced_trial(dir: &Path, id: &str, base_url: String) -> Arc<Trial> {
    trial_with(id, base_url, None, "", dir, TraceWriter::discard())
}

fn trial_with(
    id: &str,
    base_url: String,
    key: Option<&str>,
    model: &str,
    dir: &Path,
    trace: TraceWriter,
) -> Arc<Trial> {
    let model = ModelRoute::Upstream(Upstream {
        base_url,
        api_key: key.map(Secret::new),
        model: model.into(),
        sampling: Default::default(),
    });
    bare_trial(id, model, dir, trace)
}

struct Fixture {
    dir: tempfile::TempDir,
    server: ProxyServer,
    seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<AtomicUsize>,
    release: Option<oneshot::Sender<()>>,
    http: reqwest::Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let (release, gate) = oneshot::channel();
        let fake = Fake {
            seen: Arc::default(),
            gate: Arc::new(Mutex::new(Some(gate))),
            connections: Arc::default(),
        };
        let seen = Arc::clone(&fake.seen);
        let connections = Arc::clone(&fake.connections);
        let up = start_fake(fake).await;
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let registry = TrialRegistry::new();
        registry.insert(trial(
            dir.path(),
            "keyed",
            format!("http://{up}/v1"),
            Some(KEY),
        ));
        registry.insert(trial(dir.path(), "open", format!("http://{up}/v1/"), None));
        registry.insert(trial(
            dir.path(),
            "bad",
            format!("http://{up}/bad/v1"),
            Some(KEY),
        ));
        registry.insert(trial(
            dir.path(),
            "down",
            format!("http://{closed}/v1"),
            Some(KEY),
        ));
        registry.insert(untraced_trial(
            dir.path(),
            "plain",
            format!("http://{up}/v1"),
        ));
        registry.insert(untraced_trial(
            dir.path(),
            "plain-down",
            format!("http://{closed}/v1"),
        ));
        // Failures are retried twice, quickly.
        let options = ProxyOptions {
            retry: RetryPolicy::new(2, Duration::from_millis(5)),
            ..ProxyOptions::default()
        };
        let server = ProxyServer::bind_with(DEFAULT_ADDR, registry, Arc::new(NoSim), options)
            .await
            .unwrap();
        Fixture {
            dir,
            server,
            seen,
            connections,
            release: Some(release),
            http: reqwest::Client::new(),
        }
    }

    async fn post(&self, trial: &str, rest: &str, body: Value) -> reqwest::Response {
        let url = format!("{}/{rest}", self.server.base_url(trial));
        self.http.post(url).json(&body).send().await.unwrap()
    }

    fn trace_text(&self, trial: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{trial}.jsonl"))).unwrap()
    }

    fn model_calls(&self, trial: &str) -> Vec<TraceEvent> {
        read_trace(&self.dir.path().join(format!("{trial}.jsonl")))
            .unwrap()
            .into_iter()
            .map(|l| l.event)
            .collect()
    }
}

#[tokio::test]
async fn chat_stream_is_passed_through_before_the_upstream_finishes() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true,
        "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "hi"}]});
    let mut got = String::new();
    // The upstream holds the rest of its stream until the test releases it, so a proxy
    // that buffered to the end would time out here.
    let mut stream = tokio::time::timeout(Duration::from_secs(5), async {
        let resp = f.post("keyed", "chat/completions", body).await;
        assert_eq!(resp.status(), 200);
        let mut stream = resp.bytes_stream();
        while !got.contains("first") {
            got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
        }
        stream
    })
    .await
    .expect("the first chunk must reach the client while the upstream is still held open");
    assert!(!got.contains("second"));
    assert!(
        f.model_calls("keyed").is_empty(),
        "traced only once the stream ends"
    );

    f.release.take().unwrap().send(()).unwrap();
    while let Some(chunk) = stream.next().await {
        got.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
    }
    assert!(got.contains(" second") && got.trim_end().ends_with("data: [DONE]"));

    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].auth.as_deref(), Some("Bearer sk-secret-123"));
    assert_eq!(seen[0].body["model"], "up-model");
    assert_eq!(
        seen[0].body["stream_options"]["include_usage"], true,
        "other fields pass unchanged"
    );

    let calls = f.model_calls("keyed");
    let [TraceEvent::ModelCall {
        api,
        stream,
        request,
        response,
        usage,
        error,
        ..
    }] = &calls[..]
    else {
        panic!("one model call expected: {calls:?}")
    };
    assert_eq!((*api, *stream), (WireApi::ChatCompletions, true));
    assert_eq!(request.model, "client-model");
    assert_eq!(response.as_ref().unwrap().text, "first second");
    assert_eq!((usage.input_tokens, usage.output_tokens), (20, 2));
    assert!(error.is_none(), "{error:?}");
    assert!(!f.trace_text("keyed").contains(KEY));
}

#[tokio::test]
async fn non_streaming_chat_is_forwarded_verbatim() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "keyed",
            "chat/completions",
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "upstream says hi");
    let calls = f.model_calls("keyed");
    let [TraceEvent::ModelCall {
        response,
        usage,
        stream: false,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(response.as_ref().unwrap().text, "upstream says hi");
    assert_eq!(usage.input_tokens, 9);
}

#[tokio::test]
async fn responses_stream_without_key_is_forwarded_and_assembled() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "open",
            "responses",
            json!({"model": "m", "stream": true, "input": "hi"}),
        )
        .await;
    let text = resp.text().await.unwrap();
    assert!(text.contains("event: response.completed"));
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/responses");
    assert_eq!(seen[0].auth, None, "no key, no Authorization header");
    let calls = f.model_calls("open");
    let [TraceEvent::ModelCall {
        api,
        response,
        usage,
        error,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(*api, WireApi::Responses);
    let call = &response.as_ref().unwrap().tool_calls[0];
    assert_eq!(
        (call.namespace.as_deref(), call.name.as_str()),
        (Some("mcp__cosec"), "post_message")
    );
    assert_eq!(usage.output_tokens, 5);
    assert!(error.is_none());
}

#[tokio::test]
async fn upstream_failures_are_502_with_a_keyless_error_in_the_trace() {
    let f = Fixture::new().await;
    for trial in ["bad", "down"] {
        let resp = f
            .post(trial, "chat/completions", json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}))
            .await;
        assert_eq!(resp.status(), 502, "{trial}");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"]["type"], "upstream_error");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("upstream: "), "{message}");
        assert!(!message.contains(KEY), "{message}");
        let calls = f.model_calls(trial);
        let [TraceEvent::ModelCall {
            error: Some(error),
            response: None,
            upstream_retries: 2,
            ..
        }] = &calls[..]
        else {
            panic!("{calls:?}")
        };
        assert!(error.starts_with("upstream: "), "{error}");
        assert!(error.ends_with("(after 2 retries)"), "{error}");
        assert!(!f.trace_text(trial).contains(KEY), "{trial}");
    }
    let bad = f.model_calls("bad");
    let TraceEvent::ModelCall {
        error: Some(error), ..
    } = &bad[0]
    else {
        unreachable!()
    };
    assert!(
        error.contains("HTTP 500") && error.contains("invalid key Bearer ***"),
        "{error}"
    );
}

#[tokio::test]
async fn an_untraced_unguarded_call_is_forwarded_byte_for_byte() {
    let mut f = Fixture::new().await;
    // Odd spacing, key order and an unknown field: a proxy that re-encoded the JSON
    // would change these bytes.
    let raw = "{ \"messages\":[{\"role\":\"user\",\"content\":\"hi \\u00e9\"}],  \"model\":\"client-model\",\"x_vendor\":1.50}";
    let url = format!("{}/chat/completions", f.server.base_url("plain"));
    let resp = f
        .http
        .post(&url)
        .header("content-type", "application/json")
        .body(raw)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"],
        "application/json",
        "a reply without a content type is labeled JSON"
    );
    let reply: Value = resp.json().await.unwrap();
    assert_eq!(
        reply["choices"][0]["message"]["content"],
        "upstream says hi"
    );
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].raw, Bytes::from(raw), "forwarded byte for byte");
    assert_eq!(seen[0].auth, None, "no key configured, none invented");

    // Streams are relayed as they come, not when the upstream finishes.
    let body = json!({"model": "client-model", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let resp = f.post("plain", "chat/completions", body).await;
    assert_eq!(resp.status(), 200);
    let mut stream = resp.bytes_stream();
    let mut got = String::new();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !got.contains("first") {
            got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
        }
    })
    .await
    .expect("the first chunk must arrive while the upstream holds the rest");
    f.release.take().unwrap().send(()).unwrap();
    while let Some(chunk) = stream.next().await {
        got.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
    }
    assert!(got.contains(" second") && got.trim_end().ends_with("data: [DONE]"));

    // An upstream that is not there is still a readable 502.
    let resp = f
        .post(
            "plain-down",
            "chat/completions",
            json!({"model": "m", "messages": []}),
        )
        .await;
    assert_eq!(resp.status(), 502);
    let v: Value = resp.json().await.unwrap();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("upstream: request to"));
    assert!(
        !f.dir.path().join("plain.jsonl").exists(),
        "nothing written for untraced trials"
    );
}

#[tokio::test]
async fn calls_one_after_another_reuse_one_upstream_connection() {
    let f = Fixture::new().await;
    let body = json!({"model": "client-model", "messages": [{"role": "user", "content": "hi"}]});
    for _ in 0..4 {
        // Relayed unparsed: the reply keeps the upstream's length rather than chunks.
        let resp = f.post("plain", "chat/completions", body.clone()).await;
        assert_eq!(resp.status(), 200);
        let length = resp.headers().get("content-length").cloned();
        let text = resp.bytes().await.unwrap();
        assert_eq!(length.unwrap(), text.len().to_string().as_str());
    }
    for _ in 0..2 {
        let resp = f.post("open", "chat/completions", body.clone()).await;
        assert_eq!(resp.status(), 200);
        resp.bytes().await.unwrap();
    }
    assert_eq!(f.seen.lock().unwrap().len(), 6);
    assert_eq!(
        f.connections.load(Ordering::SeqCst),
        1,
        "each call went upstream on the connection the previous one used"
    );
}

#[tokio::test]
async fn a_client_that_leaves_after_the_final_event_is_traced_as_complete() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true, "input": "hi",
        "metadata": {"hold_end": true}});
    let resp = f.post("keyed", "responses", body).await;
    let mut stream = resp.bytes_stream();
    let mut got = String::new();
    while !got.contains("event: response.completed") {
        got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
    }
    // The client has the whole reply and hangs up while the upstream's stream is open.
    drop(stream);
    let calls = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let calls = f.model_calls("keyed");
            if !calls.is_empty() {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the call is traced once the client is gone");
    f.release.take().unwrap().send(()).unwrap();
    let [TraceEvent::ModelCall {
        response: Some(response),
        error,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(error, &None, "{response:?}");
    assert_eq!(response.tool_calls.len(), 1);
    assert_eq!(response.usage.output_tokens, 5);
}

#[tokio::test]
async fn a_client_that_leaves_mid_stream_is_traced_as_disconnected() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let resp = f.post("keyed", "chat/completions", body).await;
    let mut stream = resp.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(std::str::from_utf8(&first).unwrap().contains("first"));
    drop(stream);
    // The upstream goes on; the proxy finds the client gone when it relays.
    f.release.take().unwrap().send(()).unwrap();
    let calls = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let calls = f.model_calls("keyed");
            if !calls.is_empty() {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the call is traced once the client is gone");
    let [TraceEvent::ModelCall {
        response: Some(response),
        error: Some(error),
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(error, "client disconnected during the stream");
    assert!(response.text.starts_with("first"), "{response:?}");
}
