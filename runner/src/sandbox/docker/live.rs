//! A long-lived container: the same container as a one-shot run (image, mounts, limits,
//! user, no network), started with an attached stdin that stays open, its stdout piped
//! to the caller and its stderr kept; killed and removed when it ends or is dropped, and
//! what was lent to the sandbox user given back only after that, so no process of the
//! trial is still running while the trees change owner.

use super::container::{blocking, create_body, run_as, Removal};
use super::lease::{Lease, SANDBOX_USER};
use super::{api, Docker};
use crate::sandbox::live::{Ending, Live, StderrLog, END_GRACE};
use crate::sandbox::loopback::Relays;
use crate::sandbox::{SandboxError, SandboxSpec};
use async_trait::async_trait;
use bollard::container::LogOutput;
use bollard::query_parameters::{AttachContainerOptions, CreateContainerOptions};
use bollard::query_parameters::{KillContainerOptions, WaitContainerOptions};
use futures_util::StreamExt;
use std::ffi::OsString;
use std::path::Path;
use tokio::io::AsyncWriteExt;

/// Bytes of stdout buffered between the container and the caller.
const STDOUT_BUFFER: usize = 1 << 20;

/// Starts `program args` in a fresh container of `docker`, kept running.
pub(super) async fn spawn(
    docker: &Docker,
    spec: &SandboxSpec,
    program: &Path,
    args: &[OsString],
) -> Result<Live, SandboxError> {
    let relays = Relays::open(&spec.loopback)?;
    let run_as = run_as(spec, &relays)?;
    let lease = match run_as.lent {
        Some(paths) => Some(blocking(move || Lease::lend(&paths, SANDBOX_USER)).await?),
        None => None,
    };
    let body = create_body(docker, spec, (program, args), &relays, run_as.user, true)?;
    let created = docker
        .client
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .map_err(api("cannot create the sandbox container"))?;
    let mut ending = ContainerEnding {
        client: docker.client.clone(),
        removal: Some(Removal {
            client: docker.client.clone(),
            id: Some(created.id.clone()),
        }),
        id: created.id.clone(),
        lease,
        _relays: relays,
    };
    let options = AttachContainerOptions {
        stream: true,
        stdin: true,
        stdout: true,
        stderr: true,
        ..Default::default()
    };
    let attached = docker
        .client
        .attach_container(&created.id, Some(options))
        .await
        .map_err(api("cannot attach to the sandbox container"))?;
    if let Err(e) = docker.client.start_container(&created.id, None).await {
        ending.stop().await;
        return Err(SandboxError::Docker(format!(
            "cannot start the sandbox container: {e}"
        )));
    }
    let (to_caller, stdout) = tokio::io::duplex(STDOUT_BUFFER);
    let stderr = StderrLog::default();
    tokio::spawn(demultiplex(attached.output, to_caller, stderr.clone()));
    Ok(Live::new(
        Box::new(attached.input),
        Box::new(stdout),
        stderr,
        Box::new(ending),
    ))
}

/// Copies the container's stdout frames to `stdout` and its stderr frames to `stderr`
/// until the container stops (or the caller stops reading).
async fn demultiplex(
    mut output: std::pin::Pin<
        Box<dyn futures_util::Stream<Item = Result<LogOutput, bollard::errors::Error>> + Send>,
    >,
    mut stdout: tokio::io::DuplexStream,
    stderr: StderrLog,
) {
    while let Some(Ok(frame)) = output.next().await {
        match frame {
            LogOutput::StdOut { message } | LogOutput::Console { message } => {
                if stdout.write_all(&message).await.is_err() {
                    break;
                }
            }
            LogOutput::StdErr { message } => stderr.push(&message),
            LogOutput::StdIn { .. } => {}
        }
    }
    let _ = stdout.shutdown().await;
}

/// A live container, its removal, the lease of the trial's trees and its relays.
struct ContainerEnding {
    client: bollard::Docker,
    removal: Option<Removal>,
    id: String,
    lease: Option<Lease>,
    _relays: Relays,
}

impl ContainerEnding {
    /// Kills and removes the container, then gives the lease back.
    async fn stop(&mut self) {
        let kill = KillContainerOptions {
            signal: "KILL".to_owned(),
        };
        // It may have stopped on its own; removal follows either way.
        let _ = self.client.kill_container(&self.id, Some(kill)).await;
        if let Some(removal) = self.removal.take() {
            removal.now().await;
        }
        if let Some(lease) = self.lease.take() {
            let _ = blocking(move || lease.give_back()).await;
        }
    }
}

#[async_trait]
impl Ending for ContainerEnding {
    async fn end(mut self: Box<Self>) {
        let options = WaitContainerOptions {
            condition: "not-running".to_owned(),
        };
        let mut waiting = self.client.wait_container(&self.id, Some(options));
        let _ = tokio::time::timeout(END_GRACE, waiting.next()).await;
        drop(waiting);
        self.stop().await;
    }
}

impl Drop for ContainerEnding {
    /// A container dropped without [`Ending::end`] is removed in the background
    /// ([`Removal`]'s own drop); the lease is given back by its drop, after the kill
    /// was asked for.
    fn drop(&mut self) {
        if self.removal.is_some() {
            let client = self.client.clone();
            let id = self.id.clone();
            let removal = self.removal.take();
            let lease = self.lease.take();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let kill = KillContainerOptions {
                        signal: "KILL".to_owned(),
                    };
                    let _ = client.kill_container(&id, Some(kill)).await;
                    if let Some(removal) = removal {
                        removal.now().await;
                    }
                    drop(lease);
                });
            }
        }
    }
}
