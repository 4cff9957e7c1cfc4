//! The interface between the runner and an agent system (a harness).
//!
//! The runner drives a harness turn by turn: it starts a trial session with the agent
//! half and the endpoints, delivers each participant message or trusted event notice
//! into the native session of its community, collects the reply, and finishes. A
//! harness never receives anything of the platform or verifier tiers: [`TrialEnv`]
//! carries the agent tier only, and the proxy and shim endpoints.

pub mod builtin;
pub mod codex;
pub mod hermes;
pub mod install;
pub mod native;
pub mod openclaw;
pub mod prompt;

use async_trait::async_trait;
use cosec_proxy::shim::ShimService;
use cosec_scenarios::{AgentTier, CommunityId, UserId};
use std::path::PathBuf;
use std::sync::Arc;

/// What a harness gets to run one trial.
#[derive(Clone)]
pub struct TrialEnv {
    /// Opaque trial id (reveals nothing about the scenario).
    pub trial_id: String,
    /// The agent-visible tier.
    pub agent: Arc<AgentTier>,
    /// The agent half of the trial directory (the agent's files).
    pub agent_root: PathBuf,
    /// Base URL of the proxy for this trial, ending in `/v1`.
    pub model_base_url: String,
    /// Model name the harness should ask for.
    pub model_name: String,
    /// The tool shim, for harnesses that run in the runner's process.
    pub shim: ShimService,
    /// A fresh folder for the harness's own home and state (outside the agent half and
    /// outside the hidden half; native harnesses see it, the built-in agent ignores it).
    pub harness_home: PathBuf,
    /// The runner's shim socket, relayed into the sandbox by `cosec-shim`.
    pub shim_socket: Option<PathBuf>,
    /// The hidden trace, for native evidence (`TraceEvent::HarnessOutput`); never shown
    /// to the harness.
    pub trace: Arc<cosec_proxy::trace::TraceWriter>,
}

/// One message delivered into a community's native session.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// Turn index (for a notice: the turn it follows).
    pub turn: u8,
    /// The community whose session receives it.
    pub community: CommunityId,
    /// Who speaks; `None` for a trusted platform notice.
    pub speaker: Option<UserId>,
    /// The message text.
    pub text: String,
    /// The community state as the target user can see it now (members and roles),
    /// rendered for the agent.
    pub community_view: String,
}

/// What came back from one delivery.
#[derive(Debug, Clone, Default)]
pub struct TurnOutput {
    /// The agent's final reply in the session.
    pub reply: String,
    /// Model calls the harness made for this delivery.
    pub model_calls: u32,
}

/// Why a harness could not complete a delivery (all are infrastructure failures).
#[derive(Debug, Clone, thiserror::Error)]
pub enum HarnessError {
    /// The model endpoint failed (upstream error, proxy error, bad response).
    #[error("model call failed: {0}")]
    Model(String),
    /// The harness process crashed or exited badly.
    #[error("harness crashed: {0}")]
    Crash(String),
}

/// Why a harness could not be made ready for a run.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A native harness is not in the harness cache.
    #[error("{name} is not installed in {cache}; run `cosec harness install {name}`")]
    NotInstalled {
        /// The harness.
        name: &'static str,
        /// The harness cache looked in.
        cache: PathBuf,
    },
    /// The running executable, beside which the MCP relay lies, cannot be found.
    #[error("cosec: {0} (cannot find the running executable, beside which the MCP relay cosec-shim lies)")]
    NoExecutable(#[source] std::io::Error),
    /// The MCP relay is not beside the running executable.
    #[error("the MCP relay {0} is missing; build it with `cargo build -p cosec --bins`")]
    RelayMissing(PathBuf),
    /// The sandbox the native harnesses run in is unavailable.
    #[error("the native harnesses cannot run: {0}")]
    Sandbox(#[from] crate::sandbox::SandboxError),
    /// The built-in agent could not be set up.
    #[error(transparent)]
    Builtin(#[from] HarnessError),
}

/// An agent system the runner can drive.
#[async_trait]
pub trait Harness: Send + Sync {
    /// Which agent system it is.
    fn kind(&self) -> HarnessKind;
    /// Short name used in run folders and results (`builtin`, `codex`, ...).
    fn name(&self) -> &'static str {
        self.kind().as_str()
    }
    /// Version string recorded in the summary.
    fn version(&self) -> String;
    /// What confines the harness's processes (`bubblewrap`, `docker`), recorded in the
    /// summary; `None` for a harness running in the runner's process.
    fn sandbox(&self) -> Option<&'static str> {
        None
    }
    /// Whether the harness is a native agent system ([`HarnessKind::is_native`]).
    fn is_native(&self) -> bool {
        self.kind().is_native()
    }
    /// Starts a trial; the agent half is already materialised.
    async fn start(&self, env: TrialEnv) -> Result<Box<dyn Session>, HarnessError>;
}

/// A harness's own store of seeded content (its memory) that the guard views like the
/// workspace: the folder, a prefix naming it in traces, and the seeded files in it with
/// the label of each part.
#[derive(Debug, Clone)]
pub struct ViewedStore {
    /// Names the store in the books and the trace (`@hermes-memories`).
    pub prefix: String,
    /// The folder.
    pub dir: PathBuf,
    /// Seeded files by path relative to `dir`.
    pub seeded: std::collections::BTreeMap<String, cosec_proxy::provenance::Record>,
}

/// A harness's running trial.
#[async_trait]
pub trait Session: Send {
    /// The harness's own stores of seeded content outside the agent half, to be viewed
    /// per turn like the workspace (none by default).
    fn viewed_stores(&self) -> Vec<ViewedStore> {
        Vec::new()
    }
    /// Delivers one message into the community's native session and waits for the reply.
    async fn deliver(&mut self, delivery: &Delivery) -> Result<TurnOutput, HarnessError>;
    /// Ends the trial (persists or tears down native state).
    async fn finish(self: Box<Self>) -> Result<(), HarnessError>;
}

/// The agent systems a run can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HarnessKind {
    /// The built-in reference agent, in the runner's process.
    Builtin,
    /// Codex CLI.
    Codex,
    /// OpenClaw.
    Openclaw,
    /// Hermes Agent.
    Hermes,
}

impl HarnessKind {
    /// Spelling used in folder names and results.
    pub const fn as_str(self) -> &'static str {
        match self {
            HarnessKind::Builtin => "builtin",
            HarnessKind::Codex => "codex",
            HarnessKind::Openclaw => "openclaw",
            HarnessKind::Hermes => "hermes",
        }
    }

    /// Whether it is a native agent system in processes of its own (confined by a
    /// sandbox) rather than in the runner's process: it reaches the shim through a
    /// socket, and its file writes are seen as changes of the workspace.
    pub fn is_native(self) -> bool {
        self != HarnessKind::Builtin
    }
}

/// The harness a run asked for, ready to start trials; native harnesses must be
/// installed (`cosec harness install NAME`) and run inside the `sandbox` chosen.
/// `max_output_tokens` limits the built-in agent's model calls.
pub async fn select(
    kind: HarnessKind,
    sandbox: crate::sandbox::SandboxChoice,
    turn_timeout: std::time::Duration,
    max_output_tokens: u32,
) -> Result<Arc<dyn Harness>, SetupError> {
    let cache = install::cache_dir();
    Ok(match kind {
        HarnessKind::Builtin => Arc::new(builtin::BuiltinHarness::new(
            turn_timeout,
            max_output_tokens,
        )?),
        HarnessKind::Codex => {
            let installed = install::codex::detect(&cache);
            native_harness::<codex::Codex>(installed, sandbox, turn_timeout).await?
        }
        HarnessKind::Openclaw => {
            let installed = install::openclaw::detect(&cache);
            native_harness::<openclaw::OpenClaw>(installed, sandbox, turn_timeout).await?
        }
        HarnessKind::Hermes => {
            let installed = install::hermes::detect(&cache);
            native_harness::<hermes::Hermes>(installed, sandbox, turn_timeout).await?
        }
    })
}

/// The native harness of adapter `A` from its install (`None`: not installed), with
/// the chosen sandbox and the MCP relay beside the running `cosec` executable.
async fn native_harness<A: native::Adapter>(
    installed: Option<install::Installed>,
    sandbox: crate::sandbox::SandboxChoice,
    turn_timeout: std::time::Duration,
) -> Result<Arc<dyn Harness>, SetupError> {
    let installed = installed.ok_or_else(|| SetupError::NotInstalled {
        name: A::NAME,
        cache: install::cache_dir(),
    })?;
    let relay = std::env::current_exe()
        .map_err(SetupError::NoExecutable)?
        .with_file_name("cosec-shim");
    if !relay.is_file() {
        return Err(SetupError::RelayMissing(relay));
    }
    let sandbox = crate::sandbox::select(sandbox, &relay).await?;
    let harness = native::NativeHarness::<A>::new(installed, sandbox, relay, turn_timeout);
    Ok(Arc::new(harness))
}
