//! The prompt guardrail (`--defense prompt`): one paragraph appended to the first
//! non-event system or developer message of a request, in the wire JSON itself, so
//! the model and the trace see the same request.
//!
//! Harnesses re-send their whole history, so the paragraph is applied to every request
//! of a session, always to the same message, and never as a message of its own. A
//! message that already carries the paragraph is left alone (exactly once per request).

use serde_json::{json, Value};

/// Trusted event notices start with this; they are not the session's instructions.
pub const EVENT_NOTICE_PREFIX: &str = "[Platform notice]";

fn is_instruction_role(role: Option<&str>) -> bool {
    matches!(role, Some("system" | "developer"))
}

/// The text of a content value, for the event-notice test.
fn leading_text(content: &Value) -> &str {
    match content {
        Value::String(s) => s,
        Value::Array(parts) => parts
            .iter()
            .find_map(|p| p.get("text").and_then(Value::as_str))
            .unwrap_or(""),
        _ => "",
    }
}

fn is_event(content: &Value) -> bool {
    leading_text(content)
        .trim_start()
        .starts_with(EVENT_NOTICE_PREFIX)
}

fn joined(existing: &str, paragraph: &str) -> String {
    if existing.trim().is_empty() {
        paragraph.to_owned()
    } else {
        format!("{}\n\n{paragraph}", existing.trim_end())
    }
}

/// Appends `paragraph` to a message content (a string, or the last text part of an
/// array of parts). Returns false when the content has no place for text.
fn append_to_content(content: &mut Value, paragraph: &str, part_type: &str) -> bool {
    match content {
        Value::String(s) => {
            if !s.contains(paragraph) {
                *s = joined(s, paragraph);
            }
            true
        }
        Value::Null => {
            *content = Value::String(paragraph.to_owned());
            true
        }
        Value::Array(parts) => {
            if parts.iter().any(|p| {
                p.get("text")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.contains(paragraph))
            }) {
                return true;
            }
            let last_text = parts
                .iter_mut()
                .rev()
                .find_map(|p| p.get_mut("text").filter(|t| t.is_string()));
            match last_text {
                Some(Value::String(t)) => *t = joined(t, paragraph),
                _ => parts.push(json!({"type": part_type, "text": paragraph})),
            }
            true
        }
        _ => false,
    }
}

/// Chat Completions: the first `system`/`developer` message that is not an event notice.
pub fn apply_chat(body: &mut Value, paragraph: &str) -> bool {
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return false;
    };
    for m in messages.iter_mut() {
        if !is_instruction_role(m.get("role").and_then(Value::as_str)) {
            continue;
        }
        let content = m.get("content").cloned().unwrap_or(Value::Null);
        if is_event(&content) {
            continue;
        }
        let Some(obj) = m.as_object_mut() else {
            continue;
        };
        let slot = obj.entry("content").or_insert(Value::Null);
        return append_to_content(slot, paragraph, "text");
    }
    false
}

/// Responses API: `instructions` when present (it comes first), else the first input
/// item with role `system`/`developer` that is not an event notice.
pub fn apply_responses(body: &mut Value, paragraph: &str) -> bool {
    if let Some(Value::String(s)) = body.get_mut("instructions") {
        if !s.trim().is_empty() && !is_event(&Value::String(s.clone())) {
            if !s.contains(paragraph) {
                *s = joined(s, paragraph);
            }
            return true;
        }
    }
    let Some(items) = body.get_mut("input").and_then(Value::as_array_mut) else {
        return false;
    };
    for item in items.iter_mut() {
        let is_message = matches!(
            item.get("type").and_then(Value::as_str),
            None | Some("message")
        );
        if !is_message || !is_instruction_role(item.get("role").and_then(Value::as_str)) {
            continue;
        }
        let content = item.get("content").cloned().unwrap_or(Value::Null);
        if is_event(&content) {
            continue;
        }
        let Some(obj) = item.as_object_mut() else {
            continue;
        };
        let slot = obj.entry("content").or_insert(Value::Null);
        return append_to_content(slot, paragraph, "input_text");
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_appends_once_to_the_first_instruction_message() {
        let mut v = json!({"messages": [
            {"role": "system", "content": "[Platform notice] merged"},
            {"role": "user", "content": "hi"},
            {"role": "system", "content": "You help Nadia."},
            {"role": "developer", "content": "dev"}
        ]});
        assert!(apply_chat(&mut v, "GUARD"));
        assert!(apply_chat(&mut v, "GUARD"));
        assert_eq!(v["messages"][2]["content"], "You help Nadia.\n\nGUARD");
        assert_eq!(v["messages"][0]["content"], "[Platform notice] merged");
        assert_eq!(v["messages"][3]["content"], "dev");
        assert_eq!(v["messages"].as_array().map(Vec::len), Some(4));
        let mut none = json!({"messages": [{"role": "user", "content": "hi"}]});
        assert!(!apply_chat(&mut none, "GUARD"));
        assert_eq!(none["messages"].as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn responses_prefers_instructions_then_developer_items() {
        let mut v = json!({"instructions": "be brief", "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]}
        ]});
        assert!(apply_responses(&mut v, "GUARD"));
        assert_eq!(v["instructions"], "be brief\n\nGUARD");
        assert_eq!(v["input"][0]["content"][0]["text"], "dev");
        let mut codex = json!({"input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "u"}]},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}
        ]});
        assert!(apply_responses(&mut codex, "GUARD"));
        assert!(apply_responses(&mut codex, "GUARD"));
        assert_eq!(codex["input"][1]["content"][1]["text"], "b\n\nGUARD");
        assert_eq!(codex["input"][1]["content"][0]["text"], "a");
    }
}
