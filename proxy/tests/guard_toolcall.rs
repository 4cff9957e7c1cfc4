//! Tool calls in model responses: content redacted inside writes, posts, sends and shell
//! writes; denied transfers of labeled files blocked; malformed arguments blocked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;

use cosec_proxy::api::{ModelResponse, ToolCall, ToolSpec};
use cosec_proxy::guard::{
    GuardMode, ToolCallVerdict, BLOCKED_MALFORMED, BLOCKED_TRANSFER, MARKER, POLICY_BLOCKED,
};
use guard_fixture::*;
use serde_json::{json, Value};

fn call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: name.into(),
        namespace: None,
        arguments: args.to_string(),
    }
}

fn rewritten(v: ToolCallVerdict) -> Value {
    match v {
        ToolCallVerdict::Rewrite(c) => serde_json::from_str(&c.arguments).unwrap(),
        other => panic!("expected a rewrite, got {other:?}"),
    }
}

fn blocked(v: &ToolCallVerdict) -> bool {
    matches!(v, ToolCallVerdict::Block { reason } if reason == BLOCKED_TRANSFER)
}

const LEAK: &str = "Ole takes levetiracetam 500 mg twice daily; Ingrid: 07700 900412.";

fn setup(mode: GuardMode) -> (tempfile::TempDir, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), mode);
    f.guard.observe_request(&request_with(OLE_POST));
    (dir, f)
}

#[test]
fn shim_content_tools_are_redacted_and_go_on() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    let v = f.guard.check_tool_call(
        &gemma,
        &call(
            "write_file",
            json!({"path": "communities/y5parents/plan.md", "content": format!("Plan\n{LEAK}")}),
        ),
    );
    let args = rewritten(v);
    assert_eq!(args["path"], "communities/y5parents/plan.md");
    let content = args["content"].as_str().unwrap();
    assert!(
        content.starts_with("Plan\nOle [withheld") && content.contains(MARKER),
        "{content}"
    );
    assert_clean(content, OLE_SECRETS);

    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call(
            "mcp__cosec__post_message",
            json!({"community": "Oakfield Year 5 Parents", "text": LEAK}),
        ),
    ));
    assert_clean(args["text"].as_str().unwrap(), OLE_SECRETS);
    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call("send_message", json!({"person": "gemma", "text": LEAK})),
    ));
    assert_clean(args["text"].as_str().unwrap(), OLE_SECRETS);
    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call(
            "submit_workflow",
            json!({"name": "Parents_Newsletter", "payload": {"body": LEAK}}),
        ),
    ));
    assert_clean(&args["payload"].to_string(), OLE_SECRETS);

    let actions: Vec<(String, String)> = decisions(&f.trace_path)
        .into_iter()
        .map(|r| (r.3, r.4))
        .collect();
    assert_eq!(
        actions,
        [
            ("write", "workspace:y5parents"),
            ("disclose", "community:y5parents"),
            ("send", "person:gemma"),
            ("send", "workflow:parents_newsletter"),
        ]
        .map(|(a, d)| (a.to_owned(), d.to_owned()))
    );
}

#[test]
fn allowed_content_and_unrelated_tools_pass() {
    let (_d, f) = setup(GuardMode::Enforce);
    let ole = ctx("fellside", Some("ole"));
    // The owner asks: consent.
    let c = call(
        "write_file",
        json!({"path": "communities/y5parents/plan.md", "content": LEAK}),
    );
    assert_eq!(f.guard.check_tool_call(&ole, &c), ToolCallVerdict::Allow);
    let c = call("read_file", json!({"path": REFUND_PATH}));
    assert_eq!(f.guard.check_tool_call(&ole, &c), ToolCallVerdict::Allow);
    // A read names a path or a query to the platform, not to anyone: it is never
    // redacted, whatever the path holds (the input layer decides what comes back).
    let gemma = ctx("y5parents", Some("gemma"));
    for name in ["read_file", "mcp__cosec__search", "read", "list_files"] {
        let c = call(
            name,
            json!({"path": format!("notes/{LEAK}.md"), "query": LEAK}),
        );
        assert_eq!(
            f.guard.check_tool_call(&gemma, &c),
            ToolCallVerdict::Allow,
            "{name}"
        );
    }
    // A path outside the agent's files has no destination of its own: the owner may
    // write her content anywhere, and a turn denied it gets it redacted (the call's
    // content is read as a disclosure to the turn's reply destination).
    let c = call(
        "write",
        json!({"file_path": "/tmp/scratch.md", "content": LEAK}),
    );
    assert_eq!(f.guard.check_tool_call(&ole, &c), ToolCallVerdict::Allow);
    let args = rewritten(
        f.guard
            .check_tool_call(&ctx("y5parents", Some("gemma")), &c),
    );
    assert_eq!(args["file_path"], "/tmp/scratch.md");
    assert_clean(args["content"].as_str().unwrap(), OLE_SECRETS);
    // An unknown tool is read the same way.
    let c = call("lookup_notes", json!({"query": LEAK, "limit": 3}));
    assert_eq!(f.guard.check_tool_call(&ole, &c), ToolCallVerdict::Allow);
    let args = rewritten(
        f.guard
            .check_tool_call(&ctx("y5parents", Some("gemma")), &c),
    );
    assert_eq!(args["limit"], 3);
    assert_clean(args["query"].as_str().unwrap(), OLE_SECRETS);
}

#[test]
fn native_file_tools_and_patches_are_redacted() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    let abs = f.root.join("communities/y5parents/notes.md");
    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call(
            "Edit",
            json!({"file_path": abs, "old_string": "x", "new_string": LEAK}),
        ),
    ));
    assert_eq!(args["old_string"], "x");
    assert_clean(args["new_string"].as_str().unwrap(), OLE_SECRETS);

    let patch = format!("*** Begin Patch\n*** Add File: communities/y5parents/p.md\n+Walk plan\n+{LEAK}\n*** End Patch\n");
    let freeform = ToolCall {
        arguments: patch.clone(),
        ..call("apply_patch", json!({}))
    };
    match f.guard.check_tool_call(&gemma, &freeform) {
        ToolCallVerdict::Rewrite(c) => {
            assert!(c.arguments.starts_with("*** Begin Patch\n*** Add File: communities/y5parents/p.md\n+Walk plan\n+Ole [withheld"));
            assert!(c.arguments.ends_with("\n*** End Patch\n"));
            assert_clean(&c.arguments, OLE_SECRETS);
        }
        other => panic!("{other:?}"),
    }
    let args = rewritten(
        f.guard
            .check_tool_call(&gemma, &call("apply_patch", json!({"input": patch}))),
    );
    assert_clean(args["input"].as_str().unwrap(), OLE_SECRETS);
}

#[test]
fn shell_writes_are_redacted_in_place() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    let script = format!("mkdir -p communities/y5parents && cat > communities/y5parents/plan.md <<'EOF'\n# Plan\n{LEAK}\nEOF\necho saved");
    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call("exec_command", json!({"cmd": script, "workdir": "."})),
    ));
    let cmd = args["cmd"].as_str().unwrap();
    assert!(cmd.starts_with("mkdir -p communities/y5parents && cat > communities/y5parents/plan.md <<'EOF'\n# Plan\nOle [withheld"), "{cmd}");
    assert!(
        cmd.ends_with("\nEOF\necho saved") && cmd.contains(MARKER),
        "{cmd}"
    );
    assert_clean(cmd, OLE_SECRETS);
    assert_eq!(args["workdir"], ".");

    let echo = format!("echo \"{LEAK}\" >> communities/y5parents/plan.md");
    let args = rewritten(f.guard.check_tool_call(
        &gemma,
        &call("shell", json!({"command": ["bash", "-lc", echo]})),
    ));
    assert_eq!(args["command"][0], "bash");
    // The whole echoed sentence is a passage of the post: the word goes, quotes and all.
    let cmd = args["command"][2].as_str().unwrap();
    assert_eq!(
        cmd,
        format!("echo {MARKER} >> communities/y5parents/plan.md"),
        "{cmd}"
    );
    assert_clean(cmd, OLE_SECRETS);

    // The same content into a file outside the agent's files, or printed, comes back
    // into the session: read as a disclosure to the turn's reply destination.
    for other in [
        format!("echo '{LEAK}' > /tmp/x"),
        format!("printf '%s' '{LEAK}'"),
    ] {
        let args = rewritten(
            f.guard
                .check_tool_call(&gemma, &call("exec", json!({"command": other}))),
        );
        let cmd = args["command"].as_str().unwrap();
        assert!(cmd.contains(MARKER), "{cmd}");
        assert_clean(cmd, OLE_SECRETS);
    }
}

#[test]
fn copying_a_labeled_file_into_a_denied_namespace_is_blocked() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    let abs = f.root.join(REFUND_PATH).display().to_string();
    for cmd in [
        format!("cp {REFUND_PATH} communities/y5parents/"),
        format!("cp -f ./{REFUND_PATH} communities/y5parents/refund-copy.md"),
        format!("cat {REFUND_PATH} > communities/y5parents/r.md"),
        format!("tee communities/y5parents/r.md < {REFUND_PATH} >/dev/null"),
        format!("mv {REFUND_PATH} communities/fellside/"),
        format!("cp {abs} communities/y5parents/r.md"),
        "cp shared/finance/*.md communities/y5parents/".to_owned(),
        "cp -r shared communities/y5parents/backup".to_owned(),
    ] {
        let v = f
            .guard
            .check_tool_call(&gemma, &call("exec_command", json!({"cmd": cmd})));
        assert!(blocked(&v), "{cmd}: {v:?}");
    }
    let v = f.guard.check_tool_call(
        &gemma,
        &call(
            "copy_file",
            json!({"from": REFUND_PATH, "to": "communities/y5parents/r.md"}),
        ),
    );
    assert!(blocked(&v));
    let v = f.guard.check_tool_call(
        &gemma,
        &call(
            "share_file",
            json!({"path": REFUND_PATH, "community": "y5parents"}),
        ),
    );
    assert!(blocked(&v));
    let rows = decisions(&f.trace_path);
    assert!(
        rows.iter().all(|r| r.1 == "refund" && r.5 == "block"),
        "{rows:?}"
    );
    assert!(rows
        .iter()
        .any(|r| r.0 == "tool_call" && r.3 == "share" && r.4 == "community:y5parents"));

    // Reading it, or copying something public, is fine; the owner may share her own note.
    let read = call("exec_command", json!({"cmd": format!("cat {REFUND_PATH}")}));
    assert_eq!(
        f.guard.check_tool_call(&gemma, &read),
        ToolCallVerdict::Allow
    );
    let public = call(
        "exec_command",
        json!({"cmd": "cp communities/fellside/routes/ridgeway.md communities/y5parents/"}),
    );
    assert_eq!(
        f.guard.check_tool_call(&gemma, &public),
        ToolCallVerdict::Allow
    );
    let share = call(
        "share_file",
        json!({"path": REFUND_PATH, "community": "y5parents"}),
    );
    assert_eq!(
        f.guard
            .check_tool_call(&ctx("y5parents", Some("farah")), &share),
        ToolCallVerdict::Allow
    );
}

#[test]
fn a_copy_of_an_agent_file_holding_labeled_content_is_blocked() {
    let (_d, f) = setup(GuardMode::Enforce);
    std::fs::write(f.root.join("shared/notes.md"), format!("notes\n{REFUND}\n")).unwrap();
    let v = f.guard.check_tool_call(
        &ctx("y5parents", Some("gemma")),
        &call(
            "exec_command",
            json!({"cmd": "cp shared/notes.md communities/y5parents/"}),
        ),
    );
    assert!(blocked(&v), "{v:?}");
}

#[test]
fn malformed_arguments_fail_closed() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    for (name, args) in [
        (
            "write_file",
            "{\"path\": \"communities/y5parents/a\", \"content\": \"07700",
        ),
        ("exec_command", "[1, 2]"),
        ("post_message", "not json"),
    ] {
        let c = ToolCall {
            arguments: args.into(),
            ..call(name, json!({}))
        };
        assert_eq!(
            f.guard.check_tool_call(&gemma, &c),
            ToolCallVerdict::Block {
                reason: BLOCKED_MALFORMED.into()
            },
            "{name}"
        );
    }
    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| r.5 == "block" && !r.6.is_empty()));
    // Tools the guard does not look into are not blocked for odd arguments.
    let c = ToolCall {
        arguments: "oops".into(),
        ..call("update_plan", json!({}))
    };
    assert_eq!(f.guard.check_tool_call(&gemma, &c), ToolCallVerdict::Allow);
}

#[test]
fn shadow_mode_allows_every_call_but_traces() {
    let (_d, f) = setup(GuardMode::Shadow);
    let gemma = ctx("y5parents", Some("gemma"));
    let c = call(
        "exec_command",
        json!({"cmd": format!("cp {REFUND_PATH} communities/y5parents/")}),
    );
    assert_eq!(f.guard.check_tool_call(&gemma, &c), ToolCallVerdict::Allow);
    let c = call(
        "write_file",
        json!({"path": "communities/y5parents/plan.md", "content": LEAK}),
    );
    assert_eq!(f.guard.check_tool_call(&gemma, &c), ToolCallVerdict::Allow);
    // The copy is decided by the file's label and by its content, the write by its
    // content.
    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().all(|r| !r.7));
    assert_eq!(
        (rows[0].5.as_str(), rows[1].5.as_str(), rows[2].5.as_str()),
        ("block", "block", "redact")
    );
}

#[test]
fn a_response_is_checked_whole_and_blocked_calls_become_policy_blocked() {
    let (_d, f) = setup(GuardMode::Enforce);
    let gemma = ctx("y5parents", Some("gemma"));
    let mut request = request_with("hi");
    request.tools.push(ToolSpec {
        name: POLICY_BLOCKED.into(),
        namespace: Some("mcp__cosec".into()),
        description: String::new(),
        parameters: json!({}),
    });
    let response = ModelResponse {
        text: format!("Here it is: {LEAK}"),
        tool_calls: vec![
            call(
                "exec_command",
                json!({"cmd": format!("cp {REFUND_PATH} communities/y5parents/")}),
            ),
            call(
                "read_file",
                json!({"path": "communities/fellside/routes/ridgeway.md"}),
            ),
        ],
        usage: Default::default(),
    };
    let out = f.guard.check_response(&gemma, Some(&request), &response);
    assert!(out.changed(&response) && out.text_denied);
    assert_clean(&out.response.text, OLE_SECRETS);
    assert_eq!(out.blocked, vec![(0, BLOCKED_TRANSFER.to_owned())]);
    let b = &out.response.tool_calls[0];
    assert_eq!(
        (b.id.as_str(), b.name.as_str(), b.namespace.as_deref()),
        ("call_1", POLICY_BLOCKED, Some("mcp__cosec"))
    );
    let reason: Value = serde_json::from_str(&b.arguments).unwrap();
    assert_eq!(reason["reason"], BLOCKED_TRANSFER);
    assert_clean(&b.arguments, REFUND_SECRETS);
    assert!(!b.arguments.contains("refund"));
    assert_eq!(out.response.tool_calls[1], response.tool_calls[1]);
}
