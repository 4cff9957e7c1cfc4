//! OpenAI Chat Completions (`POST /v1/chat/completions`), as OpenClaw and Hermes speak it.

use super::sse::{data_frame, done_frame, SseEvent};
use super::{
    arguments_text, content_text, count, count_at, error_message, str_field, take_content_text,
    Assembled, ParsedRequest, ResponseMeta, WireError,
};
use crate::api::{Message, ModelRequest, ModelResponse, Role, ToolCall, ToolSpec, Usage};
use bytes::Bytes;
use serde_json::{json, Map, Value};

/// Content deltas are cut to about this many bytes, like a model emitting tokens.
const DELTA_BYTES: usize = 64;

/// Parses a Chat Completions request.
pub fn parse_request(mut v: Value) -> Result<ParsedRequest, WireError> {
    let model = v
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let messages = match v.get_mut("messages") {
        Some(Value::Array(list)) => std::mem::take(list),
        _ => return Err(WireError::Invalid("`messages` must be an array".into())),
    }
    .into_iter()
    .map(parse_message)
    .collect::<Result<Vec<_>, _>>()?;
    let tools = match v.get("tools") {
        Some(Value::Array(tools)) => tools.iter().filter_map(parse_tool).collect(),
        _ => Vec::new(),
    };
    let include_usage = v
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(ParsedRequest {
        request: ModelRequest {
            model,
            messages,
            tools,
            stream: v.get("stream").and_then(Value::as_bool).unwrap_or(false),
        },
        include_usage,
    })
}

fn parse_message(mut m: Value) -> Result<Message, WireError> {
    let role = match str_field(&m, "role", "a message")? {
        "system" => Role::System,
        "developer" => Role::Developer,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        other => {
            return Err(WireError::Invalid(format!(
                "unknown message role `{other}`"
            )))
        }
    };
    let tool_calls = match m.get("tool_calls") {
        Some(Value::Array(calls)) => calls.iter().map(parse_call).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    Ok(Message {
        role,
        content: take_content_text(m.get_mut("content")),
        tool_calls,
        tool_call_id: m
            .get("tool_call_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

fn parse_call(c: &Value) -> Result<ToolCall, WireError> {
    let f = c
        .get("function")
        .ok_or_else(|| WireError::Invalid("a tool call needs `function`".into()))?;
    Ok(ToolCall {
        id: c
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        name: str_field(f, "name", "a tool call's function")?.to_owned(),
        namespace: None,
        arguments: arguments_text(f.get("arguments")),
    })
}

/// Function tools only; other tool types offer nothing a simulated model can call.
fn parse_tool(t: &Value) -> Option<ToolSpec> {
    let f = t.get("function")?;
    Some(ToolSpec {
        name: f.get("name")?.as_str()?.to_owned(),
        namespace: None,
        description: f
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        parameters: f.get("parameters").cloned().unwrap_or(Value::Null),
    })
}

fn finish_reason(r: &ModelResponse) -> &'static str {
    if r.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

fn usage_json(u: &Usage) -> Value {
    let mut usage = json!({
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
    });
    if u.cached_input_tokens > 0 {
        usage["prompt_tokens_details"] = json!({"cached_tokens": u.cached_input_tokens});
    }
    usage
}

/// Renders a non-streaming `chat.completion`.
pub fn render_json(r: &ModelResponse, meta: &ResponseMeta) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        if r.text.is_empty() && !r.tool_calls.is_empty() {
            Value::Null
        } else {
            json!(r.text)
        },
    );
    if !r.tool_calls.is_empty() {
        let calls: Vec<Value> = r
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    json!({
        "id": meta.id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(r)}],
        "usage": usage_json(&r.usage),
    })
}

/// Renders a streamed response: role delta, content deltas, tool-call deltas, the
/// finish reason, an optional usage chunk, then `[DONE]`.
pub fn render_sse(r: &ModelResponse, meta: &ResponseMeta, include_usage: bool) -> Vec<Bytes> {
    let chunk = |delta: Value, finish: Option<&str>| {
        data_frame(&json!({
            "id": meta.id,
            "object": "chat.completion.chunk",
            "created": meta.created,
            "model": meta.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }))
    };
    let mut frames = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for piece in split_text(&r.text, DELTA_BYTES) {
        frames.push(chunk(json!({"content": piece}), None));
    }
    for (i, c) in r.tool_calls.iter().enumerate() {
        frames.push(chunk(
            json!({"tool_calls": [{"index": i, "id": c.id, "type": "function",
                   "function": {"name": c.name, "arguments": ""}}]}),
            None,
        ));
        frames.push(chunk(
            json!({"tool_calls": [{"index": i, "function": {"arguments": c.arguments}}]}),
            None,
        ));
    }
    frames.push(chunk(json!({}), Some(finish_reason(r))));
    if include_usage {
        frames.push(data_frame(&json!({
            "id": meta.id,
            "object": "chat.completion.chunk",
            "created": meta.created,
            "model": meta.model,
            "choices": [],
            "usage": usage_json(&r.usage),
        })));
    }
    frames.push(done_frame());
    frames
}

/// Cuts text into pieces of at most `max` bytes on character boundaries.
fn split_text(text: &str, max: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = rest.len().min(max);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (head, tail) = rest.split_at(end);
        pieces.push(head);
        rest = tail;
    }
    pieces
}

fn usage_of(u: &Value) -> Usage {
    Usage {
        input_tokens: count(u, "prompt_tokens"),
        output_tokens: count(u, "completion_tokens"),
        cached_input_tokens: count_at(u, "/prompt_tokens_details/cached_tokens"),
    }
}

/// Reads a non-streaming upstream `chat.completion`.
pub fn parse_response(v: &Value) -> Assembled {
    if let Some(err) = v.get("error") {
        return Assembled {
            response: ModelResponse::default(),
            error: Some(format!("upstream: {}", error_message(err))),
        };
    }
    let message = v
        .pointer("/choices/0/message")
        .cloned()
        .unwrap_or(Value::Null);
    let tool_calls = match message.get("tool_calls") {
        Some(Value::Array(calls)) => calls.iter().filter_map(|c| parse_call(c).ok()).collect(),
        _ => Vec::new(),
    };
    Assembled {
        response: ModelResponse {
            text: content_text(message.get("content")),
            tool_calls,
            usage: v.get("usage").map(usage_of).unwrap_or_default(),
        },
        error: None,
    }
}

/// Assembles `chat.completion.chunk` events.
#[derive(Debug, Default)]
pub struct ChatAssembler {
    response: ModelResponse,
    finished: bool,
    error: Option<String>,
}

impl ChatAssembler {
    /// Takes one SSE event.
    pub fn event(&mut self, e: &SseEvent) {
        if e.data.trim() == "[DONE]" {
            self.finished = true;
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(&e.data) else {
            self.error = Some(format!("upstream: unreadable stream chunk: {}", e.data));
            return;
        };
        if let Some(err) = v.get("error") {
            self.error = Some(format!("upstream: {}", error_message(err)));
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.response.usage = usage_of(u);
        }
        let Some(choice) = v.pointer("/choices/0") else {
            return;
        };
        if choice.get("finish_reason").is_some_and(|f| !f.is_null()) {
            self.finished = true;
        }
        let Some(delta) = choice.get("delta") else {
            return;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.response.text.push_str(text);
        }
        if let Some(Value::Array(calls)) = delta.get("tool_calls") {
            for c in calls {
                self.tool_delta(c);
            }
        }
    }

    fn tool_delta(&mut self, c: &Value) {
        let calls = &mut self.response.tool_calls;
        let index = c
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(calls.len().saturating_sub(1));
        while calls.len() <= index {
            calls.push(ToolCall {
                id: String::new(),
                name: String::new(),
                namespace: None,
                arguments: String::new(),
            });
        }
        let call = &mut calls[index];
        if let Some(id) = c.get("id").and_then(Value::as_str) {
            call.id = id.to_owned();
        }
        if let Some(name) = c.pointer("/function/name").and_then(Value::as_str) {
            call.name.push_str(name);
        }
        if let Some(args) = c.pointer("/function/arguments").and_then(Value::as_str) {
            call.arguments.push_str(args);
        }
    }

    /// Whether a finish reason or `[DONE]` was seen.
    pub fn ended(&self) -> bool {
        self.finished
    }

    /// The assembled response; a stream without a finish reason or `[DONE]` was cut.
    pub fn finish(self) -> Assembled {
        let error = self.error.or_else(|| {
            (!self.finished).then(|| "upstream: stream ended before the response finished".into())
        });
        Assembled {
            response: self.response,
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::sse::SseParser;

    fn sample() -> ModelResponse {
        ModelResponse {
            text: "héllo ".repeat(30),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "post_message".into(),
                namespace: None,
                arguments: r#"{"community":"c","text":"t"}"#.into(),
            }],
            usage: Usage {
                input_tokens: 7,
                output_tokens: 3,
                cached_input_tokens: 5,
            },
        }
    }

    #[test]
    fn rendered_stream_assembles_back_to_the_same_response() {
        let meta = ResponseMeta {
            id: "chatcmpl-1".into(),
            model: "m".into(),
            created: 1,
        };
        let frames = render_sse(&sample(), &meta, true);
        assert!(frames.len() > 5, "text is cut into several deltas");
        let mut parser = SseParser::new();
        let mut asm = ChatAssembler::default();
        for f in &frames {
            for e in parser.feed(f) {
                asm.event(&e);
            }
        }
        assert_eq!(
            asm.finish(),
            Assembled {
                response: sample(),
                error: None
            }
        );
        assert_eq!(
            parse_response(&render_json(&sample(), &meta)).response,
            sample()
        );
    }

    #[test]
    fn an_upstream_usage_report_gives_input_output_and_cached_tokens() {
        // Shaped as OpenAI documents a chat completion with prompt caching.
        let v = json!({
            "id": "chatcmpl-9", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                      "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}}
        });
        let usage = parse_response(&v).response.usage;
        assert_eq!(
            (
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_input_tokens
            ),
            (2006, 300, 1920)
        );
        let without = json!({"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 1}});
        assert_eq!(
            parse_response(&without).response.usage.cached_input_tokens,
            0
        );
    }

    #[test]
    fn array_content_and_tool_results_are_parsed() {
        let v = json!({"model": "m", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "x", "content": "ok"}
        ]});
        let p = parse_request(v).unwrap();
        assert_eq!(p.request.messages[0].content, "a\nb");
        assert_eq!(p.request.messages[1].tool_calls[0].name, "f");
        assert_eq!(p.request.messages[2].tool_call_id.as_deref(), Some("x"));
        assert!(parse_request(json!({"messages": [{"role": "wizard"}]})).is_err());
    }
}
