//! Sandboxes for native harness processes.
//!
//! A harness process must see only the trial's agent half, its own fresh home, its
//! installed files and the system read-only: never the hidden half of a trial, other
//! trials, the repository or the user's home (Codex runs with `danger-full-access`, so
//! a shell command could otherwise read the oracle). A sandbox owns the whole lifetime
//! of one confined run: it starts the program, feeds its stdin, enforces the deadline,
//! collects its output and tears everything down, so that bubblewrap (a child process)
//! and Docker (a one-shot container driven through the Engine API) fit the same shape.
//! A harness with a long-lived mode runs the same way for a whole trial ([`live`]).

mod bwrap;
pub mod docker;
pub mod live;
mod loopback;
mod reap;

pub use bwrap::Bubblewrap;
pub use docker::{Docker, DockerConfig};
pub use live::Live;

use async_trait::async_trait;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

/// The user and group id a harness runs as inside either sandbox (`nobody:nogroup`;
/// Docker uses the runner's own user instead when that is not root).
pub const SANDBOX_UID: u32 = 65534;

/// What a sandboxed process may see and how it starts.
#[derive(Debug, Clone, Default)]
pub struct SandboxSpec {
    /// Folders mounted read-write at the same path (the agent half, the harness home).
    pub writable: Vec<PathBuf>,
    /// Folders or files mounted read-only at the same path (installed harness, runtimes,
    /// the shim relay binary and its socket).
    pub readonly: Vec<PathBuf>,
    /// The only environment variables the process gets.
    pub env: Vec<(String, String)>,
    /// Working directory (must be inside a mounted folder).
    pub workdir: PathBuf,
    /// Listeners on the host's loopback the process must reach at the same address (the
    /// model proxy). Both backends run it without a network and relay each one through a
    /// mounted unix socket that `cosec-shim launch` serves again inside.
    pub loopback: Vec<SocketAddr>,
}

/// One program to run confined to a [`SandboxSpec`].
#[derive(Debug, Clone, Copy)]
pub struct Job<'a> {
    /// What the process may see.
    pub spec: &'a SandboxSpec,
    /// The program (a path that exists inside the sandbox).
    pub program: &'a Path,
    /// Its arguments.
    pub args: &'a [OsString],
    /// Text written to stdin before end of file; `None` closes stdin at once (the native
    /// harnesses wait on an open stdin).
    pub input: Option<&'a str>,
    /// How long the run may take before everything it started is killed.
    pub deadline: Duration,
}

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

/// Why a sandboxed run could not be prepared, started or cleaned up.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SandboxError {
    /// The sandbox tool is missing.
    #[error("{tool} is not installed ({hint})")]
    Missing {
        /// The tool.
        tool: &'static str,
        /// How to install it.
        hint: &'static str,
    },
    /// A path to mount does not exist.
    #[error("cannot mount {0}: it does not exist")]
    NoSuchPath(PathBuf),
    /// The sandboxed program could not be started or waited for.
    #[error("{0}")]
    Start(String),
    /// The Docker daemon refused or failed a request.
    #[error("docker: {0}")]
    Docker(String),
}

/// A way to run a program confined to a [`SandboxSpec`].
#[async_trait]
pub trait Sandbox: Send + Sync {
    /// Short name (`bubblewrap`, `docker`).
    fn name(&self) -> &'static str;
    /// Runs `job` to its end or its deadline and releases everything it used (process
    /// group, container, relay sockets), also when the returned future is dropped.
    async fn run(&self, job: Job<'_>) -> Result<Finished, SandboxError>;
    /// Starts `program args` confined to `spec` and keeps it running with its stdin and
    /// stdout as pipes, until [`Live::end`] or until the [`Live`] is dropped (then it is
    /// killed whole, with everything it started).
    async fn spawn(
        &self,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
    ) -> Result<Live, SandboxError>;
}

/// Which sandbox `cosec run` confines native harnesses with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxChoice {
    /// Docker when its daemon answers and the sandbox image is built, else bubblewrap.
    Auto,
    /// bubblewrap (Debian package `bubblewrap`).
    Bwrap,
    /// A one-shot container per run of a harness process (`cosec sandbox image build`).
    Docker,
}

/// The sandbox for `choice`, with the MCP relay binary `relay` that harnesses launch.
/// `auto` says on stderr which one it took and why.
pub async fn select(choice: SandboxChoice, relay: &Path) -> Result<Arc<dyn Sandbox>, SandboxError> {
    let config = DockerConfig::default();
    match choice {
        SandboxChoice::Bwrap => Ok(Arc::new(Bubblewrap::locate()?.with_relay(relay))),
        SandboxChoice::Docker => Ok(Arc::new(Docker::connect(config, relay).await?)),
        SandboxChoice::Auto => match Docker::connect(config, relay).await {
            Ok(docker) => {
                eprintln!("sandbox: docker (image {})", docker.image());
                Ok(Arc::new(docker))
            }
            Err(why) => {
                let bwrap = Bubblewrap::locate()?.with_relay(relay);
                eprintln!("sandbox: bubblewrap (docker unavailable: {why})");
                Ok(Arc::new(bwrap))
            }
        },
    }
}
