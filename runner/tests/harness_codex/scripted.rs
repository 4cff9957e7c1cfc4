//! A scripted Responses server standing in for the proxy in the Codex adapter tests.

use super::common::{json_response, read_request, Log};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// How the server answers.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A command through `exec_command`, an MCP call, then a reply counting the
    /// participant messages of the thread.
    Script,
    /// Reads the request and never answers.
    Hang,
    /// Answers 503.
    Fail,
}

/// What one request showed.
#[derive(Debug, Clone)]
pub struct Request {
    pub thread: String,
    pub last_user: String,
    pub namespaces: Vec<String>,
}

/// The server and the requests it saw.
pub type Server = super::common::Server<Request>;

/// Starts a server answering in `mode`.
pub async fn start(mode: Mode) -> Server {
    Server::start(move |stream, log| serve(stream, mode, log)).await
}

fn text_of(item: &Value) -> String {
    item["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect()
}

async fn serve(mut stream: TcpStream, mode: Mode, log: Log<Request>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    if mode == Mode::Hang {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        return;
    }
    if mode == Mode::Fail {
        let body = r#"{"error":{"message":"overloaded","type":"server_error"}}"#;
        let reply = json_response("503 Service Unavailable", body);
        let _ = stream.write_all(reply.as_bytes()).await;
        return;
    }
    let body = request.json();
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let is_participant =
        |i: &Value| i["role"] == "user" && !text_of(i).trim_start().starts_with('<');
    let last_user_at = input.iter().rposition(is_participant).unwrap_or(0);
    let calls = input[last_user_at..]
        .iter()
        .filter(|i| i["type"] == "function_call")
        .count();
    let namespaces: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "namespace")
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    log.lock().unwrap().push(Request {
        thread: request.header("thread-id").unwrap_or_default().to_owned(),
        last_user: input.get(last_user_at).map(text_of).unwrap_or_default(),
        namespaces: namespaces.clone(),
    });
    let item = if calls == 0 {
        json!({"type": "function_call", "call_id": "call_w", "name": "exec_command",
               "arguments": json!({"cmd": "cat > shared/codex-note.md <<'EOF'\nwritten by codex\nEOF"}).to_string()})
    } else if calls == 1 && namespaces.iter().any(|n| n == "mcp__cosec") {
        json!({"type": "function_call", "call_id": "call_m", "namespace": "mcp__cosec",
               "name": "list_files", "arguments": "{}"})
    } else {
        let n = input.iter().filter(|i| is_participant(i)).count();
        json!({"type": "message", "role": "assistant", "id": "msg_1",
               "content": [{"type": "output_text", "text": format!("reply after {n} message(s)")}]})
    };
    let mut reply = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    );
    for (name, data) in [
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {"id": "resp_1",
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}}),
        ),
    ] {
        reply.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    }
    let _ = stream.write_all(reply.as_bytes()).await;
}
