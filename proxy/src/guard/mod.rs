//! The runtime authorization guard (`--defense proxy`).
//!
//! Labels: every protected seeded object (platform label not Public, with a
//! sensitivity) with its own agent-tier content; never the verifier tier. Taint: an
//! object becomes a candidate once it appears in what the model was sent or the shim
//! handed it out. Detection: `aho-corasick` over the candidates' distinctive parts
//! (code tokens and word shingles, normalised for case, whitespace and separators),
//! incrementally over streams with a hold-back of `W = min(512, 3 x longest pattern)`
//! characters. Decision: for every detected object a Cedar question
//! `Auth_t(requester, action, object, destination)` against the defense policy and
//! the live community state, cached, fail-closed and traced as
//! [`crate::trace::TraceEvent::GuardDecision`]. Enforcement: denied spans are replaced
//! by [`MARKER`]; calls whose effect is a denied transfer are blocked (answered
//! through the shim tool [`POLICY_BLOCKED`]); files that gained denied content during
//! a turn are restored. In [`GuardMode::Shadow`] everything is decided and traced but
//! nothing is changed.
//!
//! One [`Guard`] serves a run: the proxy and the shim share it (it is cheap to clone)
//! and find each trial's [`TrialGuard`] by trial id.

mod decide;
mod detect;
mod labels;
mod minimise;
mod offline;
mod patterns;
mod pieces;
mod policy;
mod redact;
mod restore;
mod shell;
mod stats;
mod stream;
mod toolargs;
mod toolcall;
mod transfer;
mod trial;

pub use detect::{MAX_WINDOW, WINDOW_FACTOR};
pub use labels::BLOCKED_LABELS;
pub use minimise::{Minimised, PLACEHOLDER, SEGMENT_BYTES, UNREADABLE};
pub use offline::OfflineDecision;
pub use patterns::{
    PatternKind, LONG_WORD_CHARS, MIN_CODE_CHARS, MIN_NUMBER_DIGITS, MIN_PASSAGE_CHARS,
};
pub use policy::{GuardError, GuardPolicy};
pub(crate) use redact::{merge, replace_spans};
pub use redact::{Checked, MARKER};
pub use restore::{apply_restores, snapshot, Restore, Snapshot, MAX_SNAPSHOT_FILE};
pub use stats::{DecisionCounts, GuardCounts, GuardOutcome, GuardStats};
pub use stream::StreamGuard;
pub use toolargs::BLOCKED_NAMES;
pub use toolcall::{ToolCallVerdict, BLOCKED_MALFORMED, BLOCKED_TRANSFER};
pub use trial::TrialGuard;

use crate::api::{ModelRequest, ModelResponse, ToolCall, ToolSpec};
use crate::registry::{Trial, TurnContext};
use cosec_scenarios::{Action, Destination, ObjectId};
use dashmap::DashMap;
use serde_json::json;
use std::sync::{Arc, Mutex};

pub use crate::tools::POLICY_BLOCKED;

/// Whether the guard changes anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GuardMode {
    /// Redact, block and restore.
    #[default]
    Enforce,
    /// Decide and trace only, to measure what a policy would block.
    Shadow,
}

/// A layer of the guard, switched on and off with `--guard-layers`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum GuardLayer {
    /// Decisions on labeled objects by their label alone: what may enter the model's
    /// context (input minimisation) and which labeled files a tool call may move.
    Input,
    /// Matching of what the model writes (replies, tool-call contents, files changed
    /// during a turn) against the protected objects' distinctive parts.
    #[default]
    Output,
}

impl GuardLayer {
    /// The command-line and trace spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardLayer::Input => "input",
            GuardLayer::Output => "output",
        }
    }
}

/// Which layers of the guard run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GuardLayers {
    /// Input minimisation and label-based transfer checks.
    pub input: bool,
    /// Output matching.
    pub output: bool,
}

impl Default for GuardLayers {
    fn default() -> Self {
        GuardLayers {
            input: true,
            output: true,
        }
    }
}

impl GuardLayers {
    /// Parses `input`, `output` or `input,output`.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut layers = GuardLayers {
            input: false,
            output: false,
        };
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "input" => layers.input = true,
                "output" => layers.output = true,
                other => {
                    return Err(format!(
                        "unknown guard layer `{other}`: use `input`, `output` or `input,output`"
                    ))
                }
            }
        }
        if !layers.input && !layers.output {
            return Err("no guard layer given: use `input`, `output` or `input,output`".to_owned());
        }
        Ok(layers)
    }

    /// The layers as a list (`input,output`).
    pub fn to_list(self) -> String {
        let mut out = Vec::new();
        if self.input {
            out.push("input");
        }
        if self.output {
            out.push("output");
        }
        out.join(",")
    }
}

/// Where a decision is taken (the trace's `point`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuardPoint {
    /// Labeled content in a request, before it goes to the model.
    Context,
    /// A model reply at the proxy.
    Response,
    /// A tool call inside a model response.
    ToolCall,
    /// A tool executed by the shim.
    Shim,
    /// The post-turn restore check.
    Restore,
    /// A turn's view of the workspace.
    View,
}

impl GuardPoint {
    /// The trace spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            GuardPoint::Context => "context",
            GuardPoint::Response => "response",
            GuardPoint::ToolCall => "tool_call",
            GuardPoint::Shim => "shim",
            GuardPoint::Restore => "restore",
            GuardPoint::View => "view",
        }
    }
}

/// Where a reply of turn `ctx` goes: the session's community.
pub fn reply_destination(ctx: &TurnContext) -> Destination {
    Destination::Community {
        community: ctx.community.clone(),
    }
}

/// The shim's `policy_blocked` tool as the request offers it (plain, MCP-prefixed or in
/// an MCP namespace), if it does.
pub fn find_policy_blocked(request: &ModelRequest) -> Option<&ToolSpec> {
    let suffix = format!("__{POLICY_BLOCKED}");
    request
        .tools
        .iter()
        .find(|t| t.name == POLICY_BLOCKED || t.name.ends_with(&suffix))
}

/// The call that replaces a blocked one: same id, the `policy_blocked` tool (named as
/// `offered` names it, else plainly), arguments `{"reason": reason}`.
pub fn policy_blocked_call(
    original: &ToolCall,
    reason: &str,
    offered: Option<&ToolSpec>,
) -> ToolCall {
    ToolCall {
        id: original.id.clone(),
        name: offered.map_or_else(|| POLICY_BLOCKED.to_owned(), |t| t.name.clone()),
        namespace: offered.and_then(|t| t.namespace.clone()),
        arguments: json!({ "reason": reason }).to_string(),
    }
}

/// A model response after the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedResponse {
    /// The response to return to the harness.
    pub response: ModelResponse,
    /// Whether the reply text had a denied span (in shadow mode: would have had).
    pub text_denied: bool,
    /// Indexes of tool calls rewritten with redacted arguments.
    pub rewritten: Vec<usize>,
    /// Indexes of tool calls replaced by `policy_blocked`, with the reason.
    pub blocked: Vec<(usize, String)>,
}

impl GuardedResponse {
    /// Whether the guard changed the response.
    pub fn changed(&self, original: &ModelResponse) -> bool {
        &self.response != original
    }
}

impl TrialGuard {
    /// Checks a whole (non-streamed, or reassembled) model response of turn `ctx`: the
    /// reply text as a disclosure to the session's community, then every tool call.
    /// `request` is used to name the `policy_blocked` tool as offered.
    pub fn check_response(
        &self,
        ctx: &TurnContext,
        request: Option<&ModelRequest>,
        response: &ModelResponse,
    ) -> GuardedResponse {
        let mut out = response.clone();
        let checked = self.check_text(
            ctx,
            &response.text,
            Action::Disclose,
            &reply_destination(ctx),
            GuardPoint::Response,
        );
        out.text = checked.text;
        let offered = request.and_then(find_policy_blocked);
        let mut rewritten = Vec::new();
        let mut blocked = Vec::new();
        for (i, call) in response.tool_calls.iter().enumerate() {
            match self.check_tool_call(ctx, call) {
                ToolCallVerdict::Allow => {}
                ToolCallVerdict::Rewrite(new) => {
                    out.tool_calls[i] = new;
                    rewritten.push(i);
                }
                ToolCallVerdict::Block { reason } => {
                    out.tool_calls[i] = policy_blocked_call(call, &reason, offered);
                    blocked.push((i, reason));
                }
            }
        }
        GuardedResponse {
            response: out,
            text_denied: checked.denied,
            rewritten,
            blocked,
        }
    }
}

/// The guard service of a run: the defense policy, the mode, and one [`TrialGuard`] per
/// live trial. Cheap to clone; share it between the proxy and the shim.
#[derive(Clone)]
pub struct Guard {
    policy: Arc<GuardPolicy>,
    mode: GuardMode,
    layers: GuardLayers,
    trials: Arc<DashMap<String, Arc<TrialGuard>>>,
    finished: Arc<Mutex<GuardCounts>>,
}

impl Guard {
    /// A guard enforcing (or shadowing) `policy`.
    pub fn new(policy: GuardPolicy, mode: GuardMode) -> Self {
        Guard {
            policy: Arc::new(policy),
            mode,
            layers: GuardLayers::default(),
            trials: Arc::new(DashMap::new()),
            finished: Arc::new(Mutex::new(GuardCounts::default())),
        }
    }

    /// Enforce or shadow.
    pub fn mode(&self) -> GuardMode {
        self.mode
    }

    /// The same guard running only `layers`.
    pub fn with_layers(mut self, layers: GuardLayers) -> Self {
        self.layers = layers;
        self
    }

    /// The layers that run.
    pub fn layers(&self) -> GuardLayers {
        self.layers
    }

    /// The defense policy.
    pub fn policy(&self) -> &GuardPolicy {
        &self.policy
    }

    /// The guard of a registered trial, built on first use and rebuilt when the trial
    /// was re-registered with other tiers (a retry).
    pub fn for_trial(&self, trial: &Trial) -> Arc<TrialGuard> {
        if let Some(g) = self.trials.get(&trial.id) {
            if Arc::ptr_eq(&g.agent, &trial.agent) && Arc::ptr_eq(&g.platform, &trial.platform) {
                return Arc::clone(g.value());
            }
        }
        let g = Arc::new(
            TrialGuard::for_trial(trial, Arc::clone(&self.policy), self.mode)
                .with_layers(self.layers),
        );
        self.trials.insert(trial.id.clone(), Arc::clone(&g));
        g
    }

    /// Registers a trial guard built by hand (e.g. a standalone proxy without trials).
    pub fn insert(&self, guard: TrialGuard) -> Arc<TrialGuard> {
        let g = Arc::new(guard);
        self.trials.insert(g.id.clone(), Arc::clone(&g));
        g
    }

    /// A new trial guard over this guard's policy and mode (not registered).
    pub fn build(
        &self,
        id: &str,
        agent: Arc<cosec_scenarios::AgentTier>,
        platform: Arc<cosec_scenarios::PlatformTier>,
        target: cosec_scenarios::UserId,
    ) -> TrialGuard {
        TrialGuard::new(
            id,
            agent,
            platform,
            target,
            Arc::clone(&self.policy),
            self.mode,
        )
        .with_layers(self.layers)
    }

    /// The guard of a trial id, if registered.
    pub fn get(&self, id: &str) -> Option<Arc<TrialGuard>> {
        self.trials.get(id).map(|g| Arc::clone(g.value()))
    }

    /// Drops a finished trial, keeping its counters for [`Guard::stats_all`]; returns its
    /// stats.
    pub fn forget(&self, id: &str) -> Option<GuardStats> {
        let (_, g) = self.trials.remove(id)?;
        let counters = g.counters();
        self.finished
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .merge(&counters);
        Some(counters.stats())
    }

    /// Stats of one live trial.
    pub fn stats(&self, id: &str) -> Option<GuardStats> {
        self.get(id).map(|g| g.stats())
    }

    /// Stats over every trial, live and forgotten.
    pub fn stats_all(&self) -> GuardStats {
        let mut total = self
            .finished
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        for g in self.trials.iter() {
            total.merge(&g.counters());
        }
        total.stats()
    }

    /// [`TrialGuard::observe_request`] for a registered trial.
    pub fn observe_request(&self, trial: &Trial, request: &ModelRequest) -> usize {
        self.for_trial(trial).observe_request(request)
    }

    /// [`TrialGuard::mark_served`] for a registered trial.
    pub fn mark_served(&self, trial: &Trial, object: &ObjectId) -> bool {
        self.for_trial(trial).mark_served(object)
    }

    /// [`TrialGuard::check_text`] in the trial's current turn.
    pub fn check_text(
        &self,
        trial: &Trial,
        text: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Checked {
        self.for_trial(trial)
            .check_text(&trial.turn(), text, action, destination, point)
    }

    /// [`TrialGuard::check_tool_call`] in the trial's current turn.
    pub fn check_tool_call(&self, trial: &Trial, call: &ToolCall) -> ToolCallVerdict {
        self.for_trial(trial).check_tool_call(&trial.turn(), call)
    }

    /// [`TrialGuard::check_response`] in the trial's current turn.
    pub fn check_response(
        &self,
        trial: &Trial,
        request: Option<&ModelRequest>,
        response: &ModelResponse,
    ) -> GuardedResponse {
        self.for_trial(trial)
            .check_response(&trial.turn(), request, response)
    }

    /// [`TrialGuard::files_to_restore`] in the trial's current turn.
    pub fn files_to_restore(
        &self,
        trial: &Trial,
        before: &Snapshot,
        after: &Snapshot,
    ) -> Vec<Restore> {
        self.for_trial(trial)
            .files_to_restore(&trial.turn(), before, after)
    }
}
