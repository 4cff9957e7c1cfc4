//! The Codex CLI harness: its sandbox hides the hidden half, the repository and the
//! user's home; the real binary runs inside it; the adapter drives real Codex through
//! sessions, resume, MCP and failures against a scripted Responses server; and (once
//! the CLI is wired) whole trials run through it.
//!
//! These tests need Codex installed in the harness cache: `cosec harness install codex`
//! (or `cargo test -p cosec --test harness_codex -- --ignored install`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    unused_imports
)]

use cosec::{harness, sandbox};
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TrialSetup};
use cosec_proxy::shim::{ShimService, ShimSocketServer};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::{CommunityId, Scenario};
use harness::codex::CodexHarness;
use harness::install::{self, codex as codex_install, Installed};
use harness::{Delivery, Harness, HarnessError, TrialEnv};
use sandbox::{Bubblewrap, Sandbox};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SCENARIO: &str = "st-intra-owner-a1-s1";

fn installed() -> Installed {
    let cache = install::cache_dir();
    codex_install::detect(&cache).unwrap_or_else(|| {
        panic!(
            "Codex {} is not installed in {}: run `cosec harness install codex` first",
            codex_install::VERSION,
            cache.display()
        )
    })
}

fn bwrap() -> Arc<dyn Sandbox> {
    Arc::new(
        Bubblewrap::locate()
            .unwrap_or_else(|e| panic!("bubblewrap is required for the harness tests: {e}")),
    )
}

fn relay() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cosec-shim"))
}

fn scenario() -> Scenario {
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    suite
        .scenarios
        .into_iter()
        .find(|s| s.id.as_str() == SCENARIO)
        .unwrap()
}

/// A trial laid out as the runner lays it out, plus a live shim socket.
struct TempTrial {
    _dir: tempfile::TempDir,
    trial_dir: PathBuf,
    env: TrialEnv,
    scenario: Scenario,
    socket_task: tokio::task::JoinHandle<()>,
}

async fn temp_trial(base_url: &str) -> TempTrial {
    let dir = tempfile::tempdir().unwrap();
    let id = "0123456789abcdef";
    let trial_dir = dir.path().join("trials").join(id);
    let agent_root = trial_dir.join("agent");
    let hidden = trial_dir.join("hidden");
    let home = trial_dir.join("home");
    let sock_dir = dir.path().join("sock");
    for d in [&hidden, &home, &sock_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let mut scenario = scenario();
    // A second community, so that two sessions run side by side.
    scenario
        .agent
        .communities
        .push(cosec_scenarios::agent::CommunityInfo {
            id: CommunityId::from("codex-side-room"),
            name: "Side Room".to_owned(),
            description: "A second community for the session tests.".to_owned(),
        });
    cosec_proxy::shim::materialize_agent_half(&scenario.agent, &agent_root).unwrap();
    let trace = Arc::new(TraceWriter::open(&hidden.join("trace.jsonl")).unwrap());
    let registry = TrialRegistry::new();
    let agent = Arc::new(scenario.agent.clone());
    registry.insert(Arc::new(Trial::new(
        TrialSetup {
            id: id.to_owned(),
            agent: Arc::clone(&agent),
            platform: Arc::new(scenario.platform.clone()),
            sim_plan: None,
            model: ModelRoute::Sim(SimKind::Refuse),
            agent_root: agent_root.clone(),
            trace: Arc::clone(&trace),
            guardrail: None,
        },
        scenario.agent.turns[0].community.clone(),
    )));
    let shim = ShimService::new(registry.clone());
    let socket = sock_dir.join("shim.sock");
    std::fs::write(sock_dir.join("runner-secret.txt"), "beside the socket").unwrap();
    let server = ShimSocketServer::bind(&socket, shim.clone()).unwrap();
    let socket_task = tokio::spawn(async move {
        let _ = server.serve().await;
    });
    let env = TrialEnv {
        trial_id: id.to_owned(),
        agent,
        agent_root,
        model_base_url: format!("{base_url}/t/{id}/v1"),
        model_name: "m".to_owned(),
        shim,
        harness_home: home,
        shim_socket: Some(socket),
        trace,
    };
    TempTrial {
        _dir: dir,
        trial_dir,
        env,
        scenario,
        socket_task,
    }
}

#[tokio::test]
async fn a_shell_in_the_codex_sandbox_cannot_reach_the_hidden_half_the_repo_or_home() {
    let harness = CodexHarness::new(installed(), bwrap(), relay(), Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9").await;
    let hidden = t.trial_dir.join("hidden/trace.jsonl");
    std::fs::write(&hidden, "oracle facts\n").unwrap();
    std::fs::write(t.env.agent_root.join("note.md"), "visible").unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar");
    assert!(repo.is_file(), "the repository file to hide is missing");
    let socket = t.env.shim_socket.clone().unwrap();
    let beside = socket.with_file_name("runner-secret.txt");
    let spec = harness.sandbox_spec(&t.env);
    // The user's home may appear inside only as the parent of mounted folders (the
    // harness cache under ~/.cache): probe everything else it holds.
    let user_home = PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/root".into()));
    let mounted: Vec<&PathBuf> = spec.readonly.iter().chain(&spec.writable).collect();
    let probes: String = std::fs::read_dir(&user_home)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| !mounted.iter().any(|m| m.starts_with(e.path())))
        .map(|e| format!("test -e '{}' && echo HOME-LEAK; ", e.path().display()))
        .collect();
    let script = format!(
        "cat note.md; echo; cat {hidden} && echo HIDDEN-READ; ls {trial}/hidden && echo HIDDEN-LISTED; \
         cat {repo} && echo REPO-READ; cat {beside} && echo BESIDE-READ; {probes} \
         echo written > out.txt && echo AGENT-WRITTEN; echo x > \"$HOME/h.txt\" && echo HOME-WRITTEN; \
         test -S {socket} && echo SOCKET-PRESENT; env",
        hidden = hidden.display(),
        trial = t.trial_dir.display(),
        repo = repo.display(),
        beside = beside.display(),
        socket = socket.display(),
    );
    let out = bwrap()
        .command(&spec, Path::new("/bin/sh"), &["-c".into(), script.into()])
        .unwrap()
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("visible"), "{stdout}");
    let leaks = [
        "HIDDEN-READ",
        "HIDDEN-LISTED",
        "oracle facts",
        "REPO-READ",
        "BESIDE-READ",
        "HOME-LEAK",
    ];
    let leak = leaks.iter().find(|l| stdout.contains(**l));
    assert!(leak.is_none(), "{leak:?} inside the sandbox:\n{stdout}");
    for done in ["AGENT-WRITTEN", "HOME-WRITTEN", "SOCKET-PRESENT"] {
        assert!(stdout.contains(done), "{done} missing:\n{stdout}");
    }
    let written = std::fs::read_to_string(t.env.agent_root.join("out.txt")).unwrap();
    assert_eq!(written, "written\n");
    assert!(t.env.harness_home.join("h.txt").is_file());
    // Only the variables the spec sets reach the process (no API keys, no host HOME).
    assert!(
        stdout.contains(&format!("HOME={}", t.env.harness_home.display())),
        "{stdout}"
    );
    assert!(!stdout.contains("CARGO_MANIFEST_DIR"), "{stdout}");
    t.socket_task.abort();
}

#[tokio::test]
async fn the_codex_binary_runs_inside_its_sandbox() {
    let installed = installed();
    let harness = CodexHarness::new(installed.clone(), bwrap(), relay(), Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9").await;
    let out = bwrap()
        .command(
            &harness.sandbox_spec(&t.env),
            &installed.entry,
            &["--version".into()],
        )
        .unwrap()
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(codex_install::VERSION), "{stdout}");
    assert_eq!(harness.name(), "codex");
    assert_eq!(harness.version(), codex_install::VERSION);
    t.socket_task.abort();
}

/// A scripted Responses server standing in for the proxy.
mod scripted {
    use super::*;
    use tokio::net::{TcpListener, TcpStream};

    /// How the server answers.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Mode {
        /// A command through `exec_command`, an MCP call, then a reply counting the
        /// participant messages of the thread.
        Script,
        /// Reads the request and never answers.
        Hang,
        /// Answers 503.
        Fail,
    }

    /// What one request showed.
    #[derive(Debug, Clone)]
    pub struct Request {
        pub thread: String,
        pub last_user: String,
        pub namespaces: Vec<String>,
    }

    pub struct Server {
        pub url: String,
        requests: Arc<Mutex<Vec<Request>>>,
    }

    impl Server {
        pub async fn start(mode: Mode) -> Server {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = format!("http://{}", listener.local_addr().unwrap());
            let requests = Arc::new(Mutex::new(Vec::new()));
            let log = Arc::clone(&requests);
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    let log = Arc::clone(&log);
                    tokio::spawn(async move { serve(stream, mode, log).await });
                }
            });
            Server { url, requests }
        }

        pub fn requests(&self) -> Vec<Request> {
            self.requests.lock().unwrap().clone()
        }
    }

    fn text_of(item: &Value) -> String {
        item["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["text"].as_str())
            .collect()
    }

    async fn serve(mut stream: TcpStream, mode: Mode, log: Arc<Mutex<Vec<Request>>>) {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 65536];
        let (head_len, body_len) = loop {
            let n = stream.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                let len = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                break (end + 4, len);
            }
        };
        while buf.len() < head_len + body_len {
            let n = stream.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let head = String::from_utf8_lossy(&buf[..head_len]).to_lowercase();
        if mode == Mode::Hang {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return;
        }
        if mode == Mode::Fail {
            let body = r#"{"error":{"message":"overloaded","type":"server_error"}}"#;
            let reply = format!("HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
            let _ = stream.write_all(reply.as_bytes()).await;
            return;
        }
        let body: Value = serde_json::from_slice(&buf[head_len..]).unwrap_or(Value::Null);
        let input = body["input"].as_array().cloned().unwrap_or_default();
        let is_participant =
            |i: &Value| i["role"] == "user" && !text_of(i).trim_start().starts_with('<');
        let last_user_at = input.iter().rposition(is_participant).unwrap_or(0);
        let calls = input[last_user_at..]
            .iter()
            .filter(|i| i["type"] == "function_call")
            .count();
        let namespaces: Vec<String> = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["type"] == "namespace")
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        let thread = head
            .lines()
            .find_map(|l| l.strip_prefix("thread-id:"))
            .unwrap_or_default()
            .trim()
            .to_owned();
        log.lock().unwrap().push(Request {
            thread,
            last_user: input.get(last_user_at).map(text_of).unwrap_or_default(),
            namespaces: namespaces.clone(),
        });
        let item = if calls == 0 {
            json!({"type": "function_call", "call_id": "call_w", "name": "exec_command",
                   "arguments": json!({"cmd": "cat > shared/codex-note.md <<'EOF'\nwritten by codex\nEOF"}).to_string()})
        } else if calls == 1 && namespaces.iter().any(|n| n == "mcp__cosec") {
            json!({"type": "function_call", "call_id": "call_m", "namespace": "mcp__cosec",
                   "name": "list_files", "arguments": "{}"})
        } else {
            let n = input.iter().filter(|i| is_participant(i)).count();
            json!({"type": "message", "role": "assistant", "id": "msg_1",
                   "content": [{"type": "output_text", "text": format!("reply after {n} message(s)")}]})
        };
        let mut reply = String::from(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        );
        for (name, data) in [
            (
                "response.output_item.done",
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ),
            (
                "response.completed",
                json!({"type": "response.completed", "response": {"id": "resp_1",
                "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}}),
            ),
        ] {
            reply.push_str(&format!("event: {name}\ndata: {data}\n\n"));
        }
        let _ = stream.write_all(reply.as_bytes()).await;
    }
}

#[tokio::test]
async fn codex_keeps_one_resumed_thread_per_community_and_reaches_the_shim() {
    let server = scripted::Server::start(scripted::Mode::Script).await;
    let harness = CodexHarness::new(installed(), bwrap(), relay(), Duration::from_secs(120));
    let t = temp_trial(&server.url).await;
    let agent = &t.scenario.agent;
    let a = agent.turns[0].community.clone();
    let b = agent
        .communities
        .iter()
        .map(|c| c.id.clone())
        .find(|c| c != &a)
        .unwrap();
    let deliver = |community: &CommunityId, text: &str| Delivery {
        turn: 1,
        community: community.clone(),
        speaker: Some(agent.turns[0].speaker.clone()),
        text: text.to_owned(),
        community_view: "Members: everyone here".to_owned(),
    };
    let mut session = harness.start(t.env.clone()).await.unwrap();
    let started = Instant::now();
    let first = session.deliver(&deliver(&a, "first in A")).await.unwrap();
    let per_turn = started.elapsed();
    let second = session.deliver(&deliver(&a, "second in A")).await.unwrap();
    // Beyond the 128 KiB limit of one command-line argument: the input goes by stdin.
    let long = format!("first in B {}", "x".repeat(200_000));
    let other = session.deliver(&deliver(&b, &long)).await.unwrap();
    session.finish().await.unwrap();
    eprintln!("one scripted Codex turn with a command and an MCP call: {per_turn:?}");
    // The reply counts the participant messages Codex sent in that thread's history.
    assert_eq!(first.reply, "reply after 1 message(s)");
    assert_eq!(second.reply, "reply after 2 message(s)");
    assert_eq!(other.reply, "reply after 1 message(s)");
    assert!(first.model_calls >= 3, "{first:?}");
    let requests = server.requests();
    let thread_of = |needle: &str| {
        requests
            .iter()
            .find(|r| r.last_user.contains(needle))
            .map(|r| r.thread.clone())
            .unwrap()
    };
    assert_eq!(thread_of("first in A"), thread_of("second in A"));
    assert_ne!(thread_of("first in A"), thread_of("first in B"));
    // The first message of a thread orients the agent; later ones carry the header only.
    let opening = requests
        .iter()
        .find(|r| r.last_user.contains("first in A"))
        .unwrap();
    assert!(
        opening.last_user.contains("personal AI agent of"),
        "{}",
        opening.last_user
    );
    assert!(opening.last_user.contains("Members: everyone here"));
    let has_history = agent.seeds.iter().any(
        |s| matches!(&s.surface, Surface::SessionHistory { community, .. } if community == &a),
    );
    assert_eq!(
        opening.last_user.contains("Earlier in this community:"),
        has_history
    );
    let later = requests
        .iter()
        .find(|r| r.last_user.contains("second in A"))
        .unwrap();
    assert!(!later.last_user.contains("personal AI agent of"));
    assert!(later.last_user.contains(agent.community_name(&a)));
    // The shim tools were offered in the `mcp__cosec` namespace.
    assert!(requests
        .iter()
        .any(|r| r.namespaces.contains(&"mcp__cosec".to_owned())));
    // The heredoc written by exec_command landed in the agent half.
    let written = t.env.agent_root.join("shared/codex-note.md");
    assert_eq!(
        std::fs::read_to_string(written).unwrap(),
        "written by codex\n"
    );
    // Native evidence and the shim's own record are in the hidden trace.
    let trace = read_trace(t.env.trace.path()).unwrap();
    let native: Vec<(String, String)> = trace
        .iter()
        .filter_map(|l| match &l.event {
            TraceEvent::HarnessOutput { source, text, .. } => Some((source.clone(), text.clone())),
            _ => None,
        })
        .collect();
    assert!(native.iter().any(|(s, t)| s == "events"
        && t.contains("command_execution")
        && t.contains("codex-note.md")));
    assert!(native
        .iter()
        .any(|(s, t)| s == "events" && t.contains("mcp_tool_call")));
    assert!(native.iter().any(|(s, _)| s.starts_with("session_file:")));
    assert!(trace.iter().any(|l| matches!(
        &l.event,
        TraceEvent::ToolCall { tool, .. } if tool == "list_files"
    )));
    t.socket_task.abort();
}

#[tokio::test]
async fn a_hanging_model_is_cut_at_the_turn_timeout() {
    let server = scripted::Server::start(scripted::Mode::Hang).await;
    let harness = CodexHarness::new(installed(), bwrap(), relay(), Duration::from_secs(4));
    let t = temp_trial(&server.url).await;
    let mut session = harness.start(t.env.clone()).await.unwrap();
    let started = Instant::now();
    let d = Delivery {
        turn: 1,
        community: t.scenario.agent.turns[0].community.clone(),
        speaker: None,
        text: "notice".to_owned(),
        community_view: String::new(),
    };
    let err = session.deliver(&d).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(20));
    match err {
        HarnessError::Crash(m) => assert!(m.contains("within 4 s"), "{m}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    t.socket_task.abort();
}

#[tokio::test]
async fn a_failing_model_endpoint_is_an_infrastructure_failure_with_stderr() {
    let server = scripted::Server::start(scripted::Mode::Fail).await;
    let harness = CodexHarness::new(installed(), bwrap(), relay(), Duration::from_secs(60));
    let t = temp_trial(&server.url).await;
    let mut session = harness.start(t.env.clone()).await.unwrap();
    let d = Delivery {
        turn: 1,
        community: t.scenario.agent.turns[0].community.clone(),
        speaker: Some(t.scenario.agent.turns[0].speaker.clone()),
        text: "hello".to_owned(),
        community_view: String::new(),
    };
    let err = session.deliver(&d).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("503") || text.contains("overloaded"),
        "{text}"
    );
    t.socket_task.abort();
}

/// Installs the pinned Codex into the harness cache (network: the npm registry).
#[test]
#[ignore = "downloads ~420 MB from the npm registry"]
fn install_codex_into_the_harness_cache() {
    let cache = install::cache_dir();
    let started = Instant::now();
    let found = codex_install::install(&cache, &|m| eprintln!("{m}")).unwrap();
    eprintln!("installed in {:?}", started.elapsed());
    assert_eq!(codex_install::detect(&cache), Some(found.clone()));
    // Idempotent: a second call finds it and changes nothing.
    assert_eq!(codex_install::install(&cache, &|_| {}).unwrap(), found);
}

/// A whole trial through `cosec run --harness codex` (needs the CLI wiring).
#[test]
fn a_static_trial_runs_through_codex_with_the_ideal_sim() {
    installed();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args([
            "run",
            "--harness",
            "codex",
            "--model",
            "sim:ideal",
            "--judge",
            "none",
        ])
        .args(["--scenario", SCENARIO, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["trials"]["valid"], json!(1), "{summary:#}");
}
