//! A scripted Chat Completions server standing in for the proxy in the Hermes adapter
//! tests: one `write_file` when the last user message says `WRITE:<path>`, one
//! `terminal` command for `RUN:<command>`, the copying plan of
//! [`super::common::copying`] for `COPY <path> TO ...` (reads and community tools
//! through the MCP relay, writes with Hermes's own terminal), and otherwise
//! `ACK <number of user messages>`.

use super::common::copying::{self, CopyStep, COPIED_FILE};
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
    let copying = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .is_some_and(|c| c.contains("COPY "));
    let delta = if copying {
        copy_delta(&messages)
    } else if let Some(rest) = content.split("WRITE:").nth(1).filter(|_| is_user) {
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

/// The next step of the copying plan as a Hermes delta: the MCP relay's `read_file`,
/// `post_message` and `send_message`, and a native copy by the `terminal` tool for a
/// write (wherever the sandbox shows the agent half).
fn copy_delta(messages: &[Value]) -> Value {
    // Each call gets its own id: a turn holds several.
    let id = format!("call_c{}", messages.len());
    let call = |name: &str, args: Value| {
        json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
            "function": {"name": name, "arguments": args.to_string()}}]})
    };
    match copying::next_step(messages) {
        CopyStep::Read { path } => call("mcp__cosec__read_file", json!({ "path": path })),
        CopyStep::Post { community, text } => call(
            "mcp__cosec__post_message",
            json!({"community": community, "text": text}),
        ),
        CopyStep::Send { person, text } => call(
            "mcp__cosec__send_message",
            json!({"person": person, "text": text}),
        ),
        CopyStep::Write { source, folder, .. } => {
            let command = format!(
                "f={source}; [ -f \"$f\" ] || f=$(find / -path '*/{source}' 2>/dev/null | head -1); \
                 r=${{f%{source}}}; mkdir -p \"${{r}}{folder}\" && cp \"$f\" \"${{r}}{folder}/{COPIED_FILE}\""
            );
            call("terminal", json!({ "command": command }))
        }
        CopyStep::Say(text) => json!({ "content": text }),
    }
}
