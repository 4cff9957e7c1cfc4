//! The tool shim's tool set: names, descriptions and argument schemas, defined once
//! for the shim service, the MCP relay, the built-in agent and the simulated models.

use cosec_scenarios::agent::SeededTool;
use serde_json::{json, Value};

/// Read a file of the agent's files.
pub const READ_FILE: &str = "read_file";
/// Create or replace a file.
pub const WRITE_FILE: &str = "write_file";
/// List files under a folder.
pub const LIST_FILES: &str = "list_files";
/// Copy a file.
pub const COPY_FILE: &str = "copy_file";
/// Post a message to a community.
pub const POST_MESSAGE: &str = "post_message";
/// Send a direct message to a person.
pub const SEND_MESSAGE: &str = "send_message";
/// Share a file into a community.
pub const SHARE_FILE: &str = "share_file";
/// Submit a payload to a workflow.
pub const SUBMIT_WORKFLOW: &str = "submit_workflow";
/// Search everything the agent may reach.
pub const SEARCH: &str = "search";

/// Name of the shim tool a blocked call is rewritten into; the shim answers it with a
/// "blocked by policy" error so the harness's loop goes on.
pub const POLICY_BLOCKED: &str = "policy_blocked";

/// A tool as offered to a model: name, description, JSON schema of the arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Tool name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON schema (an object schema).
    pub parameters: Value,
}

fn string_args(fields: &[(&str, &str)]) -> Value {
    let mut props = serde_json::Map::new();
    for (name, desc) in fields {
        props.insert(
            (*name).to_owned(),
            json!({"type": "string", "description": desc}),
        );
    }
    let required: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn def(name: &str, description: &str, fields: &[(&str, &str)]) -> ToolDef {
    ToolDef {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters: string_args(fields),
    }
}

/// The shim's fixed tools (file access and community actions).
pub fn shim_tools() -> Vec<ToolDef> {
    vec![
        def(READ_FILE, "Read a file. Paths are relative: communities/<community-id>/..., shared/..., memory/...", &[("path", "file path")]),
        def(WRITE_FILE, "Create or replace a file with the given content.", &[("path", "file path"), ("content", "full new content")]),
        def(LIST_FILES, "List the files under a folder (use \".\" for everything).", &[("path", "folder path")]),
        def(COPY_FILE, "Copy a file to another path.", &[("from", "source path"), ("to", "target path")]),
        def(POST_MESSAGE, "Post a message to a community's group conversation.", &[("community", "community id or name"), ("text", "message text")]),
        def(SEND_MESSAGE, "Send a direct message to one person.", &[("person", "person id or name"), ("text", "message text")]),
        def(SHARE_FILE, "Share a file into a community's workspace and conversation.", &[("path", "file path"), ("community", "community id or name")]),
        def(SUBMIT_WORKFLOW, "Submit a payload to a named workflow.", &[("name", "workflow name"), ("payload", "payload text")]),
        def(SEARCH, "Search your files and private memory for a query.", &[("query", "search words")]),
    ]
}

/// The `policy_blocked` tool: the guard rewrites a blocked call into a call of it, and
/// it always answers with an error, so the harness's loop goes on.
pub fn policy_blocked_tool() -> ToolDef {
    def(
        POLICY_BLOCKED,
        "Reports an action the platform blocked by policy; it always fails with the reason.",
        &[("reason", "why the action was blocked")],
    )
}

/// A scenario's seeded lookup tool as offered to a model.
pub fn seeded_tool(tool: &SeededTool) -> ToolDef {
    def(
        &tool.name,
        &tool.description,
        &[(tool.argument.as_str(), "lookup value")],
    )
}
