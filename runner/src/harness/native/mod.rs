//! What the native adapters (Codex, OpenClaw, Hermes) share: the harness built from an
//! install, a sandbox, the relay and a turn timeout; the sandbox spec of a trial; and
//! one way to run a turn and record native evidence in the hidden trace ([`turn`]). Each adapter says only what differs: its name,
//! its variables in the sandbox and how it starts a trial.

pub mod lines;
pub mod process;
pub mod turn;

use super::install::Installed;
use super::{Harness, HarnessError, Session, TrialEnv};
use crate::sandbox::{Sandbox, SandboxSpec};
use async_trait::async_trait;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The dummy API key a sandboxed harness sends to the proxy (the proxy holds the real
/// upstream key, if any; the harness never sees it).
pub const DUMMY_KEY: &str = "sk-cosec-local";

/// An installed native harness and what every one of its trials runs through.
pub struct Native {
    /// The pinned install.
    pub installed: Installed,
    /// The sandbox every harness process runs in.
    pub sandbox: Arc<dyn Sandbox>,
    /// The MCP relay binary (`cosec-shim`).
    pub relay: PathBuf,
    /// How long one delivery may take before the run is killed.
    pub turn_timeout: Duration,
}

impl Native {
    /// What a harness process of one trial may see: the agent half and the harness home
    /// writable; the install, the relay binary and the shim socket read-only (the socket
    /// file itself, not its folder, so nothing beside it shows); only `vars` (the
    /// harness's own), a neutral locale, temp folder and user, and the install's own
    /// variables (its PATH, else a plain one); the agent half as working directory; the
    /// proxy's loopback address as the one listener it must reach.
    pub fn sandbox_spec(&self, env: &TrialEnv, mut vars: Vec<(String, String)>) -> SandboxSpec {
        let mut readonly = self.installed.readonly.clone();
        readonly.push(self.relay.clone());
        if let Some(socket) = &env.shim_socket {
            readonly.push(socket.clone());
        }
        vars.extend(
            [("LANG", "C.UTF-8"), ("TMPDIR", "/tmp"), ("USER", "agent")]
                .map(|(k, v)| (k.to_owned(), v.to_owned())),
        );
        for (key, value) in &self.installed.env {
            vars.retain(|(k, _)| k != key);
            vars.push((key.clone(), value.clone()));
        }
        if !vars.iter().any(|(k, _)| k == "PATH") {
            vars.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
        }
        SandboxSpec {
            writable: vec![env.agent_root.clone(), env.harness_home.clone()],
            readonly,
            env: vars,
            workdir: env.agent_root.clone(),
            loopback: loopback_addr(&env.model_base_url).into_iter().collect(),
        }
    }
}

/// The loopback address of an `http://127.0.0.1:PORT/...` (or `localhost`) base URL.
pub fn loopback_addr(base_url: &str) -> Option<std::net::SocketAddr> {
    let rest = base_url.strip_prefix("http://")?;
    let authority = rest.split('/').next()?;
    let authority = match authority.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => authority.to_owned(),
    };
    let addr: std::net::SocketAddr = authority.parse().ok()?;
    addr.ip().is_loopback().then_some(addr)
}

/// `HOME` as the trial's harness home and `var` naming the harness's own state folder
/// `state` inside it.
pub fn home_vars(env: &TrialEnv, var: &str, state: &Path) -> Vec<(String, String)> {
    vec![
        ("HOME".into(), env.harness_home.display().to_string()),
        (var.to_owned(), state.display().to_string()),
    ]
}

/// What a native trial starts from: the harness's shared parts, the trial's sandbox
/// spec and what the runner gives every harness.
pub struct NativeTrial {
    /// The install, sandbox, relay and turn timeout.
    pub shared: Arc<Native>,
    /// What the trial's harness processes may see.
    pub spec: SandboxSpec,
    /// The trial.
    pub env: TrialEnv,
}

/// What sets one native harness apart from the others.
#[async_trait]
pub trait Adapter: Send + Sync + 'static {
    /// Which agent system it drives.
    const KIND: crate::harness::HarnessKind;
    /// Short name used in run folders, results and error messages.
    const NAME: &'static str = Self::KIND.as_str();

    /// The harness's own variables in the sandbox of a trial (its home and state
    /// folders, the dummy key).
    fn vars(env: &TrialEnv) -> Vec<(String, String)>;

    /// Lays out the harness's native state for a trial and opens the trial's session.
    async fn start(trial: NativeTrial) -> Result<Box<dyn Session>, HarnessError>;

    /// A file operation of the adapter that failed, as a crash.
    fn crash(what: &str, path: &Path, e: std::io::Error) -> HarnessError {
        HarnessError::Crash(format!(
            "{}: cannot {what} {}: {e}",
            Self::NAME,
            path.display()
        ))
    }
}

/// A native harness driven through the adapter `A`.
pub struct NativeHarness<A> {
    shared: Arc<Native>,
    adapter: PhantomData<A>,
}

impl<A: Adapter> NativeHarness<A> {
    /// A harness running `installed` through `sandbox`, registering `relay` (`cosec-shim`)
    /// as its MCP server and killing a delivery after `turn_timeout`.
    pub fn new(
        installed: Installed,
        sandbox: Arc<dyn Sandbox>,
        relay: PathBuf,
        turn_timeout: Duration,
    ) -> Self {
        let shared = Native {
            installed,
            sandbox,
            relay,
            turn_timeout,
        };
        NativeHarness {
            shared: Arc::new(shared),
            adapter: PhantomData,
        }
    }

    /// What the harness process of a trial may see (see [`Native::sandbox_spec`]).
    pub fn sandbox_spec(&self, env: &TrialEnv) -> SandboxSpec {
        self.shared.sandbox_spec(env, A::vars(env))
    }
}

#[async_trait]
impl<A: Adapter> Harness for NativeHarness<A> {
    fn kind(&self) -> crate::harness::HarnessKind {
        A::KIND
    }

    fn version(&self) -> String {
        self.shared.installed.version.clone()
    }

    fn sandbox(&self) -> Option<&'static str> {
        Some(self.shared.sandbox.name())
    }

    async fn start(&self, env: TrialEnv) -> Result<Box<dyn Session>, HarnessError> {
        let trial = NativeTrial {
            shared: Arc::clone(&self.shared),
            spec: self.sandbox_spec(&env),
            env,
        };
        A::start(trial).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_address_is_read_from_a_loopback_base_url_only() {
        let addr = |s: &str| loopback_addr(s).map(|a| a.to_string());
        assert_eq!(
            addr("http://127.0.0.1:4100/t/abc/v1").as_deref(),
            Some("127.0.0.1:4100")
        );
        assert_eq!(
            addr("http://localhost:80/v1").as_deref(),
            Some("127.0.0.1:80")
        );
        assert_eq!(addr("http://10.1.2.3:80/v1"), None);
        assert_eq!(addr("https://127.0.0.1:443/v1"), None);
    }
}
