//! The guard standing alone in front of any agent (`cosec proxy serve`).
//!
//! `serve_standalone` listens on `listen` and forwards OpenAI-compatible calls
//! (`POST /v1/chat/completions`, `POST /v1/responses`, streamed or not) to `upstream`,
//! with the same guard as `--defense proxy`: the state file ([`state`]) gives the
//! community state and the labeled objects; the defense policy decides every flow at
//! the state file's `now`.
//!
//! Each request names who is asking and where the reply goes:
//! - headers [`REQUESTER_HEADER`] (`x-cosec-requester`: a person id) and
//!   [`COMMUNITY_HEADER`] (`x-cosec-community`: a community id); or
//! - a session id, [`SESSION_HEADER`] (`x-cosec-session`) or Codex's `session-id`,
//!   looked up in the state file's `sessions` (explicit headers win field by field).
//!
//! A request that names neither is refused with `400` (fail closed), as is one naming
//! an unknown person, community or session. Each (session, requester, community) is
//! one synthetic trial with its own taint (what that session's model was sent), so
//! sessions do not taint each other. The client's `Authorization` header is forwarded
//! when no upstream key is configured.
//!
//! `serve_unguarded` runs the same proxy with no guard installed, only to measure
//! what the guard costs on top of forwarding (`cosec proxy serve --guard-mode off`).

pub mod state;

pub use state::{StandaloneState, StateFieldError, StateFile, STATE_SCHEMA_VERSION};

use crate::api::{ModelRequest, ModelResponse};
use crate::guard::{Guard, GuardMode, GuardPolicy};
use crate::registry::{
    ModelRoute, Secret, Trial, TrialRegistry, TrialSetup, TurnContext, Upstream,
};
use crate::server::limits::ServerLimits;
use crate::server::{ModelBackend, ProxyError, ProxyOptions, ProxyServer, TrialSource};
use crate::trace::{TraceError, TraceWriter};
use crate::upstream::UpstreamTimeouts;
use cosec_scenarios::{CommunityId, UserId};
use dashmap::DashMap;
use hyper::header::HeaderName;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// Header naming the requester (a person id of the state file).
pub const REQUESTER_HEADER: &str = "x-cosec-requester";
/// Header naming the destination community of replies (a community id).
pub const COMMUNITY_HEADER: &str = "x-cosec-community";
/// Header naming a session of the state file's `sessions`.
pub const SESSION_HEADER: &str = "x-cosec-session";
/// The session header Codex sends on its own.
pub const CODEX_SESSION_HEADER: &str = "session-id";

static REQUESTER: HeaderName = HeaderName::from_static(REQUESTER_HEADER);
static COMMUNITY: HeaderName = HeaderName::from_static(COMMUNITY_HEADER);
static SESSION: HeaderName = HeaderName::from_static(SESSION_HEADER);
static CODEX_SESSION: HeaderName = HeaderName::from_static(CODEX_SESSION_HEADER);

/// How to run a standalone guard.
#[derive(Debug, Clone)]
pub struct StandaloneConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
    /// Upstream base URL ending in `/v1`.
    pub upstream: String,
    /// Upstream API key; without one the client's `Authorization` is forwarded.
    pub api_key: Option<Secret>,
    /// Model name sent upstream; `None` keeps the client's.
    pub model: Option<String>,
    /// The validated defense policy.
    pub policy: GuardPolicy,
    /// Enforce or shadow.
    pub mode: GuardMode,
    /// The state file (JSON, see [`state`]).
    pub state: PathBuf,
    /// Where to append the trace (model calls and guard decisions); `None` discards it.
    pub trace: Option<PathBuf>,
    /// The agent's working directory, so absolute paths in tool calls map to namespaces.
    pub workspace: Option<PathBuf>,
    /// A prompt guardrail paragraph to apply as well, if any.
    pub guardrail: Option<String>,
    /// Listener threads sharing the port (see [`ProxyOptions::threads`]); 0 serves on
    /// the caller's runtime.
    pub threads: usize,
    /// How long the upstream may keep a call waiting ([`UpstreamTimeouts::SERVE`]
    /// unless configured).
    pub timeouts: UpstreamTimeouts,
    /// Body size, time and connection budgets of the listener.
    pub limits: ServerLimits,
}

/// Why a standalone guard could not start.
#[derive(Debug, thiserror::Error)]
pub enum StandaloneError {
    /// The state file could not be read.
    #[error("cannot read state file {path}: {source}")]
    ReadState {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The state file is invalid (the field is named).
    #[error("state file {path}: {source}")]
    State {
        /// The file.
        path: PathBuf,
        /// The offending field.
        source: StateFieldError,
    },
    /// The upstream URL is not usable.
    #[error("upstream `{0}` must be an http(s) URL (ending in /v1)")]
    Upstream(String),
    /// The trace could not be opened.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The listener could not start.
    #[error(transparent)]
    Proxy(#[from] ProxyError),
}

/// A running standalone guard; dropping it stops the listener.
pub struct StandaloneServer {
    server: ProxyServer,
    guard: Guard,
    guarded: bool,
}

impl StandaloneServer {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.server.local_addr()
    }

    /// The base URL agents are pointed at (`http://ADDR/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.server.local_addr())
    }

    /// The guard (for its stats); idle, with zero stats, when serving unguarded.
    pub fn guard(&self) -> &Guard {
        &self.guard
    }

    /// Whether responses go through the guard (false for [`serve_unguarded`]).
    pub fn guarded(&self) -> bool {
        self.guarded
    }

    /// Stops accepting connections and waits until the listener is closed.
    pub async fn shutdown(self) {
        self.server.shutdown().await;
    }
}

/// Never called: every standalone trial is routed upstream.
struct NoSim;

impl ModelBackend for NoSim {
    fn respond(
        &self,
        _: &Trial,
        _: &TurnContext,
        _: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        Err("the standalone guard has no simulated model".to_owned())
    }
}

/// Synthetic trials by (session, requester, community).
struct Sessions {
    state: StandaloneState,
    agent: Arc<cosec_scenarios::AgentTier>,
    platform: Arc<cosec_scenarios::PlatformTier>,
    upstream: Upstream,
    trace: Arc<TraceWriter>,
    workspace: PathBuf,
    guardrail: Option<Arc<str>>,
    trials: DashMap<String, Arc<Trial>>,
}

/// A header's trimmed, non-empty text. Names are given as `HeaderName`s built once, so
/// a lookup does not parse and validate the name again on every request.
fn header<'a>(headers: &'a hyper::HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

impl TrialSource for Sessions {
    fn trial_for(&self, headers: &hyper::HeaderMap) -> Result<Arc<Trial>, String> {
        let session = header(headers, &SESSION).or_else(|| header(headers, &CODEX_SESSION));
        let mapped = session.and_then(|s| self.state.file.sessions.get(s));
        let requester =
            header(headers, &REQUESTER).or_else(|| mapped.map(|m| m.requester.as_str()));
        let community =
            header(headers, &COMMUNITY).or_else(|| mapped.map(|m| m.community.as_str()));
        let (Some(requester), Some(community)) = (requester, community) else {
            let why = match session {
                Some(s) if mapped.is_none() => {
                    format!("session `{s}` is not in the state file's `sessions`")
                }
                _ => "the request names no requester and community".to_owned(),
            };
            return Err(format!(
                "refused by the guard (fail closed): {why}; send `{REQUESTER_HEADER}` and `{COMMUNITY_HEADER}` headers, or `{SESSION_HEADER}` naming a session of the state file"
            ));
        };
        let session = session.unwrap_or("-");
        let mut key = String::with_capacity(session.len() + requester.len() + community.len() + 2);
        for (i, part) in [session, requester, community].into_iter().enumerate() {
            if i > 0 {
                key.push('|');
            }
            key.push_str(part);
        }
        // Only checked names are ever stored, so a stored trial needs no new check.
        if let Some(t) = self.trials.get(&key) {
            return Ok(Arc::clone(t.value()));
        }
        let requester = UserId::from(requester);
        let community = CommunityId::from(community);
        if !self.state.knows_user(&requester) {
            return Err(format!(
                "refused by the guard: unknown requester `{requester}` in `{REQUESTER_HEADER}`"
            ));
        }
        if !self.state.knows_community(&community) {
            return Err(format!(
                "refused by the guard: unknown community `{community}` in `{COMMUNITY_HEADER}`"
            ));
        }
        let trial = Arc::new(Trial::new(
            TrialSetup {
                id: key.clone(),
                agent: Arc::clone(&self.agent),
                platform: Arc::clone(&self.platform),
                sim: None,
                model: ModelRoute::Upstream(self.upstream.clone()),
                agent_root: self.workspace.clone(),
                trace: Arc::clone(&self.trace),
                guardrail: self.guardrail.clone(),
            },
            community.clone(),
        ));
        trial.set_turn(TurnContext::new(
            1,
            community,
            Some(requester),
            self.state.file.now,
        ));
        Ok(Arc::clone(self.trials.entry(key).or_insert(trial).value()))
    }

    fn models(&self) -> Vec<String> {
        if self.upstream.model.is_empty() {
            Vec::new()
        } else {
            vec![self.upstream.model.clone()]
        }
    }
}

/// Loads and validates the state file, then starts the guard on `config.listen` (on
/// the current tokio runtime).
pub async fn serve_standalone(
    config: StandaloneConfig,
) -> Result<StandaloneServer, StandaloneError> {
    serve(config, true).await
}

/// Like [`serve_standalone`] with no guard on the path: requests are still refused
/// unless they name a known requester and community, and still traced, but responses
/// pass unchanged and nothing is decided. It exists to measure what the guard itself
/// costs against the same forwarding proxy (`--guard-mode off`); it protects nothing.
pub async fn serve_unguarded(
    config: StandaloneConfig,
) -> Result<StandaloneServer, StandaloneError> {
    serve(config, false).await
}

/// Both entry points; `guarded` chooses whether the guard is installed on the server.
async fn serve(
    config: StandaloneConfig,
    guarded: bool,
) -> Result<StandaloneServer, StandaloneError> {
    let text =
        std::fs::read_to_string(&config.state).map_err(|source| StandaloneError::ReadState {
            path: config.state.clone(),
            source,
        })?;
    let state = StandaloneState::from_json(&text, &config.policy).map_err(|source| {
        StandaloneError::State {
            path: config.state.clone(),
            source,
        }
    })?;
    let base = config.upstream.trim_end_matches('/');
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(StandaloneError::Upstream(config.upstream.clone()));
    }
    let guard = Guard::new(config.policy.clone(), config.mode);
    let sessions = Sessions {
        agent: Arc::new(state.agent.clone()),
        platform: Arc::new(state.platform.clone()),
        state,
        upstream: Upstream {
            base_url: base.to_owned(),
            api_key: config.api_key.clone(),
            model: config.model.clone().unwrap_or_default(),
            sampling: Default::default(),
        },
        trace: Arc::new(match &config.trace {
            Some(path) => TraceWriter::open(path)?,
            None => TraceWriter::discard(),
        }),
        workspace: config
            .workspace
            .clone()
            .unwrap_or_else(|| PathBuf::from("/nonexistent/cosec-standalone")),
        guardrail: config.guardrail.as_deref().map(Arc::from),
        trials: DashMap::new(),
    };
    let server = ProxyServer::start(
        config.listen,
        TrialRegistry::new(),
        Arc::new(NoSim),
        ProxyOptions {
            guard: guarded.then(|| guard.clone()),
            threads: config.threads,
            timeouts: config.timeouts,
            limits: config.limits,
            ..ProxyOptions::default()
        },
        Some(Arc::new(sessions)),
    )
    .await?;
    Ok(StandaloneServer {
        server,
        guard,
        guarded,
    })
}
