//! Forwarding to a real OpenAI-compatible upstream: same wire format as the client,
//! model name replaced, bearer key added. Every error string that leaves this module
//! has the key scrubbed, because errors end up in traces.

use crate::api::WireApi;
use crate::registry::Upstream;
use serde_json::Value;
use std::time::Duration;

/// How long to wait for a TCP/TLS connection to the upstream.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest silence tolerated between two reads (a stalled upstream is an infra failure).
const READ_TIMEOUT: Duration = Duration::from_secs(600);
/// How much of an upstream error body is kept in messages.
const ERROR_SNIPPET_CHARS: usize = 1000;

/// Errors building the upstream client.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The HTTP client could not be built (TLS setup).
    #[error("cannot build the upstream HTTP client: {0}")]
    Client(String),
}

/// A pooled HTTP client for all upstream calls of a run.
#[derive(Debug, Clone)]
pub struct UpstreamClient {
    http: reqwest::Client,
}

/// The full URL of a wire format's endpoint under a base URL ending in `/v1`.
pub fn endpoint(base_url: &str, api: WireApi) -> String {
    let base = base_url.trim_end_matches('/');
    match api {
        WireApi::ChatCompletions => format!("{base}/chat/completions"),
        WireApi::Responses => format!("{base}/responses"),
    }
}

/// Removes the upstream's API key from a text bound for a log, a trace or a client.
pub fn scrub(text: &str, upstream: &Upstream) -> String {
    match upstream.api_key.as_ref().map(|k| k.expose()) {
        Some(key) if !key.is_empty() => text.replace(key, "***"),
        _ => text.to_owned(),
    }
}

/// An error and its causes on one line (reqwest hides the useful part in sources).
fn chain(e: &dyn std::error::Error) -> String {
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
    /// legitimately run long; the runner owns the per-trial timeout).
    pub fn new() -> Result<Self, UpstreamError> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            .build()
            .map_err(|e| UpstreamError::Client(chain(&e)))?;
        Ok(UpstreamClient { http })
    }

    /// Sends a client request body upstream with the model replaced (kept as the
    /// client named it when `upstream.model` is empty). The upstream's key is sent as a
    /// bearer token; without one, `passthrough_auth` (a client's `Authorization` header
    /// value) is sent as is. Returns the response once its headers arrived with a
    /// success status; otherwise a readable, key-free error (`upstream: ...`).
    pub async fn send(
        &self,
        upstream: &Upstream,
        api: WireApi,
        mut body: Value,
        passthrough_auth: Option<&str>,
    ) -> Result<reqwest::Response, String> {
        if let Some(obj) = body.as_object_mut().filter(|_| !upstream.model.is_empty()) {
            obj.insert("model".into(), Value::String(upstream.model.clone()));
        }
        let url = endpoint(&upstream.base_url, api);
        let mut request = self.http.post(&url).json(&body);
        if let Some(key) = &upstream.api_key {
            request = request.bearer_auth(key.expose());
        } else if let Some(auth) = passthrough_auth {
            request = request.header(reqwest::header::AUTHORIZATION, auth);
        }
        let response = request.send().await.map_err(|e| {
            scrub(
                &format!("upstream: request to {url} failed: {}", chain(&e)),
                upstream,
            )
        })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let text = response.text().await.unwrap_or_default();
        let snippet: String = text.chars().take(ERROR_SNIPPET_CHARS).collect();
        Err(scrub(
            &format!("upstream: HTTP {status} from {url}: {}", snippet.trim()),
            upstream,
        ))
    }
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
    }
}
