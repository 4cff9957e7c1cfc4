//! A scripted judge served by a real HTTP/1.1 listener on 127.0.0.1: it answers the
//! i-th request with the i-th scripted content, can answer with an HTTP status, a 429
//! with `Retry-After`, or not in time, and keeps every request it received.

use crate::verify::judge::{JudgeClient, JudgeConfig, Secret};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A scripted judge: answers the i-th request with the i-th content (the last repeats).
pub(super) struct ScriptedJudge {
    base_url: String,
    count: Arc<AtomicUsize>,
    /// Every request received: its head and its JSON body.
    pub(super) requests: Arc<Mutex<Vec<(String, Value)>>>,
}

fn header_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

async fn handle(
    mut sock: tokio::net::TcpStream,
    answers: Arc<Vec<String>>,
    count: Arc<AtomicUsize>,
    log: Arc<Mutex<Vec<(String, Value)>>>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_len = loop {
        let n = sock.read(&mut chunk).await.unwrap();
        assert!(n > 0, "client closed before sending headers");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = header_end(&buf) {
            break end;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_len]).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())
                .flatten()
        })
        .unwrap_or(0);
    while buf.len() < head_len + length {
        let n = sock.read(&mut chunk).await.unwrap();
        assert!(n > 0, "client closed mid-body");
        buf.extend_from_slice(&chunk[..n]);
    }
    let body: Value = serde_json::from_slice(&buf[head_len..head_len + length]).unwrap();
    let i = count.fetch_add(1, Ordering::SeqCst);
    log.lock().unwrap().push((head, body));
    let content = answers
        .get(i)
        .or(answers.last())
        .cloned()
        .unwrap_or_default();
    // `!status N` answers with that HTTP status; `!busy S` a 429 asking to wait S
    // seconds; `!stall` never answers in time.
    let resp = if let Some(seconds) = content.strip_prefix("!busy ") {
        format!(
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {seconds}\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy"
        )
    } else if let Some(code) = content.strip_prefix("!status ") {
        format!(
            "HTTP/1.1 {code} Scripted\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy"
        )
    } else if content == "!stall" {
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
        return;
    } else {
        let reply = json!({
            "id": format!("judge-{i}"),
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20}
        })
        .to_string();
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
            reply.len()
        )
    };
    sock.write_all(resp.as_bytes()).await.unwrap();
    sock.shutdown().await.ok();
}

impl ScriptedJudge {
    /// Starts the judge with its scripted answers.
    pub(super) async fn start(answers: Vec<String>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let count = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let answers = Arc::new(answers);
        let (c, r) = (count.clone(), requests.clone());
        tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                tokio::spawn(handle(sock, answers.clone(), c.clone(), r.clone()));
            }
        });
        ScriptedJudge {
            base_url: format!("http://{addr}/v1"),
            count,
            requests,
        }
    }

    /// How many requests arrived.
    pub(super) fn requests(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    /// A judge client for this judge, caching under `cache`.
    pub(super) fn client(&self, cache: &Path) -> JudgeClient {
        JudgeClient::new(self.config(), cache).unwrap()
    }

    /// The judge's configuration, with transport retries fast enough for a test.
    pub(super) fn config(&self) -> JudgeConfig {
        let mut config = JudgeConfig::new(
            self.base_url.clone(),
            Some(Secret::new("sk-test-SECRET-123")),
        );
        config.backoff = std::time::Duration::from_millis(5);
        config
    }
}
