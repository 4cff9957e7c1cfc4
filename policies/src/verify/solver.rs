//! Finding cvc5 and starting it the way the checks need.

use super::VerifyError;
use cedar_policy_symcc::solver::LocalSolver;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to install the solver, shown whenever it cannot be found or started.
pub const INSTALL_HINT: &str = "install cvc5 (Debian/Ubuntu: `apt-get install -y cvc5`; \
or a release binary from https://github.com/cvc5/cvc5/releases) or set CVC5=/path/to/cvc5";

/// The cvc5 executable: `$CVC5` when set, else `cvc5` on `PATH`.
///
/// Resolved here rather than left to the solver crate, whose only report of a missing
/// binary is "IO error during a solver operation".
pub fn find_cvc5() -> Result<PathBuf, VerifyError> {
    if let Some(value) = std::env::var_os("CVC5").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&value);
        let resolved = if path.components().count() > 1 {
            Some(path.clone()).filter(|p| is_executable(p))
        } else {
            on_path(&path)
        };
        return resolved.ok_or_else(|| VerifyError::SolverMissing {
            looked: format!("CVC5={} (not an executable file)", path.display()),
        });
    }
    on_path(Path::new("cvc5")).ok_or_else(|| VerifyError::SolverMissing {
        looked: "`cvc5` on PATH (CVC5 is not set)".to_owned(),
    })
}

fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// Starts cvc5 at `path` with a per-query time limit.
///
/// `--tlimit-per` bounds each query; cvc5's `--tlimit` (what the solver crate passes by
/// default) bounds the whole process, idle time included, and would kill a long run.
pub fn start(path: &Path, timeout: Duration) -> Result<LocalSolver, VerifyError> {
    let millis = timeout.as_millis().max(1);
    let mut command = tokio::process::Command::new(path);
    command
        .args(["--lang", "smt"])
        .arg(format!("--tlimit-per={millis}"))
        .kill_on_drop(true);
    LocalSolver::from_command(&mut command).map_err(|e| VerifyError::SolverStart {
        path: path.to_owned(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_names_apt_and_the_variable() {
        assert!(INSTALL_HINT.contains("apt-get install -y cvc5"));
        assert!(INSTALL_HINT.contains("CVC5="));
    }

    #[test]
    fn a_missing_path_is_not_executable() {
        assert!(!is_executable(Path::new("/nonexistent/cvc5")));
    }
}
