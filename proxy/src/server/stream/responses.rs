//! Guarded Responses API streams (named `response.*` events).
//!
//! Every `*.delta` event carrying text (output text, refusals, reasoning summaries and
//! reasoning text, audio transcripts, and any other kind a server streams) goes
//! through one stream guard per kind, output item and part; its `*.done` event, the
//! part's `content_part.done` / `reasoning_summary_part.done`, the item's
//! `output_item.done` and the final `response.completed` carry the guarded text. A
//! tool-call item is held from its `output_item.added` to its `output_item.done`
//! (argument deltas included), then checked and emitted as `added`, one arguments
//! delta, `arguments.done` and `done`. Audio data deltas are dropped (the guard reads
//! text only). Every other string of every event is read whole. Sequence numbers are
//! renumbered, since events are dropped and added.

use super::{frame, raw_frame};
use crate::guard::StreamGuard;
use crate::server::guarded::{call_of_item, set_call, ReplyGuard};
use crate::wire::fields;
use crate::wire::sse::SseEvent;
use bytes::Bytes;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// A streamed text part: the event kind without `.delta`, its output index and its
/// part index (content or summary index).
type Key = (String, u64, u64);

/// Delta events whose text belongs to a held tool call.
const CALL_DELTAS: &[&str] = &[
    "response.function_call_arguments",
    "response.custom_tool_call_input",
];

/// Delta events carrying data the guard cannot read.
const OPAQUE_DELTAS: &[&str] = &["response.audio", "response.image_generation_call"];

/// One streamed text part.
struct Part {
    guard: Option<StreamGuard>,
    /// The first delta event without its delta, to make the tail's event from.
    template: Value,
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

/// The part index of a delta or done event: its content or summary index.
fn part_index(v: &Value) -> u64 {
    v.get("summary_index")
        .or_else(|| v.get("content_index"))
        .and_then(Value::as_u64)
        .unwrap_or(0)
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

/// The delta kind whose text a part of `part_type` holds, and the field holding it.
fn part_kind(part_type: &str) -> Option<(&'static str, &'static str)> {
    Some(match part_type {
        "output_text" => ("response.output_text", "text"),
        "refusal" => ("response.refusal", "refusal"),
        "summary_text" => ("response.reasoning_summary_text", "text"),
        "reasoning_text" => ("response.reasoning_text", "text"),
        _ => return None,
    })
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
            let data = self.guard.text(&event.data);
            out.push(raw_frame(&SseEvent {
                event: event.event.clone(),
                data,
            }));
            return;
        };
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or_default()
            .to_owned();
        let named = event.event.is_some();
        if let Some(base) = kind.strip_suffix(".delta") {
            if self.delta(base, &mut v) {
                self.emit(out, &kind, v, named);
            }
            return;
        }
        if let Some(base) = kind.strip_suffix(".done") {
            if CALL_DELTAS.contains(&base) {
                return;
            }
        }
        match kind.as_str() {
            "response.output_item.added" if v.get("item").is_some_and(is_call) => {
                let item = v.get("item").cloned().unwrap_or(Value::Null);
                self.held
                    .insert(index(&v, "output_index"), (item, String::new()));
                return;
            }
            "response.content_part.done" | "response.reasoning_summary_part.done" => {
                let oi = index(&v, "output_index");
                let pi = part_index(&v);
                if let Some(part) = v.get_mut("part") {
                    self.finish_part_value(oi, pi, part, out);
                }
                self.rest(&mut v, &["part"]);
            }
            "response.output_item.done" => {
                let output_index = index(&v, "output_index");
                let Some(mut item) = v.get("item").cloned() else {
                    self.guard.body(&mut v);
                    self.emit(out, &kind, v, named);
                    return;
                };
                if is_call(&item) {
                    self.emit_call(out, output_index, &mut item, named);
                    return;
                }
                self.finish_item(output_index, &mut item, out);
                if let Some(k) = item_key(&item) {
                    self.emitted.insert(k, item.clone());
                }
                v["item"] = item;
                self.rest(&mut v, &["item"]);
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
                if let Some(response) = v.get_mut("response").and_then(Value::as_object_mut) {
                    for (k, item) in response.iter_mut() {
                        if k != "output" {
                            self.guard.value(k, item);
                        }
                    }
                }
                self.rest(&mut v, &["response"]);
            }
            _ => match kind.strip_suffix(".done") {
                Some(base) => self.done(base, &mut v, out),
                None => {
                    self.guard.body(&mut v);
                }
            },
        }
        self.emit(out, &kind, v, named);
    }

    /// Reads the strings of an event outside the keys handled already.
    fn rest(&self, v: &mut Value, handled: &[&str]) {
        if let Some(obj) = v.as_object_mut() {
            for (k, item) in obj.iter_mut() {
                if !handled.contains(&k.as_str()) {
                    self.guard.value(k, item);
                }
            }
        }
    }

    /// A `*.delta` event of kind `base`; returns whether to emit it (with its delta
    /// replaced by what the guard releases).
    fn delta(&mut self, base: &str, v: &mut Value) -> bool {
        if CALL_DELTAS.contains(&base) {
            if let Some((_, args)) = self.held.get_mut(&index(v, "output_index")) {
                args.push_str(v.get("delta").and_then(Value::as_str).unwrap_or_default());
            }
            return false;
        }
        let Some(delta) = v.get("delta").and_then(Value::as_str).map(str::to_owned) else {
            self.guard.body(v);
            return true;
        };
        if OPAQUE_DELTAS.contains(&base) {
            if self.guard.enforcing() && self.guard.reads_text() {
                self.guard
                    .unreadable(&format!("`{base}.delta` data: the guard reads text only"));
                return false;
            }
            return true;
        }
        let key = (base.to_owned(), index(v, "output_index"), part_index(v));
        let guard = &self.guard;
        let part = self.parts.entry(key).or_insert_with(|| {
            let mut template = v.clone();
            if let Some(obj) = template.as_object_mut() {
                obj.remove("delta");
                obj.remove("logprobs");
            }
            Part {
                guard: Some(guard.stream()),
                template,
                text: String::new(),
                finished: false,
            }
        });
        if part.finished {
            return false;
        }
        let released = part
            .guard
            .as_mut()
            .map(|g| g.push(&delta))
            .unwrap_or_default();
        if released.is_empty() {
            return false;
        }
        part.text.push_str(&released);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("delta".into(), json!(released));
            // Token log probabilities repeat the text and cannot be held back with it.
            if self.guard.enforcing() {
                obj.remove("logprobs");
            }
        }
        self.rest(v, &["delta"]);
        true
    }

    /// A `*.done` event of kind `base`: its text field carries the part's guarded
    /// text (checked whole when nothing was streamed).
    fn done(&mut self, base: &str, v: &mut Value, out: &mut Vec<Bytes>) {
        let key = (base.to_owned(), index(v, "output_index"), part_index(v));
        let field = ["text", "refusal", "transcript"]
            .into_iter()
            .find(|f| v.get(*f).is_some_and(Value::is_string));
        match field {
            Some(field) => {
                let whole = v.get(field).and_then(Value::as_str).unwrap_or_default();
                let whole = whole.to_owned();
                v[field] = json!(self.finish_part(key, &whole, out));
                self.rest(v, &[field]);
            }
            _ => {
                if self.parts.contains_key(&key) {
                    self.finish_part(key, "", out);
                }
                self.guard.body(v);
            }
        }
    }

    /// A finished part value (`{"type": "output_text", "text": ...}` and the like) at
    /// output index `oi`, part index `pi`, in place.
    fn finish_part_value(&mut self, oi: u64, pi: u64, part: &mut Value, out: &mut Vec<Bytes>) {
        let kind = part.get("type").and_then(Value::as_str).and_then(part_kind);
        let Some((base, field)) = kind else {
            self.guard.value("part", part);
            return;
        };
        let Some(whole) = part.get(field).and_then(Value::as_str).map(str::to_owned) else {
            self.guard.value("part", part);
            return;
        };
        part[field] = json!(self.finish_part((base.to_owned(), oi, pi), &whole, out));
        if let Some(obj) = part.as_object_mut() {
            for (k, item) in obj.iter_mut() {
                if k == "logprobs" {
                    if self.guard.enforcing() && !item.is_null() {
                        *item = json!([]);
                    }
                } else if k != field {
                    self.guard.value(k, item);
                }
            }
        }
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
                    template: Value::Null,
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
        let mut delta = part.template.clone();
        if !tail.is_empty() {
            if let Some(obj) = delta.as_object_mut() {
                obj.insert("delta".into(), json!(tail));
            }
            self.emit(out, &format!("{}.delta", key.0), delta, true);
        }
        text
    }

    /// A finished non-call output item, in place: its streamed parts carry their
    /// guarded text, every other string is read whole.
    fn finish_item(&mut self, output_index: u64, item: &mut Value, out: &mut Vec<Bytes>) {
        let Some(obj) = item
            .as_object_mut()
            .filter(|o| fields::opaque_part(o).is_none())
        else {
            self.guard.value("item", item);
            return;
        };
        let mut rest = Map::new();
        for (k, mut value) in std::mem::take(obj) {
            match (k.as_str(), &mut value) {
                ("content" | "summary", Value::Array(parts)) => {
                    for (pi, part) in parts.iter_mut().enumerate() {
                        let pi = u64::try_from(pi).unwrap_or(0);
                        self.finish_part_value(output_index, pi, part, out);
                    }
                }
                _ => {
                    self.guard.value(&k, &mut value);
                }
            }
            rest.insert(k, value);
        }
        *obj = rest;
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
                if let Some(obj) = item.as_object_mut() {
                    set_call(obj, &call, &new);
                }
            }
        }
        if let Some(obj) = item.as_object_mut() {
            for (k, value) in obj.iter_mut() {
                if !matches!(
                    k.as_str(),
                    "name" | "arguments" | "input" | "call_id" | "namespace"
                ) {
                    self.guard.value(k, value);
                }
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
            .map(|(k, _)| k.clone())
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
