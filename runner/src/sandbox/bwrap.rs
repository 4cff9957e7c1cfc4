//! The bubblewrap backend: new user, mount, PID, IPC, UTS and network namespaces; the
//! program runs as an unprivileged user ([`SANDBOX_UID`]) that the user namespace maps
//! to the caller, so it may write the spec's writable folders and nothing the caller's
//! capabilities would otherwise open. `/usr` is mounted read-only, of `/etc` only the
//! few files a runtime needs ([`ETC_ENTRIES`]), a private `/tmp`, and the spec's folders.
//! The network namespace has only its own loopback: each loopback listener of the spec
//! (the model proxy) is relayed through a unix socket that `cosec-shim launch` serves
//! again on the same address inside. The process runs in a process group of its own
//! that is killed whole at the deadline (bubblewrap's PID namespace then takes every
//! process inside with it), and the kill returns once they have all stopped.

use super::live::{Ending, Live, StderrLog, END_GRACE};
use super::loopback::Relays;
use super::reap;
use super::{Finished, Job, Sandbox, SandboxError, SandboxSpec, SANDBOX_UID};
use async_trait::async_trait;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// What of `/etc` is mounted (read-only, each only if present): name resolution, users
/// and groups (world-readable, no hashes), the time zone, the dynamic linker's cache,
/// the Debian alternatives `/usr/bin` links into, and the public CA certificates.
/// Never `shadow`, `gshadow`, `sudoers`, `ssh/` or `ssl/private/`: the sandbox user
/// maps to the caller, who may own them.
pub const ETC_ENTRIES: &[&str] = &[
    "resolv.conf",
    "hosts",
    "host.conf",
    "nsswitch.conf",
    "gai.conf",
    "services",
    "protocols",
    "passwd",
    "group",
    "localtime",
    "timezone",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl/certs",
    "ssl/openssl.cnf",
    "ca-certificates",
    "ca-certificates.conf",
    "mime.types",
    "os-release",
];

/// Top-level names that are symlinks into `/usr` on merged-/usr systems.
const USR_LINKS: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// bubblewrap (`bwrap`, Debian package `bubblewrap`).
#[derive(Debug, Clone)]
pub struct Bubblewrap {
    binary: PathBuf,
    relay: Option<PathBuf>,
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
            .map(|binary| Bubblewrap {
                binary,
                relay: None,
            })
            .ok_or(SandboxError::Missing {
                tool: "bwrap",
                hint: "apt-get install bubblewrap",
            })
    }

    /// The same sandbox, with `relay` (`cosec-shim`) serving the spec's loopback
    /// listeners inside; without one, a spec with loopback listeners is refused.
    pub fn with_relay(self, relay: &Path) -> Self {
        Bubblewrap {
            relay: Some(relay.to_owned()),
            ..self
        }
    }

    /// The full argument list for `bwrap`, with `relays` (the spec's loopback relays,
    /// see [`Relays`]) mounted and served inside.
    fn args(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
        relays: &Relays,
    ) -> Result<Vec<OsString>, SandboxError> {
        let uid = SANDBOX_UID.to_string();
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |items: &[&str]| a.extend(items.iter().map(OsString::from));
        push(&[
            "--unshare-all",
            "--unshare-user",
            "--uid",
            &uid,
            "--gid",
            &uid,
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]);
        push(&["--ro-bind", "/usr", "/usr"]);
        for name in ETC_ENTRIES {
            let path = Path::new("/etc").join(name);
            if path.exists() {
                let path = path.to_string_lossy().into_owned();
                push(&["--ro-bind", &path, &path]);
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
        let mounts = relays.mounts();
        let mut launch: Vec<OsString> = Vec::new();
        if !mounts.is_empty() {
            let relay = self.relay.as_ref().ok_or_else(|| {
                SandboxError::Start(
                    "bubblewrap has no relay (cosec-shim) to serve the model proxy's loopback \
                     address inside"
                        .to_owned(),
                )
            })?;
            if !relay.exists() {
                return Err(SandboxError::NoSuchPath(relay.clone()));
            }
            if !spec.readonly.contains(relay) {
                a.extend([OsString::from("--ro-bind"), relay.into(), relay.into()]);
            }
            launch.extend([relay.into(), OsString::from("launch")]);
            for (socket, inside, arg) in mounts {
                a.extend([OsString::from("--ro-bind"), socket.into(), inside.into()]);
                launch.extend(arg.map(OsString::from));
            }
            launch.push(OsString::from("--"));
        }
        for (key, value) in &spec.env {
            a.extend([OsString::from("--setenv"), key.into(), value.into()]);
        }
        a.extend([OsString::from("--chdir"), spec.workdir.clone().into()]);
        a.push(OsString::from("--"));
        a.extend(launch);
        a.push(program.into());
        a.extend(args.iter().cloned());
        Ok(a)
    }

    /// A command that runs `program args` inside the sandbox `spec`, with `relays`.
    fn command(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
        relays: &Relays,
    ) -> Result<tokio::process::Command, SandboxError> {
        let mut cmd = tokio::process::Command::new(&self.binary);
        cmd.args(self.args(spec, program, args, relays)?);
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
        // Lives until the run ends: the relays stop and their folder goes with it.
        let relays = Relays::open(&job.spec.loopback)?;
        let mut cmd = self.command(job.spec, job.program, job.args, &relays)?;
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

    async fn spawn(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
    ) -> Result<Live, SandboxError> {
        // Lives as long as the process: the relays stop when it ends.
        let relays = Relays::open(&spec.loopback)?;
        let mut cmd = self.command(spec, program, args, &relays)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| SandboxError::Start(format!("cannot start bwrap: {e}")))?;
        let (Some(stdin), Some(stdout), Some(err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SandboxError::Start(
                "bwrap started without its pipes".to_owned(),
            ));
        };
        let stderr = StderrLog::default();
        stderr.follow(err);
        let ending = BwrapEnding {
            child,
            _relays: relays,
        };
        Ok(Live::new(
            Box::new(stdin),
            Box::new(stdout),
            stderr,
            Box::new(ending),
        ))
    }
}

/// A live bubblewrap process and the relays it reaches the proxy through.
struct BwrapEnding {
    child: tokio::process::Child,
    _relays: Relays,
}

#[async_trait]
impl Ending for BwrapEnding {
    async fn end(mut self: Box<Self>) {
        let exited = tokio::time::timeout(END_GRACE, self.child.wait()).await;
        if !matches!(exited, Ok(Ok(_))) {
            kill_group(&mut self.child).await;
        }
    }
}

impl Drop for BwrapEnding {
    /// A process dropped without [`Ending::end`] (a cancelled trial) is killed whole:
    /// its group now, and bubblewrap itself by `kill_on_drop`, which takes the PID
    /// namespace with it.
    fn drop(&mut self) {
        if let (Some(pid), Ok(None)) = (self.child.id(), self.child.try_wait()) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
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

/// Kills bubblewrap's process group and waits until every process of the sandbox has
/// stopped, so nothing inside still writes when the caller goes on.
async fn kill_group(child: &mut tokio::process::Child) {
    let inside = child.id().map(reap::tree).unwrap_or_default();
    if let Some(pid) = child.id() {
        let _ = tokio::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    let _ = child.kill().await;
    if !reap::wait_stopped(&inside, reap::REAP_LIMIT).await {
        tracing::warn!(
            processes = inside.len(),
            "bubblewrap: processes of a killed sandbox still run after {} s",
            reap::REAP_LIMIT.as_secs()
        );
    }
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
        let none = Relays::open(&[]).unwrap();
        let out = bwrap
            .command(
                &spec(&agent),
                Path::new("/bin/sh"),
                &["-c".into(), script.into()],
                &none,
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
            relay: None,
        };
        let none = Relays::open(&[]).unwrap();
        let mut s = spec(Path::new("/tmp"));
        s.readonly.push(PathBuf::from("/no/such/folder"));
        let err = bwrap
            .args(&s, Path::new("/bin/true"), &[], &none)
            .unwrap_err();
        assert!(err.to_string().contains("/no/such/folder"));
    }

    #[tokio::test]
    async fn no_secret_of_etc_is_mounted_and_the_network_is_private() {
        let bwrap = Bubblewrap {
            binary: PathBuf::from("/usr/bin/bwrap"),
            relay: None,
        };
        let none = Relays::open(&[]).unwrap();
        let args = bwrap
            .args(&spec(Path::new("/tmp")), Path::new("/bin/true"), &[], &none)
            .unwrap();
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        for secret in [
            "shadow",
            "gshadow",
            "sudoers",
            "/etc/ssh",
            "ssl/private",
            "/opt",
        ] {
            assert!(
                !args.iter().any(|a| a.contains(secret)),
                "{secret} is mounted: {args:?}"
            );
        }
        assert!(!args.iter().any(|a| a == "/etc"), "{args:?}");
        assert!(!args.iter().any(|a| a == "--share-net"), "{args:?}");
        let uid = SANDBOX_UID.to_string();
        assert!(args.windows(2).any(|w| w[0] == "--uid" && w[1] == uid));
    }

    #[tokio::test]
    async fn a_loopback_listener_needs_the_relay() {
        let bwrap = Bubblewrap {
            binary: PathBuf::from("/usr/bin/bwrap"),
            relay: None,
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relays = Relays::open(&[listener.local_addr().unwrap()]).unwrap();
        let err = bwrap
            .args(
                &spec(Path::new("/tmp")),
                Path::new("/bin/true"),
                &[],
                &relays,
            )
            .unwrap_err();
        assert!(err.to_string().contains("cosec-shim"), "{err}");
    }
}
