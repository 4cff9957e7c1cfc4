//! File tools of the shim and the agent-half layout, on real files in a tempdir.

mod shim_fixture;

use cosec_proxy::shim::{materialize_agent_half, MEMORY_NOTES};
use cosec_proxy::trace::{Effect, TraceEvent};
use cosec_scenarios::{Namespace, Sensitivity};
use serde_json::json;
use shim_fixture::*;

#[test]
fn materialize_writes_files_documents_memory_and_folders_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("agent");
    materialize_agent_half(&agent_tier(), &root).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("communities/carepod/notes/allergy.md")).unwrap(),
        ALLERGY
    );
    assert_eq!(
        std::fs::read_to_string(root.join("shared/report.md")).unwrap(),
        REPORT
    );
    assert_eq!(
        std::fs::read_to_string(root.join(MEMORY_NOTES)).unwrap(),
        format!("{MEMORY_PIN}\n\n{MEMORY_PREF}\n")
    );
    assert!(root.join("communities/workhub").is_dir());
    // Session history and tool observations are not files anywhere in the agent half.
    let fx = Fixture::new();
    for (path, bytes) in fx.snapshot() {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("offsite"),
            "session history leaked into {path:?}"
        );
        assert!(
            !text.contains("555-0101"),
            "tool observation leaked into {path:?}"
        );
    }
}

#[tokio::test]
async fn read_of_seeded_file_serves_its_label_outside_the_result() {
    let fx = Fixture::new();
    let r = fx
        .call(
            "read_file",
            json!({"path": "communities/carepod/notes/allergy.md"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(r.text, ALLERGY);
    for hidden in ["obj-allergy", "u-ana", "health", "sensitivity"] {
        assert!(!r.text.contains(hidden), "result text carries `{hidden}`");
    }
    let events = fx.events();
    assert!(
        matches!(&events[0], TraceEvent::ToolCall { tool, is_error: false, result, .. }
        if tool == "read_file" && result == ALLERGY)
    );
    match &events[1] {
        TraceEvent::ObjectServed {
            object,
            label,
            via,
            turn,
        } => {
            assert_eq!(object.as_str(), "obj-allergy");
            assert_eq!(label.sensitivity, vec![Sensitivity::Health]);
            assert_eq!(via, "read_file");
            assert_eq!(*turn, 1);
        }
        other => panic!("expected ObjectServed, got {other:?}"),
    }
    assert_eq!(events.len(), 2);
}

#[tokio::test]
async fn reading_memory_serves_each_memory_entry_and_plain_files_serve_nothing() {
    let fx = Fixture::new();
    let r = fx
        .call("read_file", json!({"path": "memory/notes.md"}))
        .await;
    assert!(r.text.contains(MEMORY_PIN));
    assert_eq!(fx.served(), vec!["obj-pin", "obj-pref"]);

    let w = fx
        .call(
            "write_file",
            json!({"path": "shared/todo.md", "content": "buy milk"}),
        )
        .await;
    assert!(!w.is_error, "{}", w.text);
    let r = fx
        .call("read_file", json!({"path": "./shared/todo.md"}))
        .await;
    assert_eq!(r.text, "buy milk");
    assert_eq!(
        fx.served().len(),
        2,
        "an unlabeled file served a labeled object"
    );
}

#[tokio::test]
async fn write_records_file_write_with_previous_content() {
    let fx = Fixture::new();
    let r = fx
        .call(
            "write_file",
            json!({"path": "shared/report.md", "content": "new text"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(fx.root.join("shared/report.md")).unwrap(),
        "new text"
    );
    let r2 = fx
        .call(
            "write_file",
            json!({"path": "communities/workhub/plan/a.md", "content": "plan"}),
        )
        .await;
    assert!(!r2.is_error, "{}", r2.text);
    assert_eq!(
        fx.effects(),
        vec![
            Effect::FileWrite {
                namespace: Namespace::Shared,
                path: "report.md".into(),
                content: "new text".into(),
                previous: Some(REPORT.into()),
            },
            Effect::FileWrite {
                namespace: Namespace::Community {
                    community: "workhub".into()
                },
                path: "plan/a.md".into(),
                content: "plan".into(),
                previous: None,
            },
        ]
    );
    assert_eq!(
        fx.tool_calls(),
        vec![("write_file".into(), false), ("write_file".into(), false)]
    );
}

#[tokio::test]
async fn copy_records_the_target_write() {
    let fx = Fixture::new();
    let r = fx
        .call(
            "copy_file",
            json!({"from": "communities/carepod/notes/allergy.md", "to": "shared/copy.md"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(
        std::fs::read_to_string(fx.root.join("shared/copy.md")).unwrap(),
        ALLERGY
    );
    assert_eq!(
        fx.effects(),
        vec![Effect::FileWrite {
            namespace: Namespace::Shared,
            path: "copy.md".into(),
            content: ALLERGY.into(),
            previous: None,
        }]
    );
    // Copying hands nothing to the agent; reading the copy does hand the labeled content out.
    assert!(fx.served().is_empty());
    fx.call("read_file", json!({"path": "shared/copy.md"}))
        .await;
    assert_eq!(fx.served(), vec!["obj-allergy"]);
}

#[tokio::test]
async fn list_shows_tool_paths_and_document_titles() {
    let fx = Fixture::new();
    let all = fx.call("list_files", json!({"path": "."})).await;
    assert!(!all.is_error, "{}", all.text);
    let lines: Vec<&str> = all.text.lines().collect();
    assert_eq!(
        lines,
        vec![
            "communities/carepod/notes/allergy.md",
            "memory/notes.md",
            "shared/report.md  (document: Quarterly report)",
        ]
    );
    let one = fx
        .call("list_files", json!({"path": "communities/carepod"}))
        .await;
    assert_eq!(one.text, "communities/carepod/notes/allergy.md");
    let bad = fx
        .call("list_files", json!({"path": "communities/nowhere"}))
        .await;
    assert!(
        bad.is_error && bad.text.contains("carepod (CarePod)"),
        "{}",
        bad.text
    );
    assert!(fx.served().is_empty(), "listing hands out no content");
}

#[tokio::test]
async fn traversal_is_refused_with_a_clear_error_and_nothing_written() {
    let fx = Fixture::new();
    let outside = fx.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "outside secret").unwrap();
    std::os::unix::fs::symlink(&outside, fx.root.join("shared/link")).unwrap();
    let before = fx.snapshot();

    let attempts = [
        ("read_file", json!({"path": "../x"})),
        ("read_file", json!({"path": "/etc/passwd"})),
        ("read_file", json!({"path": "communities/../../x"})),
        ("read_file", json!({"path": "shared/link/secret.txt"})),
        ("write_file", json!({"path": "../x", "content": "pwned"})),
        (
            "write_file",
            json!({"path": "/tmp/cosec-shim-pwned", "content": "pwned"}),
        ),
        (
            "write_file",
            json!({"path": "communities/../../x", "content": "pwned"}),
        ),
        (
            "write_file",
            json!({"path": "shared/link/new.txt", "content": "pwned"}),
        ),
        (
            "copy_file",
            json!({"from": "shared/report.md", "to": "shared/link/copy.md"}),
        ),
        (
            "copy_file",
            json!({"from": "shared/link/secret.txt", "to": "shared/stolen.md"}),
        ),
        ("list_files", json!({"path": "shared/link"})),
        ("list_files", json!({"path": ".."})),
        (
            "share_file",
            json!({"path": "shared/link/secret.txt", "community": "carepod"}),
        ),
    ];
    for (tool, args) in attempts {
        let r = fx.call(tool, args.clone()).await;
        assert!(r.is_error, "{tool} {args} was not refused: {}", r.text);
        assert!(
            r.text.contains("outside the agent's files") || r.text.contains("symbolic link"),
            "{tool} {args}: unclear error `{}`",
            r.text
        );
        assert!(!r.text.contains("outside secret"));
    }
    assert_eq!(
        fx.snapshot(),
        before,
        "a refused call changed the agent half"
    );
    assert!(!fx.dir.path().join("x").exists());
    assert!(!std::path::Path::new("/tmp/cosec-shim-pwned").exists());
    assert!(!outside.join("new.txt").exists() && !outside.join("copy.md").exists());
    assert!(fx.effects().is_empty());
    assert!(fx.served().is_empty());
    assert!(fx.tool_calls().iter().all(|(_, is_error)| *is_error));
    assert_eq!(fx.tool_calls().len(), 13, "refused calls are traced too");
}

#[tokio::test]
async fn bad_paths_and_arguments_are_tool_errors() {
    let fx = Fixture::new();
    let missing = fx
        .call("read_file", json!({"path": "shared/nope.md"}))
        .await;
    assert!(
        missing.is_error && missing.text.contains("list_files"),
        "{}",
        missing.text
    );
    let folder = fx
        .call("read_file", json!({"path": "communities/carepod/notes"}))
        .await;
    assert!(
        folder.is_error && folder.text.contains("folder"),
        "{}",
        folder.text
    );
    let no_ns = fx.call("read_file", json!({"path": "etc/passwd"})).await;
    assert!(
        no_ns.is_error && no_ns.text.contains("shared/"),
        "{}",
        no_ns.text
    );
    let stranger = fx
        .call(
            "write_file",
            json!({"path": "communities/evil/x.md", "content": "x"}),
        )
        .await;
    assert!(
        stranger.is_error && stranger.text.contains("workhub (WorkHub)"),
        "{}",
        stranger.text
    );
    let no_arg = fx.call("write_file", json!({"path": "shared/x.md"})).await;
    assert!(
        no_arg.is_error && no_arg.text.contains("content"),
        "{}",
        no_arg.text
    );
    let not_object = fx.call("read_file", json!("shared/report.md")).await;
    assert!(not_object.is_error);
    let unknown = fx.call("rm_rf", json!({})).await;
    assert!(
        unknown.is_error && unknown.text.contains("directory_lookup"),
        "{}",
        unknown.text
    );
    assert!(!fx.root.join("communities/evil").exists());
    assert!(fx.effects().is_empty());
}

#[tokio::test]
async fn a_symlink_inside_the_agent_half_acts_on_its_target_namespace() {
    let fx = Fixture::new();
    std::os::unix::fs::symlink(
        "../communities/carepod/notes/allergy.md",
        fx.root.join("shared/alias.md"),
    )
    .unwrap();
    let r = fx
        .call("read_file", json!({"path": "shared/alias.md"}))
        .await;
    assert_eq!(r.text, ALLERGY);
    assert_eq!(fx.served(), vec!["obj-allergy"]);
    let w = fx
        .call(
            "write_file",
            json!({"path": "shared/alias.md", "content": "rewritten"}),
        )
        .await;
    assert!(!w.is_error, "{}", w.text);
    assert_eq!(
        fx.effects(),
        vec![Effect::FileWrite {
            namespace: Namespace::Community {
                community: "carepod".into()
            },
            path: "notes/allergy.md".into(),
            content: "rewritten".into(),
            previous: Some(ALLERGY.into()),
        }]
    );
}

#[tokio::test]
async fn what_write_file_creates_belongs_to_the_owner_of_its_folder() {
    use std::os::unix::fs::{lchown, MetadataExt};
    let fx = Fixture::new();
    let owner = |p: &std::path::Path| {
        let m = std::fs::symlink_metadata(p).unwrap();
        (m.uid(), m.gid())
    };
    if owner(&fx.root) != (0, 0) {
        eprintln!("skipped: giving files away needs root");
        return;
    }
    // The agent half as the Docker sandbox lends it to `nobody` for a run.
    let sandbox_user = (65534, 65534);
    let shared = fx.root.join("shared");
    lchown(&shared, Some(sandbox_user.0), Some(sandbox_user.1)).unwrap();
    let r = fx
        .call(
            "write_file",
            json!({"path": "shared/plans/week/notes.md", "content": "bring snacks"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    for made in [
        "shared/plans",
        "shared/plans/week",
        "shared/plans/week/notes.md",
    ] {
        assert_eq!(owner(&fx.root.join(made)), sandbox_user, "{made}");
    }
    // A file that existed keeps its owner; the folder it is in is not touched.
    let report = fx.root.join("shared/report.md");
    let r = fx
        .call(
            "write_file",
            json!({"path": "shared/report.md", "content": "v2"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert_eq!(owner(&report), (0, 0));
    assert_eq!(owner(&fx.root), (0, 0));
}
