//! The texts the OpenClaw adapter writes and reads: `openclaw.json`, the user input of
//! each delivery, the `--json` result of `openclaw agent`, and the script that exports
//! new transcript events from OpenClaw's SQLite session store.

use crate::harness::prompt::{self, Wording};
use crate::harness::{Delivery, TrialEnv};
use cosec_scenarios::CommunityId;
use serde_json::{json, Value};
use std::path::Path;

/// Provider id in `openclaw.json` (the model is addressed as `cosec/<model>`).
pub const PROVIDER: &str = "cosec";

/// MCP server name: with `tools.toolSearch = false` OpenClaw lists the shim's tools
/// directly as `cosec__<tool>`.
pub const MCP_SERVER: &str = "cosec";

/// Variable holding the dummy API key, referenced from the config as `${...}` so no key
/// is written to disk; the proxy holds the real upstream key.
pub const API_KEY_VAR: &str = "COSEC_MODEL_API_KEY";

/// Variable holding the trial's gateway token, referenced from the config as `${...}`.
pub const GATEWAY_TOKEN_VAR: &str = "OPENCLAW_GATEWAY_TOKEN";

/// The gateway's port on the sandbox's own loopback (each trial has its own network
/// namespace), unless the model proxy is relayed in on that port.
const GATEWAY_PORT: u16 = 18789;

/// The gateway's port for a trial whose model proxy is at `model_base_url`.
pub fn gateway_port(model_base_url: &str) -> u16 {
    let proxy = crate::harness::native::loopback_addr(model_base_url).map(|a| a.port());
    if proxy == Some(GATEWAY_PORT) {
        GATEWAY_PORT + 1
    } else {
        GATEWAY_PORT
    }
}

/// OpenClaw substitutes `${VAR}` in every config string; `$${` keeps a literal.
fn literal(s: &str) -> String {
    s.replace("${", "$${")
}

/// `openclaw.json` for one trial: the proxy as the only provider (Chat Completions),
/// the agent half as the workspace without bootstrap files (so OpenClaw adds nothing to
/// the agent's files, and its memory folder `memory/` is the agent's private memory),
/// no update checks or telemetry, and the shim relay as MCP server `cosec` with its
/// tools listed directly rather than behind OpenClaw's tool-search bridge.
///
/// The gateway that runs the trial listens on the sandbox's loopback only, with the
/// trial's token, and does nothing of its own between deliveries: no heartbeat runs,
/// no scheduled jobs (which include memory "dreaming"), no wake-up when a background
/// command ends, no discovery, no control UI. Each of these would make model calls that
/// belong to no delivery; a one-shot `--local` run ended before any could happen.
pub fn config_json(env: &TrialEnv, relay: &Path, socket: Option<&Path>) -> Value {
    let mut args = Vec::new();
    if let Some(socket) = socket {
        args.push("--socket".to_owned());
        args.push(literal(&socket.to_string_lossy()));
    }
    args.push("--trial".to_owned());
    args.push(literal(&env.trial_id));
    let model = literal(&env.model_name);
    json!({
        "agents": {"defaults": {
            "model": {"primary": format!("{PROVIDER}/{model}")},
            "workspace": literal(&env.agent_root.to_string_lossy()),
            "skipBootstrap": true,
            "heartbeat": {"every": "0m"},
        }},
        "models": {"providers": {PROVIDER: {
            "baseUrl": literal(&env.model_base_url),
            "apiKey": format!("${{{API_KEY_VAR}}}"),
            "api": "openai-completions",
            "models": [{
                "id": model,
                "name": model,
                "contextWindow": 128_000,
                "maxTokens": 8192,
            }],
        }}},
        "tools": {"toolSearch": false, "exec": {"notifyOnExit": false}},
        "mcp": {"servers": {MCP_SERVER: {
            "command": literal(&relay.to_string_lossy()),
            "args": args,
        }}},
        "update": {"checkOnStart": false},
        "telemetry": {"enabled": false},
        "gateway": {
            "mode": "local",
            "bind": "loopback",
            "port": gateway_port(&env.model_base_url),
            "auth": {"mode": "token", "token": format!("${{{GATEWAY_TOKEN_VAR}}}")},
            "controlUi": {"enabled": false},
            "tailscale": {"mode": "off"},
        },
        "discovery": {"mdns": {"mode": "off"}},
        "cron": {"enabled": false},
        "plugins": {"entries": {"memory-core": {"config": {"dreaming": {"enabled": false}}}}},
    })
}

/// The OpenClaw session id of a community's session (`--session-id`): stable per
/// community within the trial's own state folder, limited to safe characters.
pub fn session_id(community: &CommunityId) -> String {
    let clean: String = community
        .as_str()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("cosec-{clean}")
}

/// How OpenClaw offers the community tools.
const WORDING: Wording = Wording {
    tools: "the `cosec__*` tools",
    show_memory: true,
};

/// The user input for one delivery (see [`prompt::user_input`]).
pub fn user_input(env: &TrialEnv, delivery: &Delivery, first: bool) -> String {
    prompt::user_input(&env.agent, &env.agent_root, delivery, first, &WORDING)
}

/// What `openclaw agent --json` printed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct RunResult {
    /// The final reply (all text payloads, in order).
    pub reply: Option<String>,
    /// The error OpenClaw reported (`{"ok": false, "error": {...}}`).
    pub error: Option<String>,
    /// Whether the error is the model endpoint failing rather than OpenClaw itself.
    pub model_failure: bool,
}

/// Parses the JSON document `openclaw agent --json` prints on stdout.
pub fn parse_result(stdout: &str) -> RunResult {
    let Some(value) = first_json(stdout) else {
        return RunResult::default();
    };
    if let Some(error) = value
        .get("error")
        .filter(|_| value.get("ok") == Some(&Value::Bool(false)))
    {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned);
        // OpenClaw words provider failures as "<provider>/<model> request failed (...)".
        let model_failure = message.contains("request failed");
        return RunResult {
            reply: None,
            error: Some(message),
            model_failure,
        };
    }
    let texts: Vec<&str> = value
        .get("payloads")
        .and_then(Value::as_array)
        .map(|payloads| {
            payloads
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let reply = if texts.is_empty() {
        value
            .pointer("/meta/finalAssistantVisibleText")
            .and_then(Value::as_str)
            .map(str::to_owned)
    } else {
        Some(texts.join("\n\n"))
    };
    RunResult {
        reply: Some(reply.unwrap_or_default()),
        error: None,
        model_failure: false,
    }
}

/// The `--json` result as recorded in the trace: compact, and without the system
/// prompt report (about 16 KB of tool schemas and injected files, the same every turn)
/// except on a session's first delivery. Unparsable output is kept as printed.
pub fn stdout_evidence(stdout: &str, keep_prompt_report: bool) -> String {
    let Some(mut value) = first_json(stdout) else {
        return stdout.to_owned();
    };
    if !keep_prompt_report {
        if let Some(meta) = value.get_mut("meta").and_then(Value::as_object_mut) {
            meta.remove("systemPromptReport");
        }
    }
    value.to_string()
}

/// The JSON object on stdout (OpenClaw may print stray lines before it).
fn first_json(stdout: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(stdout.trim()) {
        return Some(v);
    }
    let start = stdout.find('{')?;
    serde_json::from_str(&stdout[start..]).ok()
}

/// A node script that prints, one JSON line each, the transcript events of one session
/// key whose row id is above a watermark: `{"rowid", "session_id", "seq", "event"}`.
/// Large events are stored zstd-compressed. Arguments: database, session key, watermark.
pub const EXPORT_SCRIPT: &str = r#"
const { DatabaseSync } = require("node:sqlite");
const zlib = require("node:zlib");
const [db, key, after] = process.argv.slice(1);
const conn = new DatabaseSync(db, { readOnly: true });
const rows = conn.prepare(
  "SELECT e.rowid AS rowid, e.session_id AS sid, e.seq AS seq, e.event_json AS j, e.event_zstd AS z " +
  "FROM transcript_events e JOIN session_windows w ON w.session_id = e.session_id " +
  "WHERE w.session_key = ? AND e.rowid > ? ORDER BY e.rowid").all(key, Number(after));
for (const r of rows) {
  let text = r.j;
  if (text == null && r.z != null) text = zlib.zstdDecompressSync(r.z).toString("utf8");
  process.stdout.write(JSON.stringify({ rowid: r.rowid, session_id: r.sid, seq: r.seq, event: JSON.parse(text || "null") }) + "\n");
}
"#;

/// The session key OpenClaw files the session `session_id` under (OpenClaw lowercases
/// keys).
pub fn session_key(session_id: &str) -> String {
    format!("agent:main:explicit:{}", session_id.to_lowercase())
}

/// The highest row id among exported transcript lines.
pub fn last_rowid(export: &str) -> Option<i64> {
    export
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|v| v.get("rowid").and_then(Value::as_i64))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_all_text_payloads() {
        let out = r#"{"payloads": [{"text": "one", "mediaUrl": null}, {"mediaUrl": "x"}, {"text": "two"}], "meta": {}}"#;
        assert_eq!(parse_result(out).reply.as_deref(), Some("one\n\ntwo"));
        let none = r#"{"payloads": [], "meta": {"finalAssistantVisibleText": "fallback"}}"#;
        assert_eq!(parse_result(none).reply.as_deref(), Some("fallback"));
    }

    #[test]
    fn the_prompt_report_is_kept_once_per_session() {
        let out = "{\n  \"payloads\": [],\n  \"meta\": {\"systemPromptReport\": {\"tools\": []}, \"stopReason\": \"stop\"}\n}";
        let kept: Value = serde_json::from_str(&stdout_evidence(out, false)).unwrap();
        assert_eq!(
            kept,
            json!({"payloads": [], "meta": {"stopReason": "stop"}})
        );
        assert!(!stdout_evidence(out, false).contains('\n'), "compact");
        assert!(stdout_evidence(out, true).contains("systemPromptReport"));
        assert_eq!(stdout_evidence("crashed", false), "crashed");
    }

    #[test]
    fn provider_failures_are_told_apart_from_other_errors() {
        let model = r#"{"ok": false, "error": {"type": "cli_error", "message": "cosec/m request failed (provider internal error, HTTP 500)."}}"#;
        let r = parse_result(model);
        assert!(r.model_failure && r.reply.is_none(), "{r:?}");
        let other = r#"{"ok": false, "error": {"type": "cli_error", "message": "config invalid"}}"#;
        let r = parse_result(other);
        assert_eq!(r.error.as_deref(), Some("config invalid"));
        assert!(!r.model_failure);
        assert_eq!(parse_result("not json"), RunResult::default());
    }

    #[test]
    fn session_ids_are_safe_and_distinct_per_community() {
        let a = session_id(&CommunityId::from("c-1"));
        let b = session_id(&CommunityId::from("c 2/x"));
        assert_eq!(a, "cosec-c-1");
        assert_eq!(b, "cosec-c_2_x");
        assert_eq!(session_key(&a), "agent:main:explicit:cosec-c-1");
    }

    #[test]
    fn the_gateway_port_avoids_the_relayed_proxy_and_keys_are_lowercase() {
        assert_eq!(gateway_port("http://127.0.0.1:4100/t/x/v1"), GATEWAY_PORT);
        let taken = format!("http://127.0.0.1:{GATEWAY_PORT}/t/x/v1");
        assert_eq!(gateway_port(&taken), GATEWAY_PORT + 1);
        assert_eq!(session_key("cosec-Team"), "agent:main:explicit:cosec-team");
    }

    #[test]
    fn watermark_is_the_highest_exported_row() {
        let export = "{\"rowid\": 4, \"event\": {}}\n{\"rowid\": 9, \"event\": {}}\n";
        assert_eq!(last_rowid(export), Some(9));
        assert_eq!(last_rowid(""), None);
    }
}
