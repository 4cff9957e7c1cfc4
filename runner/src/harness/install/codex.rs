//! Codex CLI from the npm registry (`@openai/codex`), pinned.
//!
//! The npm package is a small Node launcher plus a per-platform package holding a static
//! (musl) native binary. The adapter runs that native binary directly, so the sandbox
//! needs neither Node nor the launcher: only the install folder, mounted read-only.
//! Layout of an install: `<cache>/codex-<VERSION>/node_modules/@openai/codex-<platform>/
//! vendor/<triple>/{bin/codex, codex-path/rg}`.

// Used once the CLI wires `cosec harness install|list`.

use super::{InstallError, Installed};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The pinned Codex CLI version (see HARNESSES.md; re-check the quirks when bumping).
pub const VERSION: &str = "0.171.0";

/// The npm package.
pub const PACKAGE: &str = "@openai/codex";

/// Harness name used for the cache folder and in results.
const NAME: &str = "codex";

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
    cache.join(format!("{NAME}-{VERSION}"))
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

/// The version recorded in the launcher package's `package.json`, if readable.
fn package_version(root: &Path) -> Option<String> {
    let text =
        std::fs::read_to_string(root.join("node_modules/@openai/codex/package.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("version")?.as_str().map(str::to_owned)
}

/// What an install folder provides, if it holds the pinned version and its binary.
fn describe(root: &Path) -> Option<Installed> {
    let vendor = vendor_dir(root)?;
    let entry = vendor.join("bin").join("codex");
    if !entry.is_file() || package_version(root).as_deref() != Some(VERSION) {
        return None;
    }
    // Codex looks for ripgrep on the PATH; the package ships one in `codex-path`.
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        vendor.join("codex-path").display()
    );
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

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> InstallError + '_ {
    move |source| InstallError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The last lines of a tool's output, for error messages.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Removes temporary folders left by installs that were killed (their process is gone).
fn sweep_stale(cache: &Path) {
    let prefix = format!(".{NAME}-{VERSION}.tmp-");
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split('-').next().unwrap_or_default();
        let alive = !pid.is_empty() && Path::new("/proc").join(pid).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Installs the pinned Codex into `<cache>/codex-<VERSION>/` (or returns the install
/// already there). npm installs into a temporary folder that is renamed into place
/// only once the binary answers `--version`, so a killed install leaves no half-done
/// folder behind.
pub fn install(cache: &Path, progress: &dyn Fn(&str)) -> Result<Installed, InstallError> {
    if let Some(found) = detect(cache) {
        progress(&format!(
            "codex {VERSION} already installed in {}",
            found.root.display()
        ));
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
    std::fs::create_dir_all(cache).map_err(io_err(cache))?;
    sweep_stale(cache);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = cache.join(format!(
        ".{NAME}-{VERSION}.tmp-{}-{nanos}",
        std::process::id()
    ));
    let result = install_into(&tmp, progress).and_then(|()| {
        let installed = describe(&tmp).ok_or_else(|| InstallError::Broken {
            harness: NAME,
            path: tmp.clone(),
            problem: format!("npm did not install the native binary of {PACKAGE}@{VERSION}"),
        })?;
        check_binary(&installed.entry, &tmp)
    });
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let target = install_dir(cache);
    if let Err(e) = std::fs::rename(&tmp, &target) {
        let _ = std::fs::remove_dir_all(&tmp);
        // Another install may have finished first; its result is as good as ours.
        return detect(cache).ok_or(InstallError::Io {
            path: target,
            source: e,
        });
    }
    let installed = detect(cache).ok_or_else(|| InstallError::Broken {
        harness: NAME,
        path: install_dir(cache),
        problem: "the install vanished after it was moved into place".to_owned(),
    })?;
    progress(&format!(
        "codex {VERSION} installed in {}",
        installed.root.display()
    ));
    Ok(installed)
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
    use super::*;

    #[test]
    fn an_empty_or_foreign_cache_holds_no_codex() {
        let cache = tempfile::tempdir().unwrap();
        assert!(detect(cache.path()).is_none());
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

    #[test]
    fn stale_temporary_folders_are_swept_but_live_ones_kept() {
        let cache = tempfile::tempdir().unwrap();
        let dead = cache
            .path()
            .join(format!(".codex-{VERSION}.tmp-999999999-1"));
        let live = cache
            .path()
            .join(format!(".codex-{VERSION}.tmp-{}-2", std::process::id()));
        std::fs::create_dir_all(&dead).unwrap();
        std::fs::create_dir_all(&live).unwrap();
        sweep_stale(cache.path());
        assert!(!dead.exists());
        assert!(live.exists());
    }
}
