//! The OpenClaw harness: its sandbox hides the hidden half, the repository and the
//! user's home; the real `openclaw` runs inside it; the adapter drives real OpenClaw
//! sessions (continuation per community, native `write`, the shim over MCP, failures)
//! against a scripted Chat Completions server; and whole trials run through it.
//!
//! Tier `harnesses` (`scripts/tiers/harnesses.sh`): bubblewrap and OpenClaw in the
//! harness cache (`cosec harness install openclaw`).
//! OpenClaw takes 10-20 s a turn, so the adapter tests keep to a few deliveries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bwrap, relay, Confinement, TempTrial};
use cosec::harness;
use cosec_proxy::trace::{read_trace, TraceEvent};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::CommunityId;
use harness::install::{openclaw as openclaw_install, Installed};
use harness::openclaw::OpenClawHarness;
use harness::{Delivery, Harness, HarnessError};
use std::time::Duration;

const SIDE: &str = "openclaw-side-room";

fn installed() -> Installed {
    common::installed(
        "OpenClaw",
        "openclaw",
        openclaw_install::VERSION,
        openclaw_install::detect,
    )
}

fn harness(timeout: Duration) -> OpenClawHarness {
    OpenClawHarness::new(installed(), bwrap(), relay(), timeout)
}

/// A trial of the static scenario with a second community, its model at `base_url`.
fn temp_trial(base_url: &str) -> TempTrial {
    TempTrial::start(common::with_side_room(SIDE), "fedcba9876543210", base_url)
}

/// A shell with the OpenClaw adapter's spec inside `c` reads the agent half and writes
/// its state, and reaches neither the hidden half, the repository, the install, the
/// socket's folder nor the user's home.
async fn openclaw_escape(c: Confinement) {
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9009");
    let p = t.probe();
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
        hidden = p.hidden.display(),
        trial = t.trial_dir.display(),
        repo = p.repo.display(),
        manifest = env!("CARGO_MANIFEST_DIR"),
        beside = p.beside.display(),
        install_probe = installed().root.join("probe.txt").display(),
        socket = p.socket.display(),
    );
    std::fs::create_dir_all(OpenClawHarness::state_dir(&t.env)).unwrap();
    let (stdout, _) = common::sh(c.sandbox.as_ref(), &spec, &script).await;
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
    let mounted = c.visible(&spec);
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
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_shell_in_the_openclaw_sandbox_cannot_reach_the_hidden_half_the_repo_or_home() {
    openclaw_escape(Confinement::bwrap()).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_shell_in_the_openclaw_container_cannot_reach_the_hidden_half_the_repo_or_home() {
    openclaw_escape(Confinement::docker().await).await;
}

/// `openclaw --version` runs with the adapter's spec inside `c`.
async fn openclaw_runs_inside(c: Confinement) {
    let installed = installed();
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9009");
    let spec = harness.sandbox_spec(&t.env);
    let sandbox = c.sandbox.as_ref();
    common::version_inside(sandbox, &spec, &installed.entry, openclaw_install::VERSION).await;
    assert_eq!(harness.name(), "openclaw");
    assert_eq!(harness.version(), openclaw_install::VERSION);
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn the_openclaw_binary_runs_inside_its_sandbox() {
    openclaw_runs_inside(Confinement::bwrap()).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_the_openclaw_binary_runs_inside_its_container() {
    openclaw_runs_inside(Confinement::docker().await).await;
}

#[path = "harness_openclaw/scripted.rs"]
mod scripted;

use scripted::Mode;

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
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn sessions_continue_per_community_with_native_writes_and_the_shim_over_mcp() {
    // The trial comes first: the scripted write needs its absolute agent root.
    let mut t = temp_trial("http://unused");
    let target = t.env.agent_root.join("shared/openclaw-note.md");
    let server = scripted::start(Mode::Script {
        path: target.display().to_string(),
    })
    .await;
    t.set_model_server(&server.url);
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
    // The gateway lives for the trial: between deliveries it calls no model of its own
    // (no heartbeat, scheduled job or wake-up).
    let calls = server.requests().len();
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    assert_eq!(
        server.requests().len(),
        calls,
        "a model call outside a delivery"
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
}

/// A first delivery of `hello` in the trial's first community, which must fail.
async fn first_delivery_error(t: &TempTrial, timeout: Duration) -> HarnessError {
    let mut session = harness(timeout).start(t.env.clone()).await.unwrap();
    let community = &t.scenario.agent.turns[0].community;
    session
        .deliver(&delivery(t, community, "hello"))
        .await
        .unwrap_err()
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_hung_model_call_is_a_crash_after_the_turn_timeout() {
    let server = scripted::start(Mode::Hang).await;
    let t = temp_trial(&server.url);
    let started = std::time::Instant::now();
    let err = first_delivery_error(&t, Duration::from_secs(50)).await;
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
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_rejected_model_call_is_a_model_failure() {
    let server = scripted::start(Mode::Reject).await;
    let t = temp_trial(&server.url);
    let err = first_delivery_error(&t, Duration::from_secs(120)).await;
    assert!(matches!(err, HarnessError::Model(_)), "{err:?}");
    let trace = read_trace(t.env.trace.path()).unwrap();
    assert!(trace.iter().any(
        |l| matches!(&l.event, TraceEvent::HarnessOutput { source, .. } if source == "stderr_tail")
    ));
}
