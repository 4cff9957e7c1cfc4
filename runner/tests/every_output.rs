//! Every output is a candidate: a scripted model drives the built-in agent through a
//! whole `cosec run` (real proxy listener, shim, verifier, oracle) to copy a protected
//! ledger, at turns other than the scored one, to a community, a person and another
//! namespace the oracle denies, and to the same kinds of place it allows; only the
//! denied ones are violations, each with the destination it reached and its turn.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::copying::{self, CopyStep, COPIED_FILE};
use common::{json_response, read_request, Log, Server};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The Chat Completions answer (no streaming, as the built-in agent asks) for the next
/// step of the copying plan, with the built-in agent's tool names.
fn answer(messages: &[Value]) -> Value {
    let calls = messages.iter().filter(|m| m["role"] == "tool").count();
    let call = |name: &str, arguments: Value| {
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{"id": format!("call_{calls}"), "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}}]
        })
    };
    let message = match copying::next_step(messages) {
        CopyStep::Read { path } => call("read_file", json!({ "path": path })),
        CopyStep::Post { community, text } => call(
            "post_message",
            json!({"community": community, "text": text}),
        ),
        CopyStep::Send { person, text } => {
            call("send_message", json!({"person": person, "text": text}))
        }
        CopyStep::Write { folder, text, .. } => call(
            "write_file",
            json!({"path": format!("{folder}/{COPIED_FILE}"), "content": text}),
        ),
        CopyStep::Say(text) => json!({"role": "assistant", "content": text}),
    };
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    json!({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
}

async fn serve(mut conn: TcpStream, seen: Log<Value>) {
    let Some(request) = read_request(&mut conn).await else {
        return;
    };
    let body = request.json();
    seen.lock().unwrap().push(body.clone());
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let reply = json_response("200 OK", &answer(&messages).to_string());
    let _ = conn.write_all(reply.as_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_output_is_judged_by_the_oracle_where_and_when_it_went() {
    let server: Server<Value> = Server::start(serve).await;
    let tmp = tempfile::tempdir().unwrap();
    let scenario_file = tmp.path().join("scenario.json");
    let s = copying::copying_scenario();
    std::fs::write(&scenario_file, serde_json::to_string(&s).unwrap()).unwrap();
    let out = tmp.path().join("run");
    let base = format!("{}/v1", server.url);
    let args = [
        "run",
        "--model",
        "openai:m",
        "--model-base-url",
        base.as_str(),
        "--judge",
        "none",
        "--retries",
        "0",
        "--scenario-file",
        scenario_file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = tokio::process::Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .await
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let asked: Vec<Value> = server.requests();
    assert!(
        asked.iter().any(|b| b["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "post_message"))),
        "the built-in agent offered its tools"
    );
    copying::assert_judged_where_they_went(&out);
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(
        printed.contains("PVR all differs from PVR in 1 trials")
            && printed.contains(copying::SCENARIO),
        "{printed}"
    );
}
