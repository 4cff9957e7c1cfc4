//! One chat-completions call to the judge, retried with exponential backoff while the
//! endpoint is unreachable, times out or answers with a transient HTTP status. These
//! retries are separate from the format attempts: a flaky network never uses up the
//! attempts a model gets to produce a valid answer.

use super::JudgeConfig;
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

/// A transport failure and whether waiting may cure it.
struct Failure {
    message: String,
    transient: bool,
}

/// The delay before retry `n` (0-based): `base`, `2 base`, `4 base`, ... capped at 64 `base`.
pub fn backoff_delay(base: Duration, n: u32) -> Duration {
    base.saturating_mul(1u32 << n.min(6))
}

/// HTTP statuses worth asking again after a pause.
fn transient_status(status: reqwest::StatusCode) -> bool {
    status.is_server_error()
        || status == reqwest::StatusCode::TOO_MANY_REQUESTS
        || status == reqwest::StatusCode::REQUEST_TIMEOUT
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
    };
    let resp = req
        .send()
        .await
        .map_err(|e| transient(format!("request failed: {}", e.without_url())))?;
    let status = resp.status();
    let text = resp
        .text()
        .await
        .map_err(|e| transient(format!("reading the response failed: {}", e.without_url())))?;
    if !status.is_success() {
        let snippet: String = text.chars().take(300).collect();
        return Err(Failure {
            message: format!("judge endpoint answered HTTP {status}: {snippet}"),
            transient: transient_status(status),
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
                tokio::time::sleep(backoff_delay(config.backoff, retries)).await;
                retries += 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let base = Duration::from_millis(10);
        assert_eq!(backoff_delay(base, 0), Duration::from_millis(10));
        assert_eq!(backoff_delay(base, 1), Duration::from_millis(20));
        assert_eq!(backoff_delay(base, 3), Duration::from_millis(80));
        assert_eq!(backoff_delay(base, 30), Duration::from_millis(640));
    }

    #[test]
    fn only_transient_statuses_are_retried() {
        assert!(transient_status(reqwest::StatusCode::BAD_GATEWAY));
        assert!(transient_status(reqwest::StatusCode::TOO_MANY_REQUESTS));
        assert!(!transient_status(reqwest::StatusCode::UNAUTHORIZED));
        assert!(!transient_status(reqwest::StatusCode::BAD_REQUEST));
    }
}
