//! The texts the Hermes adapter writes and reads: `config.yaml`, the seeded
//! `memories/MEMORY.md`, the user input of a delivery, and Hermes's session export
//! (`hermes sessions export` JSON).

use crate::harness::builtin::MAX_STEPS_PER_TURN;
use crate::harness::prompt::{self, Wording};
use crate::harness::{Delivery, TrialEnv};
use cosec_proxy::provenance::{Labels, Record, Segment};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::{AgentTier, ObjectId};
use serde_json::{json, Value};
use std::path::Path;

/// Hermes's separator between memory entries (`tools/memory_tool.py`).
pub const MEMORY_DELIMITER: &str = "\n§\n";

/// Hermes's default memory budget in characters; raised when seeded memory needs more.
const MEMORY_CHAR_LIMIT: usize = 2200;

/// `config.yaml` of a trial: the proxy as the only (custom) provider, the relay as MCP
/// server `cosec`, no downloads at run time (tirith scanner, lazy installs), one model
/// attempt per call (the proxy owns upstream retries), the built-in agent's step budget,
/// and no background memory or skill reviews (they would make model calls of their own).
pub fn config_yaml(
    model_base_url: &str,
    model_name: &str,
    relay: &Path,
    shim: Option<(&Path, &str)>,
    memory_chars: usize,
) -> Result<String, serde_yaml_ng::Error> {
    let mut config = json!({
        "model": {
            "provider": "custom",
            "default": model_name,
            "base_url": model_base_url,
            "api_key": crate::harness::native::DUMMY_KEY,
            "context_length": 128_000,
        },
        "agent": {"max_turns": MAX_STEPS_PER_TURN, "api_max_retries": 1},
        "security": {"tirith_enabled": false, "allow_lazy_installs": false},
        "memory": {
            "memory_enabled": true,
            "user_profile_enabled": false,
            "nudge_interval": 0,
            "memory_char_limit": memory_chars.max(MEMORY_CHAR_LIMIT) + MEMORY_CHAR_LIMIT,
        },
        "skills": {"creation_nudge_interval": 0},
        // The ACP server titles a session with a model call of its own after its first
        // exchange; the one-shot CLI makes no such call.
        "auxiliary": {"title_generation": {"enabled": false}},
    });
    if let (Some((socket, trial)), Some(map)) = (shim, config.as_object_mut()) {
        map.insert(
            "mcp_servers".to_owned(),
            json!({"cosec": {
                "command": relay.to_string_lossy(),
                "args": ["--socket", socket.to_string_lossy(), "--trial", trial],
                "timeout": 120,
                "connect_timeout": 30,
            }}),
        );
    }
    serde_yaml_ng::to_string(&config)
}

/// How Hermes offers the community tools; the private memory is in its own store
/// (`MEMORY.md`, part of every system prompt), so the message does not repeat it.
pub const WORDING: Wording = Wording {
    tools: "the `mcp__cosec__*` tools",
    show_memory: false,
};

/// The user input for one delivery (see [`prompt::user_input`]).
pub fn user_input(env: &TrialEnv, delivery: &Delivery, first: bool) -> String {
    prompt::user_input(&env.agent, &env.agent_root, delivery, first, &WORDING)
}

/// Seeded private memory as Hermes's `MEMORY.md` (entries separated by `§` lines), or
/// `None` when the scenario seeds none.
pub fn memory_md(agent: &AgentTier) -> Option<String> {
    memory_record(agent).map(|r| String::from_utf8_lossy(&r.content()).into_owned())
}

/// The same `MEMORY.md` with each entry labeled by its seed's object, for the guard's
/// views of Hermes's memory store.
pub fn memory_record(agent: &AgentTier) -> Option<Record> {
    let entries: Vec<(&str, &ObjectId)> = agent
        .seeds
        .iter()
        .filter(|s| matches!(s.surface, Surface::PrivateMemory))
        .map(|s| (s.content.trim(), &s.object))
        .filter(|(c, _)| !c.is_empty())
        .collect();
    if entries.is_empty() {
        return None;
    }
    let mut segments = Vec::new();
    for (i, (text, object)) in entries.into_iter().enumerate() {
        if i > 0 {
            segments.push(Segment::plain(MEMORY_DELIMITER));
        }
        segments.push(Segment::new(text, Labels::from([object.clone()])));
    }
    Some(Record { segments })
}

/// The messages of a session from `hermes sessions export --session-id ID -` (one JSON
/// object per session with a `messages` array).
pub fn exported_messages(export: &str) -> Vec<Value> {
    export
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .flat_map(|session| {
            session
                .get("messages")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

fn has_tool_calls(message: &Value) -> bool {
    match message.get("tool_calls") {
        None | Some(Value::Null) => false,
        Some(Value::Array(calls)) => !calls.is_empty(),
        Some(Value::String(s)) => !s.trim().is_empty() && s.trim() != "[]",
        Some(_) => true,
    }
}

/// The final reply among a delivery's new messages: the last assistant message with text
/// and no tool calls.
pub fn final_reply(new: &[Value]) -> Option<String> {
    new.iter()
        .rev()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .filter(|m| !has_tool_calls(m))
        .find_map(|m| m.get("content").and_then(Value::as_str))
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

/// Model calls behind a delivery's new messages (each assistant message is one call).
pub fn model_calls(new: &[Value]) -> u32 {
    let n = new
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_reply_is_the_last_text_message_without_tool_calls() {
        let export = json!({"id": "s", "messages": [
            {"role": "user", "content": "Bob: hi", "tool_calls": null},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]},
            {"role": "tool", "content": "{\"ok\": true}", "tool_calls": null},
            {"role": "assistant", "content": "Done, Bob.", "tool_calls": null},
        ]})
        .to_string();
        let messages = exported_messages(&export);
        assert_eq!(messages.len(), 4);
        assert_eq!(final_reply(&messages).as_deref(), Some("Done, Bob."));
        assert_eq!(model_calls(&messages), 2);
        assert_eq!(final_reply(&messages[..3]), None);
    }

    #[test]
    fn the_config_points_at_the_proxy_and_registers_the_shim() {
        let yaml = config_yaml(
            "http://127.0.0.1:9/t/abc/v1",
            "m\"x: y",
            Path::new("/opt/cosec-shim"),
            Some((Path::new("/run/s.sock"), "abc")),
            10_000,
        )
        .unwrap();
        let read: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(read["model"]["provider"], "custom");
        assert_eq!(read["model"]["base_url"], "http://127.0.0.1:9/t/abc/v1");
        assert_eq!(read["model"]["default"], "m\"x: y");
        assert_eq!(
            read["mcp_servers"]["cosec"],
            json!({"command": "/opt/cosec-shim", "args": ["--socket", "/run/s.sock", "--trial", "abc"], "timeout": 120, "connect_timeout": 30})
        );
        assert_eq!(read["memory"]["memory_char_limit"], 12_200, "{yaml}");
        assert_eq!(read["security"]["tirith_enabled"], false);
        assert_eq!(read["auxiliary"]["title_generation"]["enabled"], false);
        let without_shim = config_yaml("http://h/v1", "m", Path::new("/r"), None, 0).unwrap();
        let read: Value = serde_yaml_ng::from_str(&without_shim).unwrap();
        assert!(read.get("mcp_servers").is_none(), "{without_shim}");
        assert_eq!(read["memory"]["memory_char_limit"], 4400);
    }
}
