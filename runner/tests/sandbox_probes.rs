//! The escape probes, the same in each sandbox kind, as a harness process sees its
//! sandbox: no secret of `/etc` readable, an unprivileged user that still writes the
//! agent half and its home (and leaves them the runner's), no way to the host's loopback
//! services other than the model proxy relayed in, and a shim socket that acts only for
//! its own trial.
//!
//! Tiers: `harnesses` (`scripts/tiers/harnesses.sh`) runs the bubblewrap probes
//! (`bwrap_*`), `docker` (`scripts/tiers/docker.sh`) the Docker ones (`docker_*`). The
//! probes use only `bash`, coreutils and `cosec-shim`, which both sandboxes have.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{relay, TempTrial};
use cosec::sandbox::{Sandbox, SandboxSpec, SANDBOX_UID};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

/// The sandbox kinds.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Bwrap,
    Docker,
}

async fn sandbox(kind: Kind) -> Arc<dyn Sandbox> {
    match kind {
        Kind::Bwrap => common::bwrap(),
        Kind::Docker => common::docker().await,
    }
}

/// A trial of the static scenario whose model proxy is at `base_url`.
fn temp_trial(base_url: &str) -> TempTrial {
    TempTrial::start(
        common::scenario(common::SCENARIO),
        "0011223344556677",
        base_url,
    )
}

/// What a native harness of `t` gets: its halves writable, the relay and its own shim
/// socket read-only, `loopback` relayed in.
fn spec(t: &TempTrial, loopback: Vec<SocketAddr>) -> SandboxSpec {
    SandboxSpec {
        writable: vec![t.env.agent_root.clone(), t.env.harness_home.clone()],
        readonly: vec![relay(), t.env.shim_socket.clone().unwrap()],
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("HOME".into(), t.env.harness_home.display().to_string()),
        ],
        workdir: t.env.agent_root.clone(),
        loopback,
    }
}

/// Runs `bash -c script` inside `kind`'s sandbox: (stdout, stderr).
async fn bash(kind: Kind, spec: &SandboxSpec, script: &str) -> (String, String) {
    let args = [OsString::from("-c"), OsString::from(script)];
    let sandbox = sandbox(kind).await;
    let out = common::inside(sandbox.as_ref(), spec, Path::new("/bin/bash"), &args).await;
    (out.stdout, out.stderr)
}

/// The uid and gid that own what this test process creates (the runner's user).
fn runner_user() -> (u32, u32) {
    let dir = tempfile::tempdir().unwrap();
    let meta = std::fs::metadata(dir.path()).unwrap();
    (meta.uid(), meta.gid())
}

/// The uid the harness runs as inside `kind`: `nobody` in bubblewrap (mapped to the
/// runner outside); in Docker the runner's own user, or `nobody` when that is root.
fn expected_uid(kind: Kind) -> u32 {
    match (kind, runner_user().0) {
        (Kind::Docker, uid) if uid != 0 => uid,
        _ => SANDBOX_UID,
    }
}

/// Every path under `root` (itself included) whose owner is not `owner`.
fn not_owned_by(root: &Path, owner: (u32, u32)) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(path) = stack.pop() {
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if (meta.uid(), meta.gid()) != owner {
            wrong.push(format!("{} {}:{}", path.display(), meta.uid(), meta.gid()));
        }
        if meta.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    wrong
}

async fn no_secret_of_etc_and_an_unprivileged_user_that_writes_its_halves(kind: Kind) {
    let t = temp_trial("http://127.0.0.1:9009");
    let mut script = "id -u; id -g; \
        for f in shadow gshadow; do cat /etc/$f >/dev/null 2>&1 && echo READ-$f; done; \
        echo note > from-agent.txt && echo AGENT-WROTE; \
        echo more >> communities/carepod/seeded-by-runner.md && echo SEEDED-CHANGED; \
        mkdir -p \"$HOME/sessions/a\" && echo state > \"$HOME/sessions/a/1.json\" && echo HOME-WROTE; \
        ln -s /etc/hostname agent-link && echo LINKED"
        .to_owned();
    if kind == Kind::Bwrap {
        // bubblewrap shows the host's own `/etc` and file system, so only what a harness
        // needs of it may be there; Python's TLS set-up must still work with that.
        script.push_str(
            "; for f in shadow gshadow sudoers ssh ssl/private; do test -e /etc/$f && echo SEEN-$f; done; \
             test -e /opt && echo SEEN-opt; \
             python3 -c 'import ssl, json; ssl.create_default_context(); print(\"PYTHON-OK\")'",
        );
    }
    // A file the runner wrote into the agent half before the run, as the platform does.
    let seeded = t
        .env
        .agent_root
        .join("communities/carepod/seeded-by-runner.md");
    std::fs::create_dir_all(seeded.parent().unwrap()).unwrap();
    std::fs::write(&seeded, "seeded\n").unwrap();

    let (stdout, stderr) = bash(kind, &spec(&t, Vec::new()), &script).await;
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 2, "{stdout}\n{stderr}");
    let uid = expected_uid(kind).to_string();
    assert_eq!(lines[0], uid, "uid inside: {stdout}\n{stderr}");
    assert_ne!(lines[1], "0", "gid inside: {stdout}");
    assert!(!stdout.contains("READ-"), "{stdout}");
    assert!(!stdout.contains("SEEN-"), "{stdout}");
    if kind == Kind::Bwrap {
        assert!(stdout.contains("PYTHON-OK"), "{stdout}\n{stderr}");
    }
    for done in ["AGENT-WROTE", "SEEDED-CHANGED", "HOME-WROTE", "LINKED"] {
        assert!(stdout.contains(done), "{done}: {stdout}\n{stderr}");
    }
    let agent = std::fs::read_to_string(t.env.agent_root.join("from-agent.txt")).unwrap();
    assert_eq!(agent, "note\n");
    assert_eq!(std::fs::read_to_string(&seeded).unwrap(), "seeded\nmore\n");
    let home = t.env.harness_home.join("sessions/a/1.json");
    assert_eq!(std::fs::read_to_string(home).unwrap(), "state\n");
    // After the run the halves are the runner's again, what the harness made included.
    for half in [&t.env.agent_root, &t.env.harness_home] {
        let wrong = not_owned_by(half, runner_user());
        assert!(
            wrong.is_empty(),
            "not the runner's after the run: {wrong:?}"
        );
    }
}

/// A listener on the host's loopback that answers every connection with `greeting`.
async fn greeter(greeting: &'static str) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let _ = conn.write_all(greeting.as_bytes()).await;
        }
    });
    addr
}

async fn only_the_relayed_proxy_is_reachable_on_loopback(kind: Kind) {
    let proxy = greeter("PROXY-ANSWERED").await;
    let other = greeter("OTHER-SERVICE-ANSWERED").await;
    let t = temp_trial(&format!("http://{proxy}"));
    let script = format!(
        "for port in {} {}; do \
           timeout 5 bash -c \"exec 3<>/dev/tcp/127.0.0.1/$port && head -c 100 <&3 && echo\" \
             2>/dev/null || echo REFUSED-$port; \
         done",
        proxy.port(),
        other.port()
    );
    let (stdout, stderr) = bash(kind, &spec(&t, vec![proxy]), &script).await;
    assert!(stdout.contains("PROXY-ANSWERED"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("OTHER-SERVICE-ANSWERED"), "{stdout}");
    assert!(
        stdout.contains(&format!("REFUSED-{}", other.port())),
        "{stdout}\n{stderr}"
    );
}

async fn the_shim_socket_acts_only_for_its_own_trial(kind: Kind) {
    let t = temp_trial("http://127.0.0.1:9009");
    let socket = t.env.shim_socket.clone().unwrap();
    // An MCP client's first three messages to `cosec-shim`, the relay a harness starts.
    let ask = |trial: &str| {
        format!(
            "{{ printf '%s\\n' \
               '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"probe\",\"version\":\"1\"}}}}}}' \
               '{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}' \
               '{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}}'; sleep 3; }} \
             | {relay} --socket {socket} --trial {trial} | grep '\"id\":2' || echo NO-ANSWER-{trial}",
            relay = relay().display(),
            socket = socket.display(),
        )
    };
    let script = format!("{}; {}", ask(&t.env.trial_id), ask("another-trial"));
    let (stdout, stderr) = bash(kind, &spec(&t, Vec::new()), &script).await;
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 2, "{stdout}\n{stderr}");
    assert!(lines[0].contains("\"tools\""), "own trial: {}", lines[0]);
    assert!(
        lines[1].contains("`another-trial` is refused") && !lines[1].contains("\"tools\""),
        "another trial: {}",
        lines[1]
    );
}

/// Sends `line` to a live process and reads its one-line answer.
async fn ask_live(
    stdin: &mut (dyn tokio::io::AsyncWrite + Send + Unpin),
    answers: &mut tokio::io::Lines<
        tokio::io::BufReader<Box<dyn tokio::io::AsyncRead + Send + Unpin>>,
    >,
    line: &str,
) -> String {
    stdin
        .write_all(format!("{line}\n").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
    let next = tokio::time::timeout(std::time::Duration::from_secs(30), answers.next_line());
    next.await.unwrap().unwrap().unwrap_or_default()
}

/// Whether the file `beat` still grows (a background loop writes to it every 0.1 s).
async fn still_beating(beat: &Path) -> bool {
    let size = || std::fs::metadata(beat).map(|m| m.len()).unwrap_or(0);
    // Docker removes a dropped container in the background: give it time.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let before = size();
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    size() != before
}

/// A harness kept alive for a trial is confined like a one-shot run: it answers line
/// after line, reaches the relayed proxy and not the hidden half; ending it, or
/// dropping it, stops it and everything it started in the background.
async fn a_live_process_answers_until_it_ends_and_leaves_nothing_running(kind: Kind) {
    let proxy = greeter("PROXY-ANSWERED").await;
    let t = temp_trial(&format!("http://{proxy}"));
    let spec = spec(&t, vec![proxy]);
    let hidden = t.env.trace.path().to_owned();
    std::fs::write(&hidden, "oracle facts").unwrap();
    let sandbox = sandbox(kind).await;
    for how in ["end", "drop"] {
        let beat = t.env.agent_root.join(format!("beat-{how}"));
        let script = format!(
            "(while true; do echo . >> {beat}; sleep 0.1; done) &              while read -r line; do case \"$line\" in                hidden) cat {hidden} 2>/dev/null || echo hidden-unreadable ;;                proxy) timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && head -c 14 <&3; echo' ;;                *) echo \"got $line\" ;;              esac; done",
            beat = beat.display(),
            hidden = hidden.display(),
            port = proxy.port(),
        );
        let args = ["-c", script.as_str()].map(OsString::from);
        let mut live = sandbox
            .spawn(&spec, Path::new("/bin/bash"), &args)
            .await
            .unwrap();
        let stdout = std::mem::replace(&mut live.stdout, Box::new(tokio::io::empty()));
        let mut answers = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
        assert_eq!(
            ask_live(&mut live.stdin, &mut answers, "one").await,
            "got one"
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(
            ask_live(&mut live.stdin, &mut answers, "two").await,
            "got two"
        );
        assert_eq!(
            ask_live(&mut live.stdin, &mut answers, "hidden").await,
            "hidden-unreadable"
        );
        assert_eq!(
            ask_live(&mut live.stdin, &mut answers, "proxy").await,
            "PROXY-ANSWERED"
        );
        assert!(still_beating(&beat).await, "the background loop runs");
        match how {
            "end" => live.end().await,
            _ => drop(live),
        }
        assert!(!still_beating(&beat).await, "{how}: something still runs");
    }
}

/// A live process that does not exit when its stdin closes is killed at the end of the
/// grace, and `end` returns only once nothing inside writes any more: the harness's
/// folders may be cleaned or snapshotted right after it.
async fn a_live_process_that_will_not_exit_has_stopped_when_end_returns(kind: Kind) {
    let t = temp_trial("http://127.0.0.1:9");
    let spec = spec(&t, Vec::new());
    let sandbox = sandbox(kind).await;
    let beat = t.env.agent_root.join("beat-kill");
    // A writer as fast as the shell goes, and a foreground that ignores stdin and TERM.
    let script = format!(
        "trap '' TERM; (trap '' TERM; while true; do echo . >> {beat}; done) & exec sleep 600",
        beat = beat.display(),
    );
    let args = ["-c", script.as_str()].map(OsString::from);
    let live = sandbox
        .spawn(&spec, Path::new("/bin/bash"), &args)
        .await
        .unwrap();
    let size = || std::fs::metadata(&beat).map(|m| m.len()).unwrap_or(0);
    for _ in 0..300 {
        if size() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(size() > 0, "the writer runs");
    live.end().await;
    let at_end = size();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(size(), at_end, "something wrote after end returned");
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn bwrap_a_live_process_that_will_not_exit_has_stopped_when_end_returns() {
    a_live_process_that_will_not_exit_has_stopped_when_end_returns(Kind::Bwrap).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_live_process_that_will_not_exit_has_stopped_when_end_returns() {
    a_live_process_that_will_not_exit_has_stopped_when_end_returns(Kind::Docker).await;
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn bwrap_a_live_process_answers_until_it_ends_and_leaves_nothing_running() {
    a_live_process_answers_until_it_ends_and_leaves_nothing_running(Kind::Bwrap).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_live_process_answers_until_it_ends_and_leaves_nothing_running() {
    a_live_process_answers_until_it_ends_and_leaves_nothing_running(Kind::Docker).await;
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn bwrap_no_secret_of_etc_and_an_unprivileged_user_that_writes_its_halves() {
    no_secret_of_etc_and_an_unprivileged_user_that_writes_its_halves(Kind::Bwrap).await;
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn bwrap_only_the_relayed_proxy_is_reachable_on_loopback() {
    only_the_relayed_proxy_is_reachable_on_loopback(Kind::Bwrap).await;
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn bwrap_the_shim_socket_acts_only_for_its_own_trial() {
    the_shim_socket_acts_only_for_its_own_trial(Kind::Bwrap).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_no_secret_of_etc_and_an_unprivileged_user_that_writes_its_halves() {
    no_secret_of_etc_and_an_unprivileged_user_that_writes_its_halves(Kind::Docker).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_only_the_relayed_proxy_is_reachable_on_loopback() {
    only_the_relayed_proxy_is_reachable_on_loopback(Kind::Docker).await;
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_the_shim_socket_acts_only_for_its_own_trial() {
    the_shim_socket_acts_only_for_its_own_trial(Kind::Docker).await;
}
