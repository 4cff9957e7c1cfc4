//! `cosec harness install|list`: pinned native harnesses in the harness cache.

use crate::cli::InstallChoice;
use crate::error::CliError;
use crate::harness::install::{self, cache_dir, Installed};
use std::path::PathBuf;
use std::process::ExitCode;

type Detect = fn(&std::path::Path) -> Option<Installed>;
type Install = fn(&std::path::Path, &dyn Fn(&str)) -> Result<Installed, install::InstallError>;

/// Every native harness: name, pinned version, detector, installer.
const HARNESSES: &[(&str, &str, Detect, Install)] = &[
    (
        "codex",
        install::codex::VERSION,
        install::codex::detect,
        install::codex::install,
    ),
    (
        "openclaw",
        install::openclaw::VERSION,
        install::openclaw::detect,
        install::openclaw::install,
    ),
    (
        "hermes",
        install::hermes::VERSION,
        install::hermes::detect,
        install::hermes::install,
    ),
];

fn selected(which: InstallChoice) -> Vec<&'static (&'static str, &'static str, Detect, Install)> {
    HARNESSES
        .iter()
        .filter(|(name, ..)| match which {
            InstallChoice::All => true,
            InstallChoice::Codex => *name == "codex",
            InstallChoice::Openclaw => *name == "openclaw",
            InstallChoice::Hermes => *name == "hermes",
        })
        .collect()
}

/// `cosec harness install`.
pub fn install(which: InstallChoice, dir: Option<PathBuf>) -> Result<ExitCode, CliError> {
    let cache = dir.unwrap_or_else(cache_dir);
    std::fs::create_dir_all(&cache).map_err(CliError::io(&cache))?;
    if let Some(missing) = missing_sandbox() {
        eprintln!("warning: {missing}");
    }
    for (name, version, _, installer) in selected(which) {
        let started = std::time::Instant::now();
        eprintln!("{name} {version}: installing into {} ...", cache.display());
        let progress = |line: &str| eprintln!("  {name}: {line}");
        let installed = installer(&cache, &progress).map_err(|source| CliError::Install {
            harness: name,
            source,
        })?;
        eprintln!(
            "{name} {} ready at {} ({:.0} s)",
            installed.version,
            installed.entry.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `cosec harness list`.
pub fn list(dir: Option<PathBuf>) -> Result<ExitCode, CliError> {
    let cache = dir.unwrap_or_else(cache_dir);
    let mut text = format!("harness cache: {}\n", cache.display());
    match missing_sandbox() {
        Some(missing) => text.push_str(&format!("sandbox: {missing}\n")),
        None => text.push_str("sandbox: bubblewrap found\n"),
    }
    text.push_str(&format!(
        "{:<10} {:<12} {:<12} entry\n",
        "harness", "pinned", "installed"
    ));
    for (name, version, detect, _) in HARNESSES {
        text.push_str(&match detect(&cache) {
            Some(found) => format!(
                "{name:<10} {version:<12} {:<12} {}\n",
                found.version,
                found.entry.display()
            ),
            None => format!(
                "{name:<10} {version:<12} {:<12} (run `cosec harness install {name}`)\n",
                "-"
            ),
        });
    }
    text.push_str(&format!(
        "{:<10} {:<12} {:<12} built into cosec\n",
        "builtin",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_VERSION")
    ));
    super::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// What to tell the user when bubblewrap, which every native harness runs inside, is not
/// on the PATH; said at install so that it is not first learned from a failed run.
fn missing_sandbox() -> Option<String> {
    crate::sandbox::Bubblewrap::locate().err().map(|e| {
        format!("the native harnesses run inside bubblewrap, which is missing: {e}; install it before `cosec run --harness NAME`")
    })
}
