//! A fake OpenAI-compatible upstream on 127.0.0.1 and a proxy whose trials forward to
//! it: the upstream records what arrives, holds a chat stream open until released,
//! and echoes credentials back on its `/bad/` path like a careless server would.

use crate::bare_trial::{bare_trial, NoSim};
use bytes::Bytes;
use cosec_proxy::registry::{ModelRoute, Secret, Trial, TrialRegistry, Upstream};
use cosec_proxy::server::{ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_proxy::upstream::RetryPolicy;
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

/// The API key the keyed trials send upstream.
pub const KEY: &str = "sk-secret-123";

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// A request as the fake upstream received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub auth: Option<String>,
    pub body: Value,
    pub raw: Bytes,
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

/// A proxy whose trials forward to one fake upstream (and one closed port).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub server: ProxyServer,
    /// Requests the fake upstream received, in order.
    pub seen: Arc<Mutex<Vec<Seen>>>,
    /// Connections the fake upstream accepted.
    pub connections: Arc<AtomicUsize>,
    /// Lets the held chat stream (or the held end of a responses stream) go on.
    pub release: Option<oneshot::Sender<()>>,
    pub http: reqwest::Client,
}

impl Fixture {
    pub async fn new() -> Fixture {
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

    pub async fn post(&self, trial: &str, rest: &str, body: Value) -> reqwest::Response {
        let url = format!("{}/{rest}", self.server.base_url(trial));
        self.http.post(url).json(&body).send().await.unwrap()
    }

    pub fn trace_text(&self, trial: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{trial}.jsonl"))).unwrap()
    }

    pub fn model_calls(&self, trial: &str) -> Vec<TraceEvent> {
        read_trace(&self.dir.path().join(format!("{trial}.jsonl")))
            .unwrap()
            .into_iter()
            .map(|l| l.event)
            .collect()
    }
}
