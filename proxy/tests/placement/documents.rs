//! Generated request and response documents of both wire APIs, and the string fields
//! a placement may go into.

use cosec_proxy::wire::fields::STRUCTURAL_KEYS;
use serde_json::{json, Value};

const WORDS: &[&str] = &[
    "walk", "river", "lunch", "jacket", "map", "bridge", "meeting", "snacks", "rota", "garden",
    "library", "parking", "weather", "coffee", "paint", "trip", "bus", "ticket", "hall", "music",
];

/// A small deterministic generator driven by one seed from proptest.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
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
pub struct Gen {
    pub rng: Rng,
    pub full: bool,
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

    pub fn chat_request(&mut self, stream: bool) -> Value {
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

    pub fn responses_request(&mut self, stream: bool) -> Value {
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

    pub fn chat_response(&mut self, stream: bool) -> Value {
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

    pub fn responses_response(&mut self) -> Value {
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
pub fn slots(v: &Value, at: &str, key: &str, out: &mut Vec<String>) {
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
pub fn shape(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|p| if p.parse::<usize>().is_ok() { "*" } else { p })
        .collect::<Vec<_>>()
        .join("/")
}

/// Plants `secret` in the middle of the string at `pointer`.
pub fn plant(doc: &mut Value, pointer: &str, secret: &str) {
    let slot = doc.pointer_mut(pointer).unwrap();
    let old = slot.as_str().unwrap().to_owned();
    let (head, tail) = old.split_at(old.find(' ').unwrap_or(old.len()));
    *slot = Value::String(format!("{head} {secret}{tail}"));
}

/// Serializes the `__args` objects into `arguments` strings.
pub fn finalize(v: &mut Value) {
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
