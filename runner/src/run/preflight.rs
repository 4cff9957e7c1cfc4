//! One small request to each configured endpoint before the first trial, so that a
//! wrong URL, key or model name stops the run at once with the endpoint's own words.

use super::infra::FailureKind;
use cosec_proxy::registry::Secret;
use std::time::Duration;

/// How long the preflight waits for an answer.
const TIMEOUT: Duration = Duration::from_secs(20);
/// How much of an endpoint's error body is shown.
const BODY_SHOWN: usize = 400;

/// What the preflight found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preflight {
    /// The endpoint answered the request.
    Ready,
    /// It answered in a way that may pass (a 400 for the probe's shape, 429, 5xx, a
    /// timeout): the run goes on and says so.
    Doubtful(String),
    /// It cannot serve this run: wrong address, key or model.
    Fatal(String),
}

/// Sends the smallest Chat Completions request to `base_url` for `model`. Chat
/// Completions is what every OpenAI-compatible server speaks, also those a Codex run
/// reaches through `/responses`, so the probe checks address, key and model alike.
pub async fn check(what: &str, base_url: &str, model: &str, key: Option<&Secret>) -> Preflight {
    let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
    let body = serde_json::json!({
        "model": model,
        "messages": [{"role": "user", "content": "ping"}],
        "max_tokens": 1,
    });
    let client = match reqwest::Client::builder().timeout(TIMEOUT).build() {
        Ok(c) => c,
        Err(e) => return Preflight::Doubtful(format!("{what}: no HTTP client: {e}")),
    };
    let mut request = client.post(&url).json(&body);
    if let Some(key) = key {
        request = request.bearer_auth(key.expose());
    }
    let keys: Vec<&str> = key.map(Secret::expose).into_iter().collect();
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => {
            let cause = cosec_proxy::keys::scrub(&error_chain(&e), &keys);
            let said = format!("{what} at {url} did not answer: {cause}");
            return if e.is_timeout() {
                Preflight::Doubtful(said)
            } else {
                Preflight::Fatal(said)
            };
        }
    };
    let status = response.status();
    if status.is_success() {
        return Preflight::Ready;
    }
    let text = response.text().await.unwrap_or_default();
    let shown: String = cosec_proxy::keys::scrub(&text, &keys)
        .chars()
        .take(BODY_SHOWN)
        .collect();
    let said = format!("{what} at {url} answered {status}: {}", shown.trim());
    let code = status.as_u16();
    match code {
        401 | 403 | 404 => Preflight::Fatal(format!(
            "{said}\n  {}",
            FailureKind::of(&format!("HTTP {code}")).label()
        )),
        _ => Preflight::Doubtful(said),
    }
}

/// An error with its sources, which is where reqwest keeps "Connection refused".
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// A one-request HTTP server on 127.0.0.1 answering `status` with `body`.
    async fn answering(status: &'static str, body: &'static str) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = vec![0u8; 65536];
                let _ = s.read(&mut buf).await;
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            }
        });
        format!("http://{addr}/v1")
    }

    #[tokio::test]
    async fn a_closed_port_is_fatal_and_names_the_refusal() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let url = format!("http://127.0.0.1:{port}/v1");
        let found = check("model", &url, "m", None).await;
        let Preflight::Fatal(said) = found else {
            panic!("{found:?}")
        };
        assert!(said.contains("refused"), "{said}");
        assert_eq!(FailureKind::of(&said), FailureKind::Unreachable);
    }

    #[tokio::test]
    async fn a_401_is_fatal_says_unauthorized_and_hides_the_key() {
        let url = answering(
            "401 Unauthorized",
            r#"{"error":{"message":"Incorrect API key provided: sk-abcdef123456"}}"#,
        )
        .await;
        let key = Secret::new("sk-abcdef123456");
        let found = check("model", &url, "m", Some(&key)).await;
        let Preflight::Fatal(said) = found else {
            panic!("{found:?}")
        };
        assert!(said.contains("unauthorized"), "{said}");
        assert!(!said.contains("abcdef123456"), "{said}");
    }

    #[tokio::test]
    async fn a_busy_endpoint_lets_the_run_start() {
        let url = answering("503 Service Unavailable", "{}").await;
        let found = check("judge", &url, "m", None).await;
        assert!(matches!(found, Preflight::Doubtful(_)), "{found:?}");
        let url = answering("200 OK", r#"{"choices":[]}"#).await;
        assert_eq!(check("model", &url, "m", None).await, Preflight::Ready);
    }
}
