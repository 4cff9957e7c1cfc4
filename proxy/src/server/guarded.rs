//! The guard applied to one model response, whole or streamed, in wire JSON.
//!
//! A [`ReplyGuard`] holds what a response needs: the trial's guard, the turn in force
//! when the request arrived and the `policy_blocked` tool as the request offers it.
//! Every string of a response is read (see [`crate::wire::fields`]): reply text,
//! reasoning, refusals, annotations, every choice and every field the guard does not
//! know are disclosures to the session's community. Each tool call (Chat Completions
//! `tool_calls`, custom tools and the legacy `function_call`; Responses
//! `function_call` and `custom_tool_call` items) is checked and kept, rewritten
//! (arguments redacted) or replaced by a `policy_blocked` call that keeps the original
//! id. Content the guard cannot read (image or audio data) is removed in enforce
//! mode, and `logprobs`, which repeat the reply token by token, are dropped when their
//! joined tokens hold anything denied. Text and unreadable content are the output
//! layer's: with `--guard-layers input` they pass unchanged, and only tool calls are
//! decided (a call that moves labeled content is blocked by its labels).

use crate::api::{ModelRequest, ToolCall, ToolSpec};
use crate::guard::{
    find_policy_blocked, policy_blocked_call, reply_destination, GuardLayer, GuardMode, GuardPoint,
    StreamGuard, ToolCallVerdict, TrialGuard, BLOCKED_NAMES, MARKER, SEGMENT_BYTES,
};
use crate::registry::TurnContext;
use crate::wire::fields::{self, Opaque};
use cosec_scenarios::Action;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};

/// Keys of a tool-call object that make the call itself (checked as a call).
const CALL_KEYS: &[&str] = &[
    "id",
    "type",
    "function",
    "custom",
    "name",
    "arguments",
    "input",
    "call_id",
    "namespace",
    "status",
];

/// The shapes a tool call takes in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallForm {
    /// Chat Completions `{"type": "function", "function": {"name", "arguments"}}`.
    Function,
    /// Chat Completions `{"type": "custom", "custom": {"name", "input"}}`.
    Custom,
    /// The legacy Chat Completions `function_call: {"name", "arguments"}`.
    Legacy,
    /// A Responses `function_call` or `custom_tool_call` item.
    Item,
}

/// The guard of one response.
#[derive(Clone)]
pub(crate) struct ReplyGuard {
    guard: Arc<TrialGuard>,
    ctx: TurnContext,
    offered: Option<ToolSpec>,
    /// Texts of this response already read and found to hold nothing protected (a
    /// streamed Responses reply repeats its instructions and tools in several events).
    clean: Arc<Mutex<HashSet<u64>>>,
    hasher: RandomState,
}

impl ReplyGuard {
    /// The guard for a response to `request` in turn `ctx`.
    pub fn new(guard: Arc<TrialGuard>, ctx: TurnContext, request: &ModelRequest) -> Self {
        ReplyGuard {
            guard,
            ctx,
            offered: find_policy_blocked(request).cloned(),
            clean: Arc::new(Mutex::new(HashSet::new())),
            hasher: RandomState::new(),
        }
    }

    /// Whether the guard changes responses (enforce) or only decides (shadow).
    pub fn enforcing(&self) -> bool {
        self.guard.mode() == GuardMode::Enforce
    }

    /// Whether the output layer runs: without it reply text and content the guard
    /// cannot read pass unchanged, and only tool calls are decided (by label).
    pub fn reads_text(&self) -> bool {
        self.guard.layers().output
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
        let key = self.hasher.hash_one(text);
        let known_clean = self.clean.lock().map(|c| c.contains(&key)).unwrap_or(false);
        if known_clean {
            return text.to_owned();
        }
        if text.len() > SEGMENT_BYTES {
            // A long text goes through a stream guard piece by piece, so the matcher
            // holds a window of it at a time rather than the whole.
            let mut stream = self.stream();
            let mut out = String::with_capacity(text.len());
            let mut rest = text;
            while !rest.is_empty() {
                let mut end = rest.len().min(SEGMENT_BYTES / 4);
                while !rest.is_char_boundary(end) {
                    end += 1;
                }
                let (piece, tail) = rest.split_at(end);
                out.push_str(&stream.push(piece));
                rest = tail;
            }
            out.push_str(&stream.finish());
            return out;
        }
        let checked = self.guard.check_text(
            &self.ctx,
            text,
            Action::Disclose,
            &reply_destination(&self.ctx),
            GuardPoint::Response,
        );
        if checked.detected == 0 && !checked.denied {
            if let Ok(mut c) = self.clean.lock() {
                c.insert(key);
            }
        }
        checked.text
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

    /// The call to let through in place of `call`. A tool name that carries denied
    /// content blocks the call.
    pub fn call(&self, call: &ToolCall) -> ToolCall {
        if self.text(&call.name) != call.name {
            return policy_blocked_call(call, BLOCKED_NAMES, self.offered.as_ref());
        }
        match self.guard.check_tool_call(&self.ctx, call) {
            ToolCallVerdict::Allow => call.clone(),
            ToolCallVerdict::Rewrite(new) => new,
            ToolCallVerdict::Block { reason } => {
                policy_blocked_call(call, &reason, self.offered.as_ref())
            }
        }
    }

    /// Traces content the output layer cannot read (removed in enforce mode).
    pub fn unreadable(&self, what: &str) {
        self.guard.trace_unreadable(
            &self.ctx,
            GuardPoint::Response,
            GuardLayer::Output,
            Action::Disclose,
            &reply_destination(&self.ctx),
            what,
        );
    }

    /// A whole response body of either wire API (non-streamed, or one event of a
    /// stream), in place; returns whether anything changed.
    pub fn body(&self, body: &mut Value) -> bool {
        self.value("", body)
    }

    /// Any response value found under `key`, in place: each string whole.
    pub fn value(&self, key: &str, v: &mut Value) -> bool {
        match v {
            Value::String(s) => !fields::is_structural(key, s) && self.string(s),
            Value::Array(items) => items
                .iter_mut()
                .fold(false, |changed, item| self.value(key, item) | changed),
            Value::Object(map) => {
                if let Some(what) = opaque_output(key, map).filter(|_| self.reads_text()) {
                    self.unreadable(&format!("{what}: the guard reads text only"));
                    replace_opaque(key, v);
                    return true;
                }
                self.object(key, map)
            }
            _ => false,
        }
    }

    /// A response string, in place.
    fn string(&self, s: &mut String) -> bool {
        let checked = self.text(s);
        if checked != *s {
            *s = checked;
            return true;
        }
        false
    }

    fn object(&self, key: &str, map: &mut Map<String, Value>) -> bool {
        let mut changed = false;
        if let Some(form) = call_form(key, map) {
            changed |= self.call_in(form, map);
            for (k, item) in map.iter_mut() {
                if !CALL_KEYS.contains(&k.as_str()) {
                    changed |= self.value(k, item);
                }
            }
            return changed;
        }
        for (k, item) in map.iter_mut() {
            changed |= if k == "logprobs" {
                self.logprobs(item)
            } else {
                self.value(k, item)
            };
        }
        changed
    }

    /// A tool call of any form, checked and written back when the guard changed it.
    fn call_in(&self, form: CallForm, map: &mut Map<String, Value>) -> bool {
        let Some(call) = call_of(form, map) else {
            return false;
        };
        let new = self.call(&call);
        if new == call {
            return false;
        }
        match form {
            CallForm::Function => {
                map.insert(
                    "function".into(),
                    json!({"name": new.name, "arguments": new.arguments}),
                );
            }
            CallForm::Custom if new.name == call.name => {
                if let Some(custom) = map.get_mut("custom").and_then(Value::as_object_mut) {
                    custom.insert("input".into(), json!(new.arguments));
                }
            }
            CallForm::Custom => {
                map.remove("custom");
                map.insert("type".into(), json!("function"));
                map.insert(
                    "function".into(),
                    json!({"name": new.name, "arguments": new.arguments}),
                );
            }
            CallForm::Legacy => {
                map.insert("name".into(), json!(new.name));
                map.insert("arguments".into(), json!(new.arguments));
            }
            CallForm::Item => set_call(map, &call, &new),
        }
        true
    }

    /// `logprobs` repeat the reply token by token: dropped when their tokens, joined,
    /// hold anything the guard would withhold.
    fn logprobs(&self, v: &mut Value) -> bool {
        let mut joined = String::new();
        collect_tokens(v, &mut joined);
        if joined.is_empty() || self.text(&joined) == joined {
            return false;
        }
        *v = Value::Null;
        true
    }

    /// A non-streaming `chat.completion` body, in place; returns whether it changed.
    pub fn chat_json(&self, body: &mut Value) -> bool {
        self.body(body)
    }

    /// A non-streaming `response` body, in place; returns whether it changed.
    pub fn responses_json(&self, body: &mut Value) -> bool {
        self.body(body)
    }

    /// A Responses API output item (a message, a tool call or anything else), in
    /// place; returns whether it changed.
    pub fn responses_item(&self, item: &mut Value) -> bool {
        self.value("", item)
    }
}

/// Every `token` string under a `logprobs` value, in order.
fn collect_tokens(v: &Value, out: &mut String) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| collect_tokens(i, out)),
        Value::Object(map) => {
            if let Some(Value::String(t)) = map.get("token") {
                out.push_str(t);
            }
            for (k, item) in map {
                if k != "top_logprobs" {
                    collect_tokens(item, out);
                }
            }
        }
        _ => {}
    }
}

/// What a response object is when the guard cannot read it: an image, audio or file
/// part, an image generation result, or chat audio data.
fn opaque_output(key: &str, map: &Map<String, Value>) -> Option<String> {
    match fields::opaque_part(map) {
        Some(Opaque::Media(kind)) => Some(format!("a `{kind}` part")),
        Some(Opaque::Reference) => Some("an `item_reference`".to_owned()),
        None if key == "audio" && map.get("data").is_some_and(|d| !d.is_null()) => {
            Some("audio data".to_owned())
        }
        None => None,
    }
}

/// Stands a readable marker in for content the guard cannot read: a text part for a
/// part, an audio object without its data (its transcript is read like any text).
fn replace_opaque(key: &str, v: &mut Value) {
    let Some(map) = v.as_object_mut() else {
        return;
    };
    if key == "audio" && fields::opaque_part(map).is_none() {
        map.insert("data".into(), json!(""));
        return;
    }
    let text_kind = match map.get("type").and_then(Value::as_str) {
        Some(k) if k.starts_with("output_") || k.starts_with("input_") || k.ends_with("_call") => {
            "output_text"
        }
        _ => "text",
    };
    *v = json!({"type": text_kind, "text": MARKER});
}

/// Which tool-call form `map` (found under `key`) is, if it is one.
fn call_form(key: &str, map: &Map<String, Value>) -> Option<CallForm> {
    let kind = map.get("type").and_then(Value::as_str);
    let named = |v: Option<&Value>| v.and_then(|f| f.get("name")).is_some_and(Value::is_string);
    if named(map.get("function")) {
        Some(CallForm::Function)
    } else if kind == Some("custom") && named(map.get("custom")) {
        Some(CallForm::Custom)
    } else if key == "function_call" && map.get("name").is_some_and(Value::is_string) {
        Some(CallForm::Legacy)
    } else if matches!(kind, Some("function_call" | "custom_tool_call"))
        && map.get("name").is_some_and(Value::is_string)
    {
        Some(CallForm::Item)
    } else {
        None
    }
}

/// The call a tool-call object of `form` makes.
fn call_of(form: CallForm, map: &Map<String, Value>) -> Option<ToolCall> {
    let text = |v: Option<&Value>| crate::wire::arguments_text(v);
    let id = map
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Some(match form {
        CallForm::Function => {
            let f = map.get("function")?;
            ToolCall {
                id,
                name: str_of(f, "name"),
                namespace: None,
                arguments: text(f.get("arguments")),
            }
        }
        CallForm::Custom => {
            let c = map.get("custom")?;
            ToolCall {
                id,
                name: str_of(c, "name"),
                namespace: None,
                arguments: text(c.get("input")),
            }
        }
        CallForm::Legacy => ToolCall {
            id,
            name: map.get("name")?.as_str()?.to_owned(),
            namespace: None,
            arguments: text(map.get("arguments")),
        },
        CallForm::Item => ToolCall {
            id: map
                .get("call_id")
                .and_then(Value::as_str)
                .map_or(id, str::to_owned),
            name: map.get("name")?.as_str()?.to_owned(),
            namespace: map
                .get("namespace")
                .and_then(Value::as_str)
                .map(str::to_owned),
            arguments: text(map.get("arguments").or_else(|| map.get("input"))),
        },
    })
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
pub(crate) fn set_call(obj: &mut Map<String, Value>, old: &ToolCall, new: &ToolCall) {
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
