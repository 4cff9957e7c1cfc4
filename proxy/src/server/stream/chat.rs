//! Guarded Chat Completions streams (`chat.completion.chunk` events).
//!
//! Every choice is guarded. Each string of a choice's delta (the content, reasoning,
//! a refusal, whatever field a server adds, nested or not) flows through a stream
//! guard of its own, keyed by choice and field path, so a leak split across chunks is
//! caught in every field. Tool-call deltas (and the legacy `function_call`) are held
//! per choice and call and emitted whole, checked, just before the chunk that carries
//! that choice's finish reason (or at the end of the stream). With the output layer on,
//! `logprobs` are dropped, since they repeat the reply token by token and cannot be held
//! back with it. Every other string of a chunk is read whole.

use super::{frame, raw_frame};
use crate::api::ToolCall;
use crate::guard::StreamGuard;
use crate::server::guarded::ReplyGuard;
use crate::wire::fields;
use crate::wire::sse::SseEvent;
use bytes::Bytes;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// A tool call being assembled from its deltas.
#[derive(Default)]
struct Pending {
    id: String,
    name: String,
    arguments: String,
    /// A custom (freeform) tool call rather than a function call.
    custom: bool,
}

impl Pending {
    fn call(self) -> (ToolCall, bool) {
        (
            ToolCall {
                id: self.id,
                name: self.name,
                namespace: None,
                arguments: self.arguments,
            },
            self.custom,
        )
    }
}

/// Where a held call sits: its choice, and its index (`None` for the legacy
/// `function_call`).
type CallKey = (u64, Option<u64>);

pub(super) struct ChatRewriter {
    guard: ReplyGuard,
    /// One stream guard per choice and delta field path.
    texts: BTreeMap<(u64, Vec<String>), StreamGuard>,
    calls: BTreeMap<CallKey, Pending>,
    /// `id`, `object`, `created`, `model` of the last chunk, for chunks made here.
    envelope: Map<String, Value>,
}

impl ChatRewriter {
    pub fn new(guard: ReplyGuard) -> Self {
        ChatRewriter {
            guard,
            texts: BTreeMap::new(),
            calls: BTreeMap::new(),
            envelope: Map::new(),
        }
    }

    pub fn event(&mut self, event: &SseEvent, out: &mut Vec<Bytes>) {
        if event.data.trim() == "[DONE]" {
            self.flush(None, out);
            out.push(raw_frame(event));
            return;
        }
        let Ok(mut v) = serde_json::from_str::<Value>(&event.data) else {
            // Not JSON: still text that reaches the client, read whole.
            let data = self.guard.text(&event.data);
            out.push(raw_frame(&SseEvent {
                event: event.event.clone(),
                data,
            }));
            return;
        };
        let Some(obj) = v.as_object_mut() else {
            self.guard.body(&mut v);
            out.push(frame(event.event.as_deref(), &v));
            return;
        };
        for key in ["id", "object", "created", "model", "system_fingerprint"] {
            if let Some(x) = obj.get(key) {
                self.envelope.insert(key.to_owned(), x.clone());
            }
        }
        let mut choices = match obj.remove("choices") {
            Some(Value::Array(c)) => Some(c),
            Some(other) => {
                obj.insert("choices".into(), other);
                None
            }
            None => None,
        };
        for (k, item) in obj.iter_mut() {
            if k != "choices" {
                self.guard.value(k, item);
            }
        }
        let Some(list) = choices.take() else {
            out.push(frame(event.event.as_deref(), &v));
            return;
        };
        let had_choices = !list.is_empty();
        let mut kept = Vec::with_capacity(list.len());
        for (position, mut choice) in list.into_iter().enumerate() {
            let index = choice
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(u64::try_from(position).unwrap_or(0));
            let finishing = choice.get("finish_reason").is_some_and(|f| !f.is_null());
            let says = self.choice(index, &mut choice);
            if finishing {
                self.flush(Some(index), out);
            }
            if says || finishing {
                kept.push(choice);
            }
        }
        let empty = kept.is_empty();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("choices".into(), Value::Array(kept));
            // A chunk whose every choice was held back says nothing now.
            let only_choices = obj.get("usage").is_none_or(Value::is_null);
            if had_choices && empty && only_choices {
                return;
            }
        }
        out.push(frame(event.event.as_deref(), &v));
    }

    /// Applies the guard to one choice of a chunk; returns whether it still says
    /// anything.
    fn choice(&mut self, index: u64, choice: &mut Value) -> bool {
        let Some(obj) = choice.as_object_mut() else {
            return true;
        };
        if obj.get("logprobs").is_some_and(|l| !l.is_null())
            && self.guard.enforcing()
            && self.guard.reads_text()
        {
            obj.insert("logprobs".into(), Value::Null);
        }
        for (k, item) in obj.iter_mut() {
            if !matches!(k.as_str(), "delta" | "logprobs") {
                self.guard.value(k, item);
            }
        }
        let Some(delta) = obj.get_mut("delta").and_then(Value::as_object_mut) else {
            return true;
        };
        if let Some(Value::Array(calls)) = delta.remove("tool_calls") {
            for c in &calls {
                self.hold_call(index, c);
            }
        }
        if let Some(f) = delta.remove("function_call") {
            self.hold_legacy(index, &f);
        }
        let keys: Vec<String> = delta.keys().cloned().collect();
        for key in keys {
            let keep = match delta.get_mut(&key) {
                Some(item) => self.stream_value(index, vec![key.clone()], item),
                None => true,
            };
            if !keep {
                delta.remove(&key);
            }
        }
        !delta.is_empty()
    }

    /// Streams every string under a delta field through its own guard; returns
    /// whether the field still says anything at the top level.
    fn stream_value(&mut self, choice: u64, path: Vec<String>, v: &mut Value) -> bool {
        let key = path.last().cloned().unwrap_or_default();
        match v {
            Value::String(s) => {
                if fields::is_structural(&key, s) {
                    return true;
                }
                if key == "data"
                    && path.first().is_some_and(|p| p == "audio")
                    && self.guard.reads_text()
                {
                    // Audio data cannot be read: removed in enforce mode.
                    if !s.is_empty() {
                        self.guard
                            .unreadable("audio data: the guard reads text only");
                        s.clear();
                    }
                    return true;
                }
                if s.is_empty() {
                    return path.len() > 1 || key == "content";
                }
                let guard = &self.guard;
                let released = self
                    .texts
                    .entry((choice, path.clone()))
                    .or_insert_with(|| guard.stream())
                    .push(s);
                *s = released;
                path.len() > 1 || !s.is_empty()
            }
            Value::Array(items) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let mut p = path.clone();
                    p.push(i.to_string());
                    self.stream_value(choice, p, item);
                }
                true
            }
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    let mut p = path.clone();
                    p.push(k.clone());
                    self.stream_value(choice, p, item);
                }
                true
            }
            _ => true,
        }
    }

    fn hold_call(&mut self, choice: u64, c: &Value) {
        let index = c
            .get("index")
            .and_then(Value::as_u64)
            .or_else(|| {
                self.calls
                    .keys()
                    .filter(|(ch, _)| *ch == choice)
                    .filter_map(|(_, i)| *i)
                    .next_back()
            })
            .unwrap_or(0);
        let p = self.calls.entry((choice, Some(index))).or_default();
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            p.id = id.to_owned();
        }
        let (part, args_key) = match c.get("custom") {
            Some(custom) => {
                p.custom = true;
                (Some(custom), "input")
            }
            None => (c.get("function"), "arguments"),
        };
        if let Some(part) = part {
            if let Some(name) = part.get("name").and_then(Value::as_str) {
                p.name.push_str(name);
            }
            if let Some(args) = part.get(args_key).and_then(Value::as_str) {
                p.arguments.push_str(args);
            }
        }
    }

    fn hold_legacy(&mut self, choice: u64, f: &Value) {
        let p = self.calls.entry((choice, None)).or_default();
        if let Some(name) = f.get("name").and_then(Value::as_str) {
            p.name.push_str(name);
        }
        if let Some(args) = f.get("arguments").and_then(Value::as_str) {
            p.arguments.push_str(args);
        }
    }

    fn chunk(&self, choice: u64, delta: Value) -> Value {
        let mut v = Value::Object(self.envelope.clone());
        v["choices"] = json!([{"index": choice, "delta": delta, "finish_reason": null}]);
        v
    }

    /// Emits the held text tails and the held calls of one choice (all choices when
    /// `None`), checked.
    fn flush(&mut self, only: Option<u64>, out: &mut Vec<Bytes>) {
        let keys: Vec<(u64, Vec<String>)> = self
            .texts
            .keys()
            .filter(|(c, _)| only.is_none_or(|o| o == *c))
            .cloned()
            .collect();
        for key in keys {
            let Some(mut guard) = self.texts.remove(&key) else {
                continue;
            };
            let tail = guard.finish();
            if !tail.is_empty() {
                let delta = nest(&key.1, Value::String(tail));
                out.push(frame(None, &self.chunk(key.0, delta)));
            }
        }
        let calls: Vec<CallKey> = self
            .calls
            .keys()
            .filter(|(c, _)| only.is_none_or(|o| o == *c))
            .copied()
            .collect();
        for key in calls {
            let Some(p) = self.calls.remove(&key) else {
                continue;
            };
            let (call, custom) = p.call();
            let new = self.guard.call(&call);
            let delta = match key.1 {
                None => json!({"function_call": {"name": new.name, "arguments": new.arguments}}),
                Some(index) if custom && new.name == call.name => {
                    json!({"tool_calls": [{"index": index, "id": new.id, "type": "custom",
                        "custom": {"name": new.name, "input": new.arguments}}]})
                }
                Some(index) => json!({"tool_calls": [{"index": index, "id": new.id,
                    "type": "function",
                    "function": {"name": new.name, "arguments": new.arguments}}]}),
            };
            out.push(frame(None, &self.chunk(key.0, delta)));
        }
    }

    pub fn finish(&mut self, out: &mut Vec<Bytes>) {
        self.flush(None, out);
    }
}

/// `leaf` placed at `path` inside a fresh object (array indexes become object keys,
/// which a delta never needs).
fn nest(path: &[String], leaf: Value) -> Value {
    path.iter()
        .rev()
        .fold(leaf, |inner, key| json!({ key.as_str(): inner }))
}
