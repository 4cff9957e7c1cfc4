//! A scripted Chat Completions server standing in for the proxy in the OpenClaw
//! adapter tests: it speaks just enough HTTP/1.1 and SSE for OpenClaw's client.

use super::common::{json_response, read_request, Log, NOT_FOUND};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

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

/// The server and the requests it saw.
pub type Server = super::common::Server<Request>;

/// Starts a server answering in `mode`.
pub async fn start(mode: Mode) -> Server {
    Server::start(move |stream, log| serve(stream, mode.clone(), log)).await
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

async fn serve(mut stream: TcpStream, mode: Mode, log: Log<Request>) {
    let Some(http) = read_request(&mut stream).await else {
        return;
    };
    if !http.head.starts_with("post") {
        let _ = stream.write_all(NOT_FOUND).await;
        return;
    }
    let body = http.json();
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
            let reply = json_response("400 Bad Request", body);
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
