//! A scripted Chat Completions server standing in for the proxy in the OpenClaw
//! adapter tests: it speaks just enough HTTP/1.1 and SSE for OpenClaw's client.

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the server answers.
#[derive(Clone, PartialEq, Eq)]
pub enum Mode {
    /// To a participant message containing `PLEASE-WRITE`: OpenClaw's `write` of
    /// `path`, then the shim's `cosec__list_files`, then a reply; to anything else a
    /// reply counting the participant messages the session has seen.
    Script { path: String },
    /// Reads the request and never answers.
    Hang,
    /// Answers 400 (a request OpenClaw does not retry).
    Reject,
}

/// What one request showed.
#[derive(Debug, Clone)]
pub struct Request {
    /// Participant (non-internal) user messages in the history: the session's turns.
    pub participant_messages: usize,
    /// The text of the message that opened the current turn.
    pub last_participant: String,
    /// Names of the offered tools.
    pub tools: Vec<String>,
    /// Tool results sent back since the turn opened.
    pub tool_results: Vec<String>,
}

pub struct Server {
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    pub async fn start(mode: Mode) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (log, mode) = (Arc::clone(&log), mode.clone());
                tokio::spawn(async move { serve(stream, mode, log).await });
            }
        });
        Server { url, requests }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// OpenClaw's tool-result context arrives as a user message; it is not a turn.
fn participant(m: &Value) -> bool {
    m["role"] == "user" && !text(&m["content"]).contains("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")
}

async fn serve(mut stream: TcpStream, mode: Mode, log: Arc<Mutex<Vec<Request>>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let head_end = loop {
        let Ok(n) = stream.read(&mut chunk).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let Ok(n) = stream.read(&mut chunk).await else {
            return;
        };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    if !head.starts_with("post") {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
        return;
    }
    let body: Value =
        serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let start = messages.iter().rposition(participant).unwrap_or(0);
    let request = Request {
        participant_messages: messages.iter().filter(|m| participant(m)).count(),
        last_participant: messages
            .get(start)
            .map(|m| text(&m["content"]))
            .unwrap_or_default(),
        tools: body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
            .collect(),
        tool_results: messages[start..]
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| text(&m["content"]))
            .collect(),
    };
    log.lock().unwrap().push(request.clone());
    let path = match mode {
        Mode::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return;
        }
        Mode::Reject => {
            let body = r#"{"error": {"message": "rejected by the scripted server"}}"#;
            let reply = format!("HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
            let _ = stream.write_all(reply.as_bytes()).await;
            return;
        }
        Mode::Script { path } => path,
    };
    let calls: usize = messages[start..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["tool_calls"].as_array().map_or(0, Vec::len))
        .sum();
    let delta = if request.last_participant.contains("PLEASE-WRITE") && calls == 0 {
        let args = json!({"path": path, "content": "written by openclaw"}).to_string();
        json!({"tool_calls": [{"index": 0, "id": "call_7c01", "type": "function", "function": {"name": "write", "arguments": args}}]})
    } else if request.last_participant.contains("PLEASE-WRITE") && calls == 1 {
        let args = json!({"path": "shared"}).to_string();
        json!({"tool_calls": [{"index": 0, "id": "call_7c02", "type": "function", "function": {"name": "cosec__list_files", "arguments": args}}]})
    } else {
        json!({"content": format!("seen {} participant messages", request.participant_messages)})
    };
    let finish = if delta.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "s1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let usage = json!({"id": "s1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    let sse = format!(
        "{}{}{}data: {usage}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(delta, Value::Null),
        chunk(json!({}), json!(finish)),
    );
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(sse.as_bytes()).await;
    let _ = stream.shutdown().await;
}
