//! Guarded Responses API streams (named `response.*` events).
//!
//! `response.output_text.delta` events go through one stream guard per
//! `(output_index, content_index)`; the `*.done` events and the final
//! `response.completed` carry the guarded text. A tool-call item is held from its
//! `output_item.added` to its `output_item.done` (argument deltas included), then
//! checked and emitted as `added`, one arguments delta, `arguments.done` and `done`.
//! Sequence numbers are renumbered, since events are dropped and added.

use super::{frame, raw_frame};
use crate::guard::StreamGuard;
use crate::server::guarded::{call_of_item, set_call, ReplyGuard};
use crate::wire::sse::SseEvent;
use bytes::Bytes;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

type Key = (u64, u64);

/// One streamed text part.
struct Part {
    guard: Option<StreamGuard>,
    item_id: Value,
    /// The guarded text released so far (all of it once finished).
    text: String,
    finished: bool,
}

pub(super) struct ResponsesRewriter {
    guard: ReplyGuard,
    parts: BTreeMap<Key, Part>,
    /// Tool-call items being held, by output index, with their argument deltas.
    held: BTreeMap<u64, (Value, String)>,
    /// Items as emitted in their `output_item.done`, by item id or call id.
    emitted: HashMap<String, Value>,
    seq: u64,
}

fn index(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn is_call(item: &Value) -> bool {
    matches!(
        item.get("type").and_then(Value::as_str),
        Some("function_call" | "custom_tool_call")
    )
}

fn item_key(item: &Value) -> Option<String> {
    item.get("id")
        .or_else(|| item.get("call_id"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

impl ResponsesRewriter {
    pub fn new(guard: ReplyGuard) -> Self {
        ResponsesRewriter {
            guard,
            parts: BTreeMap::new(),
            held: BTreeMap::new(),
            emitted: HashMap::new(),
            seq: 0,
        }
    }

    fn emit(&mut self, out: &mut Vec<Bytes>, name: &str, mut payload: Value, named: bool) {
        if let Some(obj) = payload.as_object_mut() {
            obj.insert("type".into(), json!(name));
            if obj.contains_key("sequence_number") || named {
                obj.insert("sequence_number".into(), json!(self.seq));
            }
        }
        self.seq += 1;
        out.push(frame(named.then_some(name), &payload));
    }

    pub fn event(&mut self, event: &SseEvent, out: &mut Vec<Bytes>) {
        let Ok(mut v) = serde_json::from_str::<Value>(&event.data) else {
            out.push(raw_frame(event));
            return;
        };
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or_default()
            .to_owned();
        let named = event.event.is_some();
        match kind.as_str() {
            "response.output_item.added" if v.get("item").is_some_and(is_call) => {
                let item = v.get("item").cloned().unwrap_or(Value::Null);
                self.held
                    .insert(index(&v, "output_index"), (item, String::new()));
                return;
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                if let Some((_, args)) = self.held.get_mut(&index(&v, "output_index")) {
                    args.push_str(v.get("delta").and_then(Value::as_str).unwrap_or_default());
                }
                return;
            }
            "response.function_call_arguments.done" | "response.custom_tool_call_input.done" => {
                return
            }
            "response.output_text.delta" => {
                let key = (index(&v, "output_index"), index(&v, "content_index"));
                let delta = v.get("delta").and_then(Value::as_str).unwrap_or_default();
                let item_id = v.get("item_id").cloned().unwrap_or(Value::Null);
                let guard = &self.guard;
                let part = self.parts.entry(key).or_insert_with(|| Part {
                    guard: Some(guard.stream()),
                    item_id,
                    text: String::new(),
                    finished: false,
                });
                if part.finished {
                    return;
                }
                let released = part
                    .guard
                    .as_mut()
                    .map(|g| g.push(delta))
                    .unwrap_or_default();
                if released.is_empty() {
                    return;
                }
                part.text.push_str(&released);
                v["delta"] = json!(released);
            }
            "response.output_text.done" => {
                let key = (index(&v, "output_index"), index(&v, "content_index"));
                let whole = v.get("text").and_then(Value::as_str).unwrap_or_default();
                v["text"] = json!(self.finish_part(key, whole, out));
            }
            "response.content_part.done" => {
                let key = (index(&v, "output_index"), index(&v, "content_index"));
                if let Some(whole) = v.pointer("/part/text").and_then(Value::as_str) {
                    let whole = whole.to_owned();
                    v["part"]["text"] = json!(self.finish_part(key, &whole, out));
                }
            }
            "response.output_item.done" => {
                let output_index = index(&v, "output_index");
                let Some(mut item) = v.get("item").cloned() else {
                    out.push(frame(event.event.as_deref(), &v));
                    return;
                };
                if is_call(&item) {
                    self.emit_call(out, output_index, &mut item, named);
                    return;
                }
                self.finish_message(output_index, &mut item, out);
                if let Some(k) = item_key(&item) {
                    self.emitted.insert(k, item.clone());
                }
                v["item"] = item;
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                self.flush(out, named);
                if let Some(Value::Array(items)) = v.pointer_mut("/response/output") {
                    for item in items.iter_mut() {
                        match item_key(item).and_then(|k| self.emitted.get(&k)) {
                            Some(done) => *item = done.clone(),
                            None => {
                                self.guard.responses_item(item);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        self.emit(out, &kind, v, named);
    }

    /// Finishes a text part: emits its held tail as a delta and returns its whole
    /// guarded text (`whole` is checked at once when no delta was streamed).
    fn finish_part(&mut self, key: Key, whole: &str, out: &mut Vec<Bytes>) -> String {
        let Some(part) = self.parts.get_mut(&key) else {
            let text = self.guard.text(whole);
            self.parts.insert(
                key,
                Part {
                    guard: None,
                    item_id: Value::Null,
                    text: text.clone(),
                    finished: true,
                },
            );
            return text;
        };
        if part.finished {
            return part.text.clone();
        }
        part.finished = true;
        let tail = part
            .guard
            .as_mut()
            .map(StreamGuard::finish)
            .unwrap_or_default();
        part.text.push_str(&tail);
        let text = part.text.clone();
        let item_id = part.item_id.clone();
        if !tail.is_empty() {
            let delta = json!({"item_id": item_id, "output_index": key.0,
                "content_index": key.1, "delta": tail});
            self.emit(out, "response.output_text.delta", delta, true);
        }
        text
    }

    fn finish_message(&mut self, output_index: u64, item: &mut Value, out: &mut Vec<Bytes>) {
        if item.get("type").and_then(Value::as_str) != Some("message") {
            return;
        }
        let Some(Value::Array(parts)) = item.get_mut("content") else {
            return;
        };
        for (ci, p) in parts.iter_mut().enumerate() {
            if let Some(whole) = p.get("text").and_then(Value::as_str) {
                let whole = whole.to_owned();
                let key = (output_index, u64::try_from(ci).unwrap_or(0));
                p["text"] = json!(self.finish_part(key, &whole, out));
            }
        }
    }

    /// Checks a completed tool-call item and emits it whole.
    fn emit_call(
        &mut self,
        out: &mut Vec<Bytes>,
        output_index: u64,
        item: &mut Value,
        named: bool,
    ) {
        self.held.remove(&output_index);
        if let Some(call) = call_of_item(item) {
            let new = self.guard.call(&call);
            if new != call {
                set_call(item, &call, &new);
            }
        }
        let mut added = item.clone();
        if added.get("arguments").is_some() {
            added["arguments"] = json!("");
        }
        added["status"] = json!("in_progress");
        self.emit(
            out,
            "response.output_item.added",
            json!({"output_index": output_index, "item": added}),
            named,
        );
        if item.get("type").and_then(Value::as_str) == Some("function_call") {
            let args = item.get("arguments").cloned().unwrap_or(json!(""));
            let id = item.get("id").cloned().unwrap_or(Value::Null);
            self.emit(
                out,
                "response.function_call_arguments.delta",
                json!({"item_id": id, "output_index": output_index, "delta": args}),
                named,
            );
            self.emit(
                out,
                "response.function_call_arguments.done",
                json!({"item_id": id, "output_index": output_index, "arguments": args}),
                named,
            );
        }
        if let Some(k) = item_key(item) {
            self.emitted.insert(k, item.clone());
        }
        self.emit(
            out,
            "response.output_item.done",
            json!({"output_index": output_index, "item": item}),
            named,
        );
    }

    /// Releases whatever is still held (the stream ended or completed early).
    fn flush(&mut self, out: &mut Vec<Bytes>, named: bool) {
        let open: Vec<Key> = self
            .parts
            .iter()
            .filter(|(_, p)| !p.finished)
            .map(|(k, _)| *k)
            .collect();
        for key in open {
            self.finish_part(key, "", out);
        }
        let held = std::mem::take(&mut self.held);
        for (output_index, (mut item, args)) in held {
            let slot = if item.get("type").and_then(Value::as_str) == Some("custom_tool_call") {
                "input"
            } else {
                "arguments"
            };
            let empty = item
                .get(slot)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty);
            if empty {
                item[slot] = json!(args);
            }
            self.emit_call(out, output_index, &mut item, named);
        }
    }

    pub fn finish(&mut self, out: &mut Vec<Bytes>) {
        self.flush(out, true);
    }
}
