//! The guard applied to one model response, whole or streamed, in wire JSON.
//!
//! A [`ReplyGuard`] holds what a response needs: the trial's guard, the turn in force
//! when the request arrived and the `policy_blocked` tool as the request offers it.
//! Reply text is a disclosure to the session's community; each tool call is checked
//! and kept, rewritten (arguments redacted) or replaced by a `policy_blocked` call that
//! keeps the original id.

use crate::api::{ModelRequest, ToolCall, ToolSpec};
use crate::guard::{
    find_policy_blocked, policy_blocked_call, reply_destination, GuardMode, GuardPoint,
    StreamGuard, ToolCallVerdict, TrialGuard,
};
use crate::registry::TurnContext;
use cosec_scenarios::Action;
use serde_json::{json, Value};
use std::sync::Arc;

/// The guard of one response.
#[derive(Clone)]
pub(crate) struct ReplyGuard {
    guard: Arc<TrialGuard>,
    ctx: TurnContext,
    offered: Option<ToolSpec>,
}

impl ReplyGuard {
    /// The guard for a response to `request` in turn `ctx`.
    pub fn new(guard: Arc<TrialGuard>, ctx: TurnContext, request: &ModelRequest) -> Self {
        ReplyGuard {
            guard,
            ctx,
            offered: find_policy_blocked(request).cloned(),
        }
    }

    /// Whether the guard changes responses (enforce) or only decides (shadow).
    pub fn enforcing(&self) -> bool {
        self.guard.mode() == GuardMode::Enforce
    }

    /// The trial guard.
    pub fn trial_guard(&self) -> &Arc<TrialGuard> {
        &self.guard
    }

    /// The turn the response belongs to.
    pub fn ctx(&self) -> &TurnContext {
        &self.ctx
    }

    /// A whole reply text, redacted.
    pub fn text(&self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        self.guard
            .check_text(
                &self.ctx,
                text,
                Action::Disclose,
                &reply_destination(&self.ctx),
                GuardPoint::Response,
            )
            .text
    }

    /// A streamed reply text.
    pub fn stream(&self) -> StreamGuard {
        self.guard.stream(
            &self.ctx,
            Action::Disclose,
            &reply_destination(&self.ctx),
            GuardPoint::Response,
        )
    }

    /// The call to let through in place of `call`.
    pub fn call(&self, call: &ToolCall) -> ToolCall {
        match self.guard.check_tool_call(&self.ctx, call) {
            ToolCallVerdict::Allow => call.clone(),
            ToolCallVerdict::Rewrite(new) => new,
            ToolCallVerdict::Block { reason } => {
                policy_blocked_call(call, &reason, self.offered.as_ref())
            }
        }
    }

    /// A Chat Completions message object (`choices[i].message`), in place; returns
    /// whether anything changed.
    pub fn chat_message(&self, message: &mut Value) -> bool {
        let mut changed = self.text_in(message, "content");
        let Some(Value::Array(calls)) = message.get_mut("tool_calls") else {
            return changed;
        };
        for c in calls {
            let Some(f) = c.get("function") else {
                continue;
            };
            let call = ToolCall {
                id: str_of(c, "id"),
                name: str_of(f, "name"),
                namespace: None,
                arguments: crate::wire::arguments_text(f.get("arguments")),
            };
            let new = self.call(&call);
            if new != call {
                c["function"] = json!({"name": new.name, "arguments": new.arguments});
                changed = true;
            }
        }
        changed
    }

    /// A non-streaming `chat.completion` body, in place; returns whether it changed.
    pub fn chat_json(&self, body: &mut Value) -> bool {
        let mut changed = false;
        if let Some(Value::Array(choices)) = body.get_mut("choices") {
            for choice in choices {
                if let Some(m) = choice.get_mut("message") {
                    changed |= self.chat_message(m);
                }
            }
        }
        changed
    }

    /// A Responses API output item (a message or a tool call), in place; returns
    /// whether it changed.
    pub fn responses_item(&self, item: &mut Value) -> bool {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let mut changed = false;
                if let Some(Value::Array(parts)) = item.get_mut("content") {
                    for p in parts {
                        changed |= self.text_in(p, "text");
                    }
                }
                changed
            }
            Some("function_call" | "custom_tool_call") => {
                let Some(call) = call_of_item(item) else {
                    return false;
                };
                let new = self.call(&call);
                if new == call {
                    return false;
                }
                set_call(item, &call, &new);
                true
            }
            _ => false,
        }
    }

    /// A non-streaming `response` body, in place; returns whether it changed.
    pub fn responses_json(&self, body: &mut Value) -> bool {
        let mut changed = false;
        if let Some(Value::Array(items)) = body.get_mut("output") {
            for item in items {
                changed |= self.responses_item(item);
            }
        }
        changed
    }

    fn text_in(&self, obj: &mut Value, key: &str) -> bool {
        if let Some(Value::String(s)) = obj.get_mut(key) {
            let checked = self.text(s);
            if checked != *s {
                *s = checked;
                return true;
            }
        }
        false
    }
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The tool call a Responses `function_call` / `custom_tool_call` item makes.
pub(crate) fn call_of_item(item: &Value) -> Option<ToolCall> {
    Some(ToolCall {
        id: item.get("call_id")?.as_str()?.to_owned(),
        name: item.get("name")?.as_str()?.to_owned(),
        namespace: item
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_owned),
        arguments: crate::wire::arguments_text(item.get("arguments").or_else(|| item.get("input"))),
    })
}

/// Writes `new` into a call item that made `old`: a freeform call keeps its `input`
/// when only the input changed; a renamed call becomes a plain `function_call`.
pub(crate) fn set_call(item: &mut Value, old: &ToolCall, new: &ToolCall) {
    let Some(obj) = item.as_object_mut() else {
        return;
    };
    let freeform = obj.get("type").and_then(Value::as_str) == Some("custom_tool_call");
    if freeform && new.name == old.name && new.namespace == old.namespace {
        obj.insert("input".into(), json!(new.arguments));
        return;
    }
    if freeform {
        obj.insert("type".into(), json!("function_call"));
        obj.remove("input");
    }
    obj.insert("name".into(), json!(new.name));
    obj.insert("arguments".into(), json!(new.arguments));
    match &new.namespace {
        Some(ns) => {
            obj.insert("namespace".into(), json!(ns));
        }
        None => {
            obj.remove("namespace");
        }
    }
}
