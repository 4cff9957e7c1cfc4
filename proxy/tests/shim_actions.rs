//! Community actions, search and seeded tools of the shim.

mod shim_fixture;

use cosec_proxy::trace::{Effect, TraceEvent};
use cosec_scenarios::Namespace;
use serde_json::json;
use shim_fixture::*;

#[tokio::test]
async fn post_accepts_id_or_name_and_records_the_effect() {
    let fx = Fixture::new();
    let by_name = fx
        .call(
            "post_message",
            json!({"community": "carepod", "text": "hello all"}),
        )
        .await;
    assert!(!by_name.is_error, "{}", by_name.text);
    let by_display = fx
        .call(
            "post_message",
            json!({"community": "WORKHUB", "text": "standup at 9"}),
        )
        .await;
    assert!(!by_display.is_error, "{}", by_display.text);
    assert_eq!(
        fx.effects(),
        vec![
            Effect::Post {
                community: "carepod".into(),
                text: "hello all".into()
            },
            Effect::Post {
                community: "workhub".into(),
                text: "standup at 9".into()
            },
        ]
    );
    let events = fx.events();
    assert!(
        matches!(&events[0], TraceEvent::ToolCall { tool, community, turn: 1, .. }
        if tool == "post_message" && community.as_str() == "carepod")
    );
    assert!(matches!(&events[1], TraceEvent::Effect { turn: 1, .. }));
}

#[tokio::test]
async fn unknown_community_person_and_workflow_list_the_valid_choices() {
    let fx = Fixture::new();
    let c = fx
        .call(
            "post_message",
            json!({"community": "Chess Club", "text": "hi"}),
        )
        .await;
    assert!(c.is_error, "{}", c.text);
    assert!(
        c.text.contains("carepod (CarePod)") && c.text.contains("workhub (WorkHub)"),
        "{}",
        c.text
    );
    let p = fx
        .call("send_message", json!({"person": "Zed", "text": "hi"}))
        .await;
    assert!(
        p.is_error && p.text.contains("u-ben (Ben Ortiz)"),
        "{}",
        p.text
    );
    let w = fx
        .call(
            "submit_workflow",
            json!({"name": "payroll", "payload": "x"}),
        )
        .await;
    assert!(w.is_error && w.text.contains("expense-claim"), "{}", w.text);
    let s = fx
        .call(
            "share_file",
            json!({"path": "shared/report.md", "community": "nowhere"}),
        )
        .await;
    assert!(
        s.is_error && s.text.contains("carepod (CarePod)"),
        "{}",
        s.text
    );
    assert!(fx.effects().is_empty());
    assert!(!fx.root.join("communities/nowhere").exists());
}

#[tokio::test]
async fn a_community_left_at_the_current_turn_refuses_posts_and_shares() {
    let fx = Fixture::new();
    fx.at_turn(5, "carepod"); // Ana left WorkHub after turn 4.
    let post = fx
        .call(
            "post_message",
            json!({"community": "workhub", "text": "still here?"}),
        )
        .await;
    assert!(post.is_error, "{}", post.text);
    assert!(
        post.text.contains("not a member") && post.text.contains("carepod (CarePod)"),
        "{}",
        post.text
    );
    let share = fx
        .call(
            "share_file",
            json!({"path": "shared/report.md", "community": "WorkHub"}),
        )
        .await;
    assert!(
        share.is_error && share.text.contains("not a member"),
        "{}",
        share.text
    );
    assert!(!fx.root.join("communities/workhub/shared-files").exists());
    assert!(fx.effects().is_empty());
    // The same post was fine before the event.
    fx.at_turn(4, "carepod");
    let earlier = fx
        .call(
            "post_message",
            json!({"community": "workhub", "text": "still here?"}),
        )
        .await;
    assert!(!earlier.is_error, "{}", earlier.text);
}

#[tokio::test]
async fn send_accepts_display_names() {
    let fx = Fixture::new();
    let r = fx
        .call(
            "send_message",
            json!({"person": "ben ortiz", "text": "see you friday"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert!(r.text.contains("Ben Ortiz"));
    assert_eq!(
        fx.effects(),
        vec![Effect::Send {
            person: "u-ben".into(),
            text: "see you friday".into()
        }]
    );
}

#[tokio::test]
async fn share_copies_the_file_and_records_its_content_at_share_time() {
    let fx = Fixture::new();
    let r = fx
        .call(
            "share_file",
            json!({"path": "shared/report.md", "community": "WorkHub"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    let copy = fx.root.join("communities/workhub/shared-files/report.md");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), REPORT);
    // A later change of the source does not change what was shared.
    fx.call(
        "write_file",
        json!({"path": "shared/report.md", "content": "changed"}),
    )
    .await;
    let effects = fx.effects();
    assert_eq!(
        effects[0],
        Effect::Share {
            namespace: Namespace::Shared,
            path: "report.md".into(),
            community: "workhub".into(),
            content: REPORT.into(),
        }
    );
    assert_eq!(effects.len(), 2);
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), REPORT);
}

#[tokio::test]
async fn workflow_submission_records_the_payload_and_needs_a_route() {
    let fx = Fixture::new();
    let ok = fx
        .call(
            "submit_workflow",
            json!({"name": "Expense-Claim", "payload": {"amount": 42, "item": "taxi"}}),
        )
        .await;
    assert!(!ok.is_error, "{}", ok.text);
    assert!(
        !ok.text.contains("workhub"),
        "the route is a platform fact: {}",
        ok.text
    );
    let unrouted = fx
        .call(
            "submit_workflow",
            json!({"name": "unrouted", "payload": "x"}),
        )
        .await;
    assert!(unrouted.is_error, "{}", unrouted.text);
    assert_eq!(
        fx.effects(),
        vec![Effect::Workflow {
            name: "expense-claim".into(),
            payload: r#"{"amount":42,"item":"taxi"}"#.into()
        }]
    );
}

#[tokio::test]
async fn seeded_tool_returns_matching_observations_or_its_empty_result() {
    let fx = Fixture::new();
    let hit = fx
        .call("directory_lookup", json!({"name": "BEN ortiz"}))
        .await;
    assert!(!hit.is_error, "{}", hit.text);
    assert_eq!(hit.text, DIRECTORY_BEN);
    assert!(!hit.text.contains("obj-dir-ben"));
    assert_eq!(fx.served(), vec!["obj-dir-ben"]);
    let miss = fx.call("directory_lookup", json!({"name": "Cleo"})).await;
    assert!(!miss.is_error);
    assert_eq!(miss.text, "No directory entry found.");
    // A renamed lone argument still works.
    let renamed = fx.call("directory_lookup", json!({"query": "ben"})).await;
    assert_eq!(renamed.text, DIRECTORY_BEN);
    let served: Vec<TraceEvent> = fx
        .events()
        .into_iter()
        .filter(|e| matches!(e, TraceEvent::ObjectServed { .. }))
        .collect();
    assert_eq!(
        served.len(),
        2,
        "one ObjectServed per handed-out observation"
    );
    assert!(
        matches!(&served[0], TraceEvent::ObjectServed { via, label, .. }
        if via == "directory_lookup" && label.owner.as_str() == "u-ben")
    );
}

#[tokio::test]
async fn search_finds_files_and_memory_with_paths_and_serves_seeded_hits() {
    let fx = Fixture::new();
    fx.call(
        "write_file",
        json!({"path": "communities/workhub/todo.md", "content": "File the invoices by Friday."}),
    )
    .await;
    let r = fx
        .call(
            "search",
            json!({"query": "What about the Invoice backlog?"}),
        )
        .await;
    assert!(!r.is_error, "{}", r.text);
    assert!(
        r.text
            .contains("[shared/report.md]\nThe invoice backlog is cleared."),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("[communities/workhub/todo.md]"),
        "{}",
        r.text
    );
    // The paragraph matching two query words ranks first.
    assert!(r.text.find("shared/report.md") < r.text.find("communities/workhub/todo.md"));
    assert!(
        !r.text.contains("Revenue"),
        "only matching paragraphs are returned"
    );
    assert_eq!(fx.served(), vec!["obj-report"]);

    let mem = fx.call("search", json!({"query": "pickup code"})).await;
    assert!(
        mem.text
            .contains("[memory/notes.md]\nAna's pharmacy pickup code is 4471-QX."),
        "{}",
        mem.text
    );
    assert!(!mem.text.contains("prefers"), "{}", mem.text);
    assert_eq!(fx.served(), vec!["obj-report", "obj-pin"]);

    let none = fx.call("search", json!({"query": "zebra"})).await;
    assert!(
        !none.is_error && none.text.starts_with("No matches"),
        "{}",
        none.text
    );
    assert_eq!(fx.served().len(), 2);
}

#[tokio::test]
async fn tool_list_holds_shim_tools_seeded_tools_and_workflow_names() {
    let fx = Fixture::new();
    let defs = fx.shim.tool_defs(TRIAL).unwrap();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "read_file",
            "write_file",
            "list_files",
            "copy_file",
            "post_message",
            "send_message",
            "share_file",
            "submit_workflow",
            "search",
            "directory_lookup",
        ]
    );
    let submit = defs.iter().find(|d| d.name == "submit_workflow").unwrap();
    assert!(submit.description.contains("expense-claim"));
    assert!(fx.shim.tool_defs("no-such-trial").is_none());
    let r = fx
        .shim
        .call("no-such-trial", "search", json!({"query": "x"}))
        .await;
    assert!(r.is_error && r.text.contains("unknown trial"));
}
