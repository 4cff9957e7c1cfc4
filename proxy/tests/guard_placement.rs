//! The placement fuzzer: valid requests and responses of both wire APIs, streamed or
//! not, in every documented message and part shape (several choices, reasoning,
//! refusals, parts arrays, the legacy `function_call`, custom tool calls, tool results,
//! annotations, log probabilities, fields no API documents), with a protected object's
//! text planted in one string field chosen at random, go through the real guarded
//! proxy over HTTP in a turn whose policy denies that object. Nothing of it may reach
//! the upstream (input layer) or the client (output layer).
//!
//! `COSEC_PLACEMENT_CASES` sets the number of random cases (default 200; the test
//! command runs 1,000). The 29 placements first found to need covering are fixed
//! cases, run every time. The test prints how many distinct shapes (wire API x
//! streamed x side x field path) it planted in.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;
mod guard_server;

use bytes::Bytes;
use cosec_proxy::wire::fields::STRUCTURAL_KEYS;
use guard_fixture::{assert_clean, OLE_POST, OLE_SECRETS};
use guard_server::{Options, Setup};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Pieces of Ole's post that are planted; each holds at least one of `OLE_SECRETS`.
const PLANTS: &[&str] = &[
    OLE_POST,
    "I take levetiracetam 500 mg twice daily",
    "My wife Ingrid's number is 07700 900412.",
    "levetiracetam 500 mg",
    "07700 900412",
];

const WORDS: &[&str] = &[
    "walk", "river", "lunch", "jacket", "map", "bridge", "meeting", "snacks", "rota", "garden",
    "library", "parking", "weather", "coffee", "paint", "trip", "bus", "ticket", "hall", "music",
];

/// A small deterministic generator driven by one seed from proptest.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self) -> bool {
        self.next().is_multiple_of(2)
    }
    fn word(&mut self) -> &'static str {
        WORDS[self.below(WORDS.len())]
    }
    fn text(&mut self) -> String {
        let n = 3 + self.below(6);
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
    /// A field name no API documents (never a structural key).
    fn extra_key(&mut self) -> String {
        format!("x_{}_{}", self.word(), self.below(100))
    }
}

/// Generation options: `full` turns every optional shape on (the fixed cases).
struct Gen {
    rng: Rng,
    full: bool,
}

impl Gen {
    fn maybe(&mut self) -> bool {
        self.full || self.rng.chance()
    }
    fn text(&mut self) -> Value {
        Value::String(self.rng.text())
    }
    /// Fields no API documents: a string or a nested object with a list.
    fn extras(&mut self, obj: &mut Value) {
        if !self.maybe() {
            return;
        }
        let key = self.rng.extra_key();
        let value = if self.rng.chance() {
            self.text()
        } else {
            json!({ self.rng.extra_key(): self.text(), "notes": [self.text()] })
        };
        obj[key] = value;
    }
    /// Chat content: a string or an array of text parts.
    fn chat_content(&mut self, parts: bool) -> Value {
        if parts && (self.full || self.rng.chance()) {
            json!([{"type": "text", "text": self.text()}, {"type": "text", "text": self.text()}])
        } else {
            self.text()
        }
    }
    /// A tool call's name and arguments (kept as an object under `__args` until
    /// planted, then serialized into `arguments`).
    fn call(&mut self, first: &'static str) -> (&'static str, Value) {
        let tools = ["lookup_notes", "post_message", "write_file", "exec_command"];
        let name = if self.full {
            first
        } else {
            tools[self.rng.below(tools.len())]
        };
        let args = match name {
            "lookup_notes" => json!({"query": self.text(), "limit": 3}),
            "post_message" => json!({"community": "y5parents", "text": self.text()}),
            "write_file" => {
                json!({"path": "communities/y5parents/plan.md", "content": self.text()})
            }
            _ => json!({"cmd": format!("echo {}", self.rng.text())}),
        };
        (name, args)
    }

    fn chat_request(&mut self, stream: bool) -> Value {
        let mut messages = vec![json!({"role": "system", "content": self.chat_content(true)})];
        if self.maybe() {
            messages.push(json!({"role": "developer", "content": self.text()}));
        }
        let turns = if self.full { 1 } else { 1 + self.rng.below(2) };
        for t in 0..turns {
            let mut user = json!({"role": "user", "content": self.chat_content(true)});
            if self.maybe() {
                user["name"] = self.text();
            }
            self.extras(&mut user);
            messages.push(user);
            let mut assistant = json!({"role": "assistant", "content": self.chat_content(true)});
            for key in ["refusal", "reasoning_content", "name"] {
                if self.maybe() {
                    assistant[key] = self.text();
                }
            }
            let id = format!("call_{t}");
            let (name, args) = self.call("lookup_notes");
            assistant["tool_calls"] = json!([{"id": id, "type": "function",
                "function": {"name": name, "__args": args}}]);
            self.extras(&mut assistant);
            messages.push(assistant);
            messages.push(json!({"role": "tool", "tool_call_id": id,
                "content": self.chat_content(true)}));
        }
        messages.push(json!({"role": "user", "content": self.text()}));
        let mut body = json!({
            "model": "m", "stream": stream, "messages": messages,
            "tools": [
                {"type": "function", "function": {"name": "lookup_notes", "description": self.text(),
                    "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": self.text()}}}}},
                {"type": "function", "function": {"name": "mcp__cosec__policy_blocked", "parameters": {"type": "object"}}}
            ],
        });
        if self.maybe() {
            body["metadata"] = json!({"note": self.text()});
        }
        if self.maybe() {
            body["stop"] = json!([self.rng.word()]);
        }
        self.extras(&mut body);
        body
    }

    fn responses_request(&mut self, stream: bool) -> Value {
        let mut input = vec![
            json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": self.text()}]}),
            json!({"type": "message", "role": "user", "content": if self.maybe() {
                json!([{"type": "input_text", "text": self.text()}])
            } else {
                self.text()
            }}),
        ];
        if self.maybe() {
            input.push(json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": self.text()}]}));
        }
        input.push(json!({"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": self.text()}]}));
        let (name, args) = self.call("lookup_notes");
        input.push(json!({"type": "function_call", "call_id": "c1", "name": name, "__args": args}));
        input.push(
            json!({"type": "function_call_output", "call_id": "c1", "output": if self.rng.chance() {
                self.text()
            } else {
                json!([{"type": "input_text", "text": self.text()}])
            }}),
        );
        if self.maybe() {
            input.push(json!({"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": self.text()}));
            input.push(
                json!({"type": "custom_tool_call_output", "call_id": "c2", "output": self.text()}),
            );
        }
        input.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": self.text()}]}));
        for item in input.iter_mut() {
            self.extras(item);
        }
        let mut body = json!({
            "model": "m", "stream": stream, "instructions": self.text(), "input": input,
            "tools": [
                {"type": "function", "name": "lookup_notes", "description": self.text(),
                    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}},
                {"type": "namespace", "name": "mcp__cosec", "tools": [{"type": "function", "name": "policy_blocked"}]}
            ],
        });
        if self.maybe() {
            body["metadata"] = json!({"note": self.text()});
        }
        if self.maybe() {
            body["text"] = json!({"format": {"type": "json_schema", "name": "answer",
                "schema": {"type": "object", "description": self.text()}}});
        }
        self.extras(&mut body);
        body
    }

    /// A chat message of a response (`parts`: content may be an array of parts).
    fn chat_message(&mut self, parts: bool, calls: bool) -> Value {
        let mut m = json!({"role": "assistant", "content": self.chat_content(parts)});
        for key in ["reasoning_content", "refusal"] {
            if self.maybe() {
                m[key] = self.text();
            }
        }
        if calls && self.maybe() {
            let (name, args) = self.call("post_message");
            m["tool_calls"] = json!([{"id": "call_9", "type": "function",
                "function": {"name": name, "__args": args}}]);
        }
        if calls && self.maybe() {
            let (name, args) = self.call("post_message");
            m["function_call"] = json!({"name": name, "__args": args});
        }
        self.extras(&mut m);
        m
    }

    fn chat_response(&mut self, stream: bool) -> Value {
        let n = if self.full { 2 } else { 1 + self.rng.below(3) };
        let choices: Vec<Value> = (0..n)
            .map(|i| {
                let mut c = json!({"index": i, "message": self.chat_message(!stream, true),
                    "finish_reason": "stop"});
                if !stream && self.maybe() {
                    // Tokens carry their leading space, as models emit them.
                    c["logprobs"] = json!({"content": [
                        {"token": format!(" {}", self.rng.word()), "logprob": -0.1, "bytes": [], "top_logprobs": []},
                        {"token": format!(" {}", self.rng.text()), "logprob": -0.2, "bytes": [], "top_logprobs": []}
                    ]});
                }
                c
            })
            .collect();
        let mut body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
            "model": "up-model", "choices": choices,
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}});
        self.extras(&mut body);
        body
    }

    fn responses_response(&mut self) -> Value {
        let mut output = Vec::new();
        if self.maybe() {
            output.push(json!({"type": "reasoning", "id": "rs_1",
                "summary": [{"type": "summary_text", "text": self.text()}]}));
        }
        let mut content = vec![
            json!({"type": "output_text", "text": self.text(), "annotations": [
                {"type": "url_citation", "url": "https://example.org/walks", "title": self.text()}
            ]}),
        ];
        if self.maybe() {
            content.push(json!({"type": "refusal", "refusal": self.text()}));
        }
        output.push(
            json!({"type": "message", "id": "msg_1", "role": "assistant",
            "status": "completed", "content": content}),
        );
        if self.maybe() {
            let (name, args) = self.call("post_message");
            output.push(
                json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                "name": name, "__args": args, "status": "completed"}),
            );
        }
        if self.maybe() {
            output.push(
                json!({"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_2",
                "name": "lookup_notes", "input": self.text(), "status": "completed"}),
            );
        }
        for item in output.iter_mut() {
            self.extras(item);
        }
        let mut body = json!({"id": "resp_1", "object": "response", "created_at": 0,
            "status": "completed", "model": "up-model", "output": output,
            "usage": {"input_tokens": 5, "output_tokens": 5, "total_tokens": 10}});
        if self.maybe() {
            body["output_text"] = self.text();
        }
        self.extras(&mut body);
        body
    }
}

/// JSON pointers of the strings a placement may go into: every string except
/// structural tokens.
fn slots(v: &Value, at: &str, key: &str, out: &mut Vec<String>) {
    match v {
        Value::String(_) if !STRUCTURAL_KEYS.contains(&key) => out.push(at.to_owned()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                slots(item, &format!("{at}/{i}"), key, out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                slots(item, &format!("{at}/{k}"), k, out);
            }
        }
        _ => {}
    }
}

/// A pointer with its array indexes generalised: the shape of a placement.
fn shape(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|p| if p.parse::<usize>().is_ok() { "*" } else { p })
        .collect::<Vec<_>>()
        .join("/")
}

/// Plants `secret` in the middle of the string at `pointer`.
fn plant(doc: &mut Value, pointer: &str, secret: &str) {
    let slot = doc.pointer_mut(pointer).unwrap();
    let old = slot.as_str().unwrap().to_owned();
    let (head, tail) = old.split_at(old.find(' ').unwrap_or(old.len()));
    *slot = Value::String(format!("{head} {secret}{tail}"));
}

/// Serializes the `__args` objects into `arguments` strings.
fn finalize(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(finalize),
        Value::Object(map) => {
            if let Some(args) = map.remove("__args") {
                map.insert("arguments".into(), Value::String(args.to_string()));
            }
            map.values_mut().for_each(finalize);
        }
        _ => {}
    }
}

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
fn chat_stream(resp: &Value, rng: &mut Rng) -> Vec<Bytes> {
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
fn responses_stream(resp: &Value, rng: &mut Rng) -> Vec<Bytes> {
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
fn stream_texts(body: &str) -> String {
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

/// One placement.
#[derive(Debug, Clone)]
struct Case {
    responses: bool,
    stream: bool,
    /// Planted in the response (else in the request).
    in_response: bool,
    seed: u64,
    /// Which slot (an index into the document's slots), or a fixed pointer.
    slot: Slot,
    plant: usize,
}

#[derive(Debug, Clone)]
enum Slot {
    Pick(prop::sample::Index),
    Fixed(&'static str),
}

/// Runs one case against the proxy; returns the shape it planted in.
async fn run(s: &Setup, case: &Case) -> String {
    let mut gen = Gen {
        rng: Rng(case.seed | 1),
        full: matches!(case.slot, Slot::Fixed(_)),
    };
    let mut request = if case.responses {
        gen.responses_request(case.stream)
    } else {
        gen.chat_request(case.stream)
    };
    let mut response = if case.responses {
        gen.responses_response()
    } else {
        gen.chat_response(case.stream)
    };
    let doc = if case.in_response {
        &mut response
    } else {
        &mut request
    };
    let mut all = Vec::new();
    slots(doc, "", "", &mut all);
    let pointer = match &case.slot {
        Slot::Pick(i) => i.get(&all).clone(),
        Slot::Fixed(p) => all
            .iter()
            .find(|s| s.as_str() == *p || shape(s) == *p)
            .unwrap_or_else(|| panic!("no slot {p} in {doc}"))
            .clone(),
    };
    let secret = PLANTS[case.plant % PLANTS.len()];
    plant(doc, &pointer, secret);
    finalize(&mut request);
    finalize(&mut response);
    let frames = match (case.stream, case.responses) {
        (false, _) => vec![Bytes::from(response.to_string())],
        (true, false) => chat_stream(&response, &mut gen.rng),
        (true, true) => responses_stream(&response, &mut gen.rng),
    };
    let content_type = if case.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    s.fake.answer(content_type, frames);
    let path = if case.responses {
        "responses"
    } else {
        "chat/completions"
    };
    let (status, body) = s.post("up", path, &request).await;
    let what = format!(
        "{} stream={} {} {pointer}",
        path,
        case.stream,
        if case.in_response {
            "response"
        } else {
            "request"
        }
    );
    assert_eq!(status, 200, "{what}: {body}");
    let forwarded = s.fake.seen.lock().unwrap().last().unwrap().1.to_string();
    assert_clean(&forwarded, OLE_SECRETS);
    assert_clean(&body, OLE_SECRETS);
    if case.stream {
        assert_clean(&stream_texts(&body), OLE_SECRETS);
    }
    format!(
        "{path} stream={} {} {}",
        case.stream,
        if case.in_response {
            "response"
        } else {
            "request"
        },
        shape(&pointer)
    )
}

/// The 29 placements first found to need covering: (Responses API, streamed, in the
/// response, field).
const FIXED: &[(bool, bool, bool, &str)] = &[
    // Requests, Chat Completions.
    (false, false, false, "/messages/*/name"),
    (false, false, false, "/messages/*/reasoning_content"),
    (false, false, false, "/messages/*/refusal"),
    (false, false, false, "/tools/*/function/description"),
    (false, false, false, "/metadata/note"),
    (
        false,
        false,
        false,
        "/messages/*/tool_calls/*/function/name",
    ),
    (false, false, false, "/messages/*/content"),
    (false, false, false, "/messages/*/content/*/text"),
    (
        false,
        false,
        false,
        "/messages/*/tool_calls/*/function/__args/query",
    ),
    // Requests, Responses.
    (true, false, false, "/instructions"),
    (true, false, false, "/input/*/content/*/text"),
    (true, false, false, "/input/*/output"),
    (true, false, false, "/input/*/__args/query"),
    // Chat Completions replies.
    (false, false, true, "/choices/*/message/content/*/text"),
    (false, false, true, "/choices/*/message/reasoning_content"),
    (false, false, true, "/choices/*/message/refusal"),
    (
        false,
        false,
        true,
        "/choices/*/message/function_call/__args/text",
    ),
    (
        false,
        false,
        true,
        "/choices/*/message/tool_calls/*/function/__args/text",
    ),
    (false, false, true, "/choices/*/logprobs/content/*/token"),
    (false, true, true, "/choices/*/message/reasoning_content"),
    (false, true, true, "/choices/*/message/refusal"),
    (false, true, true, "/choices/1/message/content"),
    (false, true, true, "/choices/0/message/content"),
    // Responses replies.
    (true, false, true, "/output/*/content/*/refusal"),
    (true, false, true, "/output/*/summary/*/text"),
    (true, false, true, "/output_text"),
    (true, false, true, "/output/*/content/*/text"),
    (true, true, true, "/output/*/content/*/text"),
    (true, true, true, "/output/*/__args/text"),
];

fn cases() -> u32 {
    std::env::var("COSEC_PLACEMENT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

#[test]
fn nothing_planted_anywhere_passes_a_denying_turn() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Nadia's session in the parents' group may not have Ole's post.
    let s = runtime.block_on(Setup::new(Options::default()));
    // Chunks still arrive one by one, without the default pause between them.
    s.fake
        .gap_us
        .store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
    let mut shapes = BTreeSet::new();
    for (i, (responses, stream, in_response, pointer)) in FIXED.iter().enumerate() {
        let case = Case {
            responses: *responses,
            stream: *stream,
            in_response: *in_response,
            seed: 0x9e37_79b9_7f4a_7c15 + i as u64,
            slot: Slot::Fixed(pointer),
            plant: i,
        };
        shapes.insert(runtime.block_on(run(&s, &case)));
    }
    assert_eq!(FIXED.len(), 29);

    let strategy = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
        any::<prop::sample::Index>(),
        0..PLANTS.len(),
    )
        .prop_map(|(responses, stream, in_response, seed, slot, plant)| Case {
            responses,
            stream,
            in_response,
            seed,
            slot: Slot::Pick(slot),
            plant,
        });
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let seen = std::sync::Mutex::new(BTreeSet::new());
    runner
        .run(&strategy, |case| {
            let shape = runtime.block_on(run(&s, &case));
            seen.lock().unwrap().insert(shape);
            Ok(())
        })
        .unwrap();
    shapes.extend(seen.into_inner().unwrap());
    println!(
        "placement fuzzer: {} fixed and {} random cases passed, {} distinct shapes (API x streamed x side x field path)",
        FIXED.len(),
        cases(),
        shapes.len()
    );
    assert!(shapes.len() >= FIXED.len());
}

#[test]
fn generated_documents_hold_every_documented_shape() {
    // The generator itself: a full document has every field the fixed cases name.
    let mut gen = Gen {
        rng: Rng(7),
        full: true,
    };
    let mut all = Vec::new();
    for doc in [
        gen.chat_request(false),
        gen.responses_request(false),
        gen.chat_response(false),
        gen.chat_response(true),
        gen.responses_response(),
    ] {
        slots(&doc, "", "", &mut all);
    }
    let shapes: BTreeSet<String> = all.iter().map(|p| shape(p)).collect();
    for (_, _, _, p) in FIXED {
        let p = shape(p);
        assert!(shapes.contains(&p), "{p} missing from {shapes:?}");
    }
}
