//! Installing the native harnesses at pinned versions into a cache folder outside the
//! repository, idempotently, and finding what is installed.

pub mod codex;
pub mod hermes;
pub mod openclaw;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// A PATH with the install's `dir` first, then the usual system folders.
fn path_with(dir: &Path) -> String {
    format!("{}:/usr/local/bin:/usr/bin:/bin", dir.display())
}

/// The install folder of `name` at `version` inside the cache.
fn versioned_dir(cache: &Path, name: &str, version: &str) -> PathBuf {
    cache.join(format!("{name}-{version}"))
}

/// The pinned install already in the cache, if any, said through `progress`.
fn already_installed(found: Option<Installed>, progress: &dyn Fn(&str)) -> Option<Installed> {
    let found = found?;
    progress(&format!(
        "{} {} already installed in {}",
        found.name,
        found.version,
        found.root.display()
    ));
    Some(found)
}

/// A filesystem error at `path`.
fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The last non-blank lines of a tool's output, for error messages.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The version recorded in the `package.json` of the npm package folder `dir`.
fn npm_package_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("version")?.as_str().map(str::to_owned)
}

/// A fresh temporary folder name for an install of `name` at `version`; it carries the
/// installing process's id so that [`sweep_stale`] can tell a killed install's leftovers.
fn staging_dir(cache: &Path, name: &str, version: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    cache.join(format!(
        ".{name}-{version}.tmp-{}-{nanos}",
        std::process::id()
    ))
}

/// Removes temporary folders left by installs that were killed (their process is gone).
fn sweep_stale(cache: &Path, name: &str, version: &str) {
    let prefix = format!(".{name}-{version}.tmp-");
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or_default();
        let alive = !pid.is_empty() && Path::new("/proc").join(pid).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// What a harness installer tells [`install_staged`] about itself.
struct Staged<'a> {
    /// The harness.
    name: &'static str,
    /// The pinned version.
    version: &'static str,
    /// The final install folder.
    root: PathBuf,
    /// Finds the install in the cache.
    detect: &'a dyn Fn() -> Option<Installed>,
    /// What is wrong if the moved folder is not detected.
    missing: &'a str,
}

/// The install steps every harness shares: sweeps leftovers of killed installs, removes
/// an unusable folder of the pinned version (one [`Staged::detect`] refused), lets
/// `build` fill a fresh staging folder, and renames it into place; a failed build
/// leaves nothing behind.
fn install_staged(
    cache: &Path,
    staged: &Staged<'_>,
    progress: &dyn Fn(&str),
    build: impl FnOnce(&Path) -> Result<(), InstallError>,
) -> Result<Installed, InstallError> {
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
    sweep_stale(cache, staged.name, staged.version);
    if staged.root.exists() {
        progress(&format!("removing the unusable {}", staged.root.display()));
        std::fs::remove_dir_all(&staged.root).map_err(io_err(&staged.root))?;
    }
    let tmp = staging_dir(cache, staged.name, staged.version);
    std::fs::create_dir_all(&tmp).map_err(io_err(&tmp))?;
    if let Err(e) = build(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let found = move_into_place(
        &tmp,
        &staged.root,
        staged.detect,
        staged.name,
        staged.missing,
    )?;
    progress(&format!(
        "{} {} installed in {}",
        staged.name,
        staged.version,
        found.root.display()
    ));
    Ok(found)
}

/// Renames the finished staging folder `tmp` to `root` and finds the install there with
/// `detect`; `missing` says what is wrong if it is not found afterwards.
fn move_into_place(
    tmp: &Path,
    root: &Path,
    detect: impl Fn() -> Option<Installed>,
    harness: &'static str,
    missing: &str,
) -> Result<Installed, InstallError> {
    if let Err(e) = std::fs::rename(tmp, root) {
        let _ = std::fs::remove_dir_all(tmp);
        // Another install may have finished first; its result is as good as ours.
        return detect().ok_or(InstallError::Io {
            path: root.to_owned(),
            source: e,
        });
    }
    detect().ok_or_else(|| InstallError::Broken {
        harness,
        path: root.to_owned(),
        problem: missing.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A fresh, empty harness cache, checked to hold no install for `detect`.
    pub(super) fn empty_cache(detect: fn(&Path) -> Option<Installed>) -> tempfile::TempDir {
        let cache = tempfile::tempdir().unwrap();
        assert!(
            detect(cache.path()).is_none(),
            "an empty cache holds nothing"
        );
        cache
    }

    /// Writes `files` (relative path, content) below `root`, creating their folders: a
    /// fake install for the detectors' tests.
    pub(super) fn write_files(root: &Path, files: &[(&str, &str)]) {
        for (path, content) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content).unwrap();
        }
    }

    #[test]
    fn stale_temporary_folders_are_swept_but_live_ones_kept() {
        let cache = tempfile::tempdir().unwrap();
        let dead = cache.path().join(".codex-1.0.tmp-999999999-1");
        let live = staging_dir(cache.path(), "codex", "1.0");
        let other = cache.path().join(".hermes-1.0.tmp-999999999-1");
        for dir in [&dead, &live, &other] {
            std::fs::create_dir_all(dir).unwrap();
        }
        sweep_stale(cache.path(), "codex", "1.0");
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(
            other.exists(),
            "another harness's folder is not ours to sweep"
        );
    }
}
