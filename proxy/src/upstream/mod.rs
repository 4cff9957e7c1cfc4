//! Forwarding to a real OpenAI-compatible upstream: same wire format as the client,
//! bearer key added. Every error string that leaves this module has the key scrubbed,
//! because errors end up in traces.
//!
//! Calls go over kept-alive HTTP/1.1 connections ([`pool`]; rustls for `https`), with
//! request bodies sent as the bytes the caller hands over, so a proxy that has nothing
//! to change in a request forwards it without parsing it. Transient failures are
//! retried before a reply's head has reached the client ([`retry`]).

mod pace;
mod pool;
mod retry;
mod silence;

pub use pace::Pacer;
pub use pool::PooledBody;
pub use retry::{retry_after, transient_status, RetryPolicy, MAX_RETRY_WAIT};
pub use silence::{SilenceLimit, Silent};

use crate::api::WireApi;
use crate::registry::Upstream;
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::header::{HeaderValue, AUTHORIZATION, CONTENT_TYPE};
use hyper::StatusCode;
use hyper_util::client::legacy::connect::HttpConnector;
use pool::Pool;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};
use std::time::Duration;

/// How long to wait for a TCP/TLS connection to the upstream.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long an upstream may keep a call waiting (a stalled upstream is an
/// infrastructure failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamTimeouts {
    /// Longest wait for the response headers after the request was sent. A call that
    /// times out here is not sent again: the upstream may still be working on it.
    pub first_byte: Duration,
    /// Longest silence between two reads of the response body (a stream that stops
    /// sending ends with an error the client sees).
    pub idle: Duration,
}

impl UpstreamTimeouts {
    /// The limits of `cosec run`, whose trials have their own time limits.
    pub const RUN: UpstreamTimeouts = UpstreamTimeouts {
        first_byte: Duration::from_secs(600),
        idle: Duration::from_secs(600),
    };
    /// The limits of `cosec proxy serve` unless configured otherwise.
    pub const SERVE: UpstreamTimeouts = UpstreamTimeouts {
        first_byte: Duration::from_secs(120),
        idle: Duration::from_secs(120),
    };
}

impl Default for UpstreamTimeouts {
    fn default() -> Self {
        Self::RUN
    }
}
/// Idle pooled connections are closed after this long.
const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(90);
/// How much of an upstream error body is kept in messages.
const ERROR_SNIPPET_CHARS: usize = 1000;
/// Largest upstream error body read.
const MAX_ERROR_BODY: usize = 1024 * 1024;

/// Errors building the upstream client.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The HTTP client could not be built (TLS setup).
    #[error("cannot build the upstream HTTP client: {0}")]
    Client(#[source] rustls::Error),
}

/// The body of an upstream reply: fails after [`UpstreamTimeouts::idle`] without a
/// frame.
pub type UpstreamBody = SilenceLimit<PooledBody>;

/// A pooled HTTP client for all upstream calls of a run.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    pool: Pool,
    retry: RetryPolicy,
    timeouts: UpstreamTimeouts,
    pace: Option<std::sync::Arc<Pacer>>,
}

/// A successful upstream reply: its content type and its (still unread) body.
pub struct UpstreamReply {
    /// The `content-type` the upstream sent, if any.
    pub content_type: Option<HeaderValue>,
    /// The body, read frame by frame.
    pub body: UpstreamBody,
    /// Transient failures retried before this reply came.
    pub retries: u32,
}

/// An upstream call that got no successful reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamFailure {
    /// Readable and key-free, starting with `upstream:`; names the upstream's own
    /// message when it sent one.
    pub message: String,
    /// The upstream's status, when it answered at all.
    pub status: Option<StatusCode>,
    /// Transient failures retried before the last one.
    pub retries: u32,
}

impl UpstreamFailure {
    /// Whether the upstream refused the request itself (a 4xx other than 408 and 429):
    /// sending it again, now or in a new trial, cannot succeed.
    pub fn is_refusal(&self) -> bool {
        self.status
            .is_some_and(|s| s.is_client_error() && !transient_status(s))
    }
}

impl std::fmt::Display for UpstreamFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        if self.retries > 0 {
            write!(f, " (after {} retries)", self.retries)?;
        }
        Ok(())
    }
}

/// One attempt's failure, and what it says about the next attempt.
struct AttemptFailure {
    failure: UpstreamFailure,
    transient: bool,
    retry_after: Option<Duration>,
}

impl UpstreamReply {
    /// Whether the reply is a server-sent event stream.
    pub fn is_event_stream(&self) -> bool {
        self.content_type
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"))
    }

    /// Reads the whole body, at most `max` bytes; the error is key-free and starts
    /// with `upstream:`.
    pub async fn bytes(self, upstream: &Upstream, max: usize) -> Result<Bytes, String> {
        http_body_util::Limited::new(self.body, max)
            .collect()
            .await
            .map(|c| c.to_bytes())
            .map_err(|e| {
                scrub(
                    &format!("upstream: reading the response failed: {}", chain(&*e)),
                    upstream,
                )
            })
    }
}

/// The full URL of a wire format's endpoint under a base URL ending in `/v1`.
pub fn endpoint(base_url: &str, api: WireApi) -> String {
    join(base_url, endpoint_path(api))
}

/// `path` under `base`, with one slash between them.
fn join(base: &str, path: &str) -> String {
    format!("{}{path}", base.trim_end_matches('/'))
}

/// What a wire format's endpoint adds to the base URL.
fn endpoint_path(api: WireApi) -> &'static str {
    match api {
        WireApi::ChatCompletions => "/chat/completions",
        WireApi::Responses => "/responses",
    }
}

/// The request body for `upstream`: the client's JSON with the model replaced (kept as
/// the client named it when `upstream.model` is empty) and the run's sampling settings.
/// `size_hint` (the client's body length) sizes the buffer, so a large request is
/// written once instead of through a chain of growing copies; `body` is not changed.
pub fn request_body(
    upstream: &Upstream,
    body: &Value,
    size_hint: usize,
) -> Result<Bytes, serde_json::Error> {
    let mut overrides = Map::new();
    if !upstream.model.is_empty() {
        overrides.insert("model".into(), Value::String(upstream.model.clone()));
    }
    if let Some(t) = upstream.sampling.temperature {
        overrides.insert("temperature".into(), Value::from(t));
    }
    if let Some(seed) = upstream.sampling.seed {
        overrides.insert("seed".into(), Value::from(seed));
    }
    let mut out = Vec::with_capacity(size_hint.saturating_add(256));
    match body.as_object() {
        Some(fields) => serde_json::to_writer(&mut out, &Overlaid { fields, overrides })?,
        None => serde_json::to_writer(&mut out, body)?,
    }
    Ok(Bytes::from(out))
}

/// A JSON object with some of its fields replaced, serialized without copying the rest.
struct Overlaid<'a> {
    fields: &'a Map<String, Value>,
    overrides: Map<String, Value>,
}

impl Serialize for Overlaid<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        let kept = self
            .fields
            .iter()
            .filter(|(key, _)| !self.overrides.contains_key(*key));
        for (key, value) in kept.chain(self.overrides.iter()) {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Removes the upstream's API key from a text bound for a log, a trace or a client,
/// whole or in part, with any `sk-` token or `Bearer` credential ([`crate::keys`]).
pub fn scrub(text: &str, upstream: &Upstream) -> String {
    scrub_with(text, upstream, None)
}

/// Like [`scrub`], also removing the client's key forwarded in `forwarded` (an
/// `Authorization` header value).
pub fn scrub_with(text: &str, upstream: &Upstream, forwarded: Option<&HeaderValue>) -> String {
    let mut keys = Vec::with_capacity(2);
    if let Some(key) = &upstream.api_key {
        keys.push(key.expose());
    }
    if let Some(value) = forwarded.and_then(|v| v.to_str().ok()) {
        keys.push(crate::keys::credential(value));
    }
    crate::keys::scrub(text, &keys)
}

/// An error and its causes on one line (the useful part hides in the sources).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl UpstreamClient {
    /// A client with connect and read timeouts and no overall deadline (streams may
    /// legitimately run long; the runner owns the per-trial timeout), retrying
    /// transient failures by the default [`RetryPolicy`].
    pub fn new() -> Result<Self, UpstreamError> {
        Self::with_retry(RetryPolicy::default())
    }

    /// Like [`UpstreamClient::new`], retrying transient failures by `retry`.
    pub fn with_retry(retry: RetryPolicy) -> Result<Self, UpstreamError> {
        Self::with_options(retry, UpstreamTimeouts::default())
    }

    /// Like [`UpstreamClient::with_retry`], with the given timeouts.
    pub fn with_options(
        retry: RetryPolicy,
        timeouts: UpstreamTimeouts,
    ) -> Result<Self, UpstreamError> {
        let mut http = HttpConnector::new();
        // The TLS layer on top decides between http and https.
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(CONNECT_TIMEOUT));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(UpstreamError::Client)?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(UpstreamClient {
            pool: Pool::new(connector, POOL_IDLE_TIMEOUT),
            retry,
            timeouts,
            pace: None,
        })
    }

    /// This client with every attempt (retries included) paced by `pace`, which may be
    /// shared with other clients.
    pub fn paced(mut self, pace: Option<std::sync::Arc<Pacer>>) -> Self {
        self.pace = pace;
        self
    }

    /// Sends a request body (see [`request_body`]; forwarded byte for byte) upstream.
    /// The upstream's key is sent as a bearer token; without one, `passthrough_auth` (a
    /// client's `Authorization` header value) is sent as is. Returns the reply once its
    /// headers arrived with a success status, after retrying transient failures;
    /// otherwise the last failure, readable and key-free.
    pub async fn send(
        &self,
        upstream: &Upstream,
        api: WireApi,
        body: Bytes,
        passthrough_auth: Option<&HeaderValue>,
    ) -> Result<UpstreamReply, UpstreamFailure> {
        let mut retries = 0;
        loop {
            match self
                .attempt(upstream, api, body.clone(), passthrough_auth)
                .await
            {
                Ok(mut reply) => {
                    reply.retries = retries;
                    return Ok(reply);
                }
                Err(AttemptFailure {
                    mut failure,
                    transient,
                    retry_after,
                }) => {
                    failure.retries = retries;
                    if !transient || retries >= self.retry.retries {
                        return Err(failure);
                    }
                    retries += 1;
                    let wait = self.retry.wait(retries, retry_after);
                    tracing::warn!(
                        "{}; retry {retries} of {} in {} ms",
                        failure.message,
                        self.retry.retries,
                        wait.as_millis()
                    );
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }

    /// One attempt of [`UpstreamClient::send`].
    async fn attempt(
        &self,
        upstream: &Upstream,
        api: WireApi,
        body: Bytes,
        passthrough_auth: Option<&HeaderValue>,
    ) -> Result<UpstreamReply, AttemptFailure> {
        if let Some(pace) = &self.pace {
            pace.wait().await;
        }
        // Without a reply the request may not have arrived at all: worth another try,
        // unless the request could not even be built.
        let fail = |what: String, transient: bool| AttemptFailure {
            failure: UpstreamFailure {
                message: scrub_with(&format!("upstream: {what}"), upstream, passthrough_auth),
                status: None,
                retries: 0,
            },
            transient,
            retry_after: None,
        };
        let target = self
            .pool
            .target(&upstream.base_url, endpoint_path(api))
            .map_err(|(url, e)| fail(format!("cannot build a request to {url}: {e}"), false))?;
        let url = target.url();
        let auth = match &upstream.api_key {
            Some(key) => Some(
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    fail("the API key is not a valid header value".to_owned(), false)
                })?,
            ),
            None => passthrough_auth.cloned(),
        };
        let mut request = target.request(body);
        let headers = request.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(mut auth) = auth {
            auth.set_sensitive(true);
            headers.insert(AUTHORIZATION, auth);
        }
        let first_byte = self.timeouts.first_byte;
        let response =
            match tokio::time::timeout(first_byte, self.pool.send(&target, request)).await {
                Ok(Ok(response)) => response,
                Ok(Err(e)) => {
                    return Err(fail(
                        format!("request to {url} failed: {}", chain(&*e)),
                        true,
                    ))
                }
                // The request went out and may still be running (and billed): not sent
                // again.
                Err(_) => {
                    return Err(fail(
                        format!(
                            "no response from {url} within {} s (first-byte timeout)",
                            first_byte.as_secs()
                        ),
                        false,
                    ))
                }
            };
        let status = response.status();
        let content_type = response.headers().get(CONTENT_TYPE).cloned();
        let retry_after = retry_after(response.headers());
        let body = SilenceLimit::new(self.timeouts.idle, response.into_body());
        if status.is_success() {
            return Ok(UpstreamReply {
                content_type,
                body,
                retries: 0,
            });
        }
        Err(AttemptFailure {
            failure: UpstreamFailure {
                message: error_status(status, url, body, upstream, passthrough_auth).await,
                status: Some(status),
                retries: 0,
            },
            transient: transient_status(status),
            retry_after,
        })
    }
}

/// The message of a non-success reply, with the start of its body.
async fn error_status(
    status: StatusCode,
    url: &str,
    body: UpstreamBody,
    upstream: &Upstream,
    forwarded: Option<&HeaderValue>,
) -> String {
    // Only the start of an error body is ever shown; a larger one is not read whole.
    let text = match http_body_util::Limited::new(body, MAX_ERROR_BODY)
        .collect()
        .await
    {
        Ok(c) => String::from_utf8_lossy(&c.to_bytes()).into_owned(),
        Err(_) => String::new(),
    };
    let message = upstream_message(&text).unwrap_or_else(|| text.trim().to_owned());
    // Scrubbed before it is cut, so that a cut never leaves half a key behind.
    let message = scrub_with(&message, upstream, forwarded);
    let snippet: String = message.chars().take(ERROR_SNIPPET_CHARS).collect();
    scrub_with(
        &format!("upstream: HTTP {status} from {url}: {}", snippet.trim()),
        upstream,
        forwarded,
    )
}

/// The message of an OpenAI-style error body (`{"error": {"message": ...}}`,
/// `{"error": "..."}` or `{"message": ...}`), as servers like llama.cpp send it.
fn upstream_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let error = value.get("error").unwrap_or(&value);
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Secret;

    #[test]
    fn endpoints_and_scrubbing() {
        let up = Upstream {
            base_url: "http://h/v1/".into(),
            api_key: Some(Secret::new("sk-top")),
            model: "m".into(),
            sampling: Default::default(),
        };
        assert_eq!(
            endpoint(&up.base_url, WireApi::Responses),
            "http://h/v1/responses"
        );
        assert_eq!(
            endpoint("http://h/v1", WireApi::ChatCompletions),
            "http://h/v1/chat/completions"
        );
        assert_eq!(scrub("bad key sk-top!", &up), "bad key ***!");
        let client = HeaderValue::from_static("Bearer Kx7Wq2Zr9Vb4Nm6Jt1Hs");
        assert_eq!(
            scrub_with("echo: Kx7Wq2Zr9Vb4...", &up, Some(&client)),
            "echo: ***"
        );
    }

    #[test]
    fn an_error_body_is_reduced_to_the_upstream_message() {
        let llama = r#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#;
        assert_eq!(
            upstream_message(llama).as_deref(),
            Some("the request exceeds the available context size")
        );
        assert_eq!(
            upstream_message(r#"{"error":"model not found"}"#).as_deref(),
            Some("model not found")
        );
        assert_eq!(upstream_message("<html>bad gateway</html>"), None);
    }

    #[test]
    fn the_model_is_replaced_only_when_configured() {
        let mut up = Upstream {
            base_url: "http://h/v1".into(),
            api_key: None,
            model: "served".into(),
            sampling: Default::default(),
        };
        let body = serde_json::json!({"model": "asked", "messages": [{"role": "user", "content": "hi"}], "x": {"y": [1, null]}});
        let sent: Value = serde_json::from_slice(&request_body(&up, &body, 0).unwrap()).unwrap();
        assert_eq!(sent["model"], "served");
        // Everything else goes out as the client sent it, and the client's body is kept.
        assert_eq!(sent["messages"], body["messages"]);
        assert_eq!(sent["x"], body["x"]);
        assert_eq!(sent.as_object().unwrap().len(), 3);
        assert_eq!(body["model"], "asked");
        up.model.clear();
        let sent: Value = serde_json::from_slice(&request_body(&up, &body, 0).unwrap()).unwrap();
        assert_eq!(sent["model"], "asked");
        assert!(sent.get("temperature").is_none() && sent.get("seed").is_none());
        up.sampling = crate::registry::Sampling {
            temperature: Some(0.0),
            seed: Some(7),
        };
        let with_temperature = serde_json::json!({"model": "a", "temperature": 1.2});
        let sent: Value =
            serde_json::from_slice(&request_body(&up, &with_temperature, 0).unwrap()).unwrap();
        assert_eq!(sent["temperature"], 0.0);
        assert_eq!(sent["seed"], 7);
    }
}
