//! The OpenClaw harness: its sandbox hides the hidden half, the repository and the
//! user's home; the real `openclaw` runs inside it; the adapter drives real OpenClaw
//! sessions (continuation per community, native `write`, the shim over MCP, failures)
//! against a scripted Chat Completions server; and whole trials run through it.
//!
//! These tests need OpenClaw in the harness cache: `cosec harness install openclaw`.
//! OpenClaw takes 10-20 s a turn, so the adapter tests keep to a few deliveries.

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
use harness::install::{self, openclaw as openclaw_install, Installed};
use harness::openclaw::OpenClawHarness;
use harness::{Delivery, Harness, HarnessError, TrialEnv};
use sandbox::{Bubblewrap, Sandbox};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SCENARIO: &str = "st-intra-owner-a1-s1";
const SIDE: &str = "openclaw-side-room";

fn installed() -> Installed {
    let cache = install::cache_dir();
    openclaw_install::detect(&cache).unwrap_or_else(|| {
        panic!(
            "OpenClaw {} is not installed in {}: run `cosec harness install openclaw` first",
            openclaw_install::VERSION,
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

fn harness(timeout: Duration) -> OpenClawHarness {
    OpenClawHarness::new(installed(), bwrap(), relay(), timeout)
}

/// A trial laid out as the runner lays it out, with a live shim socket.
struct TempTrial {
    _dir: tempfile::TempDir,
    trial_dir: PathBuf,
    env: TrialEnv,
    scenario: Scenario,
    socket_task: tokio::task::JoinHandle<()>,
}

async fn temp_trial(base_url: &str) -> TempTrial {
    let dir = tempfile::tempdir().unwrap();
    let id = "fedcba9876543210";
    let trial_dir = dir.path().join("trials").join(id);
    let (agent_root, hidden, home) = (
        trial_dir.join("agent"),
        trial_dir.join("hidden"),
        trial_dir.join("home"),
    );
    let sock_dir = dir.path().join("sock");
    for d in [&hidden, &home, &sock_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    let mut scenario = suite
        .scenarios
        .into_iter()
        .find(|s| s.id.as_str() == SCENARIO)
        .unwrap();
    // A second community, so that two sessions run side by side.
    scenario
        .agent
        .communities
        .push(cosec_scenarios::agent::CommunityInfo {
            id: CommunityId::from(SIDE),
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
    let shim = ShimService::new(registry);
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
async fn a_shell_in_the_openclaw_sandbox_cannot_reach_the_hidden_half_the_repo_or_home() {
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9").await;
    let hidden = t.trial_dir.join("hidden/trace.jsonl");
    std::fs::write(&hidden, "oracle facts\n").unwrap();
    std::fs::write(t.env.agent_root.join("note.md"), "visible").unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar");
    assert!(repo.is_file(), "the repository file to hide is missing");
    let socket = t.env.shim_socket.clone().unwrap();
    let beside = socket.with_file_name("runner-secret.txt");
    let spec = harness.sandbox_spec(&t.env);
    let script = format!(
        "cat note.md; echo; \
         cat {hidden} && echo HIDDEN-READ; ls {trial}/hidden && echo HIDDEN-LISTED; \
         cat {repo} && echo REPO-READ; ls {manifest} && echo REPO-LISTED; \
         cat {beside} && echo BESIDE-READ; \
         echo ROOT-START; ls -A /root; echo ROOT-END; \
         echo written > out.txt && echo AGENT-WRITTEN; \
         echo x > \"$OPENCLAW_STATE_DIR/probe.txt\" && echo STATE-WRITTEN; \
         echo y > {install_probe} && echo INSTALL-WRITTEN; \
         test -S {socket} && echo SOCKET-PRESENT; env",
        hidden = hidden.display(),
        trial = t.trial_dir.display(),
        repo = repo.display(),
        manifest = env!("CARGO_MANIFEST_DIR"),
        beside = beside.display(),
        install_probe = installed().root.join("probe.txt").display(),
        socket = socket.display(),
    );
    std::fs::create_dir_all(OpenClawHarness::state_dir(&t.env)).unwrap();
    let out = bwrap()
        .command(&spec, Path::new("/bin/sh"), &["-c".into(), script.into()])
        .unwrap()
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("visible"), "{stdout}");
    for leak in [
        "HIDDEN-READ",
        "HIDDEN-LISTED",
        "oracle facts",
        "REPO-READ",
        "REPO-LISTED",
        "BESIDE-READ",
        "INSTALL-WRITTEN",
    ] {
        assert!(
            !stdout.contains(leak),
            "`{leak}` inside the sandbox:\n{stdout}"
        );
    }
    assert!(
        stdout.contains("AGENT-WRITTEN") && stdout.contains("STATE-WRITTEN"),
        "{stdout}"
    );
    assert!(stdout.contains("SOCKET-PRESENT"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(t.env.agent_root.join("out.txt")).unwrap(),
        "written\n"
    );
    assert!(OpenClawHarness::state_dir(&t.env)
        .join("probe.txt")
        .is_file());
    // /root may exist inside only as the parent of mounted folders (the harness cache
    // under ~/.cache); nothing else of the real home may show.
    let inside: Vec<&str> = stdout
        .split("ROOT-START")
        .nth(1)
        .and_then(|s| s.split("ROOT-END").next())
        .unwrap_or_default()
        .lines()
        .collect();
    let mounted: Vec<&PathBuf> = spec.readonly.iter().chain(&spec.writable).collect();
    for entry in std::fs::read_dir("/root").into_iter().flatten().flatten() {
        if mounted.iter().any(|m| m.starts_with(entry.path())) {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            !inside.contains(&name.as_str()),
            "/root/{name} is visible inside the sandbox:\n{stdout}"
        );
    }
    // Only the spec's variables reach the process: the dummy key, not the runner's.
    assert!(
        stdout.contains("COSEC_MODEL_API_KEY=sk-cosec-local"),
        "{stdout}"
    );
    assert!(!stdout.contains("CARGO_MANIFEST_DIR"), "{stdout}");
    t.socket_task.abort();
}

#[tokio::test]
async fn the_openclaw_binary_runs_inside_its_sandbox() {
    let installed = installed();
    let harness = harness(Duration::from_secs(60));
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
    assert!(stdout.contains(openclaw_install::VERSION), "{stdout}");
    assert_eq!(harness.name(), "openclaw");
    assert_eq!(harness.version(), openclaw_install::VERSION);
    t.socket_task.abort();
}

#[path = "harness_openclaw/scripted.rs"]
mod scripted;

use scripted::{Mode, Server};

fn delivery(t: &TempTrial, community: &CommunityId, text: &str) -> Delivery {
    Delivery {
        turn: 1,
        community: community.clone(),
        speaker: Some(t.scenario.agent.turns[0].speaker.clone()),
        text: text.to_owned(),
        community_view: "Members: (test view)".to_owned(),
    }
}

#[tokio::test]
async fn sessions_continue_per_community_with_native_writes_and_the_shim_over_mcp() {
    // The trial comes first: the scripted write needs its absolute agent root.
    let dir_trial = temp_trial("http://unused").await;
    let target = dir_trial.env.agent_root.join("shared/openclaw-note.md");
    let server = Server::start(Mode::Script {
        path: target.display().to_string(),
    })
    .await;
    let mut t = dir_trial;
    t.env.model_base_url = format!("{}/t/{}/v1", server.url, t.env.trial_id);
    let home = &t.scenario.agent.turns[0].community.clone();
    let side = CommunityId::from(SIDE);
    let harness = harness(Duration::from_secs(240));
    let mut session = harness.start(t.env.clone()).await.unwrap();

    let first = session
        .deliver(&delivery(&t, home, "PLEASE-WRITE a note"))
        .await
        .unwrap();
    assert_eq!(first.reply, "seen 1 participant messages");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "written by openclaw"
    );
    let reqs = server.requests();
    assert!(
        reqs[0].tools.iter().any(|n| n == "write"),
        "{:?}",
        reqs[0].tools
    );
    assert!(
        reqs[0].tools.iter().any(|n| n == "cosec__list_files"),
        "{:?}",
        reqs[0].tools
    );
    let seeded_history = t.scenario.agent.seeds.iter().any(
        |s| matches!(&s.surface, Surface::SessionHistory { community, .. } if community == home),
    );
    assert_eq!(
        reqs[0]
            .last_participant
            .contains("Earlier in this community:"),
        seeded_history,
        "{}",
        reqs[0].last_participant
    );
    assert!(
        reqs[0].last_participant.contains("Members: (test view)"),
        "{}",
        reqs[0].last_participant
    );
    let listed = reqs.last().unwrap().tool_results.join("\n");
    assert!(
        listed.contains("openclaw-note.md"),
        "the shim's listing came back through MCP: {listed}"
    );

    let second = session
        .deliver(&delivery(&t, home, "and again"))
        .await
        .unwrap();
    assert_eq!(
        second.reply, "seen 2 participant messages",
        "the community's session continued"
    );
    let other = session
        .deliver(&delivery(&t, &side, "hello side room"))
        .await
        .unwrap();
    assert_eq!(
        other.reply, "seen 1 participant messages",
        "another community gets its own session"
    );
    session.finish().await.unwrap();
    assert!(
        !t.env.harness_home.join("node-compile-cache").exists(),
        "finish drops the per-trial compile cache"
    );
    assert!(
        OpenClawHarness::config_path(&t.env).is_file(),
        "the native state stays"
    );

    let trace = read_trace(t.env.trace.path()).unwrap();
    let sources: Vec<String> = trace
        .iter()
        .filter_map(|l| match &l.event {
            TraceEvent::HarnessOutput { source, text, .. } => Some(format!("{source}\n{text}")),
            _ => None,
        })
        .collect();
    assert!(
        sources
            .iter()
            .any(|s| s.starts_with("stdout\n") && s.contains("seen 1 participant messages")),
        "{sources:?}"
    );
    let transcript = sources
        .iter()
        .find(|s| s.starts_with("session_file:transcript/"))
        .expect("a transcript export");
    assert!(
        transcript.contains("\"write\"") && transcript.contains("written by openclaw"),
        "native write evidence: {transcript}"
    );
    let tool_calls = trace
        .iter()
        .filter(|l| matches!(&l.event, TraceEvent::ToolCall { tool, .. } if tool == "list_files"))
        .count();
    assert_eq!(tool_calls, 1, "the MCP call reached the runner's shim");
    t.socket_task.abort();
}

#[tokio::test]
async fn a_hung_model_call_is_a_crash_after_the_turn_timeout() {
    let server = Server::start(Mode::Hang).await;
    let t = temp_trial(&server.url).await;
    let harness = harness(Duration::from_secs(50));
    let mut session = harness.start(t.env.clone()).await.unwrap();
    let started = std::time::Instant::now();
    let err = session
        .deliver(&delivery(&t, &t.scenario.agent.turns[0].community, "hello"))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(75),
        "killed at the timeout"
    );
    match err {
        HarnessError::Crash(message) => assert!(message.contains("within 50 s"), "{message}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert!(
        !server.requests().is_empty(),
        "OpenClaw reached the model before it was killed"
    );
    t.socket_task.abort();
}

#[tokio::test]
async fn a_rejected_model_call_is_a_model_failure() {
    let server = Server::start(Mode::Reject).await;
    let t = temp_trial(&server.url).await;
    let harness = harness(Duration::from_secs(120));
    let mut session = harness.start(t.env.clone()).await.unwrap();
    let err = session
        .deliver(&delivery(&t, &t.scenario.agent.turns[0].community, "hello"))
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::Model(_)), "{err:?}");
    let trace = read_trace(t.env.trace.path()).unwrap();
    assert!(trace.iter().any(
        |l| matches!(&l.event, TraceEvent::HarnessOutput { source, .. } if source == "stderr_tail")
    ));
    t.socket_task.abort();
}

fn run_one(extra: &[&str]) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut args = vec![
        "run",
        "--harness",
        "openclaw",
        "--model",
        "sim:ideal",
        "--judge",
        "none",
        "--scenario",
        SCENARIO,
    ];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(&args)
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Needs the lead's CLI wiring (`--harness openclaw`); fails until it lands.
#[test]
fn a_static_scenario_runs_end_to_end_through_openclaw() {
    let s = run_one(&[]);
    assert_eq!(s["trials"]["valid"], 1, "{s}");
}

/// Needs the lead's CLI wiring (`--harness openclaw`, `--defense`); fails until it lands.
#[test]
fn a_static_scenario_runs_through_openclaw_behind_the_proxy_guard() {
    let s = run_one(&["--defense", "proxy"]);
    assert_eq!(s["trials"]["valid"], 1, "{s}");
}
