//! Routing: `/t/<trial-id>/v1/...` for the trials of a run, or `/v1/...` with the
//! trial named by headers for a standalone guard. The model-call paths are in
//! [`super::call`].

use super::limits::Busy;
use super::{call, State, TrialSource};
use crate::api::WireApi;
use crate::registry::{ModelRoute, Trial};
use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CACHE_CONTROL, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Why a response body stopped early (an upstream body that broke or went silent).
pub(super) type BodyError = Box<dyn std::error::Error + Send + Sync>;

pub(super) type Body = UnsyncBoxBody<Bytes, BodyError>;

/// An error answered as OpenAI-style JSON.
pub(super) struct HttpError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl HttpError {
    pub(super) fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
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

pub(super) fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

pub(super) fn response(status: StatusCode, content_type: &str, body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    *r.status_mut() = status;
    if let Ok(v) = content_type.parse() {
        r.headers_mut().insert(CONTENT_TYPE, v);
    }
    r
}

pub(super) fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    response(status, "application/json", full(value.to_string()))
}

pub(super) fn sse_response(content_type: &str, body: Body) -> Response<Body> {
    let mut r = response(StatusCode::OK, content_type, body);
    r.headers_mut().insert(
        CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    r
}

pub(super) fn frames_body(frames: Vec<Bytes>) -> Body {
    let chunks = futures_util::stream::iter(
        frames
            .into_iter()
            .map(|b| Ok::<_, BodyError>(Frame::data(b))),
    );
    StreamBody::new(chunks).boxed_unsync()
}

/// Entry point of every request: never fails, errors become JSON responses. The
/// connection counts as busy until the response body was sent.
pub(crate) async fn handle(
    state: Arc<State>,
    req: Request<Incoming>,
    busy: Busy,
) -> Result<Response<Body>, Infallible> {
    let response = route(&state, req)
        .await
        .unwrap_or_else(HttpError::into_response);
    Ok(response.map(|body| Held { body, _busy: busy }.boxed_unsync()))
}

/// A response body holding its connection busy until it is dropped.
struct Held {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The answer to a connection beyond the cap while every open one is busy.
pub(crate) fn overloaded(cap: usize) -> Response<Body> {
    let mut r = HttpError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "overloaded",
        format!(
            "the proxy has {cap} connections open, all busy (its connection cap): try again shortly"
        ),
    )
    .into_response();
    let headers = r.headers_mut();
    headers.insert(RETRY_AFTER, hyper::header::HeaderValue::from_static("1"));
    headers.insert(CONNECTION, hyper::header::HeaderValue::from_static("close"));
    r
}

enum Endpoint {
    Models,
    Call(WireApi),
}

async fn route(state: &Arc<State>, req: Request<Incoming>) -> Result<Response<Body>, HttpError> {
    if let Some(source) = &state.source {
        let source = Arc::clone(source);
        return route_standalone(state, source.as_ref(), req).await;
    }
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
            let body = read_body(state, req).await?;
            call::model_call(state, trial, api, body, None).await
        }
    }
}

/// Reads a request body within the listener's size and time limits (`413`, `408`).
async fn read_body(state: &State, req: Request<Incoming>) -> Result<Bytes, HttpError> {
    let limits = state.limits;
    let too_large = || {
        HttpError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            format!(
                "the request body is larger than the proxy's limit of {} bytes (--max-body)",
                limits.max_body
            ),
        )
    };
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > u64::try_from(limits.max_body).unwrap_or(u64::MAX)) {
        return Err(too_large());
    }
    let reading = Limited::new(req.into_body(), limits.max_body).collect();
    match tokio::time::timeout(limits.body_timeout, reading).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(e)) => Err(HttpError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            format!("cannot read the request body: {e}"),
        )),
        Err(_) => Err(HttpError::new(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request_error",
            format!(
                "the request body did not arrive within {} s",
                limits.body_timeout.as_secs()
            ),
        )),
    }
}

/// Standalone routes: `/v1/chat/completions`, `/v1/responses`, `/v1/models`; the trial
/// comes from the request's headers (refused with 400 when they name none).
async fn route_standalone(
    state: &Arc<State>,
    source: &dyn TrialSource,
    req: Request<Incoming>,
) -> Result<Response<Body>, HttpError> {
    let path = req.uri().path().to_owned();
    let rest = path.strip_prefix("/v1").unwrap_or(&path);
    let api = match (req.method(), rest) {
        (&Method::GET, "/models") => {
            return Ok(json_response(
                StatusCode::OK,
                &json!({"object": "list", "data": source.models().iter().map(|m|
                    json!({"id": m, "object": "model", "created": 0, "owned_by": "cosec"})
                ).collect::<Vec<_>>()}),
            ))
        }
        (&Method::POST, "/chat/completions") => WireApi::ChatCompletions,
        (&Method::POST, "/responses") => WireApi::Responses,
        _ => {
            return Err(HttpError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                format!("no route for {} {path}", req.method()),
            ))
        }
    };
    let trial = source
        .trial_for(req.headers())
        .map_err(|e| HttpError::new(StatusCode::BAD_REQUEST, "invalid_request_error", e))?;
    let auth = req.headers().get(hyper::header::AUTHORIZATION).cloned();
    let body = read_body(state, req).await?;
    call::model_call(state, trial, api, body, auth).await
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
