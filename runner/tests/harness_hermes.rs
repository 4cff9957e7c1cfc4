//! Hermes Agent's sandbox: a shell started with the adapter's own sandbox spec cannot
//! read a trial's hidden half, the repository or the user's home, while the agent half
//! is readable and writable and Hermes itself runs; and `cosec run --harness hermes`
//! end to end.
//!

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec::harness::hermes::spec as hermes_spec;
use cosec::harness::install::{cache_dir, hermes, Installed};
use cosec::sandbox::{Bubblewrap, Sandbox, SandboxSpec};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

fn installed() -> Installed {
    hermes::detect(&cache_dir()).unwrap_or_else(|| {
        panic!(
            "Hermes Agent {} is not installed in {}: run `cosec harness install hermes` first",
            hermes::VERSION,
            cache_dir().display()
        )
    })
}

fn bwrap() -> Bubblewrap {
    Bubblewrap::locate().expect("bubblewrap is required: apt-get install bubblewrap")
}

/// A temporary trial: agent half, harness home, hidden half and a shim socket in a folder
/// of its own that also holds another file.
struct Trial {
    _dir: tempfile::TempDir,
    agent: PathBuf,
    home: PathBuf,
    hidden: PathBuf,
    socket: PathBuf,
    beside_socket: PathBuf,
    _listener: std::os::unix::net::UnixListener,
}

fn trial() -> Trial {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    let home = dir.path().join("home");
    let hidden = dir.path().join("hidden");
    let run = dir.path().join("run");
    for d in [&agent, &home, &hidden, &run] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(agent.join("note.md"), "visible to the agent").unwrap();
    std::fs::write(hidden.join("trace.jsonl"), "oracle facts").unwrap();
    let socket = run.join("shim.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let beside_socket = run.join("other-trial.txt");
    std::fs::write(&beside_socket, "another trial").unwrap();
    Trial {
        _dir: dir,
        agent,
        home,
        hidden,
        socket,
        beside_socket,
        _listener: listener,
    }
}

fn spec(installed: &Installed, t: &Trial) -> SandboxSpec {
    hermes_spec::sandbox_spec(
        installed,
        Path::new(env!("CARGO_BIN_EXE_cosec-shim")),
        &t.agent,
        &t.home,
        Some(&t.socket),
    )
}

async fn sh(spec: &SandboxSpec, script: &str) -> (String, String) {
    let out = bwrap()
        .command(
            spec,
            Path::new("/bin/sh"),
            &[OsString::from("-c"), OsString::from(script)],
        )
        .unwrap()
        .output()
        .await
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// For every mounted path under the user's home, each folder on the way down must show
/// only the next step inside the sandbox (e.g. `/root` shows `.pyenv` and nothing else).
fn listings_to_check(readonly: &[PathBuf], home: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut checks: Vec<(PathBuf, Vec<String>)> = vec![(home.to_owned(), Vec::new())];
    for path in readonly
        .iter()
        .filter(|p| p.starts_with(home) && p.as_path() != home)
    {
        let mut folder = home.to_owned();
        for part in path.strip_prefix(home).unwrap().components() {
            let name = part.as_os_str().to_string_lossy().into_owned();
            match checks.iter_mut().find(|(f, _)| *f == folder) {
                Some((_, allowed)) => allowed.push(name.clone()),
                None => checks.push((folder.clone(), vec![name.clone()])),
            }
            folder = folder.join(&name);
        }
        // The mounted path itself is meant to be visible.
        checks.retain(|(f, _)| f != path);
    }
    checks
}

#[tokio::test]
async fn the_sandbox_hides_the_hidden_half_the_repository_and_the_home() {
    let installed = installed();
    let t = trial();
    let spec = spec(&installed, &t);
    assert!(spec.writable.contains(&t.agent) && spec.writable.contains(&t.home));
    assert!(!spec
        .readonly
        .iter()
        .chain(&spec.writable)
        .any(|p| p == Path::new("/root")));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap();
    let oracle = repo.join("policies/oracle.cedar");
    assert!(
        oracle.is_file(),
        "the repository file the test tries to read"
    );
    let user_home = PathBuf::from(std::env::var_os("HOME").unwrap())
        .canonicalize()
        .unwrap();
    let checks = listings_to_check(&spec.readonly, &user_home);
    let mut script = format!(
        "cat note.md; echo; cat {hidden} && echo HIDDEN-READ; cat {oracle} && echo REPO-READ; \
         cat {beside} && echo SOCKDIR-READ; ls {repo} && echo REPO-LISTED; \
         echo written > out.txt && echo AGENT-WRITTEN; echo h > \"$HOME/h.txt\" && echo HOME-WRITTEN; \
         touch {install}/escape && echo INSTALL-WRITTEN; ",
        hidden = t.hidden.join("trace.jsonl").display(),
        oracle = oracle.display(),
        beside = t.beside_socket.display(),
        repo = repo.display(),
        install = installed.root.display(),
    );
    for (i, (folder, _)) in checks.iter().enumerate() {
        script.push_str(&format!(
            "echo LIST{i}:$(ls -A {} 2>/dev/null | tr '\\n' ' '); ",
            folder.display()
        ));
    }
    let (stdout, stderr) = sh(&spec, &script).await;
    let context = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stdout.contains("visible to the agent"), "{context}");
    for leak in [
        "HIDDEN-READ",
        "oracle facts",
        "REPO-READ",
        "REPO-LISTED",
        "SOCKDIR-READ",
        "another trial",
        "INSTALL-WRITTEN",
    ] {
        assert!(
            !stdout.contains(leak),
            "`{leak}` inside the sandbox; {context}"
        );
    }
    assert!(
        stdout.contains("AGENT-WRITTEN") && stdout.contains("HOME-WRITTEN"),
        "{context}"
    );
    assert_eq!(
        std::fs::read_to_string(t.agent.join("out.txt")).unwrap(),
        "written\n"
    );
    assert!(
        t.home.join("h.txt").is_file(),
        "HOME is the trial's harness home"
    );
    for (i, (folder, allowed)) in checks.iter().enumerate() {
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix(&format!("LIST{i}:")))
            .unwrap_or_default();
        for name in line.split_whitespace() {
            assert!(
                allowed.iter().any(|a| a == name),
                "{}/{name} is visible inside the sandbox; {context}",
                folder.display()
            );
        }
    }
    // The host's home has more than what is mounted, and none of it shows.
    let host: Vec<String> = std::fs::read_dir(&user_home)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !checks[0].1.contains(n))
        .collect();
    assert!(
        !host.is_empty(),
        "the test needs something in {} to hide",
        user_home.display()
    );
    let inside = stdout
        .lines()
        .find_map(|l| l.strip_prefix("LIST0:"))
        .unwrap_or_default();
    assert!(
        host.iter()
            .all(|n| !inside.split_whitespace().any(|x| x == n)),
        "{context}"
    );
}

#[tokio::test]
async fn hermes_runs_inside_its_sandbox() {
    let installed = installed();
    let t = trial();
    let spec = spec(&installed, &t);
    std::fs::create_dir_all(hermes_spec::hermes_home(&t.home)).unwrap();
    let out = bwrap()
        .command(&spec, &installed.entry, &[OsString::from("--version")])
        .unwrap()
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("Hermes Agent v{}", hermes::VERSION)),
        "{stdout}"
    );
    assert!(
        stdout.contains(&installed.root.display().to_string()),
        "runs from the cache install: {stdout}"
    );
}

fn run_one(extra: &[&str]) -> serde_json::Value {
    let _ = installed();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut args = vec![
        "run",
        "--harness",
        "hermes",
        "--model",
        "sim:ideal",
        "--judge",
        "none",
        "--scenario",
        "st-intra-owner-a1-s1",
    ];
    args.extend_from_slice(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(&args)
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Needs the lead's CLI wiring (`--harness hermes`); fails until it lands.
#[test]
fn a_static_scenario_runs_end_to_end_through_hermes() {
    let s = run_one(&[]);
    assert_eq!(s["trials"]["valid"], 1, "{s}");
}
