//! The texts the Codex adapter writes and reads: `config.toml`, the user input of each
//! delivery, and the `--json` event stream of `codex exec`.

use crate::harness::message::{self, Orientation};
use crate::harness::{Delivery, TrialEnv};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;

/// Provider id in `config.toml`.
pub const PROVIDER: &str = "cosec";

/// MCP server name: Codex offers its tools in the namespace `mcp__cosec`.
pub const MCP_SERVER: &str = "cosec";

/// Variable holding the (dummy) API key; without `env_key` Codex sends no
/// Authorization header, which real upstreams behind the proxy may require.
pub const API_KEY_VAR: &str = "COSEC_MODEL_API_KEY";

/// Largest native text recorded in one `HarnessOutput` trace line.
pub const TRACE_CAP: usize = 64 * 1024;

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `$CODEX_HOME/config.toml` for one trial: the proxy as the only provider (Responses
/// wire API, no retries: the runner retries whole trials), no approvals, no Codex
/// sandbox (bubblewrap confines the whole process), web search off (the benchmark is
/// offline), and the shim relay as MCP server `cosec`.
pub fn config_toml(env: &TrialEnv, relay: &Path, socket: Option<&Path>) -> String {
    let mut args = Vec::new();
    if let Some(socket) = socket {
        args.push(toml_str("--socket"));
        args.push(toml_str(&socket.to_string_lossy()));
    }
    args.push(toml_str("--trial"));
    args.push(toml_str(&env.trial_id));
    format!(
        "model = {model}\n\
         model_provider = {PROVIDER:?}\n\
         approval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\n\
         check_for_update_on_startup = false\n\
         web_search = \"disabled\"\n\
         \n\
         [analytics]\n\
         enabled = false\n\
         \n\
         [model_providers.{PROVIDER}]\n\
         name = \"CoSec proxy\"\n\
         base_url = {base}\n\
         wire_api = \"responses\"\n\
         env_key = {API_KEY_VAR:?}\n\
         request_max_retries = 0\n\
         stream_max_retries = 0\n\
         \n\
         [mcp_servers.{MCP_SERVER}]\n\
         command = {relay}\n\
         args = [{args}]\n\
         startup_timeout_sec = 30\n\
         tool_timeout_sec = 120\n\
         \n\
         [projects.{root}]\n\
         trust_level = \"trusted\"\n",
        model = toml_str(&env.model_name),
        base = toml_str(&env.model_base_url),
        relay = toml_str(&relay.to_string_lossy()),
        args = args.join(", "),
        root = toml_str(&env.agent_root.to_string_lossy()),
    )
}

/// The user input for one delivery (see [`message::user_input`]).
pub fn user_input(env: &TrialEnv, delivery: &Delivery, first: bool) -> String {
    let root = env.agent_root.display();
    message::user_input(&env.agent, &env.agent_root, delivery, first, |me| {
        Orientation {
            files: format!(
                "Your files are under {root}: communities/<community-id>/ is the workspace of each community {me} belongs to and is visible to its members; shared/ is your shared workspace across communities; memory/ is your private persistent memory (memory/notes.md). Community actions (posting, messaging, sharing files, workflows, search and lookups) are the tools of the `{MCP_SERVER}` MCP server."
            ),
            memory_heading: format!("Your private memory ({root}/memory/notes.md)"),
        }
    })
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

/// Caps `text` at [`TRACE_CAP`] bytes, keeping its head and tail (the tail holds the
/// final reply and the turn result).
pub fn cap(text: &str) -> String {
    if text.len() <= TRACE_CAP {
        return text.to_owned();
    }
    let half = TRACE_CAP / 2;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n…[{} bytes cut]…\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// The last `max` bytes of `text` (on a character boundary), for error messages.
pub fn tail(text: &str, max: usize) -> String {
    let text = text.trim_end();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn toml_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(toml_str(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(toml_str("x\ny\u{1}"), "\"x\\ny\\u0001\"");
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

    #[test]
    fn capping_keeps_both_ends_and_respects_characters() {
        let text = format!("{}{}", "é".repeat(TRACE_CAP), "END");
        let capped = cap(&text);
        assert!(capped.len() <= TRACE_CAP + 64);
        assert!(capped.starts_with('é') && capped.ends_with("END"));
        assert!(capped.contains("bytes cut"));
        assert_eq!(cap("short"), "short");
        assert_eq!(tail("abcdef", 3), "…def");
    }
}
