//! What a user meets at the terminal: listing into a pipe that closes early, and being
//! told that bubblewrap is needed when the harnesses are installed or listed without it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

#[test]
fn listing_into_a_closed_pipe_ends_quietly_with_success() {
    for args in [
        &["scenarios", "list"][..],
        &["scenarios", "list", "--json"][..],
        &["scenarios", "show", "st-intra-owner-a1-s1"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cosec"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the suite is loaded, so the first write fails.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?}\n{stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn every_printing_command_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let a = a.to_str().unwrap();
    let b = dir.path().join("b");
    let b = b.to_str().unwrap();
    let policy = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../policies/defense/default.cedar"
    );
    let scenario = "st-intra-owner-a1-s1";
    let first = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["run", "--judge", "none", "--scenario", scenario, "--out", a])
        .output()
        .unwrap();
    assert!(first.status.success());
    for args in [
        &["run", "--judge", "none", "--scenario", scenario, "--out", b][..],
        &["report", a][..],
        &["compare", a, a][..],
        &["compare", "--table", a, a][..],
        &["policy", "check", policy][..],
        &["policy", "test", policy][..],
        &["scenarios", "validate"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cosec"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0) | Some(141)),
            "{args:?}: {:?}\n{stderr}",
            out.status
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `cosec` with a PATH holding no `bwrap` (nor npm, pip or Node).
fn without_bubblewrap(args: &[&str], cache: &std::path::Path) -> std::process::Output {
    let empty = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .args(["--dir", cache.to_str().unwrap()])
        .env("PATH", empty.path())
        .output()
        .unwrap()
}

#[test]
fn install_and_list_say_that_bubblewrap_is_missing() {
    let cache = tempfile::tempdir().unwrap();
    let install = without_bubblewrap(&["harness", "install", "codex"], cache.path());
    let stderr = String::from_utf8_lossy(&install.stderr);
    let warning = stderr
        .find("bubblewrap, which is missing")
        .unwrap_or_else(|| panic!("no bubblewrap warning:\n{stderr}"));
    // Said before anything is installed, so before the missing npm stops the install.
    let npm = stderr.find("npm").unwrap_or(usize::MAX);
    assert!(warning < npm, "{stderr}");
    assert!(stderr.contains("apt-get install bubblewrap"), "{stderr}");

    let list = without_bubblewrap(&["harness", "list"], cache.path());
    assert!(list.status.success());
    let stdout = String::from_utf8_lossy(&list.stdout);
    assert!(
        stdout.contains("sandbox: the native harnesses run inside bubblewrap, which is missing"),
        "{stdout}"
    );
}
