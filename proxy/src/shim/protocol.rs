//! The shim socket's wire format: one JSON object per line each way.
//!
//! Requests: `{"trial": ID, "tool": NAME, "arguments": {...}}` answered by
//! `{"text": ..., "is_error": bool}` (a [`super::ToolResult`]), and
//! `{"trial": ID, "list_tools": true}` answered by `{"tools": [{"name", "description",
//! "input_schema"}, ...]}` ([`ToolList`]) or by an error result.

use crate::tools::ToolDef;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request on the shim socket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShimRequest {
    /// The trial the caller belongs to.
    pub trial: String,
    /// Tool to call (absent for a tool listing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Tool arguments (a JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Asks for the trial's tool definitions instead of calling a tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list_tools: bool,
}

impl ShimRequest {
    /// A tool call request.
    pub fn call(trial: &str, tool: &str, arguments: Value) -> Self {
        ShimRequest {
            trial: trial.to_owned(),
            tool: Some(tool.to_owned()),
            arguments: Some(arguments),
            list_tools: false,
        }
    }

    /// A tool listing request.
    pub fn list_tools(trial: &str) -> Self {
        ShimRequest {
            trial: trial.to_owned(),
            tool: None,
            arguments: None,
            list_tools: true,
        }
    }
}

/// A tool definition on the wire (MCP calls the argument schema `input_schema`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireTool {
    /// Tool name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON schema of the arguments (an object schema).
    pub input_schema: Value,
}

impl From<&ToolDef> for WireTool {
    fn from(def: &ToolDef) -> Self {
        WireTool {
            name: def.name.clone(),
            description: def.description.clone(),
            input_schema: def.parameters.clone(),
        }
    }
}

/// The answer to a tool listing request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolList {
    /// The trial's tools.
    pub tools: Vec<WireTool>,
}
