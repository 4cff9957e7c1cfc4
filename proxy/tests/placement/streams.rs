//! Responses streamed as their clients see them, and the texts a client assembles
//! from a streamed body.

use super::documents::Rng;
use bytes::Bytes;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Cuts a text into a few pieces (on character boundaries).
fn cut(text: &str, rng: &mut Rng) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        let n = 1 + rng.below(12);
        let end = (at + n).min(chars.len());
        out.push(chars[at..end].iter().collect());
        at = end;
    }
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

fn sse(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

fn named(name: &str, mut v: Value, seq: &mut u64) -> Bytes {
    v["type"] = json!(name);
    v["sequence_number"] = json!(*seq);
    *seq += 1;
    Bytes::from(format!("event: {name}\ndata: {v}\n\n"))
}

/// A chat response streamed as its clients see it: per choice a role chunk, every
/// string field cut into deltas (nested fields too), tool calls and the legacy
/// function call by name then argument pieces, then the finish; usage; `[DONE]`.
pub fn chat_stream(resp: &Value, rng: &mut Rng) -> Vec<Bytes> {
    let mut envelope = resp.as_object().unwrap().clone();
    envelope.remove("choices");
    envelope.remove("usage");
    envelope.insert("object".into(), json!("chat.completion.chunk"));
    let chunk = |index: &Value, delta: Value, finish: Value| {
        let mut c = Value::Object(envelope.clone());
        c["choices"] = json!([{"index": index, "delta": delta, "finish_reason": finish}]);
        sse(&c)
    };
    let mut frames = Vec::new();
    for choice in resp["choices"].as_array().unwrap() {
        let index = &choice["index"];
        frames.push(chunk(index, json!({"role": "assistant"}), Value::Null));
        let message = choice["message"].as_object().unwrap();
        for (k, v) in message {
            match (k.as_str(), v) {
                ("role", _) => {}
                ("tool_calls", Value::Array(calls)) => {
                    for (i, c) in calls.iter().enumerate() {
                        let f = &c["function"];
                        frames.push(chunk(index, json!({"tool_calls": [{"index": i, "id": c["id"],
                            "type": "function", "function": {"name": f["name"], "arguments": ""}}]}), Value::Null));
                        for piece in cut(f["arguments"].as_str().unwrap(), rng) {
                            frames.push(chunk(
                                index,
                                json!({"tool_calls": [{"index": i,
                                "function": {"arguments": piece}}]}),
                                Value::Null,
                            ));
                        }
                    }
                }
                ("function_call", f) => {
                    frames.push(chunk(
                        index,
                        json!({"function_call": {"name": f["name"], "arguments": ""}}),
                        Value::Null,
                    ));
                    for piece in cut(f["arguments"].as_str().unwrap(), rng) {
                        frames.push(chunk(
                            index,
                            json!({"function_call": {"arguments": piece}}),
                            Value::Null,
                        ));
                    }
                }
                (_, Value::String(s)) => {
                    for piece in cut(s, rng) {
                        frames.push(chunk(index, json!({ k.as_str(): piece }), Value::Null));
                    }
                }
                (_, Value::Object(inner)) => {
                    for (ik, iv) in inner {
                        let text = match iv {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        for piece in cut(&text, rng) {
                            frames.push(chunk(
                                index,
                                json!({ k.as_str(): { ik.as_str(): piece } }),
                                Value::Null,
                            ));
                        }
                    }
                }
                (_, other) => frames.push(chunk(index, json!({ k.as_str(): other }), Value::Null)),
            }
        }
        frames.push(chunk(index, json!({}), choice["finish_reason"].clone()));
    }
    let mut usage = Value::Object(envelope.clone());
    usage["choices"] = json!([]);
    usage["usage"] = resp["usage"].clone();
    frames.push(sse(&usage));
    frames.push(Bytes::from_static(b"data: [DONE]\n\n"));
    frames
}

/// A Responses answer streamed as the API documents it.
pub fn responses_stream(resp: &Value, rng: &mut Rng) -> Vec<Bytes> {
    let mut seq = 0;
    let mut frames = Vec::new();
    let mut head = resp.clone();
    head["status"] = json!("in_progress");
    head["output"] = json!([]);
    head.as_object_mut().unwrap().remove("output_text");
    frames.push(named(
        "response.created",
        json!({"response": head}),
        &mut seq,
    ));
    for (oi, item) in resp["output"].as_array().unwrap().iter().enumerate() {
        let mut added = item.clone();
        for k in ["content", "summary"] {
            if added.get(k).is_some() {
                added[k] = json!([]);
            }
        }
        if added.get("arguments").is_some() {
            added["arguments"] = json!("");
        }
        if added.get("input").is_some() {
            added["input"] = json!("");
        }
        frames.push(named(
            "response.output_item.added",
            json!({"output_index": oi, "item": added}),
            &mut seq,
        ));
        let id = item["id"].clone();
        match item["type"].as_str().unwrap() {
            "message" => {
                for (ci, part) in item["content"].as_array().unwrap().iter().enumerate() {
                    let (kind, field) = match part["type"].as_str().unwrap() {
                        "refusal" => ("response.refusal", "refusal"),
                        _ => ("response.output_text", "text"),
                    };
                    let mut empty = part.clone();
                    empty[field] = json!("");
                    frames.push(named(
                        "response.content_part.added",
                        json!({"item_id": id,
                        "output_index": oi, "content_index": ci, "part": empty}),
                        &mut seq,
                    ));
                    let text = part[field].as_str().unwrap();
                    for piece in cut(text, rng) {
                        frames.push(named(
                            &format!("{kind}.delta"),
                            json!({"item_id": id,
                            "output_index": oi, "content_index": ci, "delta": piece}),
                            &mut seq,
                        ));
                    }
                    frames.push(named(
                        &format!("{kind}.done"),
                        json!({"item_id": id,
                        "output_index": oi, "content_index": ci, field: text}),
                        &mut seq,
                    ));
                    frames.push(named(
                        "response.content_part.done",
                        json!({"item_id": id,
                        "output_index": oi, "content_index": ci, "part": part}),
                        &mut seq,
                    ));
                }
            }
            "reasoning" => {
                for (si, part) in item["summary"].as_array().unwrap().iter().enumerate() {
                    frames.push(named("response.reasoning_summary_part.added", json!({"item_id": id,
                        "output_index": oi, "summary_index": si, "part": {"type": "summary_text", "text": ""}}), &mut seq));
                    let text = part["text"].as_str().unwrap();
                    for piece in cut(text, rng) {
                        frames.push(named(
                            "response.reasoning_summary_text.delta",
                            json!({"item_id": id,
                            "output_index": oi, "summary_index": si, "delta": piece}),
                            &mut seq,
                        ));
                    }
                    frames.push(named(
                        "response.reasoning_summary_text.done",
                        json!({"item_id": id,
                        "output_index": oi, "summary_index": si, "text": text}),
                        &mut seq,
                    ));
                    frames.push(named(
                        "response.reasoning_summary_part.done",
                        json!({"item_id": id,
                        "output_index": oi, "summary_index": si, "part": part}),
                        &mut seq,
                    ));
                }
            }
            kind => {
                let (delta, field) = if kind == "custom_tool_call" {
                    ("response.custom_tool_call_input", "input")
                } else {
                    ("response.function_call_arguments", "arguments")
                };
                let text = item[field].as_str().unwrap();
                for piece in cut(text, rng) {
                    frames.push(named(
                        &format!("{delta}.delta"),
                        json!({"item_id": id,
                        "output_index": oi, "delta": piece}),
                        &mut seq,
                    ));
                }
                frames.push(named(
                    &format!("{delta}.done"),
                    json!({"item_id": id,
                    "output_index": oi, field: text}),
                    &mut seq,
                ));
            }
        }
        frames.push(named(
            "response.output_item.done",
            json!({"output_index": oi, "item": item}),
            &mut seq,
        ));
    }
    frames.push(named(
        "response.completed",
        json!({"response": resp}),
        &mut seq,
    ));
    frames
}

/// Every string a client reads from a streamed body, joined per field: the pieces of
/// one field (same key path, same choice, item and part) are concatenated in order,
/// as the client assembles them.
pub fn stream_texts(body: &str) -> String {
    fn walk(v: &Value, path: String, out: &mut BTreeMap<String, String>) {
        match v {
            Value::String(s) => out.entry(path).or_default().push_str(s),
            Value::Array(items) => items.iter().for_each(|i| walk(i, path.clone(), out)),
            Value::Object(map) => {
                let mut p = path;
                for k in ["index", "output_index", "content_index", "summary_index"] {
                    if let Some(n) = map.get(k).and_then(Value::as_u64) {
                        p.push_str(&format!("[{k}={n}]"));
                    }
                }
                for (k, item) in map {
                    walk(item, format!("{p}/{k}"), out);
                }
            }
            _ => {}
        }
    }
    let mut per = BTreeMap::new();
    for line in body.lines() {
        if let Some(data) = line.strip_prefix("data: ") {
            if let Ok(v) = serde_json::from_str::<Value>(data) {
                walk(&v, String::new(), &mut per);
            }
        }
    }
    per.into_values().collect::<Vec<_>>().join("\n")
}
