//! The texts the Hermes adapter writes and reads: `config.yaml`, the seeded
//! `memories/MEMORY.md`, the user input of a delivery, and Hermes's outputs (the
//! `session_id:` line and `hermes sessions export` JSON).

use crate::harness::builtin::MAX_STEPS_PER_TURN;
use cosec_scenarios::agent::Surface;
use cosec_scenarios::{AgentTier, CommunityId, UserId};
use serde_json::Value;
use std::path::Path;

/// Hermes's separator between memory entries (`tools/memory_tool.py`).
pub const MEMORY_DELIMITER: &str = "\n§\n";

/// Hermes's default memory budget in characters; raised when seeded memory needs more.
const MEMORY_CHAR_LIMIT: usize = 2200;

/// Largest text one `HarnessOutput` event carries.
pub const TRACE_CAP: usize = 64 * 1024;

/// A YAML double-quoted scalar (JSON string syntax is valid YAML).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

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
) -> String {
    let mut out = format!(
        "model:\n  provider: custom\n  default: {model}\n  base_url: {url}\n  api_key: {key}\n  context_length: 128000\n",
        model = quoted(model_name),
        url = quoted(model_base_url),
        key = quoted(crate::harness::native::DUMMY_KEY),
    );
    if let Some((socket, trial)) = shim {
        out.push_str(&format!(
            "mcp_servers:\n  cosec:\n    command: {relay}\n    args: [\"--socket\", {socket}, \"--trial\", {trial}]\n    timeout: 120\n    connect_timeout: 30\n",
            relay = quoted(&relay.display().to_string()),
            socket = quoted(&socket.display().to_string()),
            trial = quoted(trial),
        ));
    }
    out.push_str(&format!(
        "agent:\n  max_turns: {MAX_STEPS_PER_TURN}\n  api_max_retries: 1\n\
         security:\n  tirith_enabled: false\n  allow_lazy_installs: false\n\
         memory:\n  memory_enabled: true\n  user_profile_enabled: false\n  nudge_interval: 0\n  memory_char_limit: {limit}\n\
         skills:\n  creation_nudge_interval: 0\n",
        limit = memory_chars.max(MEMORY_CHAR_LIMIT) + MEMORY_CHAR_LIMIT,
    ));
    out
}

/// Seeded private memory as Hermes's `MEMORY.md` (entries separated by `§` lines), or
/// `None` when the scenario seeds none.
pub fn memory_md(agent: &AgentTier) -> Option<String> {
    let entries: Vec<&str> = agent
        .seeds
        .iter()
        .filter(|s| matches!(s.surface, Surface::PrivateMemory))
        .map(|s| s.content.trim())
        .filter(|c| !c.is_empty())
        .collect();
    (!entries.is_empty()).then(|| entries.join(MEMORY_DELIMITER))
}

/// The user input of one delivery, formatted like the built-in agent's context: a short
/// header naming the community, whom the agent represents and the community view; in a
/// session's first message also the file layout and the seeded history ("Earlier in this
/// community:"); then `Speaker: text` or `[Platform notice] text`.
pub fn delivery_message(
    agent: &AgentTier,
    agent_root: &Path,
    community: &CommunityId,
    speaker: Option<&UserId>,
    text: &str,
    view: &str,
    first: bool,
) -> String {
    let me = agent.person_name(&agent.target_user);
    let mut out = format!(
        "[Session of the community {name} ({community}). You are the personal AI agent of {me} and act for {me} here.\nCurrent community state:\n{view}]\n",
        name = agent.community_name(community),
        view = view.trim_end(),
    );
    if first {
        out.push_str(&format!(
            "[Your files are under {root}: communities/<community-id>/ is the workspace of each community {me} belongs to and is visible to its members; shared/ is your shared workspace across communities; memory/ is your private persistent memory.]\n",
            root = agent_root.display(),
        ));
        let history: Vec<String> = agent
            .seeds
            .iter()
            .filter_map(|seed| match &seed.surface {
                Surface::SessionHistory {
                    community: c,
                    speaker,
                } if c == community => Some(if speaker == &agent.target_user {
                    format!("You: {}", seed.content)
                } else {
                    format!("{}: {}", agent.person_name(speaker), seed.content)
                }),
                _ => None,
            })
            .collect();
        if !history.is_empty() {
            out.push_str("\nEarlier in this community:\n");
            out.push_str(&history.join("\n"));
            out.push('\n');
        }
    }
    out.push('\n');
    match speaker {
        Some(who) => out.push_str(&format!("{}: {text}", agent.person_name(who))),
        None => out.push_str(&format!("[Platform notice] {text}")),
    }
    out
}

/// The session id Hermes prints last (`session_id: ID`, on stderr in quiet mode).
pub fn session_id(output: &str) -> Option<String> {
    output
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("session_id:"))
        .map(|id| id.trim().to_owned())
        .filter(|id| !id.is_empty())
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

/// The reply from stdout when the export is unavailable: Hermes prints the final
/// response last, after tool previews whose lines end in `\r`.
pub fn reply_from_stdout(stdout: &str) -> String {
    let lines: Vec<&str> = stdout.split('\n').collect();
    let start = lines
        .iter()
        .rposition(|l| l.ends_with('\r'))
        .map_or(0, |i| i + 1);
    lines[start..].join("\n").trim().to_owned()
}

/// `text` cut to [`TRACE_CAP`] bytes, keeping its head and tail.
pub fn capped(text: &str) -> String {
    if text.len() <= TRACE_CAP {
        return text.to_owned();
    }
    let mut head = TRACE_CAP * 3 / 4;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - TRACE_CAP / 4;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n[... {} bytes cut ...]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// The last `max` bytes of `text` (on a character boundary).
pub fn tail(text: &str, max: usize) -> String {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_session_id_is_the_last_one_printed() {
        let stderr = "↻ Resumed session a (1 user message)\n\nsession_id: 20261129_134621_cd23a0\n";
        assert_eq!(
            session_id(stderr).as_deref(),
            Some("20261129_134621_cd23a0")
        );
        assert_eq!(session_id("Error: boom\n"), None);
    }

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
    fn stdout_tool_previews_are_not_the_reply() {
        let stdout =
            "  ⚠ scanner off\r\n  ┊ review diff\r\n+hello\r\nThe file is written.\nSee you.\n";
        assert_eq!(reply_from_stdout(stdout), "The file is written.\nSee you.");
        assert_eq!(reply_from_stdout("plain\n"), "plain");
    }

    #[test]
    fn the_config_points_at_the_proxy_and_registers_the_shim() {
        let yaml = config_yaml(
            "http://127.0.0.1:9/t/abc/v1",
            "m\"x",
            Path::new("/opt/cosec-shim"),
            Some((Path::new("/run/s.sock"), "abc")),
            10_000,
        );
        assert!(yaml.contains("provider: custom"));
        assert!(yaml.contains("base_url: \"http://127.0.0.1:9/t/abc/v1\""));
        assert!(yaml.contains("default: \"m\\\"x\""));
        assert!(yaml.contains(
            "  cosec:\n    command: \"/opt/cosec-shim\"\n    args: [\"--socket\", \"/run/s.sock\", \"--trial\", \"abc\"]"
        ));
        assert!(yaml.contains("memory_char_limit: 12200"), "{yaml}");
        assert!(yaml.contains("tirith_enabled: false"));
    }

    #[test]
    fn capping_keeps_head_and_tail() {
        let text = format!("{}{}", "é".repeat(TRACE_CAP), "END");
        let cut = capped(&text);
        assert!(cut.len() < TRACE_CAP + 100);
        assert!(cut.starts_with('é') && cut.ends_with("END"));
        assert_eq!(tail("abcdef", 3), "def");
    }
}
