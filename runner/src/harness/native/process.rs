//! Running one program inside a trial's sandbox with a deadline.

use crate::sandbox::{Sandbox, SandboxSpec};
use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// How a sandboxed run ended.
#[derive(Debug)]
pub struct Finished {
    /// Exit status, or `None` if the run passed its deadline and was killed.
    pub status: Option<ExitStatus>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

/// Runs `program args` of the harness `harness` inside `sandbox`, in a process group of
/// its own that is killed whole when `deadline` passes. Stdin gets `input` and then end
/// of file, or is closed at once: the native harnesses wait on an open stdin. The error
/// says why the run could not start.
pub async fn run(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    harness: &str,
    program: &Path,
    args: &[OsString],
    input: Option<String>,
    deadline: Duration,
) -> Result<Finished, String> {
    let mut cmd = sandbox
        .command(spec, program, args)
        .map_err(|e| format!("{harness} sandbox: {e}"))?;
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .kill_on_drop(true)
    .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {harness} in the sandbox: {e}"))?;
    if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
        tokio::spawn(async move {
            // A failed write shows up as the harness failing the turn, with its stderr.
            let _ = stdin.write_all(input.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let status = match tokio::time::timeout(deadline, child.wait()).await {
        Ok(Ok(status)) => Some(status),
        Ok(Err(e)) => return Err(format!("waiting for {harness}: {e}")),
        Err(_) => {
            kill_group(&mut child).await;
            None
        }
    };
    Ok(Finished {
        status,
        stdout: collect(stdout).await,
        stderr: collect(stderr).await,
    })
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
    // Grandchildren that escaped the kill could hold a pipe open: bound the wait.
    match tokio::time::timeout(Duration::from_secs(5), handle).await {
        Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => String::new(),
    }
}

/// Kills the process group of a timed-out run (bubblewrap's PID namespace then takes
/// every process inside with it) and reaps the child.
async fn kill_group(child: &mut tokio::process::Child) {
    if let Some(pid) = child.id() {
        let _ = tokio::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    let _ = child.kill().await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::sandbox::Bubblewrap;

    /// Runs `sh -c script` in a sandbox holding only a temporary folder.
    async fn sh(script: &str, input: Option<&str>, deadline: Duration) -> Finished {
        let bwrap =
            Bubblewrap::locate().expect("bubblewrap is required: apt-get install bubblewrap");
        let dir = tempfile::tempdir().unwrap();
        let spec = SandboxSpec {
            writable: vec![dir.path().to_owned()],
            readonly: Vec::new(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            workdir: dir.path().to_owned(),
        };
        let args = ["-c", script].map(OsString::from);
        let input = input.map(str::to_owned);
        let sh = Path::new("/bin/sh");
        run(&bwrap, &spec, "sh", sh, &args, input, deadline)
            .await
            .unwrap()
    }

    #[tokio::test]
    #[ignore = "tier harnesses: needs bubblewrap"]
    async fn a_hung_run_is_killed_with_what_it_wrote() {
        let started = std::time::Instant::now();
        let script = "echo started >&2; sleep 30 & sleep 30";
        let done = sh(script, None, Duration::from_millis(1500)).await;
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(done.status.is_none(), "expected a timeout, got {done:?}");
        assert!(done.stderr.contains("started"), "{}", done.stderr);
    }

    #[tokio::test]
    #[ignore = "tier harnesses: needs bubblewrap"]
    async fn input_reaches_stdin_and_then_ends() {
        let done = sh("cat; echo done", Some("hello\n"), Duration::from_secs(10)).await;
        assert!(done.status.is_some_and(|s| s.success()), "{done:?}");
        assert_eq!(done.stdout, "hello\ndone\n");
    }
}
