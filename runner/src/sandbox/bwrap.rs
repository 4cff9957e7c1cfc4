//! The bubblewrap backend: new mount, PID, IPC, UTS and user namespaces with the host
//! network kept (the proxy listens on the host's loopback), the system mounted
//! read-only, a private `/tmp`, and only the spec's folders bound in. The process runs
//! in a process group of its own that is killed whole at the deadline (bubblewrap's PID
//! namespace then takes every process inside with it).

use super::{Finished, Job, Sandbox, SandboxError, SandboxSpec};
use async_trait::async_trait;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// System folders mounted read-only when present (`/bin`, `/lib`... are often symlinks
/// into `/usr` and are recreated as such).
const SYSTEM_DIRS: &[&str] = &["/usr", "/etc", "/opt"];

/// Top-level names that are symlinks into `/usr` on merged-/usr systems.
const USR_LINKS: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// bubblewrap (`bwrap`, Debian package `bubblewrap`).
#[derive(Debug, Clone)]
pub struct Bubblewrap {
    binary: PathBuf,
}

impl Bubblewrap {
    /// Finds `bwrap` on the PATH.
    pub fn locate() -> Result<Self, SandboxError> {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("bwrap"))
                .find(|candidate| candidate.is_file())
        });
        found
            .map(|binary| Bubblewrap { binary })
            .ok_or(SandboxError::Missing {
                tool: "bwrap",
                hint: "apt-get install bubblewrap",
            })
    }

    /// The full argument list for `bwrap` (exposed for tests and for `--dry-run` output).
    pub fn args(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
    ) -> Result<Vec<OsString>, SandboxError> {
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
        push(&[
            "--unshare-all",
            "--share-net",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]);
        for dir in SYSTEM_DIRS {
            if Path::new(dir).exists() {
                push(&["--ro-bind", dir, dir]);
            }
        }
        for name in USR_LINKS {
            let top = Path::new("/").join(name);
            match std::fs::read_link(&top) {
                Ok(target) => {
                    let target = target.to_string_lossy().into_owned();
                    push(&["--symlink", &target, &top.to_string_lossy()]);
                }
                Err(_) if top.is_dir() => {
                    let t = top.to_string_lossy().into_owned();
                    push(&["--ro-bind", &t, &t]);
                }
                Err(_) => {}
            }
        }
        push(&["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]);
        for path in &spec.readonly {
            if !path.exists() {
                return Err(SandboxError::NoSuchPath(path.clone()));
            }
            a.extend([OsString::from("--ro-bind"), path.into(), path.into()]);
        }
        for path in &spec.writable {
            if !path.exists() {
                return Err(SandboxError::NoSuchPath(path.clone()));
            }
            a.extend([OsString::from("--bind"), path.into(), path.into()]);
        }
        for (key, value) in &spec.env {
            a.extend([OsString::from("--setenv"), key.into(), value.into()]);
        }
        a.extend([OsString::from("--chdir"), spec.workdir.clone().into()]);
        a.push(OsString::from("--"));
        a.push(program.into());
        a.extend(args.iter().cloned());
        Ok(a)
    }
}

impl Bubblewrap {
    /// A command that runs `program args` inside the sandbox `spec`.
    pub fn command(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
    ) -> Result<tokio::process::Command, SandboxError> {
        let mut cmd = tokio::process::Command::new(&self.binary);
        cmd.args(self.args(spec, program, args)?);
        cmd.env_clear();
        Ok(cmd)
    }
}

#[async_trait]
impl Sandbox for Bubblewrap {
    fn name(&self) -> &'static str {
        "bubblewrap"
    }

    async fn run(&self, job: Job<'_>) -> Result<Finished, SandboxError> {
        let mut cmd = self.command(job.spec, job.program, job.args)?;
        cmd.stdin(if job.input.is_some() {
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
            .map_err(|e| SandboxError::Start(format!("cannot start bwrap: {e}")))?;
        if let (Some(mut stdin), Some(input)) = (child.stdin.take(), job.input) {
            let input = input.to_owned();
            tokio::spawn(async move {
                // A failed write shows up as the program failing, with its stderr.
                let _ = stdin.write_all(input.as_bytes()).await;
                let _ = stdin.shutdown().await;
            });
        }
        let stdout = reader(child.stdout.take());
        let stderr = reader(child.stderr.take());
        let status = match tokio::time::timeout(job.deadline, child.wait()).await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(e)) => return Err(SandboxError::Start(format!("waiting for bwrap: {e}"))),
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

/// Kills the process group of a timed-out run and reaps the child.
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
    use super::*;

    fn spec(agent: &Path) -> SandboxSpec {
        SandboxSpec {
            writable: vec![agent.to_owned()],
            readonly: Vec::new(),
            env: vec![("HOME".into(), agent.display().to_string())],
            workdir: agent.to_owned(),
            loopback: Vec::new(),
        }
    }

    #[tokio::test]
    #[ignore = "tier harnesses: needs bubblewrap"]
    async fn a_shell_inside_sees_the_agent_half_and_nothing_hidden() {
        let Ok(bwrap) = Bubblewrap::locate() else {
            panic!("bubblewrap is required for the sandbox tests: apt-get install bubblewrap");
        };
        let trial = tempfile::tempdir().unwrap();
        let agent = trial.path().join("agent");
        let hidden = trial.path().join("hidden");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(&hidden).unwrap();
        std::fs::write(agent.join("note.md"), "visible").unwrap();
        std::fs::write(hidden.join("trace.jsonl"), "oracle facts").unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar");
        let script = format!(
            "cat note.md; echo; cat {} && echo HIDDEN-READ; cat {} && echo REPO-READ; ls /root && echo HOME-READ; echo written > out.txt",
            hidden.join("trace.jsonl").display(),
            repo.display()
        );
        let out = bwrap
            .command(
                &spec(&agent),
                Path::new("/bin/sh"),
                &["-c".into(), script.into()],
            )
            .unwrap()
            .output()
            .await
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("visible"), "{stdout}");
        assert!(
            !stdout.contains("HIDDEN-READ") && !stdout.contains("oracle facts"),
            "{stdout}"
        );
        assert!(!stdout.contains("REPO-READ"), "{stdout}");
        assert!(!stdout.contains("HOME-READ"), "{stdout}");
        assert_eq!(
            std::fs::read_to_string(agent.join("out.txt")).unwrap(),
            "written\n"
        );
    }

    #[test]
    fn missing_mounts_are_refused() {
        let bwrap = Bubblewrap {
            binary: PathBuf::from("/usr/bin/bwrap"),
        };
        let mut s = spec(Path::new("/tmp"));
        s.readonly.push(PathBuf::from("/no/such/folder"));
        let err = bwrap.args(&s, Path::new("/bin/true"), &[]).unwrap_err();
        assert!(err.to_string().contains("/no/such/folder"));
    }
}
