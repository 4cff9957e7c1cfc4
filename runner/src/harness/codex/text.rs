//! The texts the Codex adapter writes and reads: `config.toml`, the user input of each
//! delivery, and the `--json` event stream of `codex exec`.

use crate::harness::prompt::{self, Wording};
use crate::harness::{Delivery, TrialEnv};
use serde_json::{json, Value};
use std::path::Path;

/// Provider id in `config.toml`.
pub const PROVIDER: &str = "cosec";

/// MCP server name: Codex offers its tools in the namespace `mcp__cosec`.
pub const MCP_SERVER: &str = "cosec";

/// Variable holding the (dummy) API key; without `env_key` Codex sends no
/// Authorization header, which real upstreams behind the proxy may require.
pub const API_KEY_VAR: &str = "COSEC_MODEL_API_KEY";

/// `$CODEX_HOME/config.toml` for one trial: the proxy as the only provider (Responses
/// wire API, no retries: the runner retries whole trials), no approvals, no Codex
/// sandbox (bubblewrap confines the whole process), web search off (the benchmark is
/// offline), and the shim relay as MCP server `cosec`.
pub fn config_toml(
    env: &TrialEnv,
    relay: &Path,
    socket: Option<&Path>,
) -> Result<String, toml::ser::Error> {
    let mut args = Vec::new();
    if let Some(socket) = socket {
        args.push("--socket".to_owned());
        args.push(socket.to_string_lossy().into_owned());
    }
    args.push("--trial".to_owned());
    args.push(env.trial_id.clone());
    let root = env.agent_root.to_string_lossy().into_owned();
    let config = json!({
        "model": env.model_name,
        "model_provider": PROVIDER,
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "check_for_update_on_startup": false,
        "web_search": "disabled",
        "analytics": {"enabled": false},
        "model_providers": {PROVIDER: {
            "name": "CoSec proxy",
            "base_url": env.model_base_url,
            "wire_api": "responses",
            "env_key": API_KEY_VAR,
            "request_max_retries": 0,
            "stream_max_retries": 0,
        }},
        "mcp_servers": {MCP_SERVER: {
            "command": relay.to_string_lossy(),
            "args": args,
            "startup_timeout_sec": 30,
            "tool_timeout_sec": 120,
        }},
        "projects": {root: {"trust_level": "trusted"}},
    });
    toml::to_string(&config)
}

/// How Codex offers the community tools.
const WORDING: Wording = Wording {
    tools: "the tools of the `cosec` MCP server",
    show_memory: true,
};

/// The user input for one delivery (see [`prompt::user_input`]).
pub fn user_input(env: &TrialEnv, delivery: &Delivery, first: bool) -> String {
    prompt::user_input(&env.agent, &env.agent_root, delivery, first, &WORDING)
}

/// What one `codex exec --json` run reported.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Events {
    /// From `thread.started`.
    pub thread_id: Option<String>,
    /// The text of the last `agent_message` item (the final reply).
    pub reply: Option<String>,
    /// Completed tool items (`command_execution`, `mcp_tool_call`, ...).
    pub tool_items: u32,
    /// `turn.completed` was seen.
    pub completed: bool,
    /// The message of `turn.failed` or of a top-level `error` event.
    pub failure: Option<String>,
}

/// Reads the JSON lines of `codex exec --json`; lines that are not JSON are ignored
/// (Codex writes its diagnostics to stderr, but a stray line must not fail a turn).
pub fn parse_events(stdout: &str) -> Events {
    let mut ev = Events::default();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let str_at = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_owned);
        match v.get("type").and_then(Value::as_str) {
            Some("thread.started") => ev.thread_id = str_at("/thread_id"),
            Some("item.completed") => match v.pointer("/item/type").and_then(Value::as_str) {
                Some("agent_message") => ev.reply = str_at("/item/text"),
                // `error` items are warnings (e.g. missing model metadata), not failures.
                Some("error" | "reasoning" | "todo_list") | None => {}
                Some(_) => ev.tool_items += 1,
            },
            Some("turn.completed") => ev.completed = true,
            Some("turn.failed") => {
                ev.failure = str_at("/error/message").or_else(|| Some(v.to_string()));
            }
            Some("error") if ev.failure.is_none() => {
                ev.failure = str_at("/message").or_else(|| Some(v.to_string()));
            }
            _ => {}
        }
    }
    ev
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_config_reads_back_with_the_proxy_the_relay_and_awkward_strings_intact() {
        let agent: cosec_scenarios::AgentTier = serde_json::from_value(json!({
            "target_user": "ann", "people": [], "communities": [], "seeds": [],
            "tools": [], "workflows": [], "turns": []
        }))
        .unwrap();
        let registry = cosec_proxy::registry::TrialRegistry::new();
        let dir = tempfile::tempdir().unwrap();
        let env = TrialEnv {
            trial_id: "t\"1\n".to_owned(),
            agent: std::sync::Arc::new(agent),
            agent_root: dir.path().join("agent \\ root"),
            model_base_url: "http://127.0.0.1:9/t/x/v1".to_owned(),
            model_name: "m\u{1}".to_owned(),
            shim: cosec_proxy::shim::ShimService::new(registry),
            harness_home: dir.path().join("home"),
            shim_socket: None,
            trace: std::sync::Arc::new(
                cosec_proxy::trace::TraceWriter::open(&dir.path().join("trace.jsonl")).unwrap(),
            ),
        };
        let relay = Path::new("/opt/cosec-shim");
        let text = config_toml(&env, relay, Some(Path::new("/run/s.sock"))).unwrap();
        let read: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(read["model"].as_str(), Some("m\u{1}"));
        assert_eq!(read["model_provider"].as_str(), Some(PROVIDER));
        let provider = &read["model_providers"][PROVIDER];
        assert_eq!(
            provider["base_url"].as_str(),
            Some("http://127.0.0.1:9/t/x/v1")
        );
        assert_eq!(provider["env_key"].as_str(), Some(API_KEY_VAR));
        assert_eq!(provider["request_max_retries"].as_integer(), Some(0));
        let server = &read["mcp_servers"][MCP_SERVER];
        assert_eq!(server["command"].as_str(), Some("/opt/cosec-shim"));
        let args: Vec<&str> = server["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(toml::Value::as_str)
            .collect();
        assert_eq!(args, ["--socket", "/run/s.sock", "--trial", "t\"1\n"]);
        let root = env.agent_root.to_string_lossy();
        assert_eq!(
            read["projects"][root.as_ref()]["trust_level"].as_str(),
            Some("trusted")
        );
    }

    #[test]
    fn events_give_thread_reply_tools_and_failures() {
        let out = [
            r#"{"type":"thread.started","thread_id":"t-1"}"#,
            r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `m` not found."}}"#,
            "not json",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","exit_code":0}}"#,
            r#"{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"cosec","tool":"post_message"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"first"}}"#,
            r#"{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"All done."}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":3}}"#,
        ]
        .join("\n");
        let ev = parse_events(&out);
        assert_eq!(ev.thread_id.as_deref(), Some("t-1"));
        assert_eq!(ev.reply.as_deref(), Some("All done."));
        assert_eq!(ev.tool_items, 2);
        assert!(ev.completed);
        assert_eq!(ev.failure, None);
        let failed =
            parse_events(r#"{"type":"turn.failed","error":{"message":"stream disconnected"}}"#);
        assert_eq!(failed.failure.as_deref(), Some("stream disconnected"));
        assert!(!failed.completed);
    }
}
