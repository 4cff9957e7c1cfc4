//! One confined run as one container: created from the run image with the spec's mounts
//! and limits, run as an unprivileged user, attached before it starts (no output is
//! lost), fed its stdin, waited for up to the deadline (then killed), and removed in
//! every case: after the run, after an error, and when the run's future is dropped.

use super::lease::{Lease, SANDBOX_USER};
use super::{api, Docker, CONTAINER_LABEL};
use crate::sandbox::loopback::Relays;
use crate::sandbox::{Finished, Job, SandboxError};
use bollard::container::LogOutput;
use bollard::models::{ContainerCreateBody, HostConfig, Mount, MountType};
use bollard::query_parameters::WaitContainerOptions;
use bollard::query_parameters::{AttachContainerOptions, CreateContainerOptions};
use bollard::query_parameters::{KillContainerOptions, RemoveContainerOptions};
use futures_util::StreamExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// How long output may still arrive after the container stopped.
const DRAIN: Duration = Duration::from_secs(5);

/// Runs `job` in a fresh container of `docker` and removes it.
pub(super) async fn run(docker: &Docker, job: Job<'_>) -> Result<Finished, SandboxError> {
    let relays = Relays::open(&job.spec.loopback)?;
    let run_as = run_as(job.spec, &relays)?;
    let lease = match run_as.lent {
        Some(paths) => Some(blocking(move || Lease::lend(&paths, SANDBOX_USER)).await?),
        None => None,
    };
    let body = create_body(
        docker,
        job.spec,
        (job.program, job.args),
        &relays,
        run_as.user,
        job.input.is_some(),
    )?;
    let created = docker
        .client
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .map_err(api("cannot create the sandbox container"))?;
    let removal = Removal {
        client: docker.client.clone(),
        id: Some(created.id.clone()),
    };
    let result = drive(&docker.client, &created.id, &job).await;
    removal.now().await;
    if let Some(lease) = lease {
        blocking(move || lease.give_back()).await?;
    }
    drop(relays);
    result
}

/// Who a container runs as.
pub(super) struct RunAs {
    /// Its uid and gid.
    pub(super) user: (u32, u32),
    /// What is lent to that user for the run (`None`: it owns its halves already).
    pub(super) lent: Option<Vec<PathBuf>>,
}

/// Who the container runs as: the owner of the agent half when that is not root (the
/// runner's own user, as with bubblewrap), nothing lent; otherwise [`SANDBOX_USER`],
/// lent the writable trees and the sockets it connects to (the shim's and the relays').
pub(super) fn run_as(
    spec: &crate::sandbox::SandboxSpec,
    relays: &Relays,
) -> Result<RunAs, SandboxError> {
    let owner = match spec.writable.first() {
        Some(path) => {
            let meta =
                std::fs::metadata(path).map_err(|_| SandboxError::NoSuchPath(path.clone()))?;
            (meta.uid(), meta.gid())
        }
        None => (0, 0),
    };
    if owner.0 != 0 {
        return Ok(RunAs {
            user: owner,
            lent: None,
        });
    }
    let mut lent = spec.writable.clone();
    for path in &spec.readonly {
        if std::fs::metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
            lent.push(path.clone());
        }
    }
    lent.extend(relays.mounts().into_iter().map(|(socket, _, _)| socket));
    Ok(RunAs {
        user: SANDBOX_USER,
        lent: Some(lent),
    })
}

/// Runs the file walk `work` off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, SandboxError> + Send + 'static,
) -> Result<T, SandboxError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| SandboxError::Start(format!("the sandbox's file walk failed: {e}")))?
}

/// The container running `program args` confined to `spec`: the run image,
/// `cosec-shim launch` serving the loopback relays in front of the program, the spec's
/// variables and working folder, `user`, the mounts and limits of the module docs, and
/// an attachable stdin when `stdin` (closed when the one attached client closes it).
pub(super) fn create_body(
    docker: &Docker,
    spec: &crate::sandbox::SandboxSpec,
    (program, args): (&Path, &[std::ffi::OsString]),
    relays: &Relays,
    user: (u32, u32),
    stdin: bool,
) -> Result<ContainerCreateBody, SandboxError> {
    let mut mounts = Vec::new();
    for path in &spec.writable {
        mounts.push(bind(path, &path.to_string_lossy(), false)?);
    }
    for path in &spec.readonly {
        let meta = std::fs::metadata(path).map_err(|_| SandboxError::NoSuchPath(path.clone()))?;
        if meta.file_type().is_socket() {
            mounts.push(bind(path, &path.to_string_lossy(), true)?);
        } else if path != &docker.relay && !docker.in_image(path) {
            return Err(SandboxError::Docker(format!(
                "{} is not in the sandbox image {}; rebuild it with `cosec sandbox image build` \
                 after `cosec harness install`",
                path.display(),
                docker.config.image
            )));
        }
    }
    let mut cmd = vec![
        docker.relay.to_string_lossy().into_owned(),
        "launch".to_owned(),
    ];
    for (socket, inside, arg) in relays.mounts() {
        mounts.push(bind(&socket, &inside, true)?);
        cmd.extend(arg);
    }
    cmd.push("--".to_owned());
    cmd.push(program.to_string_lossy().into_owned());
    cmd.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
    let host = HostConfig {
        mounts: Some(mounts),
        network_mode: Some("none".to_owned()),
        memory: Some(docker.config.memory_bytes),
        memory_swap: Some(docker.config.memory_bytes),
        nano_cpus: Some((docker.config.cpus * 1e9) as i64),
        pids_limit: Some(docker.config.pids),
        readonly_rootfs: Some(true),
        tmpfs: Some([("/tmp".to_owned(), "rw,nosuid,nodev,size=1g".to_owned())].into()),
        cap_drop: Some(vec!["ALL".to_owned()]),
        security_opt: Some(vec!["no-new-privileges".to_owned()]),
        init: Some(true),
        ..Default::default()
    };
    Ok(ContainerCreateBody {
        image: Some(docker.run_image.clone()),
        entrypoint: Some(Vec::new()),
        cmd: Some(cmd),
        env: Some(spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect()),
        working_dir: Some(spec.workdir.to_string_lossy().into_owned()),
        user: Some(format!("{}:{}", user.0, user.1)),
        attach_stdin: Some(stdin),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        open_stdin: Some(stdin),
        stdin_once: Some(stdin),
        tty: Some(false),
        network_disabled: Some(true),
        labels: Some([(CONTAINER_LABEL.to_owned(), "run".to_owned())].into()),
        host_config: Some(host),
        ..Default::default()
    })
}

/// A bind mount of the existing host `path` at `target`.
fn bind(path: &Path, target: &str, read_only: bool) -> Result<Mount, SandboxError> {
    if !path.exists() {
        return Err(SandboxError::NoSuchPath(path.to_owned()));
    }
    Ok(Mount {
        source: Some(path.to_string_lossy().into_owned()),
        target: Some(target.to_owned()),
        typ: Some(MountType::BIND),
        read_only: Some(read_only),
        ..Default::default()
    })
}

/// Attaches, starts, feeds stdin and waits for the container `id` up to the deadline.
async fn drive(
    client: &bollard::Docker,
    id: &str,
    job: &Job<'_>,
) -> Result<Finished, SandboxError> {
    let options = AttachContainerOptions {
        stream: true,
        stdin: job.input.is_some(),
        stdout: true,
        stderr: true,
        ..Default::default()
    };
    let attached = client
        .attach_container(id, Some(options))
        .await
        .map_err(api("cannot attach to the sandbox container"))?;
    client
        .start_container(id, None)
        .await
        .map_err(api("cannot start the sandbox container"))?;
    let mut input = attached.input;
    if let Some(text) = job.input {
        let text = text.to_owned();
        tokio::spawn(async move {
            // A failed write shows up as the program failing, with its stderr.
            let _ = input.write_all(text.as_bytes()).await;
            let _ = input.shutdown().await;
        });
    }
    let output = tokio::spawn(collect(attached.output));
    let status = match tokio::time::timeout(job.deadline, wait(client, id)).await {
        Ok(code) => Some(exit_status(code?)),
        Err(_) => {
            let kill = KillContainerOptions {
                signal: "KILL".to_owned(),
            };
            // It may have stopped on its own meanwhile; removal follows either way.
            let _ = client.kill_container(id, Some(kill)).await;
            None
        }
    };
    let (stdout, stderr) = match tokio::time::timeout(DRAIN, output).await {
        Ok(Ok(streams)) => streams,
        _ => (Vec::new(), Vec::new()),
    };
    Ok(Finished {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    })
}

/// The exit code of the container `id` once it stops.
async fn wait(client: &bollard::Docker, id: &str) -> Result<i64, SandboxError> {
    let options = WaitContainerOptions {
        condition: "not-running".to_owned(),
    };
    let mut waiting = client.wait_container(id, Some(options));
    match waiting.next().await {
        Some(Ok(answer)) => Ok(answer.status_code),
        Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. })) => Ok(code),
        Some(Err(e)) => Err(SandboxError::Docker(format!(
            "waiting for the sandbox container: {e}"
        ))),
        None => Err(SandboxError::Docker(
            "the daemon ended the wait without an exit code".to_owned(),
        )),
    }
}

/// A container exit code as a process exit status (`code()` gives it back).
fn exit_status(code: i64) -> ExitStatus {
    ExitStatus::from_raw(((code & 0xff) as i32) << 8)
}

/// Stdout and stderr of an attached container until it stops.
async fn collect(
    mut output: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>,
    >,
) -> (Vec<u8>, Vec<u8>) {
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    while let Some(Ok(frame)) = output.next().await {
        match frame {
            LogOutput::StdOut { message } | LogOutput::Console { message } => {
                stdout.extend_from_slice(&message)
            }
            LogOutput::StdErr { message } => stderr.extend_from_slice(&message),
            LogOutput::StdIn { .. } => {}
        }
    }
    (stdout, stderr)
}

/// Removes a container: awaited through [`Removal::now`], or in the background when
/// dropped first (a run cancelled by the trial timeout).
pub(super) struct Removal {
    pub(super) client: bollard::Docker,
    pub(super) id: Option<String>,
}

impl Removal {
    /// Removes the container now.
    pub(super) async fn now(mut self) {
        if let Some(id) = self.id.take() {
            remove(&self.client, &id).await;
        }
    }
}

impl Drop for Removal {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let client = self.client.clone();
            runtime.spawn(async move { remove(&client, &id).await });
        }
    }
}

async fn remove(client: &bollard::Docker, id: &str) {
    let options = RemoveContainerOptions {
        force: true,
        v: true,
        ..Default::default()
    };
    // A container that cannot be removed is labelled for `docker ps -a --filter`.
    let _ = client.remove_container(id, Some(options)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_exit_codes_read_back_as_exit_statuses() {
        assert_eq!(exit_status(0).code(), Some(0));
        assert!(exit_status(0).success());
        assert_eq!(exit_status(3).code(), Some(3));
        assert_eq!(exit_status(137).code(), Some(137));
    }
}
