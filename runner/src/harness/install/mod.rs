//! Installing the native harnesses at pinned versions into a cache folder outside the
//! repository, idempotently, and finding what is installed.

pub mod codex;
pub mod hermes;
pub mod openclaw;

use std::path::{Path, PathBuf};

/// Environment variable naming the harness cache folder.
pub const ENV_HARNESS_DIR: &str = "COSEC_HARNESS_DIR";

/// The harness cache folder: `$COSEC_HARNESS_DIR`, else `$XDG_CACHE_HOME/cosec/harnesses`,
/// else `~/.cache/cosec/harnesses`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(ENV_HARNESS_DIR).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("cosec").join("harnesses")
}

/// A harness found in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// `codex`, `openclaw` or `hermes`.
    pub name: &'static str,
    /// The installed version (as the package reports it).
    pub version: String,
    /// The install folder inside the cache.
    pub root: PathBuf,
    /// The executable to run.
    pub entry: PathBuf,
    /// Everything the sandbox must mount read-only for the harness to run (the install
    /// folder, its runtime such as Node or Python).
    pub readonly: Vec<PathBuf>,
    /// Environment the harness needs besides its home (e.g. a PATH with its runtime).
    pub env: Vec<(String, String)>,
}

/// Why an install failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A registry could not be reached or refused.
    #[error("{tool} could not install {what}: {message}\nis the registry reachable? (npm: `npm ping`, PyPI: `pip download --no-deps {what}`)")]
    Registry {
        /// The package tool (`npm`, `pip`).
        tool: &'static str,
        /// The package.
        what: String,
        /// The tool's last output lines.
        message: String,
    },
    /// A tool the installer needs is missing.
    #[error("{tool} is needed to install {harness} but was not found ({hint})")]
    MissingTool {
        /// The tool.
        tool: &'static str,
        /// The harness.
        harness: &'static str,
        /// How to get it.
        hint: &'static str,
    },
    /// The filesystem failed.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Installed, but the result does not work.
    #[error("{harness} was installed in {path} but {problem}")]
    Broken {
        /// The harness.
        harness: &'static str,
        /// Where.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}
