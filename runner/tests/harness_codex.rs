//! The Codex CLI harness: its sandbox hides the hidden half, the repository and the
//! user's home; the real binary runs inside it; the adapter drives real Codex through
//! sessions, resume, MCP and failures against a scripted Responses server; and whole
//! trials run through it.
//!
//! Tier `harnesses` (`scripts/tiers/harnesses.sh`): bubblewrap and Codex in the harness
//! cache (`cosec harness install codex`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bwrap, relay, Confinement, TempTrial};
use cosec::harness;
use cosec_proxy::trace::{read_trace, TraceEvent};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::CommunityId;
use harness::codex::CodexHarness;
use harness::install::{self, codex as codex_install, Installed};
use harness::{Delivery, Harness, HarnessError};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn installed() -> Installed {
    common::installed(
        "Codex",
        "codex",
        codex_install::VERSION,
        codex_install::detect,
    )
}

fn harness(timeout: Duration) -> CodexHarness {
    CodexHarness::new(installed(), bwrap(), relay(), timeout)
}

/// A trial of the static scenario with a second community, its model at `base_url`.
fn temp_trial(base_url: &str) -> TempTrial {
    let scenario = common::with_side_room("codex-side-room");
    TempTrial::start(scenario, "0123456789abcdef", base_url)
}

/// A shell with the Codex adapter's spec inside `c` reads the agent half and writes its
/// home, and reaches neither the hidden half, the repository, the socket's folder nor
/// the user's home.
async fn codex_escape(c: Confinement) {
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9009");
    let p = t.probe();
    let spec = harness.sandbox_spec(&t.env);
    // The user's home may appear inside only as the parent of mounted folders (the
    // harness cache under ~/.cache): probe everything else it holds.
    let user_home = PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| "/root".into()));
    let mounted = c.visible(&spec);
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
        hidden = p.hidden.display(),
        trial = t.trial_dir.display(),
        repo = p.repo.display(),
        beside = p.beside.display(),
        socket = p.socket.display(),
    );
    let (stdout, _) = common::sh(c.sandbox.as_ref(), &spec, &script).await;
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
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_shell_in_the_codex_sandbox_cannot_reach_the_hidden_half_the_repo_or_home() {
    codex_escape(Confinement::bwrap()).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_shell_in_the_codex_container_cannot_reach_the_hidden_half_the_repo_or_home() {
    codex_escape(Confinement::docker().await).await;
}

/// `codex --version` runs with the adapter's spec inside `c`.
async fn codex_runs_inside(c: Confinement) {
    let installed = installed();
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial("http://127.0.0.1:9009");
    let spec = harness.sandbox_spec(&t.env);
    let sandbox = c.sandbox.as_ref();
    common::version_inside(sandbox, &spec, &installed.entry, codex_install::VERSION).await;
    assert_eq!(harness.name(), "codex");
    assert_eq!(harness.version(), codex_install::VERSION);
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn the_codex_binary_runs_inside_its_sandbox() {
    codex_runs_inside(Confinement::bwrap()).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_the_codex_binary_runs_inside_its_container() {
    codex_runs_inside(Confinement::docker().await).await;
}

#[path = "harness_codex/scripted.rs"]
mod scripted;

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn codex_keeps_one_resumed_thread_per_community_and_reaches_the_shim() {
    let server = scripted::start(scripted::Mode::Script).await;
    let harness = harness(Duration::from_secs(120));
    let t = temp_trial(&server.url);
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
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_hanging_model_is_cut_at_the_turn_timeout() {
    let server = scripted::start(scripted::Mode::Hang).await;
    let harness = harness(Duration::from_secs(4));
    let t = temp_trial(&server.url);
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
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
async fn a_failing_model_endpoint_is_an_infrastructure_failure_with_stderr() {
    let server = scripted::start(scripted::Mode::Fail).await;
    let harness = harness(Duration::from_secs(60));
    let t = temp_trial(&server.url);
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
}

/// Installs the pinned Codex into the harness cache (network: the npm registry).
#[test]
#[ignore = "tier harnesses: needs bubblewrap and the installed native harnesses"]
fn install_codex_into_the_harness_cache() {
    let cache = install::cache_dir();
    let started = Instant::now();
    let found = codex_install::install(&cache, &|m| eprintln!("{m}")).unwrap();
    eprintln!("installed in {:?}", started.elapsed());
    assert_eq!(codex_install::detect(&cache), Some(found.clone()));
    // Idempotent: a second call finds it and changes nothing.
    assert_eq!(codex_install::install(&cache, &|_| {}).unwrap(), found);
}
