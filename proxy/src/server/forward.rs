//! Upstream model calls: forwarded untouched when there is nothing to check or record,
//! otherwise with the guard applied to the reply (whole or streamed) and the call
//! traced. A streamed reply is relayed frame by frame as the upstream sends it, with
//! no task or channel in between. A stream that breaks, goes silent or ends before
//! its final event ends with an error event in the client's wire format and an
//! aborted body, so the client library raises instead of taking a cut reply as whole.

use super::call::CallRecord;
use super::guarded::ReplyGuard;
use super::handler::{full, Body, BodyError, HttpError};
use super::stream::StreamRewriter;
use super::State;
use crate::api::WireApi;
use crate::registry::{Trial, Upstream};
use crate::upstream::{scrub_with, UpstreamBody, UpstreamFailure, UpstreamReply};
use crate::wire::{self, Assembled, StreamAssembler};
use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper::header::{HeaderValue, CACHE_CONTROL};
use hyper::{Response, StatusCode};
use serde_json::Value;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;

/// An upstream call being answered: whose it is, where it goes, what checks and
/// records it.
pub(super) struct Call {
    pub trial: Arc<Trial>,
    pub upstream: Upstream,
    pub record: CallRecord,
    pub guard: Option<ReplyGuard>,
}

fn content_type(reply: &UpstreamReply) -> HeaderValue {
    reply
        .content_type
        .clone()
        .unwrap_or_else(|| HeaderValue::from_static("application/json"))
}

/// A 200 carrying the upstream's content type as it came.
fn with_content_type(content_type: HeaderValue, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    r.headers_mut()
        .insert(hyper::header::CONTENT_TYPE, content_type);
    r
}

fn bad_gateway(msg: String) -> HttpError {
    HttpError::new(StatusCode::BAD_GATEWAY, "upstream_error", msg)
}

/// The client's answer to a failed upstream call. A refusal (a 4xx other than 408 and
/// 429) keeps the upstream's status, so that clients which retry server errors do not
/// send the same request again, and is noted on the trial, so that the runner does not
/// run the trial again either; anything else is a 502.
fn upstream_failed(trial: &Trial, failure: &UpstreamFailure) -> HttpError {
    let message = failure.to_string();
    match failure.status.filter(|_| failure.is_refusal()) {
        Some(status) => {
            trial.note_upstream_refusal(&message);
            HttpError::new(status, "upstream_refused", message)
        }
        None => bad_gateway(message),
    }
}

/// Forwards the client's bytes and relays the upstream's reply as it comes: the path of
/// a proxy with no guard, no guardrail, no trace and no model override.
pub(super) async fn pass_through(
    state: &State,
    trial: &Trial,
    up: &Upstream,
    api: WireApi,
    body: Bytes,
    client_auth: Option<&HeaderValue>,
) -> Result<Response<Body>, HttpError> {
    let reply = state
        .upstream
        .send(up, api, body, client_auth)
        .await
        .map_err(|f| upstream_failed(trial, &f))?;
    let content_type = content_type(&reply);
    Ok(with_content_type(content_type, reply.body.boxed_unsync()))
}

/// Forwards a request body (the guardrail applied, see [`crate::upstream::request_body`]) and
/// answers with the guarded reply.
pub(super) async fn forward(
    state: &State,
    mut call: Call,
    sent: Bytes,
    client_auth: Option<HeaderValue>,
) -> Result<Response<Body>, HttpError> {
    let api = call.record.api;
    let reply = match state
        .upstream
        .send(&call.upstream, api, sent, client_auth.as_ref())
        .await
    {
        Ok(r) => r,
        Err(failure) => {
            call.record.upstream_retries = failure.retries;
            call.record
                .record(&call.trial, None, Some(failure.to_string()));
            return Err(upstream_failed(&call.trial, &failure));
        }
    };
    call.record.upstream_retries = reply.retries;
    let content_type = content_type(&reply);
    if reply.is_event_stream() {
        let relay = Relay::new(call, reply.body, client_auth.clone());
        let frames = futures_util::stream::unfold(relay, |mut relay| async move {
            relay.next().await.map(|b| (b.map(Frame::data), relay))
        });
        let body = StreamBody::new(frames).boxed_unsync();
        let mut r = with_content_type(content_type, body);
        r.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return Ok(r);
    }
    let bytes = match reply.bytes(&call.upstream, state.limits.max_body).await {
        Ok(b) => b,
        Err(msg) => {
            call.record.record(&call.trial, None, Some(msg.clone()));
            return Err(bad_gateway(msg));
        }
    };
    // The guard reads the whole reply on a blocking thread, like the request.
    let finish = move || -> Result<Bytes, HttpError> {
        let bytes = match &call.guard {
            Some(g) => match guard_json(api, g, bytes) {
                Ok(b) => b,
                Err(msg) => {
                    call.record.record(&call.trial, None, Some(msg.clone()));
                    return Err(bad_gateway(msg));
                }
            },
            None => bytes,
        };
        if call.record.wanted() {
            let Assembled { response, error } = wire::parse_response_json(api, &bytes);
            let error = error.map(|e| scrub_with(&e, &call.upstream, client_auth.as_ref()));
            call.record.record(&call.trial, Some(response), error);
        }
        Ok(bytes)
    };
    let bytes = tokio::task::spawn_blocking(finish)
        .await
        .map_err(|e| bad_gateway(format!("the guard's work on this reply failed: {e}")))??;
    Ok(with_content_type(content_type, full(bytes)))
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
    let changed = match api {
        WireApi::ChatCompletions => guard.chat_json(&mut v),
        WireApi::Responses => guard.responses_json(&mut v),
    };
    if guard.enforcing() && changed {
        Ok(Bytes::from(v.to_string()))
    } else {
        Ok(bytes)
    }
}

/// A streamed upstream reply on its way to the client: each upstream chunk goes
/// through the guard (if any) and into the assembler and is relayed at once. The call
/// is traced when the upstream ends, before the client sees the end; a client that
/// goes away before the reply is finished leaves it traced as disconnected. A stream
/// that broke, went silent or ended before its final event is answered with an error
/// event and an aborted body.
struct Relay {
    call: Call,
    body: Pin<Box<UpstreamBody>>,
    /// The guard's rewriter and whether its output replaces the upstream's.
    rewriter: Option<(bool, StreamRewriter)>,
    /// What the client received, assembled: whether it ended properly, and the trace.
    assembler: Option<StreamAssembler>,
    pending: VecDeque<Bytes>,
    /// The client's forwarded key, scrubbed from errors like the upstream's.
    auth: Option<HeaderValue>,
    /// Why the stream failed, once its error event is queued: the body then aborts.
    failed: Option<String>,
    ended: bool,
}

/// How long a failed stream's error event has to reach the client before its body
/// fails.
const ERROR_FLUSH: std::time::Duration = std::time::Duration::from_millis(20);

/// The error that aborts a client's body after its error event.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct StreamFailed(String);

impl Relay {
    fn new(call: Call, body: UpstreamBody, auth: Option<HeaderValue>) -> Self {
        let api = call.record.api;
        let rewriter = call
            .guard
            .clone()
            .map(|g| (g.enforcing(), StreamRewriter::new(api, g)));
        Relay {
            call,
            body: Box::pin(body),
            rewriter,
            assembler: Some(StreamAssembler::new(api)),
            pending: VecDeque::new(),
            auth,
            failed: None,
            ended: false,
        }
    }

    /// The next bytes for the client, an error once a failed stream's error event was
    /// handed over, or `None` at the end of the reply.
    async fn next(&mut self) -> Option<Result<Bytes, BodyError>> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                return Some(Ok(b));
            }
            if self.ended {
                let why = self.failed.take()?;
                // Waiting a moment lets the connection flush the error event before
                // the failed body closes it.
                tokio::time::sleep(ERROR_FLUSH).await;
                return Some(Err(Box::new(StreamFailed(why)) as BodyError));
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(chunk) = frame.into_data() {
                        self.relay(chunk);
                    }
                }
                Some(Err(e)) => self.end(Some(format!("upstream: stream broke: {e}"))),
                None => self.end(None),
            }
        }
    }

    fn relay(&mut self, chunk: Bytes) {
        match &mut self.rewriter {
            Some((true, r)) => {
                let out = r.feed(&chunk);
                self.queue(out);
            }
            Some((false, r)) => {
                r.feed(&chunk);
                self.push(chunk);
            }
            None => self.push(chunk),
        }
    }

    fn queue(&mut self, frames: Vec<Bytes>) {
        for b in frames {
            self.push(b);
        }
    }

    /// One frame for the client (and for the assembler).
    fn push(&mut self, frame: Bytes) {
        if let Some(a) = &mut self.assembler {
            a.feed(&frame);
        }
        self.pending.push_back(frame);
    }

    /// The upstream ended (or broke): flush what the guard held back, trace, and when
    /// the reply is not whole, queue an error event and fail the body after it.
    fn end(&mut self, broken: Option<String>) {
        self.ended = true;
        if let Some((enforcing, r)) = &mut self.rewriter {
            let tail = r.finish();
            if *enforcing {
                self.queue(tail);
            }
        }
        let Some(assembler) = self.assembler.take() else {
            return;
        };
        let (Assembled { response, error }, complete) = assembler.finish_ended();
        let cut = broken.or_else(|| {
            (!complete).then(|| "upstream: stream ended before its final event".to_owned())
        });
        let error = cut
            .clone()
            .or(error)
            .map(|e| scrub_with(&e, &self.call.upstream, self.auth.as_ref()));
        if let Some(why) = cut {
            let why = scrub_with(&why, &self.call.upstream, self.auth.as_ref());
            self.pending
                .push_back(error_event(self.call.record.api, &why));
            self.failed = Some(why);
        }
        if self.call.record.wanted() {
            self.call
                .record
                .record(&self.call.trial, Some(response), error);
        }
    }
}

/// The event that tells a client of `api` its stream failed: an `error` chunk for
/// Chat Completions, an `error` event for the Responses API, as OpenAI sends them.
fn error_event(api: WireApi, message: &str) -> Bytes {
    match api {
        WireApi::ChatCompletions => crate::wire::sse::data_frame(&serde_json::json!({
            "error": {"message": message, "type": "upstream_error", "code": "stream_failed"}
        })),
        WireApi::Responses => crate::wire::sse::named_frame(
            "error",
            &serde_json::json!({"type": "error", "code": "stream_failed", "message": message,
                "param": null}),
        ),
    }
}

impl Drop for Relay {
    /// The client left before the upstream ended. A client may hang up as soon as it
    /// holds the reply's final event (Codex does, after `response.completed`), before
    /// the upstream closes its stream: when every frame was handed over and they make
    /// a finished reply, the call is complete; otherwise it was cut short.
    fn drop(&mut self) {
        if self.ended || !self.call.record.wanted() {
            return;
        }
        let Some(assembler) = self.assembler.take() else {
            return;
        };
        let handed_over = self.pending.is_empty();
        let Assembled { response, error } = assembler.finish();
        let error = (error.is_some() || !handed_over)
            .then(|| "client disconnected during the stream".to_owned());
        self.call
            .record
            .record(&self.call.trial, Some(response), error);
    }
}
