//! OpenAI Responses API (`POST /v1/responses`), as Codex speaks it: stateless, full
//! history as `input` items, MCP tools grouped in namespaces.

use super::sse::{named_frame, SseEvent};
use super::{
    arguments_text, content_text, count, count_at, error_message, str_field, take_content_text,
    Assembled, ParsedRequest, ResponseMeta, WireError,
};
use crate::api::{Message, ModelRequest, ModelResponse, Role, ToolCall, ToolSpec, Usage};
use bytes::Bytes;
use serde_json::{json, Value};

/// Parses a Responses API request.
pub fn parse_request(mut v: Value) -> Result<ParsedRequest, WireError> {
    let mut messages = Vec::new();
    if let Some(Value::String(text)) = v.get_mut("instructions") {
        messages.push(text_message(Role::System, std::mem::take(text)));
    }
    match v.get_mut("input") {
        Some(Value::String(s)) => messages.push(text_message(Role::User, std::mem::take(s))),
        Some(Value::Array(items)) => {
            for item in std::mem::take(items) {
                parse_item(item, &mut messages)?;
            }
        }
        None | Some(Value::Null) => {}
        Some(_) => {
            return Err(WireError::Invalid(
                "`input` must be a string or an array".into(),
            ))
        }
    }
    let mut tools = Vec::new();
    if let Some(Value::Array(list)) = v.get("tools") {
        for t in list {
            match t.get("type").and_then(Value::as_str) {
                Some("function") => tools.extend(parse_tool(t, None)),
                Some("namespace") => {
                    let ns = t.get("name").and_then(Value::as_str).map(str::to_owned);
                    if let Some(Value::Array(inner)) = t.get("tools") {
                        tools.extend(inner.iter().filter_map(|i| parse_tool(i, ns.clone())));
                    }
                }
                // Built-in tools (web search, custom grammars, ...) have no JSON schema
                // a simulated model could fill in.
                _ => {}
            }
        }
    }
    Ok(ParsedRequest {
        request: ModelRequest {
            model: v
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            messages,
            tools,
            stream: v.get("stream").and_then(Value::as_bool).unwrap_or(false),
        },
        include_usage: false,
    })
}

fn text_message(role: Role, content: String) -> Message {
    Message {
        role,
        content,
        tool_calls: Vec::new(),
        tool_call_id: None,
    }
}

fn parse_item(mut item: Value, messages: &mut Vec<Message>) -> Result<(), WireError> {
    // Owned, as the item's texts are moved out below.
    let kind = match item.get("type").and_then(Value::as_str) {
        Some(k) => k.to_owned(),
        None if item.get("role").is_some() => "message".to_owned(),
        None => return Err(WireError::Invalid("an input item needs a `type`".into())),
    };
    match kind.as_str() {
        "message" => {
            let role = match str_field(&item, "role", "a message item")? {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "system" => Role::System,
                "developer" => Role::Developer,
                other => {
                    return Err(WireError::Invalid(format!(
                        "unknown message role `{other}`"
                    )))
                }
            };
            messages.push(text_message(
                role,
                take_content_text(item.get_mut("content")),
            ));
        }
        "function_call" | "custom_tool_call" => {
            let call = call_of(&item).ok_or_else(|| {
                WireError::Invalid(format!("a `{kind}` item needs `call_id` and `name`"))
            })?;
            // Calls following an assistant message belong to it, as in Chat Completions.
            match messages.last_mut() {
                Some(last) if last.role == Role::Assistant => last.tool_calls.push(call),
                _ => {
                    let mut m = text_message(Role::Assistant, String::new());
                    m.tool_calls.push(call);
                    messages.push(m);
                }
            }
        }
        "function_call_output" | "custom_tool_call_output" => {
            let mut m = text_message(Role::Tool, take_content_text(item.get_mut("output")));
            m.tool_call_id = Some(str_field(&item, "call_id", "a call output item")?.to_owned());
            messages.push(m);
        }
        // Reasoning and other bookkeeping items carry nothing the trace needs.
        _ => {}
    }
    Ok(())
}

/// A tool call from a `function_call` (or freeform `custom_tool_call`) item.
fn call_of(item: &Value) -> Option<ToolCall> {
    Some(ToolCall {
        id: item.get("call_id")?.as_str()?.to_owned(),
        name: item.get("name")?.as_str()?.to_owned(),
        namespace: item
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_owned),
        arguments: arguments_text(item.get("arguments").or_else(|| item.get("input"))),
    })
}

fn parse_tool(t: &Value, namespace: Option<String>) -> Option<ToolSpec> {
    if t.get("type")
        .and_then(Value::as_str)
        .is_some_and(|k| k != "function")
    {
        return None;
    }
    Some(ToolSpec {
        name: t.get("name")?.as_str()?.to_owned(),
        namespace,
        description: t
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        parameters: t.get("parameters").cloned().unwrap_or(Value::Null),
    })
}

fn usage_json(u: &Usage) -> Value {
    let mut usage = json!({
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
    });
    if u.cached_input_tokens > 0 {
        usage["input_tokens_details"] = json!({"cached_tokens": u.cached_input_tokens});
    }
    usage
}

fn message_item(meta: &ResponseMeta, text: &str, done: bool) -> Value {
    let content = if done {
        json!([{"type": "output_text", "text": text, "annotations": []}])
    } else {
        json!([])
    };
    json!({
        "type": "message",
        "id": format!("msg_{}", meta.id),
        "status": if done { "completed" } else { "in_progress" },
        "role": "assistant",
        "content": content,
    })
}

fn call_item(meta: &ResponseMeta, i: usize, c: &ToolCall, done: bool) -> Value {
    let mut item = json!({
        "type": "function_call",
        "id": format!("fc_{}_{i}", meta.id),
        "call_id": c.id,
        "name": c.name,
        "arguments": if done { c.arguments.as_str() } else { "" },
        "status": if done { "completed" } else { "in_progress" },
    });
    if let (Some(ns), Some(obj)) = (&c.namespace, item.as_object_mut()) {
        obj.insert("namespace".into(), json!(ns));
    }
    item
}

/// The message item is present when there is text or nothing else to say.
fn has_message(r: &ModelResponse) -> bool {
    !r.text.is_empty() || r.tool_calls.is_empty()
}

fn response_object(r: &ModelResponse, meta: &ResponseMeta) -> Value {
    let mut output = Vec::new();
    if has_message(r) {
        output.push(message_item(meta, &r.text, true));
    }
    for (i, c) in r.tool_calls.iter().enumerate() {
        output.push(call_item(meta, i, c, true));
    }
    json!({
        "id": meta.id,
        "object": "response",
        "created_at": meta.created,
        "status": "completed",
        "model": meta.model,
        "output": output,
        "usage": usage_json(&r.usage),
    })
}

/// Renders a non-streaming `response` object.
pub fn render_json(r: &ModelResponse, meta: &ResponseMeta) -> Value {
    response_object(r, meta)
}

/// Renders a streamed response as named events, ending with `response.completed`.
pub fn render_sse(r: &ModelResponse, meta: &ResponseMeta) -> Vec<Bytes> {
    let mut frames = Vec::new();
    let mut seq = 0u64;
    let mut emit = |name: &str, mut payload: Value| {
        if let Some(obj) = payload.as_object_mut() {
            obj.insert("type".into(), json!(name));
            obj.insert("sequence_number".into(), json!(seq));
        }
        seq += 1;
        frames.push(named_frame(name, &payload));
    };
    emit(
        "response.created",
        json!({"response": {"id": meta.id, "object": "response", "created_at": meta.created,
               "status": "in_progress", "model": meta.model, "output": []}}),
    );
    let mut index = 0usize;
    if has_message(r) {
        emit(
            "response.output_item.added",
            json!({"output_index": index, "item": message_item(meta, "", false)}),
        );
        if !r.text.is_empty() {
            emit(
                "response.output_text.delta",
                json!({"item_id": format!("msg_{}", meta.id), "output_index": index,
                       "content_index": 0, "delta": r.text}),
            );
        }
        emit(
            "response.output_item.done",
            json!({"output_index": index, "item": message_item(meta, &r.text, true)}),
        );
        index += 1;
    }
    for (i, c) in r.tool_calls.iter().enumerate() {
        emit(
            "response.output_item.added",
            json!({"output_index": index, "item": call_item(meta, i, c, false)}),
        );
        emit(
            "response.output_item.done",
            json!({"output_index": index, "item": call_item(meta, i, c, true)}),
        );
        index += 1;
    }
    emit(
        "response.completed",
        json!({"response": response_object(r, meta)}),
    );
    frames
}

fn usage_of(u: &Value) -> Usage {
    Usage {
        input_tokens: count(u, "input_tokens"),
        output_tokens: count(u, "output_tokens"),
        cached_input_tokens: count_at(u, "/input_tokens_details/cached_tokens"),
    }
}

/// Text and tool calls of a list of output items.
fn from_output(items: &[Value]) -> ModelResponse {
    let mut r = ModelResponse::default();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                let text = content_text(item.get("content"));
                if !r.text.is_empty() && !text.is_empty() {
                    r.text.push('\n');
                }
                r.text.push_str(&text);
            }
            Some("function_call" | "custom_tool_call") => r.tool_calls.extend(call_of(item)),
            _ => {}
        }
    }
    r
}

/// Reads a non-streaming upstream `response` object.
pub fn parse_response(v: &Value) -> Assembled {
    let output = v
        .get("output")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut response = from_output(output);
    response.usage = v.get("usage").map(usage_of).unwrap_or_default();
    let error = v
        .get("error")
        .filter(|e| !e.is_null())
        .map(|e| format!("upstream: {}", error_message(e)));
    Assembled { response, error }
}

/// Assembles Responses API stream events.
#[derive(Debug, Default)]
pub struct ResponsesAssembler {
    done_items: Vec<Value>,
    delta_text: String,
    completed: Option<Value>,
    error: Option<String>,
    /// An `error` event ended the stream.
    errored: bool,
}

impl ResponsesAssembler {
    /// Takes one SSE event.
    pub fn event(&mut self, e: &SseEvent) {
        let Ok(v) = serde_json::from_str::<Value>(&e.data) else {
            self.error = Some(format!("upstream: unreadable stream event: {}", e.data));
            return;
        };
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(e.event.as_deref())
            .unwrap_or_default();
        match kind {
            "response.output_item.done" => self.done_items.extend(v.get("item").cloned()),
            "response.output_text.delta" => {
                self.delta_text
                    .push_str(v.get("delta").and_then(Value::as_str).unwrap_or_default());
            }
            "response.completed" => self.completed = v.get("response").cloned(),
            "response.failed" | "response.incomplete" => {
                let why = v
                    .pointer("/response/error")
                    .filter(|e| !e.is_null())
                    .or_else(|| v.pointer("/response/incomplete_details"))
                    .map(error_message)
                    .unwrap_or_else(|| kind.to_owned());
                self.error = Some(format!("upstream: {why}"));
                self.completed = v.get("response").cloned();
            }
            "error" => {
                self.errored = true;
                self.error = Some(format!("upstream: {}", error_message(&v)));
            }
            _ => {}
        }
    }

    /// Whether a final event (`response.completed`, `.failed`, `.incomplete` or an
    /// `error` event) was seen.
    pub fn ended(&self) -> bool {
        self.completed.is_some() || self.errored
    }

    /// The assembled response; a stream without `response.completed` was cut.
    pub fn finish(self) -> Assembled {
        let completed = self.completed.unwrap_or(Value::Null);
        let mut response = if self.done_items.is_empty() {
            let output = completed.get("output").and_then(Value::as_array);
            from_output(output.map(Vec::as_slice).unwrap_or_default())
        } else {
            from_output(&self.done_items)
        };
        if response.text.is_empty() {
            response.text = self.delta_text;
        }
        response.usage = completed.get("usage").map(usage_of).unwrap_or_default();
        let error = self.error.or_else(|| {
            completed
                .is_null()
                .then(|| "upstream: stream ended before response.completed".into())
        });
        Assembled { response, error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::sse::SseParser;

    #[test]
    fn codex_style_history_and_namespaced_tools_are_parsed() {
        let v = json!({
            "model": "m", "instructions": "be brief", "stream": true,
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {"type": "function_call", "call_id": "c1", "namespace": "mcp__cosec", "name": "post_message", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "posted"}]},
                {"type": "reasoning", "summary": []}
            ],
            "tools": [
                {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
                {"type": "namespace", "name": "mcp__cosec", "tools": [{"type": "function", "name": "post_message"}]},
                {"type": "web_search"}
            ]
        });
        let r = parse_request(v).unwrap().request;
        let roles: Vec<Role> = r.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::System,
                Role::Developer,
                Role::User,
                Role::Assistant,
                Role::Tool
            ]
        );
        assert_eq!(
            r.messages[3].tool_calls[0].namespace.as_deref(),
            Some("mcp__cosec")
        );
        assert_eq!(r.messages[4].content, "posted");
        assert_eq!(r.tools.len(), 2);
        assert_eq!(r.tools[1].namespace.as_deref(), Some("mcp__cosec"));
        assert!(r.stream);
    }

    #[test]
    fn rendered_stream_assembles_back_and_carries_the_namespace() {
        let resp = ModelResponse {
            text: "sure".into(),
            tool_calls: vec![ToolCall {
                id: "c9".into(),
                name: "post_message".into(),
                namespace: Some("mcp__cosec".into()),
                arguments: "{\"text\":\"x\"}".into(),
            }],
            usage: Usage {
                input_tokens: 5,
                output_tokens: 2,
                cached_input_tokens: 3,
            },
        };
        let meta = ResponseMeta {
            id: "resp_1".into(),
            model: "m".into(),
            created: 0,
        };
        let mut parser = SseParser::new();
        let mut asm = ResponsesAssembler::default();
        for f in render_sse(&resp, &meta) {
            for e in parser.feed(&f) {
                asm.event(&e);
            }
        }
        assert_eq!(
            asm.finish(),
            Assembled {
                response: resp.clone(),
                error: None
            }
        );
        assert_eq!(parse_response(&render_json(&resp, &meta)).response, resp);
    }

    #[test]
    fn an_upstream_usage_report_gives_input_output_and_cached_tokens() {
        // Shaped as OpenAI documents a Responses answer with prompt caching.
        let v = json!({
            "id": "resp_9", "object": "response", "status": "completed",
            "output": [{"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "ok"}]}],
            "usage": {"input_tokens": 328, "input_tokens_details": {"cached_tokens": 256},
                      "output_tokens": 52, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 380}
        });
        let usage = parse_response(&v).response.usage;
        assert_eq!(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_input_tokens
            ),
            (328, 52, 256)
        );
    }
}
