//! Wire-neutral model API types: both OpenAI wire formats (Chat Completions and
//! Responses) are parsed into these and rendered back from them, so simulated models,
//! the guard and the trace handle one shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which OpenAI wire format a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WireApi {
    /// `POST .../chat/completions`.
    ChatCompletions,
    /// `POST .../responses`.
    Responses,
}

/// Author of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// System instructions.
    System,
    /// Developer instructions (Responses API and newer chat models).
    Developer,
    /// The user / participant side.
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Author.
    pub role: Role,
    /// Text content (parts joined with newlines).
    pub content: String,
    /// Tool calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// A tool the request offers to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name as the model must call it.
    pub name: String,
    /// Namespace the tool sits in (Codex MCP namespaces), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Description offered to the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of the arguments.
    #[serde(default)]
    pub parameters: Value,
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id (harnesses may rewrite it; never match on it exactly).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Namespace, if the tool has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Arguments as a JSON string, exactly as the wire carries them.
    pub arguments: String,
}

/// A model request in wire-neutral form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// Requested model name.
    pub model: String,
    /// The full conversation (harnesses re-send all history).
    pub messages: Vec<Message>,
    /// Tools offered.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Whether the client asked for server-sent events.
    #[serde(default)]
    pub stream: bool,
}

/// Token usage of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// The part of `input_tokens` the upstream served from its prompt cache (0 when it
    /// does not say).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A model response in wire-neutral form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelResponse {
    /// Assistant text (may be empty when only tools are called).
    pub text: String,
    /// Tool calls requested.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Token usage.
    pub usage: Usage,
}
