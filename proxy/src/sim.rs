//! Simulated models `sim:comply`, `sim:refuse` and `sim:ideal`.
//!
//! They play the trial's hidden reference plan through whatever tools the request
//! offers. They are stateless: progress within a turn is read back from the request
//! itself (harnesses re-send the whole conversation), by counting the tool calls the
//! assistant already made since the participant message that opened the turn.

use crate::api::{Message, ModelRequest, ModelResponse, Role, ToolCall, ToolSpec, Usage};
use crate::layout::tool_path;
use crate::registry::{SimKind, TurnContext};
use crate::tools;
use cosec_scenarios::verifier::{PlanAction, PlanStep, ReferencePlan, StepTaker};
use cosec_scenarios::AgentTier;
use serde_json::{json, Value};

/// OpenClaw appends tool-result context as a user message; it is not a new turn.
const INTERNAL_CONTEXT_MARKER: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/// What `sim:refuse` says to everything.
pub const REFUSAL: &str = "I'm sorry, but I can't help with that.";

/// What a simulated model says to a trusted event notice.
pub const NOTICE_ACK: &str = "Noted, thanks for the update.";

/// The steps `kind` takes in `turn`, in plan order.
pub fn steps_for(kind: SimKind, plan: &ReferencePlan, turn: u8) -> Vec<&PlanStep> {
    plan.steps
        .iter()
        .filter(|s| s.turn == turn)
        .filter(|s| match kind {
            SimKind::Comply => s.taker != StepTaker::IdealOnly,
            SimKind::Ideal => s.taker != StepTaker::CompliantOnly,
            SimKind::Refuse => false,
        })
        .collect()
}

/// Index of the message that opened the current turn (the last real user message).
fn turn_start(messages: &[Message]) -> usize {
    messages
        .iter()
        .rposition(|m| m.role == Role::User && !m.content.contains(INTERNAL_CONTEXT_MARKER))
        .unwrap_or(0)
}

/// Tool calls the assistant already made in the current turn.
fn calls_made(messages: &[Message]) -> usize {
    messages
        .iter()
        .skip(turn_start(messages))
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.tool_calls.len())
        .sum()
}

/// Finds an offered tool by its plain name, accepting MCP prefixes and namespaces
/// (`mcp__cosec__post_message`, `cosec__post_message`, namespace `mcp__cosec`).
fn offered<'a>(request: &'a ModelRequest, name: &str) -> Option<&'a ToolSpec> {
    let suffix = format!("__{name}");
    request
        .tools
        .iter()
        .find(|t| t.name == name && t.namespace.is_none())
        .or_else(|| request.tools.iter().find(|t| t.name == name))
        .or_else(|| request.tools.iter().find(|t| t.name.ends_with(&suffix)))
}

/// The plain tool name and arguments that carry out one plan action.
fn tool_for(
    action: &PlanAction,
    agent: &AgentTier,
    turn: u8,
    index: usize,
) -> Option<(String, Value)> {
    let (name, args) = match action {
        PlanAction::Reply { .. } => return None,
        PlanAction::ReadFile { namespace, path } => (
            tools::READ_FILE,
            json!({"path": tool_path(namespace, path)}),
        ),
        PlanAction::WriteFile {
            namespace,
            path,
            content,
        } => (
            tools::WRITE_FILE,
            json!({"path": tool_path(namespace, path), "content": content}),
        ),
        PlanAction::CopyFile {
            from_namespace,
            from_path,
            to_namespace,
            to_path,
        } => (
            tools::COPY_FILE,
            json!({"from": tool_path(from_namespace, from_path), "to": tool_path(to_namespace, to_path)}),
        ),
        PlanAction::PostMessage { community, text } => (
            tools::POST_MESSAGE,
            json!({"community": community.as_str(), "text": text}),
        ),
        PlanAction::SendMessage { person, text } => (
            tools::SEND_MESSAGE,
            json!({"person": person.as_str(), "text": text}),
        ),
        PlanAction::ShareFile {
            namespace,
            path,
            community,
        } => (
            tools::SHARE_FILE,
            json!({"path": tool_path(namespace, path), "community": community.as_str()}),
        ),
        PlanAction::SubmitWorkflow { name, payload } => (
            tools::SUBMIT_WORKFLOW,
            json!({"name": name, "payload": payload}),
        ),
        PlanAction::Search { query } => (tools::SEARCH, json!({"query": query})),
        PlanAction::CallTool { tool, argument } => {
            let arg = agent
                .tools
                .iter()
                .find(|t| &t.name == tool)
                .map_or("query", |t| t.argument.as_str());
            return Some((tool.clone(), json!({ arg: argument })));
        }
        PlanAction::Remember { text } => (
            tools::WRITE_FILE,
            json!({"path": format!("memory/note-turn{turn}-{index}.md"), "content": text}),
        ),
    };
    Some((name.to_owned(), args))
}

fn rough_tokens(text: &str) -> u64 {
    u64::try_from(text.len() / 4 + 1).unwrap_or(u64::MAX)
}

/// The simulated model's answer to one request.
pub fn respond(
    kind: SimKind,
    plan: &ReferencePlan,
    agent: &AgentTier,
    turn: &TurnContext,
    request: &ModelRequest,
) -> ModelResponse {
    let input_tokens = request
        .messages
        .iter()
        .map(|m| rough_tokens(&m.content))
        .sum();
    let reply = |text: String| ModelResponse {
        usage: Usage {
            input_tokens,
            output_tokens: rough_tokens(&text),
        },
        text,
        tool_calls: Vec::new(),
    };
    if turn.requester.is_none() {
        return reply(NOTICE_ACK.to_owned());
    }
    if kind == SimKind::Refuse {
        return reply(REFUSAL.to_owned());
    }
    let steps = steps_for(kind, plan, turn.turn);
    let calls: Vec<(String, Value)> = steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| tool_for(&s.action, agent, turn.turn, i))
        .collect();
    let done = calls_made(&request.messages);
    // Steps whose tool is not offered are skipped: a model can only use what it is given.
    let pending = calls
        .iter()
        .filter_map(|(name, args)| offered(request, name).map(|spec| (spec, args)))
        .nth(done);
    if let Some((spec, args)) = pending {
        let arguments = args.to_string();
        return ModelResponse {
            text: String::new(),
            usage: Usage {
                input_tokens,
                output_tokens: rough_tokens(&arguments),
            },
            tool_calls: vec![ToolCall {
                id: format!("call_t{}_{}", turn.turn, done),
                name: spec.name.clone(),
                namespace: spec.namespace.clone(),
                arguments,
            }],
        };
    }
    let text: Vec<&str> = steps
        .iter()
        .filter_map(|s| match &s.action {
            PlanAction::Reply { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    reply(if text.is_empty() {
        "Done.".to_owned()
    } else {
        text.join("\n\n")
    })
}

/// The proxy backend that answers trials routed to a simulated model.
pub struct SimBackend;

impl crate::server::ModelBackend for SimBackend {
    fn respond(
        &self,
        trial: &crate::registry::Trial,
        turn: &TurnContext,
        request: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        let crate::registry::ModelRoute::Sim(kind) = trial.model else {
            return Err(format!(
                "trial `{}` is not routed to a simulated model",
                trial.id
            ));
        };
        let plan = trial.sim_plan.as_deref().ok_or_else(|| {
            format!(
                "trial `{}` has no reference plan for {}",
                trial.id,
                kind.model_name()
            )
        })?;
        Ok(respond(kind, plan, &trial.agent, turn, request))
    }
}
