//! Routing and the model-call paths (simulated and upstream), each recording exactly
//! one `ModelCall` trace event.

use super::State;
use crate::api::{ModelRequest, ModelResponse, WireApi};
use crate::registry::{ModelRoute, Trial, Upstream};
use crate::trace::TraceEvent;
use crate::upstream::scrub;
use crate::wire::{self, Assembled, ParsedRequest, ResponseMeta, StreamAssembler};
use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;

/// Harnesses re-send whole histories; this is far above any real one.
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// Chunks buffered between the upstream reader and a slow client.
const STREAM_BUFFER: usize = 32;

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// An error answered as OpenAI-style JSON.
struct HttpError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl HttpError {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        HttpError {
            status,
            kind,
            message: message.into(),
        }
    }

    fn into_response(self) -> Response<Body> {
        let body = json!({"error": {"message": self.message, "type": self.kind, "code": null}});
        json_response(self.status, &body)
    }
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed_unsync()
}

fn response(status: StatusCode, content_type: &str, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    if let Ok(v) = content_type.parse() {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    response(status, "application/json", full(value.to_string()))
}

fn sse_response(content_type: &str, body: Body) -> Response<Body> {
    let mut r = response(StatusCode::OK, content_type, body);
    r.headers_mut().insert(
        CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    r
}

/// A body fed chunk by chunk from a channel, so chunks reach the client as they come.
fn channel_body(rx: mpsc::Receiver<Bytes>) -> Body {
    let chunks = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
    });
    StreamBody::new(chunks).boxed_unsync()
}

fn frames_body(frames: Vec<Bytes>) -> Body {
    let chunks = futures_util::stream::iter(frames.into_iter().map(|b| Ok(Frame::data(b))));
    StreamBody::new(chunks).boxed_unsync()
}

/// Entry point of every request: never fails, errors become JSON responses.
pub(crate) async fn handle(
    state: Arc<State>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    Ok(route(&state, req)
        .await
        .unwrap_or_else(HttpError::into_response))
}

enum Endpoint {
    Models,
    Call(WireApi),
}

async fn route(state: &Arc<State>, req: Request<Incoming>) -> Result<Response<Body>, HttpError> {
    let path = req.uri().path().to_owned();
    let not_found = || {
        HttpError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no route for {} {path}", req.method()),
        )
    };
    let (trial_id, rest) = path
        .strip_prefix("/t/")
        .and_then(|p| p.split_once('/'))
        .ok_or_else(not_found)?;
    let endpoint = match (req.method(), rest) {
        (&Method::GET, "v1/models") => Endpoint::Models,
        (&Method::POST, "v1/chat/completions") => Endpoint::Call(WireApi::ChatCompletions),
        (&Method::POST, "v1/responses") => Endpoint::Call(WireApi::Responses),
        _ => return Err(not_found()),
    };
    let trial = state.registry.get(trial_id).ok_or_else(|| {
        HttpError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("unknown trial `{trial_id}`"),
        )
    })?;
    match endpoint {
        Endpoint::Models => Ok(models(&trial)),
        Endpoint::Call(api) => {
            let body = Limited::new(req.into_body(), MAX_BODY_BYTES)
                .collect()
                .await
                .map_err(|e| {
                    HttpError::new(
                        StatusCode::BAD_REQUEST,
                        "invalid_request_error",
                        format!("cannot read the request body: {e}"),
                    )
                })?
                .to_bytes();
            model_call(state, trial, api, &body).await
        }
    }
}

fn models(trial: &Trial) -> Response<Body> {
    let name = match &trial.model {
        ModelRoute::Sim(kind) => kind.model_name().to_owned(),
        ModelRoute::Upstream(up) => up.model.clone(),
    };
    json_response(
        StatusCode::OK,
        &json!({"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "cosec"}
        ]}),
    )
}

/// What one model call leaves in the trace.
struct CallRecord {
    turn: u8,
    api: WireApi,
    request: ModelRequest,
    started: Instant,
}

impl CallRecord {
    fn record(self, trial: &Trial, response: Option<ModelResponse>, error: Option<String>) {
        let event = TraceEvent::ModelCall {
            turn: self.turn,
            api: self.api,
            stream: self.request.stream,
            usage: response.as_ref().map(|r| r.usage).unwrap_or_default(),
            request: self.request,
            response,
            latency_us: u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX),
            error,
        };
        if let Err(e) = trial.trace.record(event) {
            tracing::error!("trial {}: model call not traced: {e}", trial.id);
        }
    }
}

async fn model_call(
    state: &Arc<State>,
    trial: Arc<Trial>,
    api: WireApi,
    body: &[u8],
) -> Result<Response<Body>, HttpError> {
    let started = Instant::now();
    let bad = |e: wire::WireError| {
        HttpError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            e.to_string(),
        )
    };
    let value = wire::parse_json(body).map_err(bad)?;
    let parsed = wire::parse_request(api, &value).map_err(bad)?;
    let record = CallRecord {
        turn: trial.turn().turn,
        api,
        request: parsed.request.clone(),
        started,
    };
    match &trial.model {
        ModelRoute::Sim(_) => simulated(state, &trial, parsed, record),
        ModelRoute::Upstream(up) => {
            let up = up.clone();
            forward(state, trial, &up, value, record).await
        }
    }
}

fn simulated(
    state: &State,
    trial: &Trial,
    parsed: ParsedRequest,
    record: CallRecord,
) -> Result<Response<Body>, HttpError> {
    let api = record.api;
    let turn = trial.turn();
    let mut reply = match state.backend.respond(trial, &turn, &parsed.request) {
        Ok(r) => r,
        Err(msg) => {
            let msg = format!("simulated model: {msg}");
            record.record(trial, None, Some(msg.clone()));
            return Err(HttpError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                msg,
            ));
        }
    };
    let n = state.next_id.fetch_add(1, Ordering::Relaxed);
    let meta = ResponseMeta {
        id: match api {
            WireApi::ChatCompletions => format!("chatcmpl-cosec{n}"),
            WireApi::Responses => format!("resp_cosec{n}"),
        },
        model: parsed.request.model.clone(),
        created: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    };
    wire::complete_tool_calls(&mut reply, &parsed.request, &n.to_string());
    let out = if parsed.request.stream {
        let frames = wire::render_sse(api, &reply, &meta, parsed.include_usage);
        sse_response("text/event-stream", frames_body(frames))
    } else {
        json_response(StatusCode::OK, &wire::render_json(api, &reply, &meta))
    };
    record.record(trial, Some(reply), None);
    Ok(out)
}

async fn forward(
    state: &State,
    trial: Arc<Trial>,
    up: &Upstream,
    body: Value,
    record: CallRecord,
) -> Result<Response<Body>, HttpError> {
    let api = record.api;
    let reply = match state.upstream.send(up, api, body).await {
        Ok(r) => r,
        Err(msg) => {
            record.record(&trial, None, Some(msg.clone()));
            return Err(HttpError::new(
                StatusCode::BAD_GATEWAY,
                "upstream_error",
                msg,
            ));
        }
    };
    let content_type = reply
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    if !content_type.starts_with("text/event-stream") {
        let bytes = match reply.bytes().await {
            Ok(b) => b,
            Err(e) => {
                let msg = scrub(&format!("upstream: reading the response failed: {e}"), up);
                record.record(&trial, None, Some(msg.clone()));
                return Err(HttpError::new(
                    StatusCode::BAD_GATEWAY,
                    "upstream_error",
                    msg,
                ));
            }
        };
        let Assembled {
            response: reply,
            error,
        } = wire::parse_response_json(api, &bytes);
        record.record(&trial, Some(reply), error.map(|e| scrub(&e, up)));
        return Ok(response(StatusCode::OK, &content_type, full(bytes)));
    }
    let (tx, rx) = mpsc::channel::<Bytes>(STREAM_BUFFER);
    let up = up.clone();
    tokio::spawn(async move {
        let mut chunks = reply.bytes_stream();
        let mut assembler = StreamAssembler::new(api);
        let mut broken = None;
        while let Some(chunk) = chunks.next().await {
            match chunk {
                Ok(chunk) => {
                    assembler.feed(&chunk);
                    if tx.send(chunk).await.is_err() {
                        broken = Some("client disconnected during the stream".to_owned());
                        break;
                    }
                }
                Err(e) => {
                    broken = Some(format!("upstream: stream broke: {e}"));
                    break;
                }
            }
        }
        let Assembled { response, error } = assembler.finish();
        let error = broken.or(error).map(|e| scrub(&e, &up));
        // Traced before `tx` drops, so the client sees the end only once it is recorded.
        record.record(&trial, Some(response), error);
        drop(tx);
    });
    Ok(sse_response(&content_type, channel_body(rx)))
}
