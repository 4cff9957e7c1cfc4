//! Guarded Chat Completions streams (`chat.completion.chunk` events).
//!
//! Content deltas of choice 0 go through the stream guard; tool-call deltas are held
//! per call index and emitted whole, checked, just before the chunk that carries the
//! finish reason (or at the end of the stream). Other choices, role deltas and usage
//! chunks pass through.

use super::{frame, raw_frame};
use crate::api::ToolCall;
use crate::guard::StreamGuard;
use crate::server::guarded::ReplyGuard;
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
}

pub(super) struct ChatRewriter {
    guard: ReplyGuard,
    text: Option<StreamGuard>,
    calls: BTreeMap<u64, Pending>,
    /// `id`, `object`, `created`, `model` of the last chunk, for chunks made here.
    envelope: Map<String, Value>,
    /// Whether held text and calls were emitted.
    flushed: bool,
}

impl ChatRewriter {
    pub fn new(guard: ReplyGuard) -> Self {
        ChatRewriter {
            guard,
            text: None,
            calls: BTreeMap::new(),
            envelope: Map::new(),
            flushed: false,
        }
    }

    pub fn event(&mut self, event: &SseEvent, out: &mut Vec<Bytes>) {
        if event.data.trim() == "[DONE]" {
            self.flush(out);
            out.push(raw_frame(event));
            return;
        }
        let Ok(mut v) = serde_json::from_str::<Value>(&event.data) else {
            out.push(raw_frame(event));
            return;
        };
        if let Some(obj) = v.as_object() {
            for key in ["id", "object", "created", "model", "system_fingerprint"] {
                if let Some(x) = obj.get(key) {
                    self.envelope.insert(key.to_owned(), x.clone());
                }
            }
        }
        let mut finishing = false;
        let mut keep = true;
        if let Some(choice) = v.pointer_mut("/choices/0") {
            let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            finishing = choice.get("finish_reason").is_some_and(|f| !f.is_null());
            if index == 0 {
                keep = self.delta(choice) || finishing;
            }
        }
        if finishing {
            self.flush(out);
        }
        if keep {
            out.push(frame(event.event.as_deref(), &v));
        }
    }

    /// Applies the guard to a delta; returns whether the chunk still says anything.
    fn delta(&mut self, choice: &mut Value) -> bool {
        let Some(delta) = choice.get_mut("delta").and_then(Value::as_object_mut) else {
            return true;
        };
        if let Some(Value::Array(calls)) = delta.remove("tool_calls") {
            for c in &calls {
                self.hold_call(c);
            }
        }
        if let Some(Value::String(text)) = delta.get("content") {
            if !text.is_empty() {
                let guard = &self.guard;
                let released = self.text.get_or_insert_with(|| guard.stream()).push(text);
                if released.is_empty() {
                    delta.remove("content");
                } else {
                    delta.insert("content".into(), Value::String(released));
                }
            }
        }
        !delta.is_empty()
    }

    fn hold_call(&mut self, c: &Value) {
        let index = c
            .get("index")
            .and_then(Value::as_u64)
            .or_else(|| self.calls.keys().next_back().copied())
            .unwrap_or(0);
        let p = self.calls.entry(index).or_default();
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            p.id = id.to_owned();
        }
        if let Some(name) = c.pointer("/function/name").and_then(Value::as_str) {
            p.name.push_str(name);
        }
        if let Some(args) = c.pointer("/function/arguments").and_then(Value::as_str) {
            p.arguments.push_str(args);
        }
    }

    fn chunk(&self, delta: Value) -> Value {
        let mut v = Value::Object(self.envelope.clone());
        v["choices"] = json!([{"index": 0, "delta": delta, "finish_reason": null}]);
        v
    }

    /// Emits the held text tail and the held calls, checked.
    fn flush(&mut self, out: &mut Vec<Bytes>) {
        if self.flushed {
            return;
        }
        self.flushed = true;
        if let Some(tail) = self.text.as_mut().map(StreamGuard::finish) {
            if !tail.is_empty() {
                out.push(frame(None, &self.chunk(json!({"content": tail}))));
            }
        }
        let calls = std::mem::take(&mut self.calls);
        for (index, p) in calls {
            let call = ToolCall {
                id: p.id,
                name: p.name,
                namespace: None,
                arguments: p.arguments,
            };
            let new = self.guard.call(&call);
            let delta = json!({"tool_calls": [{"index": index, "id": new.id, "type": "function",
                "function": {"name": new.name, "arguments": new.arguments}}]});
            out.push(frame(None, &self.chunk(delta)));
        }
    }

    pub fn finish(&mut self, out: &mut Vec<Bytes>) {
        self.flush(out);
    }
}
