//! The tool shim: community actions, search, seeded lookup tools and file access confined
//! to a trial's agent half, served from the runner's process.
//!
//! A harness never talks to [`ShimService`] directly: the MCP server it launches
//! ([`mcp::run_stdio_relay`]) forwards every call over a local Unix socket
//! ([`socket::ShimSocketServer`]). The service looks the trial up in the shared
//! [`TrialRegistry`], runs the tool against the trial's agent half and records the call,
//! its effects and every labeled object it hands out in the trial's hidden trace. Result
//! texts carry only agent-visible content: never a label, an object id or a trace line.

mod actions;
mod files;
mod index;
pub mod mcp;
pub mod protocol;
mod search;
pub mod socket;
mod workspace;

pub use actions::SHARED_FILES_DIR;
pub use index::{tool_defs_for, tool_defs_with};
pub use socket::{ShimSocketError, ShimSocketServer};
pub use workspace::{materialize_agent_half, seeded_layout, MaterializeError, MEMORY_NOTES};

use crate::guard::{Guard, GuardMode, GuardPoint, ToolCallVerdict, TrialGuard};
use crate::registry::{Trial, TrialRegistry, TurnContext};
use crate::tools::{self, ToolDef};
use crate::trace::{Effect, TraceEvent};
use cosec_scenarios::{Action, Destination, ObjectId};
use dashmap::DashMap;
use index::TrialIndex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// What a tool call returns to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The text the agent sees.
    pub text: String,
    /// Whether the call failed (the text then says why).
    pub is_error: bool,
}

impl ToolResult {
    /// A failed call with its reason.
    pub fn error(text: impl Into<String>) -> Self {
        ToolResult {
            text: text.into(),
            is_error: true,
        }
    }
}

/// The shim service: one per run, shared by every trial (cheap to clone).
///
/// With a [`Guard`], `post_message`, `send_message`, `submit_workflow` and `write_file`
/// have denied spans of their content redacted before they take effect (the trace's
/// `Effect` records what happened), `share_file` and `copy_file` of protected data to
/// a denied destination are refused with a "blocked by policy" error before anything
/// is written, and every labeled object handed out becomes a guard candidate.
#[derive(Clone)]
pub struct ShimService {
    registry: TrialRegistry,
    guard: Option<Guard>,
    indexes: Arc<DashMap<String, Arc<TrialIndex>>>,
    trace_errors: Arc<DashMap<String, String>>,
}

/// What one tool execution produced besides its result: trace events to append after the
/// `ToolCall` line. Served objects are only recorded when the call succeeds, because a
/// failed call hands nothing out; effects are recorded either way, since they happened.
#[derive(Default)]
pub(crate) struct Outcome {
    effects: Vec<Effect>,
    served: Vec<ObjectId>,
}

impl Outcome {
    /// Notes an effect that has taken place.
    pub(crate) fn effect(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Notes labeled objects handed to the agent.
    pub(crate) fn served(&mut self, objects: impl IntoIterator<Item = ObjectId>) {
        for o in objects {
            if !self.served.contains(&o) {
                self.served.push(o);
            }
        }
    }
}

/// The context of one tool execution.
pub(crate) struct Call<'a> {
    /// The trial the call belongs to.
    pub trial: &'a Trial,
    /// The trial's guard, when the run has one.
    pub guard: Option<Arc<TrialGuard>>,
    /// The trial's cached index.
    pub index: &'a TrialIndex,
    /// The turn context in force when the call arrived.
    pub turn: TurnContext,
    /// The arguments (a JSON object).
    pub args: &'a Value,
}

impl Call<'_> {
    /// A required argument as text; non-string scalars and structures are accepted as
    /// their JSON text, because models sometimes send a payload as an object.
    pub(crate) fn arg(&self, name: &str) -> Result<String, String> {
        match self.args.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Null) | None => Err(format!("missing argument `{name}` (a string)")),
            Some(other) => Ok(other.to_string()),
        }
    }

    /// An outbound text after the guard (denied spans redacted; unchanged without one).
    pub(crate) fn guard_text(
        &self,
        text: String,
        action: Action,
        destination: &Destination,
    ) -> String {
        match &self.guard {
            Some(g) => {
                g.check_text(&self.turn, &text, action, destination, GuardPoint::Shim)
                    .text
            }
            None => text,
        }
    }

    /// Refuses a call that would carry what entered this turn to `destination`, where a
    /// label of it may not go (the guard's input layer; nothing without a guard).
    pub(crate) fn guard_turn_labels(
        &self,
        action: Action,
        destination: &Destination,
    ) -> Result<(), String> {
        let Some(g) = &self.guard else {
            return Ok(());
        };
        let labels = g.entered_labels();
        match g.labels_blocked(&self.turn, &labels, action, destination, GuardPoint::Shim) {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// The labels of the workspace file at tool path `key` as this turn holds it, or
    /// `None` without a guard's books (the shim then names objects by content).
    pub(crate) fn file_labels(&self, key: &str) -> Option<Vec<ObjectId>> {
        let g = self.guard.as_ref()?;
        g.has_workspace()
            .then(|| g.file_labels(key).into_iter().collect())
    }

    /// The bytes of the workspace file `key` (at `full`): from the guard's books when the
    /// file is as the turn's view wrote it, so that the platform's own reads are not
    /// mistaken for the agent's; from the disk otherwise.
    pub(crate) fn read_bytes(&self, key: &str, full: &std::path::Path) -> std::io::Result<Vec<u8>> {
        if let Some(bytes) = self.guard.as_ref().and_then(|g| g.view_bytes(key)) {
            return Ok(bytes);
        }
        std::fs::read(full)
    }

    /// Whether this turn may see `object` (a lookup observation): decided by label before
    /// it is served; always without a guard.
    pub(crate) fn may_serve(&self, object: &ObjectId) -> bool {
        self.guard
            .as_ref()
            .is_none_or(|g| g.may_read(&self.turn, object, GuardPoint::Shim))
    }

    /// Refuses a transfer of the file at `source` whose flow the guard denies: by the
    /// labels the file carries in this turn, then by the guard's transfer rules.
    pub(crate) fn guard_transfer(
        &self,
        source: &str,
        action: Action,
        destination: &Destination,
    ) -> Result<(), String> {
        let Some(g) = &self.guard else {
            return Ok(());
        };
        if g.has_workspace() {
            let labels = g.file_labels(source);
            if let Some(reason) =
                g.labels_blocked(&self.turn, &labels, action, destination, GuardPoint::Shim)
            {
                return Err(reason);
            }
        }
        match g.check_transfer(&self.turn, source, action, destination, GuardPoint::Shim) {
            ToolCallVerdict::Block { reason } => Err(reason),
            ToolCallVerdict::Allow | ToolCallVerdict::Rewrite(_) => Ok(()),
        }
    }
}

impl ShimService {
    /// A shim service over the run's trial registry, without a guard.
    pub fn new(registry: TrialRegistry) -> Self {
        Self::with_guard(registry, None)
    }

    /// A shim service whose actions go through `guard` (the run's guard, shared with
    /// the proxy), if any.
    pub fn with_guard(registry: TrialRegistry, guard: Option<Guard>) -> Self {
        ShimService {
            registry,
            guard,
            indexes: Arc::new(DashMap::new()),
            trace_errors: Arc::new(DashMap::new()),
        }
    }

    /// Runs one tool call of a trial and records it in the trial's trace.
    pub async fn call(&self, trial_id: &str, tool: &str, arguments: Value) -> ToolResult {
        let Some((trial, index)) = self.lookup(trial_id) else {
            return ToolResult::error(format!("unknown trial `{trial_id}`"));
        };
        let tool = tool.to_owned();
        let errors = Arc::clone(&self.trace_errors);
        let guard = self.guard.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let guard = guard.map(|g| g.for_trial(&trial));
            execute(&trial, &index, guard, &tool, arguments, &errors)
        })
        .await;
        joined.unwrap_or_else(|e| {
            ToolResult::error(format!("internal error in the tool service: {e}"))
        })
    }

    /// The tools offered to a trial (shim tools, then seeded tools, then
    /// `policy_blocked` when a guard enforces), or `None` for an unknown trial.
    pub fn tool_defs(&self, trial_id: &str) -> Option<Vec<ToolDef>> {
        let enforcing = self
            .guard
            .as_ref()
            .is_some_and(|g| g.mode() == GuardMode::Enforce);
        self.lookup(trial_id).map(|(_, index)| {
            let mut defs = index.tool_defs.clone();
            if enforcing && defs.iter().all(|d| d.name != tools::POLICY_BLOCKED) {
                defs.push(tools::policy_blocked_tool());
            }
            defs
        })
    }

    /// The first trace write failure of a trial, if any: the trial's evidence is then
    /// incomplete and the runner must not score it.
    pub fn trace_error(&self, trial_id: &str) -> Option<String> {
        self.trace_errors.get(trial_id).map(|e| e.value().clone())
    }

    /// Drops the cached index and error state of a finished trial.
    pub fn forget(&self, trial_id: &str) {
        self.indexes.remove(trial_id);
        self.trace_errors.remove(trial_id);
    }

    fn lookup(&self, trial_id: &str) -> Option<(Arc<Trial>, Arc<TrialIndex>)> {
        let trial = self.registry.get(trial_id)?;
        if let Some(index) = self.indexes.get(trial_id) {
            // A re-registered trial (a retry) brings new tiers: rebuild rather than serve stale.
            if Arc::ptr_eq(&index.agent, &trial.agent)
                && Arc::ptr_eq(&index.platform, &trial.platform)
            {
                return Some((trial, Arc::clone(index.value())));
            }
        }
        let index = Arc::new(TrialIndex::build(
            Arc::clone(&trial.agent),
            Arc::clone(&trial.platform),
        ));
        self.indexes.insert(trial_id.to_owned(), Arc::clone(&index));
        Some((trial, index))
    }
}

fn execute(
    trial: &Trial,
    index: &TrialIndex,
    guard: Option<Arc<TrialGuard>>,
    tool: &str,
    arguments: Value,
    trace_errors: &DashMap<String, String>,
) -> ToolResult {
    let turn = trial.turn();
    let mut outcome = Outcome::default();
    let result = if arguments.is_object() {
        let call = Call {
            trial,
            guard: guard.clone(),
            index,
            turn: turn.clone(),
            args: &arguments,
        };
        dispatch(&call, tool, &mut outcome)
    } else {
        Err("arguments must be a JSON object".to_owned())
    };
    let (text, is_error) = match result {
        Ok(text) => (text, false),
        Err(text) => (text, true),
    };
    let mut events = vec![TraceEvent::ToolCall {
        turn: turn.turn,
        community: turn.community.clone(),
        tool: tool.to_owned(),
        arguments,
        result: text.clone(),
        is_error,
    }];
    for effect in outcome.effects {
        events.push(TraceEvent::Effect {
            turn: turn.turn,
            community: turn.community.clone(),
            effect,
        });
    }
    if !is_error {
        if let Some(g) = &guard {
            g.note_entered(outcome.served.iter().cloned());
        }
        for object in outcome.served {
            if let Some(g) = &guard {
                g.mark_served(&object);
            }
            match index.labels.get(&object) {
                Some(label) => events.push(TraceEvent::ObjectServed {
                    turn: turn.turn,
                    object,
                    label: label.clone(),
                    via: tool.to_owned(),
                }),
                None => {
                    tracing::warn!(trial = %trial.id, %object, "served object has no platform label")
                }
            }
        }
    }
    for event in events {
        if let Err(e) = trial.trace.record(event) {
            tracing::error!(trial = %trial.id, error = %e, "tool shim could not write the trace");
            trace_errors
                .entry(trial.id.clone())
                .or_insert_with(|| e.to_string());
            return ToolResult::error(
                "internal error: the tool service could not record this call",
            );
        }
    }
    ToolResult { text, is_error }
}

/// The answer of `policy_blocked`: always an error naming the reason.
fn policy_blocked(call: &Call<'_>) -> String {
    let reason = call.arg("reason").unwrap_or_default();
    let reason = reason.trim();
    if reason.starts_with("blocked by policy") {
        reason.to_owned()
    } else if reason.is_empty() {
        "blocked by policy".to_owned()
    } else {
        format!("blocked by policy: {reason}")
    }
}

fn dispatch(call: &Call<'_>, tool: &str, out: &mut Outcome) -> Result<String, String> {
    match tool {
        tools::READ_FILE => files::read_file(call, out),
        tools::WRITE_FILE => files::write_file(call, out),
        tools::LIST_FILES => files::list_files(call),
        tools::COPY_FILE => files::copy_file(call, out),
        tools::POST_MESSAGE => actions::post_message(call, out),
        tools::SEND_MESSAGE => actions::send_message(call, out),
        tools::SHARE_FILE => actions::share_file(call, out),
        tools::SUBMIT_WORKFLOW => actions::submit_workflow(call, out),
        tools::SEARCH => search::search(call, out),
        tools::POLICY_BLOCKED => Err(policy_blocked(call)),
        other => match call.trial.agent.tools.iter().find(|t| t.name == other) {
            Some(seeded) => search::seeded_tool(call, seeded, out),
            None => Err(format!(
                "unknown tool `{other}`; available tools: {}",
                call.index
                    .tool_defs
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    }
}
