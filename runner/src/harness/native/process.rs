//! Running one program of a harness inside a trial's sandbox with a deadline.

use crate::sandbox::{Job, Sandbox, SandboxSpec};
use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

pub use crate::sandbox::Finished;

/// Runs `program args` of the harness `harness` inside `sandbox`, killed whole when
/// `deadline` passes. Stdin gets `input` and then end of file, or is closed at once:
/// the native harnesses wait on an open stdin. The error says why the run could not
/// start.
pub async fn run(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    harness: &str,
    program: &Path,
    args: &[OsString],
    input: Option<String>,
    deadline: Duration,
) -> Result<Finished, String> {
    let job = Job {
        spec,
        program,
        args,
        input: input.as_deref(),
        deadline,
    };
    sandbox.run(job).await.map_err(|e| {
        format!(
            "cannot run {harness} in the {} sandbox: {e}",
            sandbox.name()
        )
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::sandbox::Bubblewrap;

    fn bwrap() -> Bubblewrap {
        Bubblewrap::locate().expect("bubblewrap is required: apt-get install bubblewrap")
    }

    /// Runs `sh -c script` in a sandbox holding only a temporary folder.
    async fn sh(
        sandbox: &dyn Sandbox,
        script: &str,
        input: Option<&str>,
        deadline: Duration,
    ) -> Finished {
        let dir = tempfile::tempdir().unwrap();
        let spec = SandboxSpec {
            writable: vec![dir.path().to_owned()],
            readonly: Vec::new(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            workdir: dir.path().to_owned(),
            loopback: Vec::new(),
        };
        let args = ["-c", script].map(OsString::from);
        let input = input.map(str::to_owned);
        let sh = Path::new("/bin/sh");
        run(sandbox, &spec, "sh", sh, &args, input, deadline)
            .await
            .unwrap()
    }

    async fn a_hung_run_is_killed_with_what_it_wrote(sandbox: &dyn Sandbox) {
        let started = std::time::Instant::now();
        let script = "echo started >&2; sleep 30 & sleep 30";
        let done = sh(sandbox, script, None, Duration::from_millis(3000)).await;
        assert!(started.elapsed() < Duration::from_secs(20));
        assert!(done.status.is_none(), "expected a timeout, got {done:?}");
        assert!(done.stderr.contains("started"), "{}", done.stderr);
    }

    async fn input_reaches_stdin_and_then_ends(sandbox: &dyn Sandbox) {
        let script = "cat; echo done; exit 3";
        let done = sh(sandbox, script, Some("hello\n"), Duration::from_secs(30)).await;
        assert_eq!(done.status.and_then(|s| s.code()), Some(3), "{done:?}");
        assert_eq!(done.stdout, "hello\ndone\n");
    }

    #[tokio::test]
    #[ignore = "tier harnesses: needs bubblewrap"]
    async fn a_hung_run_in_bubblewrap_is_killed_with_what_it_wrote() {
        a_hung_run_is_killed_with_what_it_wrote(&bwrap()).await;
    }

    #[tokio::test]
    #[ignore = "tier harnesses: needs bubblewrap"]
    async fn input_reaches_stdin_in_bubblewrap() {
        input_reaches_stdin_and_then_ends(&bwrap()).await;
    }
}
