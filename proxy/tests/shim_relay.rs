//! The shim socket (real Unix socket) and the MCP relay (real rmcp client and server over
//! an in-process duplex stream) in front of a live shim service.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

mod shim_fixture;

use cosec_proxy::shim::mcp::serve_relay;
use cosec_proxy::shim::ShimSocketServer;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use shim_fixture::*;
use std::path::PathBuf;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

fn start_socket(fx: &Fixture) -> PathBuf {
    let path = fx.dir.path().join("shim.sock");
    let server = ShimSocketServer::bind(&path, fx.shim.clone(), TRIAL).unwrap();
    tokio::spawn(server.serve());
    path
}

async fn ask(stream: &mut BufReader<UnixStream>, request: Value) -> Value {
    let mut line = serde_json::to_vec(&request).unwrap();
    line.push(b'\n');
    stream.get_mut().write_all(&line).await.unwrap();
    let mut answer = String::new();
    stream.read_line(&mut answer).await.unwrap();
    serde_json::from_str(&answer).unwrap()
}

#[tokio::test]
async fn socket_round_trip_serves_tools_and_lists_them() {
    let fx = Fixture::new();
    let path = start_socket(&fx);
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o077, 0, "the socket is reachable by other users");
    let mut s = BufReader::new(UnixStream::connect(&path).await.unwrap());

    let list = ask(&mut s, json!({"trial": TRIAL, "list_tools": true})).await;
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 10);
    let lookup = tools
        .iter()
        .find(|t| t["name"] == "directory_lookup")
        .unwrap();
    assert_eq!(lookup["input_schema"]["required"], json!(["name"]));

    let read = ask(
        &mut s,
        json!({"trial": TRIAL, "tool": "read_file", "arguments": {"path": "shared/report.md"}}),
    )
    .await;
    assert_eq!(read, json!({"text": REPORT, "is_error": false}));
    let escape = ask(&mut s, json!({"trial": TRIAL, "tool": "read_file", "arguments": {"path": "../hidden/trace.jsonl"}})).await;
    assert_eq!(escape["is_error"], json!(true));
    let bad = ask(&mut s, json!({"nonsense": 1})).await;
    assert_eq!(bad["is_error"], json!(true));
    let unknown = ask(&mut s, json!({"trial": "other", "list_tools": true})).await;
    assert_eq!(unknown["is_error"], json!(true));
    assert!(
        unknown["text"]
            .as_str()
            .unwrap()
            .contains("`other` is refused"),
        "{unknown}"
    );
    // The connection survives errors and keeps serving in order.
    let post = ask(&mut s, json!({"trial": TRIAL, "tool": "post_message", "arguments": {"community": "CarePod", "text": "hi"}})).await;
    assert_eq!(post["is_error"], json!(false));
    assert_eq!(fx.served(), vec!["obj-report"]);
    assert_eq!(fx.tool_calls().len(), 3);
}

#[tokio::test]
async fn a_line_cut_off_by_a_closed_connection_is_never_run() {
    let fx = Fixture::new();
    let path = start_socket(&fx);
    let mut s = UnixStream::connect(&path).await.unwrap();
    s.write_all(br#"{"trial":"trial-1","tool":"post_message","arguments":{"community":"carepod","text":"x"}}"#)
        .await
        .unwrap();
    s.shutdown().await.unwrap();
    drop(s);
    // A full request on a new connection is answered, so the server saw the first one end.
    let mut s2 = BufReader::new(UnixStream::connect(&path).await.unwrap());
    let r = ask(
        &mut s2,
        json!({"trial": TRIAL, "tool": "list_files", "arguments": {"path": "shared"}}),
    )
    .await;
    assert_eq!(r["is_error"], json!(false));
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert!(fx.effects().is_empty());
}

#[tokio::test]
async fn bind_refuses_to_replace_a_regular_file() {
    let fx = Fixture::new();
    let path = fx.dir.path().join("not-a-socket");
    std::fs::write(&path, "keep me").unwrap();
    assert!(ShimSocketServer::bind(&path, fx.shim.clone(), TRIAL).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "keep me");
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("")
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[tokio::test]
async fn mcp_round_trip_initialize_list_and_call() {
    let fx = Fixture::new();
    let socket = start_socket(&fx);
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_side);
    let relay_socket = socket.clone();
    let relay = tokio::spawn(async move { serve_relay(&relay_socket, TRIAL, read, write).await });

    let client = ().serve(client_side).await.unwrap();
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.name, "cosec-shim");
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    assert!(
        names.contains(&"post_message".to_owned())
            && names.contains(&"directory_lookup".to_owned())
    );
    let read_file = tools.iter().find(|t| t.name == "read_file").unwrap();
    assert_eq!(read_file.input_schema.get("type"), Some(&json!("object")));

    let ok = client
        .call_tool(CallToolRequestParams::new("read_file").with_arguments(args(
            json!({"path": "communities/carepod/notes/allergy.md"}),
        )))
        .await
        .unwrap();
    assert_eq!(ok.is_error, Some(false));
    assert_eq!(text_of(&ok), ALLERGY);
    let serialized = serde_json::to_string(&ok).unwrap();
    assert!(
        !serialized.contains("obj-allergy") && !serialized.contains("health"),
        "{serialized}"
    );

    let refused = client
        .call_tool(
            CallToolRequestParams::new("write_file")
                .with_arguments(args(json!({"path": "/etc/passwd", "content": "x"}))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text_of(&refused).contains("outside the agent's files"));

    let lookup = client
        .call_tool(
            CallToolRequestParams::new("directory_lookup")
                .with_arguments(args(json!({"name": "Ben"}))),
        )
        .await
        .unwrap();
    assert_eq!(text_of(&lookup), DIRECTORY_BEN);

    // The relay only forwards: everything was traced by the service in the runner.
    assert_eq!(
        fx.tool_calls(),
        vec![
            ("read_file".into(), false),
            ("write_file".into(), true),
            ("directory_lookup".into(), false)
        ]
    );
    assert_eq!(fx.served(), vec!["obj-allergy", "obj-dir-ben"]);

    client.cancel().await.unwrap();
    relay.await.unwrap().unwrap();
}

#[tokio::test]
async fn relay_fails_fast_when_the_socket_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (server_side, _client_side) = tokio::io::duplex(1024);
    let (read, write) = tokio::io::split(server_side);
    let err = serve_relay(&dir.path().join("absent.sock"), TRIAL, read, write)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("absent.sock"), "{err}");
}
