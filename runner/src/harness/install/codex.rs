//! Codex CLI from the npm registry (`@openai/codex`), pinned.
//!
//! The npm package is a small Node launcher plus a per-platform package holding a static
//! (musl) native binary. The adapter runs that native binary directly, so the sandbox
//! needs neither Node nor the launcher: only the install folder, mounted read-only.
//! Layout of an install: `<cache>/codex-<VERSION>/node_modules/@openai/codex-<platform>/
//! vendor/<triple>/{bin/codex, codex-path/rg}`.

// Used once the CLI wires `cosec harness install|list`.

use super::{io_err, tail, InstallError, Installed};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned Codex CLI version (see HARNESSES.md; re-check the quirks when bumping).
pub const VERSION: &str = "0.171.0";

/// The npm package.
pub const PACKAGE: &str = "@openai/codex";

/// Harness name used for the cache folder and in results.
const NAME: &str = crate::harness::HarnessKind::Codex.as_str();

/// The per-platform npm package and Rust target triple of the native binary.
fn platform() -> Option<(&'static str, &'static str)> {
    if std::env::consts::OS != "linux" {
        return None;
    }
    match std::env::consts::ARCH {
        "x86_64" => Some(("codex-linux-x64", "x86_64-unknown-linux-musl")),
        "aarch64" => Some(("codex-linux-arm64", "aarch64-unknown-linux-musl")),
        _ => None,
    }
}

/// The install folder of the pinned version.
pub fn install_dir(cache: &Path) -> PathBuf {
    super::versioned_dir(cache, NAME, VERSION)
}

/// The folder of the native binary's vendor tree inside an install folder.
fn vendor_dir(root: &Path) -> Option<PathBuf> {
    let (package, triple) = platform()?;
    Some(
        root.join("node_modules/@openai")
            .join(package)
            .join("vendor")
            .join(triple),
    )
}

/// What an install folder provides, if it holds the pinned version and its binary.
fn describe(root: &Path) -> Option<Installed> {
    let vendor = vendor_dir(root)?;
    let entry = vendor.join("bin").join("codex");
    if !entry.is_file()
        || super::npm_package_version(&root.join("node_modules/@openai/codex")).as_deref()
            != Some(VERSION)
    {
        return None;
    }
    // Codex looks for ripgrep on the PATH; the package ships one in `codex-path`.
    let path = super::path_with(&vendor.join("codex-path"));
    Some(Installed {
        name: NAME,
        version: VERSION.to_owned(),
        root: root.to_owned(),
        entry,
        readonly: vec![root.to_owned()],
        env: vec![
            ("PATH".to_owned(), path),
            // What the npm launcher would set; Codex then leaves updates to npm.
            ("CODEX_MANAGED_BY_NPM".to_owned(), "1".to_owned()),
        ],
    })
}

/// Finds the pinned Codex in the cache without running anything.
pub fn detect(cache: &Path) -> Option<Installed> {
    describe(&install_dir(cache))
}

/// Installs the pinned Codex into `<cache>/codex-<VERSION>/` (or returns the install
/// already there). npm installs into a temporary folder that is renamed into place
/// only once the binary answers `--version`, so a killed install leaves no half-done
/// folder behind.
pub fn install(cache: &Path, progress: &dyn Fn(&str)) -> Result<Installed, InstallError> {
    if let Some(found) = super::already_installed(detect(cache), progress) {
        return Ok(found);
    }
    if platform().is_none() {
        return Err(InstallError::Broken {
            harness: NAME,
            path: install_dir(cache),
            problem: format!(
                "this platform ({}-{}) has no Codex build the sandbox supports (Linux x86_64 or aarch64)",
                std::env::consts::OS,
                std::env::consts::ARCH
            ),
        });
    }
    let npm_ok = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !npm_ok {
        return Err(InstallError::MissingTool {
            tool: "npm",
            harness: NAME,
            hint: "install Node.js and npm, e.g. apt-get install npm",
        });
    }
    let staged = super::Staged {
        name: NAME,
        version: VERSION,
        root: install_dir(cache),
        detect: &|| detect(cache),
        missing: "the install vanished after it was moved into place",
    };
    super::install_staged(cache, &staged, progress, |tmp| {
        install_into(tmp, progress)?;
        let installed = describe(tmp).ok_or_else(|| InstallError::Broken {
            harness: NAME,
            path: tmp.to_owned(),
            problem: format!("npm did not install the native binary of {PACKAGE}@{VERSION}"),
        })?;
        check_binary(&installed.entry, tmp)
    })
}

/// Runs npm into `dir`.
fn install_into(dir: &Path, progress: &dyn Fn(&str)) -> Result<(), InstallError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    // A package.json of our own keeps npm from mistaking the folder for a package.
    let manifest = dir.join("package.json");
    std::fs::write(
        &manifest,
        "{\"name\": \"cosec-codex-install\", \"private\": true}\n",
    )
    .map_err(io_err(&manifest))?;
    let spec = format!("{PACKAGE}@{VERSION}");
    progress(&format!("codex: npm install {spec} (about 420 MB)"));
    let out = Command::new("npm")
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args([
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
            "--loglevel=error",
            "--fetch-retries=1",
            "--fetch-timeout=60000",
        ])
        .arg(&spec)
        .current_dir(dir)
        .output()
        .map_err(|e| InstallError::MissingTool {
            tool: "npm",
            harness: NAME,
            hint: if e.kind() == std::io::ErrorKind::NotFound {
                "install Node.js and npm, e.g. apt-get install npm"
            } else {
                "npm could not be started"
            },
        })?;
    if !out.status.success() {
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(InstallError::Registry {
            tool: "npm",
            what: spec,
            message: tail(&text, 12),
        });
    }
    Ok(())
}

/// Checks that the binary runs and reports the pinned version.
fn check_binary(entry: &Path, dir: &Path) -> Result<(), InstallError> {
    let broken = |problem: String| InstallError::Broken {
        harness: NAME,
        path: dir.to_owned(),
        problem,
    };
    let out = Command::new(entry)
        .arg("--version")
        .output()
        .map_err(|e| broken(format!("{} cannot run: {e}", entry.display())))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains(VERSION) {
        return Err(broken(format!(
            "`{} --version` answered `{}` {}",
            entry.display(),
            text.trim(),
            tail(&String::from_utf8_lossy(&out.stderr), 3)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::tests::empty_cache;
    use super::*;

    #[test]
    fn an_empty_or_foreign_cache_holds_no_codex() {
        let cache = empty_cache(detect);
        // A launcher of another version is not the pinned install.
        let root = install_dir(cache.path());
        let pkg = root.join("node_modules/@openai/codex");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("package.json"), r#"{"version": "0.1.0"}"#).unwrap();
        if let Some(vendor) = vendor_dir(&root) {
            std::fs::create_dir_all(vendor.join("bin")).unwrap();
            std::fs::write(vendor.join("bin/codex"), "").unwrap();
        }
        assert!(detect(cache.path()).is_none());
        std::fs::write(
            pkg.join("package.json"),
            format!(r#"{{"version": "{VERSION}"}}"#),
        )
        .unwrap();
        let found = detect(cache.path());
        assert_eq!(found.is_some(), platform().is_some());
        if let Some(found) = found {
            assert_eq!(found.readonly, vec![root.clone()]);
            assert!(found.entry.starts_with(&root));
        }
    }
}
