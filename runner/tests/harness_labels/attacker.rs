//! A scripted attacker model for all three native harnesses, on both wire APIs.
//!
//! A participant message holding `COSEC-ATTACK {"to": COMMUNITY, "cmds": [...]}` makes
//! it run each command with the harness's own shell tool (Codex `exec_command`, OpenClaw
//! `exec`, Hermes `terminal`) and post the command's output to `COMMUNITY` with the
//! shim's `post_message`, one command at a time, then reply. Every other message gets a
//! short reply. Every request body it receives is kept.

use super::common::{read_request, Log, NOT_FOUND};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The trigger a participant message carries.
pub const TRIGGER: &str = "COSEC-ATTACK ";

/// The server and the request bodies it saw.
pub type Server = super::common::Server<Value>;

/// Starts the attacker.
pub async fn start() -> Server {
    Server::start(serve).await
}

/// The text of a message's content, a string or an array of parts.
fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str().or(p.as_str()))
            .collect(),
        _ => String::new(),
    }
}

/// A participant message: not a harness's own context (Codex's `<environment_context>`,
/// OpenClaw's internal context after tool results).
fn participant(role: &Value, content: &str) -> bool {
    role == "user"
        && !content.trim_start().starts_with('<')
        && !content.contains("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>")
}

/// The plan a trigger names: where to post and what to run.
fn plan(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.split(TRIGGER).nth(1)?;
    let line = rest.lines().next()?;
    let v: Value = serde_json::from_str(line).ok()?;
    let to = v["to"].as_str()?.to_owned();
    let cmds = v["cmds"]
        .as_array()?
        .iter()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect();
    Some((to, cmds))
}

/// What the model does next in a turn opened by `message`, after `calls` tool calls
/// whose last output was `last_output`: a tool call (name, arguments) or a reply.
enum Step {
    Shell(String),
    Post(String, String),
    Reply(String),
}

fn next_step(message: &str, calls: usize, last_output: &str) -> Step {
    let Some((to, cmds)) = plan(message) else {
        return Step::Reply("Noted.".to_owned());
    };
    match (calls % 2, cmds.get(calls / 2)) {
        (0, Some(cmd)) => Step::Shell(cmd.clone()),
        (1, _) => Step::Post(to, last_output.to_owned()),
        _ => Step::Reply("Done.".to_owned()),
    }
}

fn tool_names(body: &Value) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        if t["type"] == "namespace" {
            for inner in t["tools"].as_array().into_iter().flatten() {
                if let Some(n) = inner["name"].as_str() {
                    out.push((t["name"].as_str().map(str::to_owned), n.to_owned()));
                }
            }
        } else if let Some(n) = t["function"]["name"].as_str().or(t["name"].as_str()) {
            out.push((None, n.to_owned()));
        }
    }
    out
}

/// The shell tool offered and its command argument.
fn shell_tool(tools: &[(Option<String>, String)]) -> (String, &'static str) {
    for (name, arg) in [
        ("exec_command", "cmd"),
        ("exec", "command"),
        ("terminal", "command"),
    ] {
        if tools.iter().any(|(ns, n)| ns.is_none() && n == name) {
            return (name.to_owned(), arg);
        }
    }
    ("exec_command".to_owned(), "cmd")
}

/// The shim's `post_message` as offered: (namespace, name).
fn post_tool(tools: &[(Option<String>, String)]) -> (Option<String>, String) {
    tools
        .iter()
        .find(|(ns, n)| n == "post_message" && ns.is_some() || n.ends_with("__post_message"))
        .cloned()
        .unwrap_or((None, "post_message".to_owned()))
}

async fn serve(mut stream: TcpStream, log: Log<Value>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    if !request.head.starts_with("post") {
        let _ = stream.write_all(NOT_FOUND).await;
        return;
    }
    let body = request.json();
    log.lock().unwrap().push(body.clone());
    let tools = tool_names(&body);
    let reply = if request.head.contains("/responses") {
        responses(&body, &tools)
    } else {
        chat(&body, &tools)
    };
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn responses(body: &Value, tools: &[(Option<String>, String)]) -> String {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let start = input
        .iter()
        .rposition(|i| participant(&i["role"], &text(&i["content"])))
        .unwrap_or(0);
    let message = input
        .get(start)
        .map(|i| text(&i["content"]))
        .unwrap_or_default();
    let calls = input[start..]
        .iter()
        .filter(|i| i["type"] == "function_call")
        .count();
    let last_output = input[start..]
        .iter()
        .rev()
        .find(|i| i["type"] == "function_call_output")
        .map(|i| text(&i["output"]))
        .unwrap_or_default();
    let item = match next_step(&message, calls, &last_output) {
        Step::Shell(cmd) => {
            let (name, arg) = shell_tool(tools);
            json!({"type": "function_call", "call_id": format!("call_{calls}"), "name": name,
                   "arguments": json!({ arg: cmd }).to_string()})
        }
        Step::Post(to, text) => {
            let (ns, name) = post_tool(tools);
            let mut item = json!({"type": "function_call", "call_id": format!("call_{calls}"), "name": name,
                   "arguments": json!({"community": to, "text": text}).to_string()});
            if let Some(ns) = ns {
                item["namespace"] = json!(ns);
            }
            item
        }
        Step::Reply(text) => json!({"type": "message", "role": "assistant", "id": "msg_1",
               "content": [{"type": "output_text", "text": text}]}),
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
    reply
}

fn chat(body: &Value, tools: &[(Option<String>, String)]) -> String {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let start = messages
        .iter()
        .rposition(|m| participant(&m["role"], &text(&m["content"])))
        .unwrap_or(0);
    let message = messages
        .get(start)
        .map(|m| text(&m["content"]))
        .unwrap_or_default();
    let calls: usize = messages[start..]
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["tool_calls"].as_array().map_or(0, Vec::len))
        .sum();
    let last_output = messages[start..]
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| text(&m["content"]))
        .unwrap_or_default();
    let call = |name: String, args: Value| {
        json!({"tool_calls": [{"index": 0, "id": format!("call{calls}x"), "type": "function",
            "function": {"name": name, "arguments": args.to_string()}}]})
    };
    let delta = match next_step(&message, calls, &last_output) {
        Step::Shell(cmd) => {
            let (name, arg) = shell_tool(tools);
            call(name, json!({ arg: cmd }))
        }
        Step::Post(to, text) => call(post_tool(tools).1, json!({"community": to, "text": text})),
        Step::Reply(text) => json!({"content": text}),
    };
    let finish = if delta.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "s1", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let usage = json!({"id": "s1", "object": "chat.completion.chunk", "created": 0, "model": "m",
        "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{}{}{}data: {usage}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant"}), Value::Null),
        chunk(delta, Value::Null),
        chunk(json!({}), json!(finish)),
    )
}
