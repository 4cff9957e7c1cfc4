//! The model-call paths, each recording exactly one `ModelCall` trace event when the
//! trial's trace is kept: the request as the model saw it (guardrail applied) and the
//! response as the client received it (guard applied). Simulated models answer here;
//! upstream calls are in [`super::forward`].

use super::forward;
use super::guarded::ReplyGuard;
use super::guardrail;
use super::handler::{frames_body, json_response, sse_response, Body, HttpError};
use super::stream::StreamRewriter;
use super::State;
use crate::api::{ModelRequest, ModelResponse, WireApi};
use crate::registry::{ModelRoute, Trial, TurnContext};
use crate::trace::TraceEvent;
use crate::upstream;
use crate::wire::{self, ParsedRequest, ResponseMeta, StreamAssembler};
use bytes::Bytes;
use hyper::header::HeaderValue;
use hyper::{Response, StatusCode};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// What one model call leaves in the trace; `request` is `None` when the trial's trace
/// is not kept, and then nothing is recorded (and nothing needs assembling).
pub(super) struct CallRecord {
    pub(super) turn: u8,
    pub(super) api: WireApi,
    pub(super) request: Option<ModelRequest>,
    pub(super) started: Instant,
    /// Transient upstream failures retried during the call.
    pub(super) upstream_retries: u32,
}

impl CallRecord {
    /// Whether the call will be traced (so its response is worth assembling).
    pub(super) fn wanted(&self) -> bool {
        self.request.is_some()
    }

    /// Appends the `ModelCall` event (once; later calls do nothing).
    pub(super) fn record(
        &mut self,
        trial: &Trial,
        response: Option<ModelResponse>,
        error: Option<String>,
    ) {
        let Some(request) = self.request.take() else {
            return;
        };
        let event = TraceEvent::ModelCall {
            turn: self.turn,
            api: self.api,
            stream: request.stream,
            usage: response.as_ref().map(|r| r.usage).unwrap_or_default(),
            request,
            response,
            latency_us: u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX),
            error,
            upstream_retries: self.upstream_retries,
        };
        if let Err(e) = trial.trace.record(event) {
            tracing::error!("trial {}: model call not traced: {e}", trial.id);
        }
    }
}

/// One model call of `trial`: guardrail, taint, answer, guard, trace. `client_auth` is
/// the client's `Authorization` header, forwarded only by a standalone guard whose
/// upstream has no key of its own. Reading, minimising and re-serializing the request
/// (and answering a simulated model) run on a blocking thread, so one large request
/// does not hold up the other calls of the listener thread.
pub(super) async fn model_call(
    state: &Arc<State>,
    trial: Arc<Trial>,
    api: WireApi,
    body: Bytes,
    client_auth: Option<HeaderValue>,
) -> Result<Response<Body>, HttpError> {
    let started = Instant::now();
    let recording = trial.trace.is_recording();
    if let ModelRoute::Upstream(up) = &trial.model {
        // Nothing to read, change or record: forward the bytes both ways untouched.
        if state.guard.is_none() && trial.guardrail.is_none() && !recording && up.model.is_empty() {
            let auth = client_auth.filter(|_| up.api_key.is_none());
            return forward::pass_through(state, &trial, up, api, body, auth.as_ref()).await;
        }
    }
    let work = {
        let state = Arc::clone(state);
        let trial = Arc::clone(&trial);
        move || prepare(&state, trial, api, body, started, client_auth)
    };
    let prepared = tokio::task::spawn_blocking(work).await.map_err(|e| {
        HttpError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            format!("the guard's work on this request failed: {e}"),
        )
    })??;
    match prepared {
        Prepared::Answered(response) => Ok(response),
        Prepared::Forward { call, sent, auth } => forward::forward(state, *call, sent, auth).await,
    }
}

/// A request read and checked: answered already (a simulated model), or ready to go
/// upstream.
enum Prepared {
    Answered(Response<Body>),
    Forward {
        call: Box<forward::Call>,
        sent: Bytes,
        auth: Option<HeaderValue>,
    },
}

/// Bodies up to this size are kept to be forwarded as the client's own bytes when
/// nothing in them changed; larger ones are dropped once parsed and serialized again,
/// so that a large request is not held twice.
const KEEP_RAW_BYTES: usize = 1024 * 1024;

/// The CPU-heavy part of a model call: parse, guardrail, input layer, taint, and the
/// simulated model's answer.
fn prepare(
    state: &State,
    trial: Arc<Trial>,
    api: WireApi,
    body: Bytes,
    started: Instant,
    client_auth: Option<HeaderValue>,
) -> Result<Prepared, HttpError> {
    let recording = trial.trace.is_recording();
    let bad = |e: wire::WireError| {
        HttpError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            e.to_string(),
        )
    };
    let mut value = wire::parse_json(&body).map_err(bad)?;
    let body_len = body.len();
    let raw = (body_len <= KEEP_RAW_BYTES).then_some(body);
    let mut changed = match trial.guardrail.as_deref() {
        Some(paragraph) => match api {
            WireApi::ChatCompletions => guardrail::apply_chat(&mut value, paragraph),
            WireApi::Responses => guardrail::apply_responses(&mut value, paragraph),
        },
        None => false,
    };
    let ctx = trial.turn();
    let trial_guard = state.guard.as_ref().map(|g| g.for_trial(&trial));
    if let Some(tg) = &trial_guard {
        // Entities of the turn's state are built once, before anything is decided.
        tg.prepare_state(ctx.time);
        // The input layer: what the policy keeps out of this turn never reaches the
        // model (the client's own history is untouched).
        let minimised = tg.minimise_request(&ctx, api, &mut value);
        if let Some(why) = minimised.refused {
            return Err(HttpError::new(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                why,
            ));
        }
        changed |= minimised.changed;
    }
    // What goes upstream is serialized before the request is parsed, as parsing moves
    // the message texts out of `value`: a large request is then held at most twice.
    let upstream = match &trial.model {
        ModelRoute::Upstream(up) => {
            let sent = match raw {
                // An unchanged request goes out as the client's own bytes.
                Some(raw) if !changed && up.model.is_empty() && up.sampling.is_empty() => raw,
                _ => upstream::request_body(up, &value, body_len).map_err(|e| {
                    HttpError::new(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "server_error",
                        format!("cannot serialize the request for the upstream: {e}"),
                    )
                })?,
            };
            Some((up.clone(), sent))
        }
        ModelRoute::Sim(_) => None,
    };
    let parsed = wire::parse_request(api, value).map_err(bad)?;
    let guard = trial_guard.map(|tg| {
        tg.observe_request(&parsed.request);
        ReplyGuard::new(tg, ctx.clone(), &parsed.request)
    });
    let record = |request: Option<ModelRequest>| CallRecord {
        turn: ctx.turn,
        api,
        request,
        started,
        upstream_retries: 0,
    };
    match upstream {
        None => {
            // The simulated model still reads the request, so the trace gets a copy.
            let record = record(recording.then(|| parsed.request.clone()));
            simulated(state, &trial, &ctx, parsed, record, guard).map(Prepared::Answered)
        }
        Some((up, sent)) => {
            let record = record(recording.then_some(parsed.request));
            let auth = client_auth.filter(|_| up.api_key.is_none());
            let call = forward::Call {
                trial,
                upstream: up,
                record,
                guard,
            };
            Ok(Prepared::Forward {
                call: Box::new(call),
                sent,
                auth,
            })
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
    mut record: CallRecord,
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
                if record.wanted() {
                    let mut sent = assemble(api, &frames);
                    sent.usage = reply.usage;
                    record.record(trial, Some(sent), None);
                }
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
