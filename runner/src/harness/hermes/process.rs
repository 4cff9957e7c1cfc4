//! Running one sandboxed Hermes command with a deadline.

use crate::sandbox::{Sandbox, SandboxSpec};
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};

/// What a finished command left.
#[derive(Debug)]
pub struct Finished {
    /// Exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

/// Why a command did not finish.
#[derive(Debug)]
pub enum Failure {
    /// It could not be started.
    Spawn(String),
    /// It ran past the deadline and was killed (with what it had written).
    Timeout {
        /// Standard error so far.
        stderr: String,
    },
}

fn reader<R: AsyncRead + Unpin + Send + 'static>(
    stream: Option<R>,
) -> tokio::task::JoinHandle<Vec<u8>> {
    tokio::spawn(async move {
        let mut buf = Vec::new();
        if let Some(mut s) = stream {
            let _ = s.read_to_end(&mut buf).await;
        }
        buf
    })
}

async fn collect(handle: tokio::task::JoinHandle<Vec<u8>>) -> String {
    // After a kill the pipes close with the sandbox's PID namespace; do not hang if not.
    match tokio::time::timeout(Duration::from_secs(5), handle).await {
        Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => String::new(),
    }
}

/// Runs `program args` inside `sandbox` with stdin closed (Hermes reads it otherwise),
/// in a process group of its own that is killed whole when `deadline` passes.
pub async fn run(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    program: &Path,
    args: &[OsString],
    deadline: Duration,
) -> Result<Finished, Failure> {
    let mut cmd = sandbox
        .command(spec, program, args)
        .map_err(|e| Failure::Spawn(e.to_string()))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| Failure::Spawn(format!("cannot start {}: {e}", program.display())))?;
    let out = reader(child.stdout.take());
    let err = reader(child.stderr.take());
    match tokio::time::timeout(deadline, child.wait()).await {
        Ok(Ok(status)) => Ok(Finished {
            code: status.code(),
            stdout: collect(out).await,
            stderr: collect(err).await,
        }),
        Ok(Err(e)) => Err(Failure::Spawn(format!(
            "waiting for {}: {e}",
            program.display()
        ))),
        Err(_) => {
            if let Some(pid) = child.id() {
                // The whole group: bubblewrap and anything that escaped its PID namespace.
                let _ = tokio::process::Command::new("kill")
                    .args(["-KILL", "--", &format!("-{pid}")])
                    .status()
                    .await;
            }
            let _ = child.kill().await;
            Err(Failure::Timeout {
                stderr: collect(err).await,
            })
        }
    }
}
