//! A scripted Chat Completions server standing in for the proxy in the Hermes adapter
//! tests: one `write_file` when the last user message says `WRITE:<path>`, one
//! `terminal` command for `RUN:<command>`, and otherwise `ACK <number of user messages>`.

use super::common::{read_request, Log, NOT_FOUND};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The server and the requests it saw: (method, path, body), method and path lowercased.
pub type Server = super::common::Server<(String, String, Value)>;

/// Starts the server.
pub async fn start() -> Server {
    Server::start(serve).await
}

async fn serve(mut conn: TcpStream, seen: Log<(String, String, Value)>) {
    let Some(request) = read_request(&mut conn).await else {
        return;
    };
    let mut first = request.head.split_whitespace();
    let (method, path) = (
        first.next().unwrap_or("").to_owned(),
        first.next().unwrap_or("").to_owned(),
    );
    let body = request.json();
    seen.lock()
        .unwrap()
        .push((method.clone(), path.clone(), body.clone()));
    if method != "post" || !path.ends_with("/chat/completions") {
        let _ = conn.write_all(NOT_FOUND).await;
        return;
    }
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    let content = last["content"].as_str().unwrap_or_default();
    let call = |name: &str, args: Value| {
        json!({"tool_calls": [{"index": 0, "id": "call_w1", "type": "function",
            "function": {"name": name, "arguments": args.to_string()}}]})
    };
    let is_user = last["role"] == "user";
    let delta = if let Some(rest) = content.split("WRITE:").nth(1).filter(|_| is_user) {
        let path = rest.split_whitespace().next().unwrap_or_default();
        call(
            "write_file",
            json!({"path": path, "content": "noted by hermes\n"}),
        )
    } else if let Some(rest) = content.split("RUN:").nth(1).filter(|_| is_user) {
        call("terminal", json!({"command": rest.trim()}))
    } else {
        let users = messages.iter().filter(|m| m["role"] == "user").count();
        json!({"content": format!("ACK {users}")})
    };
    let finish = if delta.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let chunk = |choices: Value| json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": choices});
    let mut sse = String::new();
    for event in [
        chunk(json!([{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}])),
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
        chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])),
    ] {
        sse.push_str(&format!("data: {event}\n\n"));
    }
    sse.push_str("data: [DONE]\n\n");
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}",
        sse.len()
    );
    let _ = conn.write_all(response.as_bytes()).await;
}
