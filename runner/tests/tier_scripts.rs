//! The tier scripts' own decisions, run with stand-in commands: a machine where Docker
//! cannot run skips the Docker tier with the daemon's reason instead of failing CI, and
//! one whose daemon already runs passes it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn stand_in(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `scripts/tiers/docker.sh` with the stand-ins of `bin` first on the `PATH`.
fn docker_tier(bin: &Path) -> std::process::Output {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/tiers/docker.sh");
    Command::new("bash")
        .arg(&script)
        .env("PATH", path)
        .output()
        .unwrap()
}

#[test]
fn the_docker_tier_is_skipped_with_the_reason_when_dockerd_cannot_start() {
    let bin = tempfile::tempdir().unwrap();
    // A daemon that never answers, a dockerd that dies the way it does in an
    // unprivileged container, and guards that fail loudly if the script went further.
    stand_in(bin.path(), "docker", "exit 1");
    stand_in(
        bin.path(),
        "dockerd",
        "echo 'failed to start daemon: Devices cgroup isn'\\''t mounted' >&2; exit 1",
    );
    stand_in(bin.path(), "debootstrap", "exit 0");
    stand_in(
        bin.path(),
        "apt-get",
        "echo 'apt-get must not run' >&2; exit 97",
    );
    stand_in(
        bin.path(),
        "cargo",
        "echo 'cargo must not run' >&2; exit 97",
    );
    let out = docker_tier(bin.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("tier docker: SKIPPED"), "{stderr}");
    let reason = if nix_is_root() {
        "Devices cgroup isn't mounted"
    } else {
        "starting dockerd needs root"
    };
    assert!(stderr.contains(reason), "{stderr}");
    assert!(!stderr.contains("must not run"), "{stderr}");
}

#[test]
fn the_docker_tier_succeeds_when_a_daemon_already_answers() {
    let bin = tempfile::tempdir().unwrap();
    // A daemon someone else started, every tool present, and a build and tests that
    // pass: the tier starts and stops nothing and must end with success.
    stand_in(bin.path(), "docker", "exit 0");
    stand_in(
        bin.path(),
        "dockerd",
        "echo 'dockerd must not run' >&2; exit 97",
    );
    stand_in(bin.path(), "debootstrap", "exit 0");
    stand_in(
        bin.path(),
        "apt-get",
        "echo 'apt-get must not run' >&2; exit 97",
    );
    stand_in(bin.path(), "cargo", "exit 0");
    let out = docker_tier(bin.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("tier docker: done"), "{stdout}\n{stderr}");
    assert!(!stderr.contains("must not run"), "{stderr}");
}

fn nix_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}
