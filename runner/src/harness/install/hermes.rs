//! Hermes Agent from PyPI (`hermes-agent[mcp,acp]`: its MCP client, and the ACP server
//! CoSec keeps alive for a trial), pinned, in a Python venv.
//!
//! The venv is made with the machine's `python3`, resolved to its real interpreter first
//! (pyenv puts a shell shim on the PATH), so the venv's `python` links to a real prefix.
//! That prefix (the standard library) must be visible inside the sandbox: it goes into
//! [`Installed::readonly`] as its canonical path, and never as a folder holding the
//! user's home (a prefix such as `/root` or `/` is refused).
//! Layout of an install: `<cache>/hermes-<VERSION>/venv/{bin/hermes, pyvenv.cfg, ...}`.

use super::{io_err, tail, InstallError, Installed};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned Hermes Agent version (see HARNESSES.md; re-check the quirks when bumping).
pub const VERSION: &str = "0.19.0";

/// The PyPI requirement installed.
pub fn requirement() -> String {
    format!("hermes-agent[mcp,acp]=={VERSION}")
}

/// The folder name's suffix after the version, naming the extras: an install made
/// without the ACP server is another folder, installed afresh (and a sandbox image
/// holding only the older one is rebuilt, as it lacks this path).
const EXTRAS: &str = "acp";

/// Harness name used for the cache folder and in results.
const NAME: &str = crate::harness::HarnessKind::Hermes.as_str();

/// The install folder of the pinned version.
pub fn install_dir(cache: &Path) -> PathBuf {
    super::versioned_dir(cache, NAME, &format!("{VERSION}-{EXTRAS}"))
}

/// `key = value` from a venv's `pyvenv.cfg`.
fn pyvenv_value(venv: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(venv.join("pyvenv.cfg")).ok()?;
    text.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then(|| v.trim().to_owned())
    })
}

/// The canonical prefix of the interpreter a venv was made from (the folder holding its
/// `bin/` and `lib/`), if it is safe to mount: not `/`, and not an ancestor of the user's
/// home (mounting it would show the home inside the sandbox).
fn base_prefix(venv: &Path) -> Option<PathBuf> {
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    prefix_outside(venv, user_home.as_deref())
}

fn prefix_outside(venv: &Path, user_home: Option<&Path>) -> Option<PathBuf> {
    let home = PathBuf::from(pyvenv_value(venv, "home")?);
    let prefix = home.canonicalize().ok()?.parent()?.to_owned();
    // `/` (no parent) holds every home.
    prefix.parent()?;
    if let Some(user_home) = user_home.and_then(|h| h.canonicalize().ok()) {
        if user_home.starts_with(&prefix) {
            return None;
        }
    }
    Some(prefix)
}

/// The version of `hermes-agent` in a venv, from its `.dist-info` folder name.
fn installed_version(venv: &Path) -> Option<String> {
    dist_version(venv, "hermes_agent-")
}

/// Whether the venv holds the ACP server's library (`agent-client-protocol`).
fn has_acp(venv: &Path) -> bool {
    dist_version(venv, "agent_client_protocol-").is_some()
}

/// The version of the distribution whose `.dist-info` folder starts with `prefix`.
fn dist_version(venv: &Path, prefix: &str) -> Option<String> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    for python in lib.flatten() {
        let Ok(packages) = std::fs::read_dir(python.path().join("site-packages")) else {
            continue;
        };
        for entry in packages.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(rest) = name.strip_prefix(prefix) {
                if let Some(version) = rest.strip_suffix(".dist-info") {
                    return Some(version.to_owned());
                }
            }
        }
    }
    None
}

/// What an install folder provides, if it holds the pinned version and a usable venv.
fn describe(root: &Path) -> Option<Installed> {
    let venv = root.join("venv");
    let entry = venv.join("bin").join("hermes");
    if !entry.is_file() || installed_version(&venv).as_deref() != Some(VERSION) || !has_acp(&venv) {
        return None;
    }
    let prefix = base_prefix(&venv)?;
    let path = super::path_with(&venv.join("bin"));
    Some(Installed {
        name: NAME,
        version: VERSION.to_owned(),
        root: root.to_owned(),
        entry,
        readonly: vec![root.to_owned(), prefix],
        env: vec![
            ("PATH".to_owned(), path),
            // The venv is mounted read-only: no bytecode caches, no user site.
            ("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned()),
            ("PYTHONNOUSERSITE".to_owned(), "1".to_owned()),
        ],
    })
}

/// Finds the pinned Hermes Agent in the cache without running anything.
pub fn detect(cache: &Path) -> Option<Installed> {
    describe(&install_dir(cache))
}

/// The real interpreter behind `python3` on the PATH (pyenv's shim is a shell script).
fn real_python() -> Result<PathBuf, InstallError> {
    let missing = InstallError::MissingTool {
        tool: "python3",
        harness: NAME,
        hint: "install Python 3.11-3.13 with venv support, e.g. apt-get install python3-venv",
    };
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable)); print('%d.%d' % sys.version_info[:2])",
        ])
        .output()
        .map_err(|_| missing)?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let (Some(exe), Some(version)) = (lines.next(), lines.next()) else {
        return Err(InstallError::MissingTool {
            tool: "python3",
            harness: NAME,
            hint: "`python3` did not run; install Python 3.11-3.13",
        });
    };
    let minor: u32 = version
        .strip_prefix("3.")
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if !(11..=13).contains(&minor) {
        return Err(InstallError::MissingTool {
            tool: "python3",
            harness: NAME,
            hint: "Hermes Agent needs Python 3.11-3.13 as `python3` on the PATH",
        });
    }
    Ok(PathBuf::from(exe))
}

/// Points the venv's console scripts at the venv's final place: pip wrote the temporary
/// folder's path into their `#!` lines, and the folder is renamed afterwards.
fn relocate_scripts(bin: &Path, from: &Path, to: &Path) -> Result<(), InstallError> {
    let old = format!("#!{}", from.display());
    let new = format!("#!{}", to.display());
    for entry in std::fs::read_dir(bin).map_err(io_err(bin))?.flatten() {
        let path = entry.path();
        if path.is_symlink() || !path.is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // binary, not a script
        };
        if let Some(rest) = text.strip_prefix(&old) {
            std::fs::write(&path, format!("{new}{rest}")).map_err(io_err(&path))?;
        }
    }
    Ok(())
}

/// Runs a command, returning its combined output or a registry error with its tail.
fn run(cmd: &mut Command, what: &str) -> Result<(), InstallError> {
    let out = cmd.output().map_err(|e| InstallError::Registry {
        tool: "pip",
        what: what.to_owned(),
        message: e.to_string(),
    })?;
    if out.status.success() {
        return Ok(());
    }
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Err(InstallError::Registry {
        tool: "pip",
        what: what.to_owned(),
        message: tail(&text, 12),
    })
}

/// Builds the venv in `tmp` (which will become `final_root`) and checks it.
fn build(
    python: &Path,
    tmp: &Path,
    final_root: &Path,
    progress: &dyn Fn(&str),
) -> Result<(), InstallError> {
    let venv = tmp.join("venv");
    progress(&format!("creating a venv with {}", python.display()));
    let out = Command::new(python)
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .map_err(io_err(python))?;
    if !out.status.success() {
        return Err(InstallError::MissingTool {
            tool: "python3 -m venv",
            harness: NAME,
            hint: "apt-get install python3-venv (or a Python build with ensurepip)",
        });
    }
    let requirement = requirement();
    progress(&format!("pip install {requirement} (about 30 s, 240 MB)"));
    run(
        Command::new(venv.join("bin").join("pip"))
            .args([
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "--quiet",
            ])
            .arg(&requirement)
            .env("PIP_NO_INPUT", "1"),
        &requirement,
    )?;
    relocate_scripts(&venv.join("bin"), &venv, &final_root.join("venv"))?;
    if installed_version(&venv).as_deref() != Some(VERSION) || !has_acp(&venv) {
        return Err(InstallError::Broken {
            harness: NAME,
            path: final_root.to_owned(),
            problem: format!(
                "pip did not leave hermes-agent {VERSION} with its ACP server in the venv"
            ),
        });
    }
    if base_prefix(&venv).is_none() {
        return Err(InstallError::Broken {
            harness: NAME,
            path: final_root.to_owned(),
            problem: format!(
                "the venv's Python prefix ({}) cannot be mounted in the sandbox without exposing the user's home",
                pyvenv_value(&venv, "home").unwrap_or_default()
            ),
        });
    }
    Ok(())
}

/// Installs the pinned Hermes Agent into `<cache>/hermes-<VERSION>/` (or returns the
/// install already there). The venv is built in a temporary folder that is renamed into
/// place only once it holds the pinned version, so a killed install leaves nothing
/// half-done behind.
pub fn install(cache: &Path, progress: &dyn Fn(&str)) -> Result<Installed, InstallError> {
    if let Some(found) = super::already_installed(detect(cache), progress) {
        return Ok(found);
    }
    let python = real_python()?;
    let final_root = install_dir(cache);
    let staged = super::Staged {
        name: NAME,
        version: VERSION,
        root: final_root.clone(),
        detect: &|| detect(cache),
        missing: "the installed venv is not detected",
    };
    super::install_staged(cache, &staged, progress, |tmp| {
        build(&python, tmp, &final_root, progress)
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{empty_cache, write_files};
    use super::*;

    #[test]
    fn a_folder_without_the_pinned_version_is_not_detected() {
        let cache = empty_cache(detect);
        write_files(
            &install_dir(cache.path()).join("venv"),
            &[
                (
                    "lib/python3.11/site-packages/hermes_agent-0.1.0.dist-info/METADATA",
                    "",
                ),
                ("bin/hermes", "#!/bin/sh\n"),
                ("pyvenv.cfg", "home = /usr/bin\n"),
            ],
        );
        assert!(
            detect(cache.path()).is_none(),
            "wrong version must not be detected"
        );
    }

    #[test]
    fn scripts_are_pointed_at_the_final_folder() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(
            bin.join("hermes"),
            "#!/c/.tmp-1/venv/bin/python3\nimport x\n",
        )
        .unwrap();
        std::fs::write(bin.join("other"), "#!/bin/sh\n").unwrap();
        relocate_scripts(
            &bin,
            Path::new("/c/.tmp-1/venv"),
            Path::new("/c/hermes-0/venv"),
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(bin.join("hermes")).unwrap(),
            "#!/c/hermes-0/venv/bin/python3\nimport x\n"
        );
        assert_eq!(
            std::fs::read_to_string(bin.join("other")).unwrap(),
            "#!/bin/sh\n"
        );
    }

    #[test]
    fn a_prefix_holding_the_home_is_never_mounted() {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let user_home = dir.path().join("home");
        std::fs::create_dir_all(&venv).unwrap();
        std::fs::create_dir_all(user_home.join("bin")).unwrap();
        std::fs::create_dir_all(dir.path().join("python/bin")).unwrap();
        // An interpreter in `~/bin` has the home itself as prefix.
        let cfg = format!("home = {}\n", user_home.join("bin").display());
        std::fs::write(venv.join("pyvenv.cfg"), cfg).unwrap();
        let prefix = prefix_outside(&venv, Some(&user_home));
        assert!(prefix.is_none(), "{prefix:?}");
        let cfg = format!("home = {}\n", dir.path().join("python/bin").display());
        std::fs::write(venv.join("pyvenv.cfg"), cfg).unwrap();
        let prefix = prefix_outside(&venv, Some(&user_home)).unwrap();
        assert_eq!(prefix, dir.path().canonicalize().unwrap().join("python"));
    }
}

#[cfg(test)]
mod dev_install {
    /// Installs into the real cache, or finds the install `scripts/tiers/harnesses.sh`
    /// made there.
    #[test]
    #[ignore = "tier harnesses: needs the network or the installed native harnesses"]
    fn install_into_the_cache() {
        let started = std::time::Instant::now();
        let found = super::install(&super::super::cache_dir(), &|m| eprintln!("{m}")).unwrap();
        eprintln!("{found:?} in {:?}", started.elapsed());
        assert_eq!(super::detect(&super::super::cache_dir()), Some(found));
    }
}
