//! The Docker sandbox itself, through the real daemon and the sandbox image: stdin and
//! exit codes pass through, a hung run is killed at its deadline and every container is
//! removed, the container has no network but reaches the runner's loopback listener
//! through the relay socket, its limits hold, and a path the image lacks is refused.
//!
//! Tier `docker` (`scripts/tiers/docker.sh`): dockerd running and the image of
//! `cosec sandbox image build`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use cosec::sandbox::{Finished, Job, Sandbox, SandboxSpec};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A spec holding only the temporary folder `dir`.
fn spec(dir: &Path) -> SandboxSpec {
    SandboxSpec {
        writable: vec![dir.to_owned()],
        readonly: Vec::new(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        workdir: dir.to_owned(),
        loopback: Vec::new(),
    }
}

async fn sh(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    script: &str,
    input: Option<&str>,
    deadline: Duration,
) -> Finished {
    let args = ["-c", script].map(OsString::from);
    let job = Job {
        spec,
        program: Path::new("/bin/bash"),
        args: &args,
        input,
        deadline,
    };
    sandbox.run(job).await.unwrap()
}

/// Containers of the sandbox still there that mount `dir`.
async fn containers_mounting(dir: &Path) -> Vec<String> {
    let client = cosec::sandbox::docker::connect_daemon().await.unwrap();
    let options = bollard::query_parameters::ListContainersOptions {
        all: true,
        filters: Some(
            [(
                "label".to_owned(),
                vec![cosec::sandbox::docker::CONTAINER_LABEL.to_owned()],
            )]
            .into(),
        ),
        ..Default::default()
    };
    let list = client.list_containers(Some(options)).await.unwrap();
    list.into_iter()
        .filter(|c| {
            c.mounts
                .iter()
                .flatten()
                .any(|m| m.source.as_deref().map(PathBuf::from).as_deref() == Some(dir))
        })
        .filter_map(|c| c.id)
        .collect()
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_input_reaches_stdin_and_the_exit_code_comes_back() {
    let docker = common::docker().await;
    let dir = tempfile::tempdir().unwrap();
    let script = "cat; echo done; echo oops >&2; echo kept > out.txt; exit 3";
    let done = sh(
        docker.as_ref(),
        &spec(dir.path()),
        script,
        Some("hello\n"),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(done.status.and_then(|s| s.code()), Some(3), "{done:?}");
    assert_eq!(done.stdout, "hello\ndone\n");
    assert_eq!(done.stderr, "oops\n");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "kept\n"
    );
    assert!(
        containers_mounting(dir.path()).await.is_empty(),
        "the container is removed"
    );
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_hung_run_is_killed_at_its_deadline_and_its_container_removed() {
    let docker = common::docker().await;
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let script = "echo started >&2; sleep 300 & sleep 300";
    let done = sh(
        docker.as_ref(),
        &spec(dir.path()),
        script,
        None,
        Duration::from_secs(3),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert!(done.status.is_none(), "expected a timeout, got {done:?}");
    assert!(done.stderr.contains("started"), "{}", done.stderr);
    assert!(
        containers_mounting(dir.path()).await.is_empty(),
        "the container is removed"
    );
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_no_network_but_the_loopback_listener_through_the_relay_socket() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = [0u8; 4];
                if conn.read_exact(&mut buf).await.is_ok() {
                    let _ = conn.write_all(b"pong from the host\n").await;
                }
            });
        }
    });
    let docker = common::docker().await;
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path());
    spec.loopback.push(addr);
    let script = format!(
        "echo NET:$(ls /sys/class/net | tr '\\n' ' '); \
         exec 3<>/dev/tcp/127.0.0.1/{port} && printf ping >&3 && head -n1 <&3; \
         (exec 4<>/dev/tcp/172.17.0.1/2375) 2>/dev/null && echo BRIDGE-REACHED; \
         (exec 5<>/dev/tcp/1.1.1.1/80) 2>/dev/null && echo OUTSIDE-REACHED; \
         getent hosts deb.debian.org && echo DNS-RESOLVED; true",
        port = addr.port()
    );
    let done = sh(
        docker.as_ref(),
        &spec,
        &script,
        None,
        Duration::from_secs(60),
    )
    .await;
    assert!(
        done.stdout.lines().any(|l| l == "NET:lo"),
        "only loopback inside: {done:?}"
    );
    assert!(done.stdout.contains("pong from the host"), "{done:?}");
    for leak in ["BRIDGE-REACHED", "OUTSIDE-REACHED", "DNS-RESOLVED"] {
        assert!(!done.stdout.contains(leak), "{leak}: {done:?}");
    }
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_limits_hold_and_the_root_filesystem_is_read_only() {
    let docker = common::docker().await;
    let dir = tempfile::tempdir().unwrap();
    let script = "echo MEM:$(cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes); \
                  echo PIDS:$(cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max); \
                  echo CAPS:$(grep CapEff /proc/self/status | tr -d '\\t'); \
                  touch /usr/probe && echo ROOTFS-WRITTEN; echo t > /tmp/t && echo TMP-WRITTEN; id -u";
    let done = sh(
        docker.as_ref(),
        &spec(dir.path()),
        script,
        None,
        Duration::from_secs(60),
    )
    .await;
    let limits = cosec::sandbox::DockerConfig::default();
    assert!(
        done.stdout
            .contains(&format!("MEM:{}", limits.memory_bytes)),
        "{done:?}"
    );
    assert!(
        done.stdout.contains(&format!("PIDS:{}", limits.pids)),
        "{done:?}"
    );
    assert!(
        done.stdout.contains("CAPS:CapEff:0000000000000000"),
        "{done:?}"
    );
    assert!(!done.stdout.contains("ROOTFS-WRITTEN"), "{done:?}");
    assert!(done.stdout.contains("TMP-WRITTEN"), "{done:?}");
}

#[tokio::test]
#[ignore = "tier docker: needs dockerd and the sandbox image"]
async fn docker_a_read_only_path_missing_from_the_image_is_refused_by_name() {
    let docker = common::docker().await;
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path());
    spec.readonly.push(outside.path().to_owned());
    let args = [OsString::from("-c"), OsString::from("true")];
    let job = Job {
        spec: &spec,
        program: Path::new("/bin/sh"),
        args: &args,
        input: None,
        deadline: Duration::from_secs(30),
    };
    let err = docker.run(job).await.unwrap_err().to_string();
    assert!(err.contains(&outside.path().display().to_string()), "{err}");
    assert!(err.contains("cosec sandbox image build"), "{err}");
}
