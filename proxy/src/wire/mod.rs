//! The two OpenAI wire formats, parsed into and rendered from the wire-neutral types of
//! [`crate::api`]: requests from clients, responses to clients (JSON or SSE), and
//! upstream responses (JSON or SSE) assembled back for the trace.

pub mod chat;
pub mod fields;
pub mod responses;
pub mod sse;

use crate::api::{ModelRequest, ModelResponse, WireApi};
use bytes::Bytes;
use serde_json::Value;

/// Why a client request could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The body is not JSON at all.
    #[error("request body is not valid JSON: {0}")]
    NotJson(String),
    /// The JSON does not have the shape of the wire format.
    #[error("invalid request: {0}")]
    Invalid(String),
}

/// A parsed client request plus the wire options the neutral form does not carry.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedRequest {
    /// The request, wire-neutral.
    pub request: ModelRequest,
    /// Chat Completions `stream_options.include_usage`: send a final usage chunk.
    pub include_usage: bool,
}

/// Identity of a rendered response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseMeta {
    /// Response id (`chatcmpl-...` or `resp_...`).
    pub id: String,
    /// Model name reported to the client.
    pub model: String,
    /// Unix seconds.
    pub created: u64,
}

/// An upstream response assembled for the trace; a stream may break after some content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assembled {
    /// Everything received, assembled.
    pub response: ModelResponse,
    /// What went wrong, if the upstream reported an error or the stream ended early.
    pub error: Option<String>,
}

/// Reads a request body as JSON.
pub fn parse_json(body: &[u8]) -> Result<Value, WireError> {
    serde_json::from_slice(body).map_err(|e| WireError::NotJson(e.to_string()))
}

/// Parses a client request of either wire format. The body is consumed: message texts
/// are moved out of it, not copied, so a large request is not held twice.
pub fn parse_request(api: WireApi, body: Value) -> Result<ParsedRequest, WireError> {
    if !body.is_object() {
        return Err(WireError::Invalid(
            "the request body must be a JSON object".into(),
        ));
    }
    match api {
        WireApi::ChatCompletions => chat::parse_request(body),
        WireApi::Responses => responses::parse_request(body),
    }
}

/// Renders a non-streaming JSON response body.
pub fn render_json(api: WireApi, response: &ModelResponse, meta: &ResponseMeta) -> Value {
    match api {
        WireApi::ChatCompletions => chat::render_json(response, meta),
        WireApi::Responses => responses::render_json(response, meta),
    }
}

/// Renders a streaming response as SSE frames, in order.
pub fn render_sse(
    api: WireApi,
    response: &ModelResponse,
    meta: &ResponseMeta,
    include_usage: bool,
) -> Vec<Bytes> {
    match api {
        WireApi::ChatCompletions => chat::render_sse(response, meta, include_usage),
        WireApi::Responses => responses::render_sse(response, meta),
    }
}

/// Reads a non-streaming upstream response body.
pub fn parse_response_json(api: WireApi, body: &[u8]) -> Assembled {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Assembled {
                response: ModelResponse::default(),
                error: Some(format!("upstream: response is not JSON: {e}")),
            }
        }
    };
    match api {
        WireApi::ChatCompletions => chat::parse_response(&value),
        WireApi::Responses => responses::parse_response(&value),
    }
}

/// Assembles a streamed upstream response from its raw bytes, chunk by chunk.
#[derive(Debug)]
pub struct StreamAssembler {
    parser: sse::SseParser,
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Chat(chat::ChatAssembler),
    Responses(responses::ResponsesAssembler),
}

impl StreamAssembler {
    /// An assembler for one wire format.
    pub fn new(api: WireApi) -> Self {
        let inner = match api {
            WireApi::ChatCompletions => Inner::Chat(chat::ChatAssembler::default()),
            WireApi::Responses => Inner::Responses(responses::ResponsesAssembler::default()),
        };
        StreamAssembler {
            parser: sse::SseParser::new(),
            inner,
        }
    }

    /// Feeds a chunk of the raw stream.
    pub fn feed(&mut self, chunk: &[u8]) {
        for event in self.parser.feed(chunk) {
            self.event(&event);
        }
    }

    /// The assembled response once the stream has ended.
    pub fn finish(self) -> Assembled {
        self.finish_ended().0
    }

    /// The assembled response, and whether the stream reached its final event (Chat
    /// Completions: `[DONE]` or a finish reason; Responses: `response.completed`,
    /// `.failed`, `.incomplete` or an `error` event).
    pub fn finish_ended(mut self) -> (Assembled, bool) {
        let parser = std::mem::take(&mut self.parser);
        for event in parser.finish() {
            self.event(&event);
        }
        match self.inner {
            Inner::Chat(a) => {
                let ended = a.ended();
                (a.finish(), ended)
            }
            Inner::Responses(a) => {
                let ended = a.ended();
                (a.finish(), ended)
            }
        }
    }

    fn event(&mut self, event: &sse::SseEvent) {
        match &mut self.inner {
            Inner::Chat(a) => a.event(event),
            Inner::Responses(a) => a.event(event),
        }
    }
}

/// Gives every tool call an id and, where the request offered the tool inside exactly
/// one namespace, that namespace: simulated models need not repeat wire details.
pub fn complete_tool_calls(response: &mut ModelResponse, request: &ModelRequest, id_seed: &str) {
    for (i, call) in response.tool_calls.iter_mut().enumerate() {
        if call.id.is_empty() {
            call.id = format!("call_{id_seed}_{i}");
        }
        if call.namespace.is_none() {
            let mut spaces = request
                .tools
                .iter()
                .filter(|t| t.name == call.name)
                .map(|t| t.namespace.clone());
            if let (Some(ns), None) = (spaces.next(), spaces.next()) {
                call.namespace = ns;
            }
        }
    }
}

/// Like [`content_text`], moving a plain string out of `content` instead of copying it.
pub(crate) fn take_content_text(content: Option<&mut Value>) -> String {
    match content {
        Some(Value::String(s)) => std::mem::take(s),
        other => content_text(other.map(|v| &*v)),
    }
}

/// Joins the text of a content value: a string, `null`, or an array of parts that
/// carry `text` (or `refusal`); other parts (images, files) have no text to keep.
pub(crate) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                _ => p
                    .get("text")
                    .or_else(|| p.get("refusal"))
                    .and_then(Value::as_str),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A string field, or an error naming it.
pub(crate) fn str_field<'a>(v: &'a Value, field: &str, what: &str) -> Result<&'a str, WireError> {
    v.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| WireError::Invalid(format!("{what} needs a string `{field}`")))
}

/// Arguments as the wire carries them: a JSON string, or an object some clients send.
pub(crate) fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A `u64` field or 0.
pub(crate) fn count(v: &Value, field: &str) -> u64 {
    v.get(field).and_then(Value::as_u64).unwrap_or(0)
}

/// A `u64` at a JSON pointer or 0.
pub(crate) fn count_at(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// The readable message of an upstream `error` object (or the whole value).
pub(crate) fn error_message(err: &Value) -> String {
    err.get("message")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| err.to_string())
}
