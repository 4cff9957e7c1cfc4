//! The bubblewrap backend: new mount, PID, IPC, UTS and user namespaces with the host
//! network kept (the proxy listens on the host's loopback), the system mounted
//! read-only, a private `/tmp`, and only the spec's folders bound in.

use super::{Sandbox, SandboxError, SandboxSpec};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

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

impl Sandbox for Bubblewrap {
    fn name(&self) -> &'static str {
        "bubblewrap"
    }

    fn command(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(agent: &Path) -> SandboxSpec {
        SandboxSpec {
            writable: vec![agent.to_owned()],
            readonly: Vec::new(),
            env: vec![("HOME".into(), agent.display().to_string())],
            workdir: agent.to_owned(),
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
