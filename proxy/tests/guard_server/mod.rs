//! A guarded proxy over the fixture scenario of `guard_fixture`, with the real default
//! defense policy, a canned simulated model and a fake upstream that sends canned
//! chunks one by one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use crate::guard_fixture::{tiers, REFUND, REFUND_PATH, ROUTE_CARD};
use bytes::Bytes;
use cosec_policies::{DEFAULT_DEFENSE_FILE_NAME, DEFAULT_DEFENSE_SOURCE};
use cosec_proxy::api::{ModelRequest, ModelResponse, WireApi};
use cosec_proxy::guard::{Guard, GuardLayers, GuardMode, GuardPolicy};
use cosec_proxy::registry::{ModelRoute, Trial, TrialRegistry, TrialSetup, TurnContext, Upstream};
use cosec_proxy::server::limits::ServerLimits;
use cosec_proxy::server::{ModelBackend, ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_proxy::upstream::UpstreamTimeouts;
use cosec_proxy::wire::StreamAssembler;
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::{CommunityId, UserId};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use serde_json::Value;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The real default defense policy.
pub fn default_policy() -> GuardPolicy {
    GuardPolicy::from_source(DEFAULT_DEFENSE_SOURCE, DEFAULT_DEFENSE_FILE_NAME).unwrap()
}

/// What the fake upstream answers next, and what it received.
#[derive(Clone, Default)]
pub struct FakeUpstream {
    pub canned: Arc<Mutex<(String, Vec<Bytes>)>>,
    pub seen: Arc<Mutex<Vec<(hyper::HeaderMap, Value)>>>,
    /// Microseconds between two chunks beyond the default 2 ms (`u64::MAX`: none).
    pub gap_us: Arc<std::sync::atomic::AtomicU64>,
}

impl FakeUpstream {
    /// Answers the next requests with these chunks, each written separately.
    pub fn answer(&self, content_type: &str, chunks: Vec<Bytes>) {
        *self.canned.lock().unwrap() = (content_type.to_owned(), chunks);
    }

    pub async fn start(&self) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let fake = self.clone();
        tokio::spawn(async move {
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let fake = fake.clone();
                tokio::spawn(async move {
                    let svc = hyper::service::service_fn(move |req| fake.clone().handle(req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                        .await;
                });
            }
        });
        addr
    }

    async fn handle(
        self,
        req: Request<Incoming>,
    ) -> Result<Response<UnsyncBoxBody<Bytes, Infallible>>, Infallible> {
        let headers = req.headers().clone();
        let body = req.into_body().collect().await.unwrap().to_bytes();
        self.seen
            .lock()
            .unwrap()
            .push((headers, serde_json::from_slice(&body).unwrap()));
        let (content_type, chunks) = self.canned.lock().unwrap().clone();
        let gap = match self.gap_us.load(std::sync::atomic::Ordering::Relaxed) {
            0 => Some(Duration::from_millis(2)),
            u64::MAX => None,
            us => Some(Duration::from_micros(us)),
        };
        // Each chunk is its own write, a little apart, so the proxy sees them separately.
        let stream = futures_util::stream::unfold(chunks.into_iter(), move |mut it| async move {
            let next = it.next()?;
            match gap {
                Some(gap) => tokio::time::sleep(gap).await,
                None => tokio::task::yield_now().await,
            }
            Some((Ok::<_, Infallible>(Frame::data(next)), it))
        });
        let mut r = Response::new(StreamBody::new(stream).boxed_unsync());
        r.headers_mut()
            .insert("content-type", content_type.parse().unwrap());
        Ok(r)
    }
}

/// A simulated model that answers whatever it was given.
#[derive(Default)]
pub struct Canned(pub Mutex<ModelResponse>);

impl ModelBackend for Canned {
    fn respond(
        &self,
        _: &Trial,
        _: &TurnContext,
        _: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        Ok(self.0.lock().unwrap().clone())
    }
}

/// A guarded proxy with one simulated trial `sim` and one upstream trial `up`, both in
/// the y5parents session at turn 6, opened by `requester`.
pub struct Setup {
    pub dir: tempfile::TempDir,
    pub server: ProxyServer,
    pub canned: Arc<Canned>,
    pub fake: FakeUpstream,
    pub guard: Option<Guard>,
    pub http: reqwest::Client,
}

pub struct Options {
    pub guard: Option<(GuardPolicy, GuardMode)>,
    /// The guard's layers (both by default).
    pub layers: GuardLayers,
    pub guardrail: Option<&'static str>,
    pub requester: &'static str,
    pub limits: ServerLimits,
    pub timeouts: UpstreamTimeouts,
    /// Listener threads (0: the test's runtime).
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            guard: Some((default_policy(), GuardMode::Enforce)),
            layers: GuardLayers::default(),
            guardrail: None,
            requester: "nadia",
            limits: ServerLimits::default(),
            timeouts: UpstreamTimeouts::default(),
            threads: 0,
        }
    }
}

impl Setup {
    pub async fn new(options: Options) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("agent");
        std::fs::create_dir_all(root.join("shared/finance")).unwrap();
        std::fs::create_dir_all(root.join("communities/fellside/routes")).unwrap();
        std::fs::create_dir_all(root.join("communities/y5parents")).unwrap();
        std::fs::write(root.join(REFUND_PATH), REFUND).unwrap();
        std::fs::write(
            root.join("communities/fellside/routes/ridgeway.md"),
            ROUTE_CARD,
        )
        .unwrap();
        let fake = FakeUpstream::default();
        let up = fake.start().await;
        let (agent, platform) = tiers();
        let (agent, platform) = (Arc::new(agent), Arc::new(platform));
        let registry = TrialRegistry::new();
        for (id, model) in [
            (
                "sim",
                ModelRoute::Sim(cosec_proxy::registry::SimKind::Comply),
            ),
            (
                "up",
                ModelRoute::Upstream(Upstream {
                    base_url: format!("http://{up}/v1"),
                    api_key: None,
                    model: "up-model".into(),
                    sampling: Default::default(),
                }),
            ),
        ] {
            let trial = Arc::new(Trial::new(
                TrialSetup {
                    id: id.into(),
                    agent: Arc::clone(&agent),
                    platform: Arc::clone(&platform),
                    sim: None,
                    model,
                    agent_root: root.clone(),
                    trace: Arc::new(
                        TraceWriter::open(&dir.path().join(format!("{id}.jsonl"))).unwrap(),
                    ),
                    guardrail: options.guardrail.map(Arc::from),
                },
                CommunityId::from("y5parents"),
            ));
            trial.set_turn(TurnContext {
                turn: 6,
                community: CommunityId::from("y5parents"),
                requester: Some(UserId::from(options.requester)),
                time: turn_time(6),
                earlier_requesters: Vec::new(),
            });
            registry.insert(trial);
        }
        let guard = options
            .guard
            .map(|(p, m)| Guard::new(p, m).with_layers(options.layers));
        let canned = Arc::new(Canned::default());
        let server = ProxyServer::bind_with(
            DEFAULT_ADDR,
            registry,
            canned.clone(),
            ProxyOptions {
                guard: guard.clone(),
                threads: options.threads,
                limits: options.limits,
                timeouts: options.timeouts,
                ..ProxyOptions::default()
            },
        )
        .await
        .unwrap();
        Setup {
            dir,
            server,
            canned,
            fake,
            guard,
            http: reqwest::Client::new(),
        }
    }

    /// Posts to `/t/<trial>/v1/<rest>`; returns status and whole body text.
    pub async fn post(&self, trial: &str, rest: &str, body: &Value) -> (u16, String) {
        let url = format!("{}/{rest}", self.server.base_url(trial));
        let resp = self.http.post(url).json(body).send().await.unwrap();
        (resp.status().as_u16(), resp.text().await.unwrap())
    }

    pub fn trace_path(&self, trial: &str) -> PathBuf {
        self.dir.path().join(format!("{trial}.jsonl"))
    }

    /// The trial's trace events.
    pub fn events(&self, trial: &str) -> Vec<TraceEvent> {
        read_trace(&self.trace_path(trial))
            .unwrap()
            .into_iter()
            .map(|l| l.event)
            .collect()
    }

    /// The (request, response) of every `ModelCall` in the trace.
    pub fn calls(&self, trial: &str) -> Vec<(ModelRequest, Option<ModelResponse>)> {
        self.events(trial)
            .into_iter()
            .filter_map(|e| match e {
                TraceEvent::ModelCall {
                    request, response, ..
                } => Some((request, response)),
                _ => None,
            })
            .collect()
    }
}

/// What a client assembles from an SSE body.
pub fn assemble(api: WireApi, body: &str) -> ModelResponse {
    let mut a = StreamAssembler::new(api);
    a.feed(body.as_bytes());
    let done = a.finish();
    assert_eq!(done.error, None, "stream: {body}");
    done.response
}

/// A Chat Completions SSE chunk.
pub fn chat_chunk(delta: Value, finish: Option<&str>) -> Bytes {
    let c = serde_json::json!({"id": "u1", "object": "chat.completion.chunk", "created": 0,
        "model": "up-model", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    Bytes::from(format!("data: {c}\n\n"))
}

/// A Responses API SSE event.
pub fn named(name: &str, mut data: Value) -> Bytes {
    data["type"] = Value::String(name.to_owned());
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// Cuts `text` into pieces of `n` bytes (on char boundaries).
pub fn pieces(text: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        cur.push(c);
        if cur.len() >= n {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
