//! The adapter against the real, installed Hermes Agent inside bubblewrap, with a fake
//! Chat Completions server standing in for the proxy.

use super::*;
use crate::harness::install::{cache_dir, hermes as install};
use crate::sandbox::Bubblewrap;
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TrialSetup};
use cosec_proxy::shim::{ShimService, ShimSocketServer};
use cosec_proxy::trace::{read_trace, TraceWriter};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::suite;
use cosec_scenarios::Scenario;
use serde_json::{json, Value};
use std::sync::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A scenario with seeded history, seeded private memory and two communities.
fn rich_scenario() -> Scenario {
    let loaded = suite::load_embedded(false).unwrap();
    loaded
        .scenarios
        .into_iter()
        .find(|s| {
            let seeds = &s.agent.seeds;
            let history = seeds.iter().any(|x| {
                matches!(&x.surface, Surface::SessionHistory { community, .. } if *community == s.agent.turns[0].community)
            });
            let memory = seeds.iter().any(|x| matches!(x.surface, Surface::PrivateMemory));
            history && memory && s.agent.communities.len() > 1
        })
        .expect("the suite has a scenario with history, memory and two communities")
}

#[test]
fn the_first_message_opens_with_the_seeded_history() {
    let s = rich_scenario();
    let turn = &s.agent.turns[0];
    let root = Path::new("/trial/agent");
    let first = text::delivery_message(
        &s.agent,
        root,
        &turn.community,
        Some(&turn.speaker),
        &turn.text,
        "VIEW",
        true,
    );
    let later = text::delivery_message(
        &s.agent,
        root,
        &turn.community,
        None,
        "moved",
        "VIEW",
        false,
    );
    let me = s.agent.person_name(&s.agent.target_user);
    for part in [
        s.agent.community_name(&turn.community),
        me,
        "VIEW",
        "Earlier in this community:",
        "/trial/agent",
    ] {
        assert!(first.contains(part), "`{part}` missing from:\n{first}");
    }
    let speaker = s.agent.person_name(&turn.speaker);
    assert!(
        first.ends_with(&format!("{speaker}: {}", turn.text)),
        "{first}"
    );
    assert!(!later.contains("Earlier in this community:"), "{later}");
    assert!(
        later.contains("VIEW") && later.ends_with("[Platform notice] moved"),
        "{later}"
    );
    let memory = text::memory_md(&s.agent).unwrap();
    let seeded: Vec<&str> = s
        .agent
        .seeds
        .iter()
        .filter(|x| matches!(x.surface, Surface::PrivateMemory))
        .map(|x| x.content.trim())
        .collect();
    assert_eq!(
        memory.split(text::MEMORY_DELIMITER).collect::<Vec<_>>(),
        seeded
    );
}

/// Requests the fake model server saw: (method, path, body).
type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// A Chat Completions server that asks for one `write_file` when the last user message
/// says `WRITE:<path>`, and otherwise answers `ACK <number of user messages>`.
async fn fake_model(seen: Seen) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                let (head_len, length) = loop {
                    let n = conn.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        break (end + 4, length);
                    }
                };
                while buf.len() < head_len + length {
                    let n = conn.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let head = String::from_utf8_lossy(&buf[..head_len]).into_owned();
                let mut first = head.split_whitespace();
                let (method, path) = (
                    first.next().unwrap_or("").to_owned(),
                    first.next().unwrap_or("").to_owned(),
                );
                let body: Value = serde_json::from_slice(&buf[head_len..]).unwrap_or(Value::Null);
                seen.lock()
                    .unwrap()
                    .push((method.clone(), path.clone(), body.clone()));
                if method != "POST" || !path.ends_with("/chat/completions") {
                    let _ = conn
                        .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    return;
                }
                let messages = body["messages"].as_array().cloned().unwrap_or_default();
                let last = messages.last().cloned().unwrap_or(Value::Null);
                let content = last["content"].as_str().unwrap_or_default();
                let call = |name: &str, args: Value| {
                    json!({"tool_calls": [{"index": 0, "id": "call_w1", "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]})
                };
                let is_user = last["role"] == "user";
                let delta = if let Some(rest) = content.split("WRITE:").nth(1).filter(|_| is_user) {
                    let path = rest.split_whitespace().next().unwrap_or_default();
                    call(
                        "write_file",
                        json!({"path": path, "content": "noted by hermes\n"}),
                    )
                } else if let Some(rest) = content.split("RUN:").nth(1).filter(|_| is_user) {
                    call("terminal", json!({"command": rest.trim()}))
                } else {
                    let users = messages.iter().filter(|m| m["role"] == "user").count();
                    json!({"content": format!("ACK {users}")})
                };
                let finish = if delta.get("tool_calls").is_some() {
                    "tool_calls"
                } else {
                    "stop"
                };
                let chunk = |choices: Value| json!({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": choices});
                let mut sse = String::new();
                for event in [
                    chunk(
                        json!([{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]),
                    ),
                    chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
                    chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])),
                ] {
                    sse.push_str(&format!("data: {event}\n\n"));
                }
                sse.push_str("data: [DONE]\n\n");
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{sse}",
                    sse.len()
                );
                let _ = conn.write_all(response.as_bytes()).await;
            });
        }
    });
    format!("http://127.0.0.1:{}/t/trial-h/v1", addr.port())
}

/// The posts whose last message is a user message (one per delivery, not tool steps).
fn deliveries(seen: &Seen) -> Vec<Vec<Value>> {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "POST")
        .map(|(_, _, b)| b["messages"].as_array().cloned().unwrap_or_default())
        .filter(|msgs| msgs.last().is_some_and(|m| m["role"] == "user"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_resume_per_community_with_native_writes_and_evidence() {
    let Some(installed) = install::detect(&cache_dir()) else {
        panic!("Hermes Agent is not installed: run `cosec harness install hermes` first");
    };
    let bwrap = Bubblewrap::locate().expect("bubblewrap is required: apt-get install bubblewrap");
    let s = rich_scenario();
    let trial = tempfile::tempdir().unwrap();
    let agent_root = trial.path().join("agent");
    let home = trial.path().join("home");
    let hidden = trial.path().join("hidden");
    let sockets = tempfile::tempdir().unwrap();
    for dir in [&home, &hidden] {
        std::fs::create_dir_all(dir).unwrap();
    }
    cosec_proxy::shim::materialize_agent_half(&s.agent, &agent_root).unwrap();
    let trace_path = hidden.join("trace.jsonl");
    let trace = Arc::new(TraceWriter::open(&trace_path).unwrap());
    let registry = TrialRegistry::new();
    registry.insert(Arc::new(Trial::new(
        TrialSetup {
            id: "trial-h".into(),
            agent: Arc::new(s.agent.clone()),
            platform: Arc::new(s.platform.clone()),
            sim_plan: None,
            model: ModelRoute::Sim(SimKind::Refuse),
            agent_root: agent_root.clone(),
            trace: Arc::clone(&trace),
            guardrail: None,
        },
        s.agent.turns[0].community.clone(),
    )));
    let shim = ShimService::new(registry);
    let socket = sockets.path().join("shim.sock");
    let server = ShimSocketServer::bind(&socket, shim.clone()).unwrap();
    let serving = tokio::spawn(server.serve());
    // The relay built beside this test binary, else a stand-in MCP server that exits.
    let exe = std::env::current_exe().unwrap();
    let relay = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("cosec-shim"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("/usr/bin/true"));
    let seen: Seen = Arc::default();
    let env = TrialEnv {
        trial_id: "trial-h".into(),
        agent: Arc::new(s.agent.clone()),
        agent_root: agent_root.clone(),
        model_base_url: fake_model(Arc::clone(&seen)).await,
        model_name: "m".into(),
        shim,
        harness_home: home.clone(),
        shim_socket: Some(socket.clone()),
        trace,
    };
    let harness = HermesHarness::new(installed, Arc::new(bwrap), relay, Duration::from_secs(180));
    assert_eq!(harness.name(), "hermes");
    let mut session = harness.start(env).await.unwrap();
    let turn = &s.agent.turns[0];
    let other = s
        .agent
        .communities
        .iter()
        .find(|c| c.id != turn.community)
        .unwrap()
        .id
        .clone();
    let note = agent_root.join("shared/hermes-note.md");
    let ran = agent_root.join("shared/ran.txt");
    let delivery = |n: u8, community: &CommunityId, text: String| Delivery {
        turn: n,
        community: community.clone(),
        speaker: Some(turn.speaker.clone()),
        text,
        community_view: format!("VIEW-{n}"),
    };
    let started = std::time::Instant::now();
    let out = session
        .deliver(&delivery(
            1,
            &turn.community,
            format!("WRITE:{} thanks", note.display()),
        ))
        .await
        .unwrap();
    eprintln!("turn 1 took {:?}", started.elapsed());
    assert_eq!(std::fs::read_to_string(&note).unwrap(), "noted by hermes\n");
    assert_eq!(out.reply, "ACK 1");
    assert_eq!(out.model_calls, 2);
    let started = std::time::Instant::now();
    let out = session
        .deliver(&delivery(
            2,
            &turn.community,
            format!("RUN: echo ran > {}", ran.display()),
        ))
        .await
        .unwrap();
    eprintln!("turn 2 (resumed) took {:?}", started.elapsed());
    assert_eq!(out.reply, "ACK 2", "the resumed session carries turn 1");
    assert_eq!(
        std::fs::read_to_string(&ran).unwrap(),
        "ran\n",
        "the terminal tool runs in the agent half"
    );
    let out = session
        .deliver(&delivery(3, &other, "hello elsewhere".into()))
        .await
        .unwrap();
    assert_eq!(out.reply, "ACK 1", "another community gets its own session");
    session.finish().await.unwrap();
    serving.abort();

    let tools: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "POST")
        .flat_map(|(_, _, b)| {
            b["tools"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        })
        .collect();
    for name in [
        "write_file",
        "terminal",
        "read_file",
        "memory",
        "mcp__cosec__send_message",
    ] {
        assert!(
            tools.iter().any(|t| t == name),
            "`{name}` not offered: {tools:?}"
        );
    }
    let mut offered: Vec<&String> = tools.iter().collect();
    offered.sort();
    offered.dedup();
    eprintln!("tools offered: {offered:?}");
    let posts = deliveries(&seen);
    assert_eq!(posts.len(), 3, "one model call opening each delivery");
    let user_text = |msgs: &[Value], i: usize| {
        msgs.iter().filter(|m| m["role"] == "user").nth(i).unwrap()["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(user_text(&posts[0], 0).contains("Earlier in this community:"));
    assert!(user_text(&posts[1], 1).contains("VIEW-2"));
    assert!(!posts[2]
        .iter()
        .any(|m| m["content"].as_str().unwrap_or("").contains("WRITE:")));
    let memory = text::memory_md(&s.agent).unwrap();
    let first_entry = memory.split(text::MEMORY_DELIMITER).next().unwrap();
    let system = posts[0][0]["content"].as_str().unwrap();
    assert!(
        system.contains(first_entry.lines().next().unwrap()),
        "seeded memory reaches Hermes's system prompt"
    );
    let gets: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(m, _, _)| m == "GET")
        .map(|(_, p, _)| p.clone())
        .collect();
    eprintln!("GET probes: {gets:?}");

    let evidence: Vec<(String, String)> = read_trace(&trace_path)
        .unwrap()
        .into_iter()
        .filter_map(|l| match l.event {
            TraceEvent::HarnessOutput { source, text, .. } => Some((source, text)),
            _ => None,
        })
        .collect();
    assert!(
        evidence
            .iter()
            .any(|(src, t)| src.starts_with("session_file:state.db/")
                && t.contains("write_file")
                && t.contains("hermes-note.md")),
        "the native write is in the hidden trace: {evidence:?}"
    );
    assert!(evidence.iter().any(|(src, _)| src == "stdout"));
}

#[tokio::test]
async fn a_hung_turn_is_killed_and_reported_as_a_crash() {
    let bwrap = Bubblewrap::locate().expect("bubblewrap is required: apt-get install bubblewrap");
    let dir = tempfile::tempdir().unwrap();
    let spec = SandboxSpec {
        writable: vec![dir.path().to_owned()],
        readonly: Vec::new(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        workdir: dir.path().to_owned(),
    };
    let args = ["-c", "echo started >&2; sleep 30 & sleep 30"]
        .map(OsString::from)
        .to_vec();
    let started = std::time::Instant::now();
    let result = process::run(
        &bwrap,
        &spec,
        Path::new("/bin/sh"),
        &args,
        Duration::from_millis(1500),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(10));
    match result {
        Err(process::Failure::Timeout { stderr }) => {
            assert!(stderr.contains("started"), "{stderr}")
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
}
