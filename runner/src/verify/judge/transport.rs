//! One chat-completions call to the judge, retried while the endpoint is unreachable,
//! times out or answers with a transient HTTP status, by the proxy's own retry policy
//! (exponential backoff, or the wait a `Retry-After` asks for, at most a minute). These
//! retries are separate from the format attempts: a flaky network never uses up the
//! attempts a model gets to produce a valid answer.

use super::JudgeConfig;
use cosec_proxy::upstream::{retry_after, transient_status, RetryPolicy};
use serde_json::{json, Value};
use std::time::Duration;

/// Why a call gave no assistant text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The endpoint could not be used even after every transport retry, or refused
    /// the request for good (a 4xx other than 408 and 429): asking again is pointless.
    Transport(String),
    /// The endpoint answered, but without assistant text: counts as a format attempt.
    Answer(String),
}

/// A transport failure, whether waiting may cure it, and how long the endpoint asked
/// to wait.
struct Failure {
    message: String,
    transient: bool,
    retry_after: Option<Duration>,
}

/// Sends one request; `Ok(Err(..))` is an answer without assistant text.
async fn send_once(
    http: &reqwest::Client,
    config: &JudgeConfig,
    messages: &[Value],
) -> Result<Result<String, String>, Failure> {
    let body = json!({
        "model": config.model,
        "messages": messages,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
    });
    let mut req = http.post(config.endpoint()).json(&body);
    if let Some(key) = &config.api_key {
        req = req.bearer_auth(key.expose());
    }
    let transient = |message: String| Failure {
        message,
        transient: true,
        retry_after: None,
    };
    let resp = req
        .send()
        .await
        .map_err(|e| transient(format!("request failed: {}", e.without_url())))?;
    let status = resp.status();
    let retry_after = retry_after(resp.headers());
    let text = resp
        .text()
        .await
        .map_err(|e| transient(format!("reading the response failed: {}", e.without_url())))?;
    if !status.is_success() {
        let snippet: String = text.chars().take(300).collect();
        return Err(Failure {
            message: format!("judge endpoint answered HTTP {status}: {snippet}"),
            transient: transient_status(status),
            retry_after,
        });
    }
    // A truncated or garbled body is a transport problem, not the model's answer.
    let v: Value =
        serde_json::from_str(&text).map_err(|e| transient(format!("response is not JSON: {e}")))?;
    Ok(v.pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "response has no choices[0].message.content".to_owned()))
}

/// Asks until the endpoint answers, at most `1 + config.transport_retries` times, and
/// reports how many retries it took.
pub async fn call(
    http: &reqwest::Client,
    config: &JudgeConfig,
    messages: &[Value],
) -> (Result<String, CallError>, u32) {
    let mut retries = 0u32;
    loop {
        match send_once(http, config, messages).await {
            Ok(answer) => return (answer.map_err(CallError::Answer), retries),
            Err(f) if f.transient && retries < u32::from(config.transport_retries) => {
                retries += 1;
                let policy = RetryPolicy::new(u32::from(config.transport_retries), config.backoff);
                tokio::time::sleep(policy.wait(retries, f.retry_after)).await;
            }
            Err(f) => {
                let message = if f.transient {
                    format!("{} (after {} retries)", f.message, retries)
                } else {
                    f.message
                };
                return (Err(CallError::Transport(message)), retries);
            }
        }
    }
}
