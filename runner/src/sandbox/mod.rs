//! Sandboxes for native harness processes.
//!
//! A harness process must see only the trial's agent half, its own fresh home, its
//! installed files and the system read-only: never the hidden half of a trial, other
//! trials, the repository or the user's home (Codex runs with `danger-full-access`, so
//! a shell command could otherwise read the oracle). The interface is small so that a
//! Docker backend can sit beside bubblewrap later.

mod bwrap;

pub use bwrap::Bubblewrap;

use std::ffi::OsString;
use std::path::PathBuf;

/// What a sandboxed process may see and how it starts.
#[derive(Debug, Clone, Default)]
pub struct SandboxSpec {
    /// Folders mounted read-write at the same path (the agent half, the harness home).
    pub writable: Vec<PathBuf>,
    /// Folders or files mounted read-only at the same path (installed harness, runtimes,
    /// the shim relay binary and its socket folder).
    pub readonly: Vec<PathBuf>,
    /// The only environment variables the process gets.
    pub env: Vec<(String, String)>,
    /// Working directory (must be inside a mounted folder).
    pub workdir: PathBuf,
}

/// Why a sandboxed command cannot be prepared.
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
}

/// A way to run a program confined to a [`SandboxSpec`].
pub trait Sandbox: Send + Sync {
    /// Short name (`bubblewrap`).
    fn name(&self) -> &'static str;
    /// A command that runs `program args` inside the sandbox.
    fn command(
        &self,
        spec: &SandboxSpec,
        program: &std::path::Path,
        args: &[OsString],
    ) -> Result<tokio::process::Command, SandboxError>;
}
