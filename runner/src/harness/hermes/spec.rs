//! What a sandboxed Hermes process of a trial sees. Kept free of the runner's trial
//! types so that the sandbox escape test can build exactly this spec.

use crate::harness::install::Installed;
use crate::sandbox::SandboxSpec;
use std::path::{Path, PathBuf};

/// The dummy key Hermes sends to the proxy (the proxy holds any real upstream key).
pub const DUMMY_KEY: &str = "sk-cosec-local";

/// `HERMES_HOME` of a trial: Hermes's config, `state.db`, `memories/` and logs.
pub fn hermes_home(harness_home: &Path) -> PathBuf {
    harness_home.join(".hermes")
}

/// The spec for one trial: the agent half and the harness home writable; the install
/// (venv and the real prefix of its Python), the relay binary and the shim socket file
/// read-only (the socket itself, not its folder, so nothing beside it shows); only the
/// variables Hermes needs; the agent half as working directory.
pub fn sandbox_spec(
    installed: &Installed,
    relay: &Path,
    agent_root: &Path,
    harness_home: &Path,
    shim_socket: Option<&Path>,
) -> SandboxSpec {
    let mut readonly = installed.readonly.clone();
    readonly.push(relay.to_owned());
    if let Some(socket) = shim_socket {
        readonly.push(socket.to_owned());
    }
    let mut env: Vec<(String, String)> = vec![
        ("HOME".into(), harness_home.display().to_string()),
        (
            "HERMES_HOME".into(),
            hermes_home(harness_home).display().to_string(),
        ),
        ("OPENAI_API_KEY".into(), DUMMY_KEY.into()),
        ("LANG".into(), "C.UTF-8".into()),
        ("TMPDIR".into(), "/tmp".into()),
        ("USER".into(), "agent".into()),
        ("TERM".into(), "dumb".into()),
        ("NO_COLOR".into(), "1".into()),
    ];
    for (key, value) in &installed.env {
        env.retain(|(k, _)| k != key);
        env.push((key.clone(), value.clone()));
    }
    if !env.iter().any(|(k, _)| k == "PATH") {
        env.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
    }
    SandboxSpec {
        writable: vec![agent_root.to_owned(), harness_home.to_owned()],
        readonly,
        env,
        workdir: agent_root.to_owned(),
    }
}
