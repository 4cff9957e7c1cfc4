//! The model-call paths (simulated and upstream), each recording exactly one
//! `ModelCall` trace event: the request as the model saw it (guardrail applied) and
//! the response as the client received it (guard applied).

use super::guarded::ReplyGuard;
use super::guardrail;
use super::handler::{
    channel_body, frames_body, full, json_response, response, sse_response, Body, HttpError,
};
use super::stream::StreamRewriter;
use super::State;
use crate::api::{ModelRequest, ModelResponse, WireApi};
use crate::registry::{ModelRoute, Trial, TurnContext, Upstream};
use crate::trace::TraceEvent;
use crate::upstream::scrub;
use crate::wire::{self, Assembled, ParsedRequest, ResponseMeta, StreamAssembler};
use bytes::Bytes;
use futures_util::StreamExt;
use hyper::header::CONTENT_TYPE;
use hyper::{Response, StatusCode};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::mpsc;

/// Chunks buffered between the upstream reader and a slow client.
const STREAM_BUFFER: usize = 32;

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

/// One model call of `trial`: guardrail, taint, answer, guard, trace. `client_auth` is
/// the client's `Authorization` header, forwarded only by a standalone guard whose
/// upstream has no key of its own.
pub(super) async fn model_call(
    state: &Arc<State>,
    trial: Arc<Trial>,
    api: WireApi,
    body: &[u8],
    client_auth: Option<String>,
) -> Result<Response<Body>, HttpError> {
    let started = Instant::now();
    let bad = |e: wire::WireError| {
        HttpError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            e.to_string(),
        )
    };
    let mut value = wire::parse_json(body).map_err(bad)?;
    if let Some(paragraph) = trial.guardrail.as_deref() {
        match api {
            WireApi::ChatCompletions => guardrail::apply_chat(&mut value, paragraph),
            WireApi::Responses => guardrail::apply_responses(&mut value, paragraph),
        };
    }
    let parsed = wire::parse_request(api, &value).map_err(bad)?;
    let ctx = trial.turn();
    let guard = state.guard.as_ref().map(|g| {
        let tg = g.for_trial(&trial);
        tg.observe_request(&parsed.request);
        // Entities of the turn's state are built once, before the reply is checked.
        tg.prepare_state(ctx.time);
        ReplyGuard::new(tg, ctx.clone(), &parsed.request)
    });
    let record = CallRecord {
        turn: ctx.turn,
        api,
        request: parsed.request.clone(),
        started,
    };
    match &trial.model {
        ModelRoute::Sim(_) => simulated(state, &trial, &ctx, parsed, record, guard),
        ModelRoute::Upstream(up) => {
            let up = up.clone();
            let auth = client_auth.filter(|_| up.api_key.is_none());
            forward(state, trial, &up, value, record, guard, auth).await
        }
    }
}

/// The frames of a rendered stream after the guard (shadow: decided, unchanged).
fn guard_frames(api: WireApi, guard: &ReplyGuard, frames: Vec<Bytes>) -> Vec<Bytes> {
    let mut rewriter = StreamRewriter::new(api, guard.clone());
    let mut out = Vec::with_capacity(frames.len());
    for f in &frames {
        out.extend(rewriter.feed(f));
    }
    out.extend(rewriter.finish());
    if guard.enforcing() {
        out
    } else {
        frames
    }
}

/// What a client assembles from the frames it received.
fn assemble(api: WireApi, frames: &[Bytes]) -> ModelResponse {
    let mut a = StreamAssembler::new(api);
    for f in frames {
        a.feed(f);
    }
    a.finish().response
}

fn simulated(
    state: &State,
    trial: &Trial,
    turn: &TurnContext,
    parsed: ParsedRequest,
    record: CallRecord,
    guard: Option<ReplyGuard>,
) -> Result<Response<Body>, HttpError> {
    let api = record.api;
    let mut reply = match state.backend.respond(trial, turn, &parsed.request) {
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
    if parsed.request.stream {
        let frames = wire::render_sse(api, &reply, &meta, parsed.include_usage);
        let sent = match &guard {
            Some(g) => {
                let frames = guard_frames(api, g, frames);
                let mut sent = assemble(api, &frames);
                sent.usage = reply.usage;
                record.record(trial, Some(sent), None);
                frames
            }
            None => {
                record.record(trial, Some(reply), None);
                frames
            }
        };
        return Ok(sse_response("text/event-stream", frames_body(sent)));
    }
    if let Some(g) = &guard {
        reply = g
            .trial_guard()
            .check_response(g.ctx(), Some(&parsed.request), &reply)
            .response;
    }
    let out = json_response(StatusCode::OK, &wire::render_json(api, &reply, &meta));
    record.record(trial, Some(reply), None);
    Ok(out)
}

fn upstream_error(record: CallRecord, trial: &Trial, msg: String) -> HttpError {
    record.record(trial, None, Some(msg.clone()));
    HttpError::new(StatusCode::BAD_GATEWAY, "upstream_error", msg)
}

/// A non-streaming upstream body after the guard; `Err` when it cannot be checked.
fn guard_json(api: WireApi, guard: &ReplyGuard, bytes: Bytes) -> Result<Bytes, String> {
    let mut v: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) if !guard.enforcing() => return Ok(bytes),
        Err(e) => {
            return Err(format!(
                "upstream: response is not JSON, so it could not be checked: {e}"
            ))
        }
    };
    let before = v.clone();
    match api {
        WireApi::ChatCompletions => guard.chat_json(&mut v),
        WireApi::Responses => guard.responses_json(&mut v),
    }
    if guard.enforcing() && v != before {
        Ok(Bytes::from(v.to_string()))
    } else {
        Ok(bytes)
    }
}

async fn forward(
    state: &State,
    trial: Arc<Trial>,
    up: &Upstream,
    body: Value,
    record: CallRecord,
    guard: Option<ReplyGuard>,
    client_auth: Option<String>,
) -> Result<Response<Body>, HttpError> {
    let api = record.api;
    let reply = match state
        .upstream
        .send(up, api, body, client_auth.as_deref())
        .await
    {
        Ok(r) => r,
        Err(msg) => return Err(upstream_error(record, &trial, msg)),
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
                return Err(upstream_error(record, &trial, msg));
            }
        };
        let bytes = match &guard {
            Some(g) => match guard_json(api, g, bytes) {
                Ok(b) => b,
                Err(msg) => return Err(upstream_error(record, &trial, msg)),
            },
            None => bytes,
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
        let mut rewriter = guard.map(|g| (g.enforcing(), StreamRewriter::new(api, g)));
        let mut broken = None;
        let mut client_gone = false;
        'read: while let Some(chunk) = chunks.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(e) => {
                    broken = Some(format!("upstream: stream broke: {e}"));
                    break;
                }
            };
            let out = match &mut rewriter {
                Some((true, r)) => r.feed(&chunk),
                Some((false, r)) => {
                    r.feed(&chunk);
                    vec![chunk]
                }
                None => vec![chunk],
            };
            for b in out {
                assembler.feed(&b);
                if tx.send(b).await.is_err() {
                    client_gone = true;
                    break 'read;
                }
            }
        }
        if let Some((enforcing, r)) = &mut rewriter {
            let tail = r.finish();
            if *enforcing && !client_gone {
                for b in tail {
                    assembler.feed(&b);
                    if tx.send(b).await.is_err() {
                        client_gone = true;
                        break;
                    }
                }
            }
        }
        if client_gone {
            broken = Some("client disconnected during the stream".to_owned());
        }
        let Assembled { response, error } = assembler.finish();
        let error = broken.or(error).map(|e| scrub(&e, &up));
        // Traced before `tx` drops, so the client sees the end only once it is recorded.
        record.record(&trial, Some(response), error);
        drop(tx);
    });
    Ok(sse_response(&content_type, channel_body(rx)))
}
