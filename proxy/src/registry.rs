//! The shared registry of live trials, keyed by trial id: the runner registers a trial
//! and updates its turn context before each delivery; the proxy and the shim look the
//! trial up on every request.

use crate::trace::TraceWriter;
use cosec_scenarios::verifier::ReferencePlan;
use cosec_scenarios::{AgentTier, CommunityId, PlatformTier, Time};
use dashmap::DashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};

/// A secret (API key) that never prints.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Which simulated model answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimKind {
    /// Takes every step of a fully compliant agent, attack-induced ones included.
    Comply,
    /// Declines everything and does nothing.
    Refuse,
    /// Takes only the steps an ideal agent takes.
    Ideal,
}

impl SimKind {
    /// The model name, e.g. `sim:comply`.
    pub fn model_name(self) -> &'static str {
        match self {
            SimKind::Comply => "sim:comply",
            SimKind::Refuse => "sim:refuse",
            SimKind::Ideal => "sim:ideal",
        }
    }
}

/// A real OpenAI-compatible upstream.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// Base URL ending in `/v1` (requests append `/chat/completions` or `/responses`).
    pub base_url: String,
    /// API key sent as a bearer token, if any.
    pub api_key: Option<Secret>,
    /// Model name sent upstream (replaces whatever the harness asked for).
    pub model: String,
    /// Sampling settings set on every forwarded call (unset: the harness's own).
    pub sampling: Sampling,
}

/// Sampling settings a run fixes for every model call (`--temperature`, `--seed`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sampling {
    /// `temperature`, replacing the harness's.
    pub temperature: Option<f64>,
    /// `seed`, replacing the harness's (honoured by Chat Completions upstreams that
    /// support it).
    pub seed: Option<u64>,
}

impl Sampling {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self.temperature.is_none() && self.seed.is_none()
    }
}

/// Who answers a trial's model calls.
#[derive(Debug, Clone)]
pub enum ModelRoute {
    /// A built-in simulated model playing the trial's reference plan.
    Sim(SimKind),
    /// A real upstream.
    Upstream(Upstream),
}

/// What the runner tells the proxy and the shim before each delivery (the policies
/// crate owns it: the authorization question of every output is built from it).
pub use cosec_policies::TurnContext;

/// What a simulated model plays: the hidden reference plan, and the protected values
/// it repeats only when its own request holds them (so that it knows only what it was
/// shown). Never sent to agents.
#[derive(Debug, Clone)]
pub struct SimScript {
    /// The reference plan.
    pub plan: ReferencePlan,
    /// Every protected value of the scenario (the canaries of the verifier tier).
    pub protected_values: Vec<String>,
}

impl SimScript {
    /// The script of a scenario.
    pub fn of(scenario: &cosec_scenarios::Scenario) -> Self {
        SimScript {
            plan: scenario.verifier.reference_plan.clone(),
            protected_values: scenario
                .verifier
                .protected
                .iter()
                .flat_map(|p| p.canaries.iter().cloned())
                .collect(),
        }
    }
}

/// Everything the proxy and shim need about one trial. The verifier tier is absent
/// except the reference plan, which only simulated models read (never sent to agents).
pub struct Trial {
    /// Opaque trial id (the `/t/<id>/` path segment).
    pub id: String,
    /// The agent-visible tier (seeded tools, workflows, people).
    pub agent: Arc<AgentTier>,
    /// The platform tier (labels, routes, state).
    pub platform: Arc<PlatformTier>,
    /// The hidden script, present only when a simulated model answers.
    pub sim: Option<Arc<SimScript>>,
    /// Who answers model calls.
    pub model: ModelRoute,
    /// Root of the agent half (`<trial>/agent`).
    pub agent_root: PathBuf,
    /// The hidden trace.
    pub trace: Arc<TraceWriter>,
    /// The prompt-guardrail paragraph (`--defense prompt`), applied by the proxy.
    pub guardrail: Option<Arc<str>>,
    turn: RwLock<TurnContext>,
    upstream_refusal: OnceLock<String>,
}

/// The fixed facts of a trial, handed to [`Trial::new`].
pub struct TrialSetup {
    /// Opaque trial id.
    pub id: String,
    /// The agent-visible tier.
    pub agent: Arc<AgentTier>,
    /// The platform tier.
    pub platform: Arc<PlatformTier>,
    /// The hidden script, only for simulated models.
    pub sim: Option<Arc<SimScript>>,
    /// Who answers model calls.
    pub model: ModelRoute,
    /// Root of the agent half.
    pub agent_root: PathBuf,
    /// The hidden trace.
    pub trace: Arc<TraceWriter>,
    /// The prompt-guardrail paragraph (`--defense prompt`), applied by the proxy.
    pub guardrail: Option<Arc<str>>,
}

impl Trial {
    /// A new trial before its first turn, whose first session is `first_community`.
    pub fn new(setup: TrialSetup, first_community: CommunityId) -> Self {
        let TrialSetup {
            id,
            agent,
            platform,
            sim,
            model,
            agent_root,
            trace,
            guardrail,
        } = setup;
        Trial {
            id,
            agent,
            platform,
            sim,
            model,
            agent_root,
            trace,
            guardrail,
            turn: RwLock::new(TurnContext::new(0, first_community, None, Time(0))),
            upstream_refusal: OnceLock::new(),
        }
    }

    /// Records that the upstream refused one of this trial's requests for good (a 4xx
    /// other than 408 and 429); the first refusal is kept.
    pub fn note_upstream_refusal(&self, message: &str) {
        let _ = self.upstream_refusal.set(message.to_owned());
    }

    /// The upstream's first refusal of a request of this trial, if any: a trial that
    /// fails after one is not worth running again.
    pub fn upstream_refusal(&self) -> Option<&str> {
        self.upstream_refusal.get().map(String::as_str)
    }

    /// The current turn context.
    pub fn turn(&self) -> TurnContext {
        self.turn
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Sets the turn context before a delivery.
    pub fn set_turn(&self, ctx: TurnContext) {
        *self
            .turn
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = ctx;
    }
}

/// Live trials by id, shared by the runner, the proxy and the shim.
#[derive(Default, Clone)]
pub struct TrialRegistry {
    trials: Arc<DashMap<String, Arc<Trial>>>,
}

impl TrialRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a trial (replacing one with the same id).
    pub fn insert(&self, trial: Arc<Trial>) {
        self.trials.insert(trial.id.clone(), trial);
    }

    /// Looks a trial up.
    pub fn get(&self, id: &str) -> Option<Arc<Trial>> {
        self.trials.get(id).map(|t| Arc::clone(t.value()))
    }

    /// Removes a finished trial.
    pub fn remove(&self, id: &str) {
        self.trials.remove(id);
    }
}
