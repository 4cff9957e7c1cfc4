//! The tools agent harnesses bring with them, as the proxy reads them: which tool
//! names run a shell, write or patch files, or only read, and the marker by which a
//! harness flags a user message as context it added itself. The guard classifies
//! tool calls by this vocabulary and the simulated models choose their tools by it;
//! neither names a harness. The list also covers tool names of common agents that
//! CoSec does not drive, so a standalone proxy in front of them still looks into
//! their shells and writes.

use crate::tools;

/// What a harness's own tool does, as far as the guard is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NativeRole {
    /// Runs a shell command (its text is under one of [`SHELL_COMMAND_KEYS`]).
    Shell,
    /// Creates or edits a file named by a path argument.
    FileWrite,
    /// Applies a patch in the `apply_patch` envelope format.
    Patch,
    /// Only reads (lists, reads, searches files).
    Read,
}

const SHELL: &[&str] = &[
    "exec_command",
    "exec",
    "terminal",
    "shell",
    "bash",
    "local_shell",
    "run_shell_command",
    "run_terminal_cmd",
];

const FILE_WRITE: &[&str] = &[
    "write",
    tools::WRITE_FILE,
    "create_file",
    "edit",
    "multiedit",
    "replace",
    "str_replace_based_edit_tool",
    "edit_file",
];

const PATCH: &[&str] = &["apply_patch"];

const READ: &[&str] = &[
    tools::READ_FILE,
    tools::LIST_FILES,
    tools::SEARCH,
    "read",
    "ls",
    "glob",
    "grep",
    "view",
    "search_files",
];

/// Argument keys under which shell tools take their command, most common first.
pub const SHELL_COMMAND_KEYS: &[&str] = &["cmd", "command", "script", "input"];

/// Markers a harness puts in a user message it writes itself (tool-result context
/// appended as a user message), so that message does not open a participant's turn.
const CONTEXT_MARKERS: &[&str] = &["<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"];

/// The tool name without MCP prefixes (`mcp__cosec__post_message` is `post_message`),
/// lower-cased.
pub fn plain_name(name: &str) -> String {
    name.rsplit("__")
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase()
}

/// The tool names of a role, in the order a simulated model prefers them.
pub fn names(role: NativeRole) -> &'static [&'static str] {
    match role {
        NativeRole::Shell => SHELL,
        NativeRole::FileWrite => FILE_WRITE,
        NativeRole::Patch => PATCH,
        NativeRole::Read => READ,
    }
}

/// The role of a tool by its plain name, if it is one the guard looks into.
pub fn role(plain: &str) -> Option<NativeRole> {
    [
        NativeRole::Shell,
        NativeRole::FileWrite,
        NativeRole::Patch,
        NativeRole::Read,
    ]
    .into_iter()
    .find(|role| names(*role).contains(&plain))
}

/// Whether a user message is context a harness added, not a participant's words.
pub fn is_harness_context(text: &str) -> bool {
    CONTEXT_MARKERS.iter().any(|m| text.contains(m))
}

/// Whether a tool's JSON schema declares the argument `key`.
pub fn declares(parameters: &serde_json::Value, key: &str) -> bool {
    parameters
        .get("properties")
        .and_then(|p| p.get(key))
        .is_some()
}

/// The argument under which a shell tool with this JSON schema takes its command:
/// the first of [`SHELL_COMMAND_KEYS`] its schema declares, else `command`.
pub fn command_key(parameters: &serde_json::Value) -> &'static str {
    SHELL_COMMAND_KEYS
        .iter()
        .find(|k| declares(parameters, k))
        .copied()
        .unwrap_or("command")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_read_without_prefix_or_case() {
        assert_eq!(role(&plain_name("Bash")), Some(NativeRole::Shell));
        assert_eq!(
            role(&plain_name("mcp__cosec__read_file")),
            Some(NativeRole::Read)
        );
        assert_eq!(role(&plain_name("apply_patch")), Some(NativeRole::Patch));
        assert_eq!(role("post_message"), None);
    }

    #[test]
    fn the_command_key_comes_from_the_schema() {
        let schema = |key: &str| json!({"type": "object", "properties": {key: {"type": "string"}}});
        assert_eq!(command_key(&schema("cmd")), "cmd");
        assert_eq!(command_key(&schema("script")), "script");
        assert_eq!(command_key(&json!({"type": "object"})), "command");
    }
}
