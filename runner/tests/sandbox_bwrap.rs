//! The bubblewrap sandbox as a harness process sees it: no secret of the host's `/etc`,
//! an unprivileged user that can still write the agent half and its home, no way to the
//! host's loopback services other than the model proxy relayed in, and a shim socket
//! that acts only for its own trial.
//!
//! Tier `harnesses` (`scripts/tiers/harnesses.sh`): bubblewrap; the probes use the
//! system's `python3`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bwrap, relay, TempTrial};
use cosec::sandbox::SandboxSpec;
use std::net::SocketAddr;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

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

/// A python3 line printing what a TCP connection to `addr` reads, or `REFUSED <error>`.
fn dial(addr: SocketAddr) -> String {
    format!(
        "python3 -c 'import socket\ntry:\n s=socket.create_connection((\"{}\",{}),timeout=5); print(s.recv(100).decode())\nexcept Exception as e:\n print(\"REFUSED\", e)'",
        addr.ip(),
        addr.port()
    )
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn no_secret_of_etc_shows_and_the_user_is_unprivileged_but_writes_its_halves() {
    let t = temp_trial("http://127.0.0.1:9009");
    let script = "id -u; id -g; \
        for f in shadow gshadow sudoers ssh ssl/private; do test -e /etc/$f && echo SEEN-$f; done; \
        cat /etc/shadow 2>/dev/null && echo SHADOW-READ; \
        test -e /opt && echo SEEN-opt; \
        python3 -c 'import ssl, json; ssl.create_default_context(); print(\"PYTHON-OK\")'; \
        echo note > from-agent.txt && echo AGENT-WROTE; \
        echo state > \"$HOME/state.txt\" && echo HOME-WROTE";
    let (stdout, stderr) = common::sh(bwrap().as_ref(), &spec(&t, Vec::new()), script).await;
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.len() >= 2, "{stdout}\n{stderr}");
    assert_eq!(lines[0], "65534", "uid inside: {stdout}\n{stderr}");
    assert_eq!(lines[1], "65534", "gid inside: {stdout}");
    assert!(!stdout.contains("SEEN-"), "{stdout}");
    assert!(!stdout.contains("SHADOW-READ"), "{stdout}");
    assert!(stdout.contains("PYTHON-OK"), "{stdout}\n{stderr}");
    assert!(stdout.contains("AGENT-WROTE") && stdout.contains("HOME-WROTE"));
    let agent = std::fs::read_to_string(t.env.agent_root.join("from-agent.txt")).unwrap();
    assert_eq!(agent, "note\n");
    let home = std::fs::read_to_string(t.env.harness_home.join("state.txt")).unwrap();
    assert_eq!(home, "state\n");
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn only_the_relayed_proxy_is_reachable_on_loopback() {
    let proxy = greeter("PROXY-ANSWERED").await;
    let other = greeter("OTHER-SERVICE-ANSWERED").await;
    let t = temp_trial(&format!("http://{proxy}"));
    let script = format!("{}; {}", dial(proxy), dial(other));
    let (stdout, stderr) = common::sh(bwrap().as_ref(), &spec(&t, vec![proxy]), &script).await;
    assert!(stdout.contains("PROXY-ANSWERED"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("OTHER-SERVICE-ANSWERED"), "{stdout}");
    assert!(stdout.contains("REFUSED"), "{stdout}\n{stderr}");
}

#[tokio::test]
#[ignore = "tier harnesses: needs bubblewrap"]
async fn the_shim_socket_acts_only_for_its_own_trial() {
    let t = temp_trial("http://127.0.0.1:9009");
    let socket = t.env.shim_socket.clone().unwrap();
    let ask = |trial: &str| {
        format!(
            "python3 -c 'import socket\ns=socket.socket(socket.AF_UNIX); s.connect(\"{}\")\ns.sendall(b\"{{\\\"trial\\\":\\\"{trial}\\\",\\\"list_tools\\\":true}}\\n\")\nprint(s.makefile().readline())'",
            socket.display()
        )
    };
    let script = format!("{}; {}", ask(&t.env.trial_id), ask("another-trial"));
    let (stdout, stderr) = common::sh(bwrap().as_ref(), &spec(&t, Vec::new()), &script).await;
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 2, "{stdout}\n{stderr}");
    assert!(lines[0].contains("\"tools\""), "own trial: {}", lines[0]);
    assert!(
        lines[1].contains("`another-trial` is refused") && lines[1].contains("\"is_error\":true"),
        "another trial: {}",
        lines[1]
    );
}
