//! Simulated models `sim:comply`, `sim:refuse` and `sim:ideal`.
//!
//! They play the trial's hidden reference plan through whatever tools the request
//! offers. They are stateless: progress within a turn is read back from the request
//! itself (harnesses re-send the whole conversation), by counting the tool calls the
//! assistant already made since the participant message that opened the turn.
//!
//! They only know what they were shown: a protected value that a plan step discloses
//! is written only if the model's own request holds it (in any message, tool call or
//! tool result, as the proxy forwarded it). Otherwise the step writes what the request
//! did hold in its place: the guard's placeholder when the input layer withheld the
//! content, else [`UNKNOWN`].

use crate::api::{Message, ModelRequest, ModelResponse, Role, ToolCall, ToolSpec, Usage};
use crate::guard::{merge, replace_spans, PLACEHOLDER};
use crate::layout::tool_path;
use crate::native::{self, NativeRole};
use crate::registry::{SimKind, SimScript, TurnContext};
use crate::tools;
use cosec_scenarios::play::{memory_note_path, PlanKind};
use cosec_scenarios::verifier::{PlanAction, PlanStep, ReferencePlan};
use cosec_scenarios::{AgentTier, Namespace};
use cosec_text::{Haystack, Needle};
use serde_json::{json, Value};
use std::path::Path;

/// What `sim:refuse` says to everything.
pub const REFUSAL: &str = "I'm sorry, but I can't help with that.";

/// What a simulated model writes for a protected value it was never shown.
pub const UNKNOWN: &str = "(not known to me)";

/// Tool-call argument keys that name a place rather than carry written content.
const PLACE_KEYS: &[&str] = &["path", "from", "to", "community", "person", "name"];

/// What the model was shown: every message, tool call and tool result of the request.
struct Shown {
    context: Haystack,
    placeholder: bool,
}

impl Shown {
    fn of(request: &ModelRequest) -> Self {
        let mut text = String::new();
        for m in &request.messages {
            text.push_str(&m.content);
            text.push('\n');
            for c in &m.tool_calls {
                text.push_str(&c.arguments);
                text.push('\n');
            }
        }
        Shown {
            placeholder: text.contains(PLACEHOLDER),
            context: Haystack::plain(&text),
        }
    }

    /// `text` with every protected value the request does not hold replaced by what
    /// the request held in its place.
    fn faithful(&self, text: &str, values: &[String]) -> String {
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        let written = Haystack::plain(text);
        for value in values {
            let Some(needle) = Needle::new(value) else {
                continue;
            };
            if self.context.contains(&needle) {
                continue;
            }
            spans.extend(written.find_all(&needle).into_iter().map(|m| m.source));
        }
        if spans.is_empty() {
            return text.to_owned();
        }
        let stand_in = if self.placeholder {
            PLACEHOLDER
        } else {
            UNKNOWN
        };
        replace_spans(text, &merge(spans), stand_in)
    }

    /// The same for every string inside a tool call's arguments, except those naming
    /// a place (a path, a community, a person, a workflow): a model names places it
    /// was told of, and a value in a file name is not a disclosure it writes.
    fn faithful_json(&self, v: &mut Value, values: &[String]) {
        match v {
            Value::String(s) => *s = self.faithful(s, values),
            Value::Array(items) => items.iter_mut().for_each(|i| self.faithful_json(i, values)),
            Value::Object(map) => map
                .iter_mut()
                .filter(|(k, _)| !PLACE_KEYS.contains(&k.as_str()))
                .for_each(|(_, i)| self.faithful_json(i, values)),
            _ => {}
        }
    }
}

/// What a simulated model says to a trusted event notice.
pub const NOTICE_ACK: &str = "Noted, thanks for the update.";

/// The steps `kind` takes in `turn`, in plan order.
pub fn steps_for(kind: SimKind, plan: &ReferencePlan, turn: u8) -> Vec<&PlanStep> {
    let plan_kind = match kind {
        SimKind::Comply => PlanKind::Compliant,
        SimKind::Ideal => PlanKind::Ideal,
        SimKind::Refuse => return Vec::new(),
    };
    plan.steps_in(plan_kind, turn).collect()
}

/// Index of the message that opened the current turn (the last real user message).
fn turn_start(messages: &[Message]) -> usize {
    messages
        .iter()
        .rposition(|m| m.role == Role::User && !native::is_harness_context(&m.content))
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

/// Finds an offered shim tool by its plain name. The MCP-served copy wins
/// (`mcp__cosec__post_message`, `cosec__post_message`, or namespace `mcp__cosec`), since a
/// native harness may have an unrelated tool of the same plain name; the built-in agent
/// offers the shim's tools unprefixed.
fn offered<'a>(request: &'a ModelRequest, name: &str) -> Option<&'a ToolSpec> {
    let suffix = format!("__{name}");
    request
        .tools
        .iter()
        .find(|t| t.name.ends_with(&suffix))
        .or_else(|| {
            request
                .tools
                .iter()
                .find(|t| t.name == name && t.namespace.is_some())
        })
        .or_else(|| request.tools.iter().find(|t| t.name == name))
}

/// The harness's own file and shell tools, when it offers them: native harnesses write
/// files and copy them with their own tools (so the guard sees native tool calls), and
/// reach the community through the MCP shim.
struct NativeTools<'a> {
    /// A shell tool and the argument it takes its command under.
    shell: Option<(&'a ToolSpec, &'static str)>,
    /// A file-writing tool that takes `path` and `content`.
    write: Option<&'a ToolSpec>,
}

fn native_tools(request: &ModelRequest) -> NativeTools<'_> {
    // The shim's own `write_file` is native only when the shim's tools also come over MCP;
    // for the built-in agent the unprefixed `write_file` is the shim's.
    let mcp_shim = request
        .tools
        .iter()
        .any(|t| t.namespace.is_some() || t.name.contains("__"));
    // A harness's own tools come unprefixed; the table's order says which one to prefer.
    let own = |role: NativeRole| {
        native::names(role).iter().filter_map(|name| {
            request
                .tools
                .iter()
                .find(|t| t.name == *name && t.namespace.is_none())
        })
    };
    let shell = own(NativeRole::Shell)
        .next()
        .map(|t| (t, native::command_key(&t.parameters)));
    let write = own(NativeRole::FileWrite).find(|t| {
        (mcp_shim || t.name != tools::WRITE_FILE)
            && native::declares(&t.parameters, "path")
            && native::declares(&t.parameters, "content")
    });
    NativeTools { shell, write }
}

fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// A call that carries out one plan action: an offered tool and its arguments.
fn tool_for(
    action: &PlanAction,
    agent: &AgentTier,
    agent_root: &Path,
    request: &ModelRequest,
    turn: u8,
    index: usize,
) -> Option<(ToolSpec, Value)> {
    let native = native_tools(request);
    let shim = |name: &str, args: Value| offered(request, name).map(|spec| (spec.clone(), args));
    let write = |rel: String, content: &str| -> Option<(ToolSpec, Value)> {
        let abs = agent_root.join(&rel);
        if let Some(spec) = native.write {
            return Some((
                spec.clone(),
                json!({"path": abs.display().to_string(), "content": content}),
            ));
        }
        if let Some((spec, arg)) = native.shell {
            let dir = abs.parent().map(quoted).unwrap_or_else(|| "'.'".to_owned());
            let cmd = format!(
                "mkdir -p {dir} && cat > {} <<'COSEC_EOF'\n{content}\nCOSEC_EOF",
                quoted(&abs)
            );
            return Some((spec.clone(), json!({ arg: cmd })));
        }
        shim(tools::WRITE_FILE, json!({"path": rel, "content": content}))
    };
    match action {
        PlanAction::Reply { .. } => None,
        PlanAction::ReadFile { namespace, path } => shim(
            tools::READ_FILE,
            json!({"path": tool_path(namespace, path)}),
        ),
        PlanAction::WriteFile {
            namespace,
            path,
            content,
        } => write(tool_path(namespace, path), content),
        PlanAction::Remember { text } => write(
            tool_path(&Namespace::Memory, &memory_note_path(turn, index)),
            text,
        ),
        PlanAction::CopyFile { .. } => {
            let (from, to) = action.copy_tool_paths()?;
            if let Some((spec, arg)) = native.shell {
                let (src, dst) = (agent_root.join(&from), agent_root.join(&to));
                let dir = dst.parent().map(quoted).unwrap_or_else(|| "'.'".to_owned());
                let cmd = format!("mkdir -p {dir} && cp {} {}", quoted(&src), quoted(&dst));
                return Some((spec.clone(), json!({ arg: cmd })));
            }
            shim(tools::COPY_FILE, json!({"from": from, "to": to}))
        }
        PlanAction::PostMessage { community, text } => shim(
            tools::POST_MESSAGE,
            json!({"community": community.as_str(), "text": text}),
        ),
        PlanAction::SendMessage { person, text } => shim(
            tools::SEND_MESSAGE,
            json!({"person": person.as_str(), "text": text}),
        ),
        PlanAction::ShareFile {
            namespace,
            path,
            community,
        } => shim(
            tools::SHARE_FILE,
            json!({"path": tool_path(namespace, path), "community": community.as_str()}),
        ),
        PlanAction::SubmitWorkflow { name, payload } => shim(
            tools::SUBMIT_WORKFLOW,
            json!({"name": name, "payload": payload}),
        ),
        PlanAction::Search { query } => shim(tools::SEARCH, json!({"query": query})),
        PlanAction::CallTool { tool, argument } => {
            let arg = agent
                .tools
                .iter()
                .find(|t| &t.name == tool)
                .map_or("query", |t| t.argument.as_str());
            shim(tool, json!({ arg: argument }))
        }
    }
}

fn rough_tokens(text: &str) -> u64 {
    u64::try_from(text.len() / 4 + 1).unwrap_or(u64::MAX)
}

/// The simulated model's answer to one request. `agent_root` is where the trial's
/// agent half lives (native file tools take absolute paths under it).
pub fn respond(
    kind: SimKind,
    script: &SimScript,
    agent: &AgentTier,
    agent_root: &Path,
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
            cached_input_tokens: 0,
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
    let steps = steps_for(kind, &script.plan, turn.turn);
    let done = calls_made(&request.messages);
    let shown = Shown::of(request);
    let values = &script.protected_values;
    // Steps whose tool is not offered are skipped: a model can only use what it is given.
    let pending = steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| tool_for(&s.action, agent, agent_root, request, turn.turn, i))
        .nth(done);
    if let Some((spec, mut args)) = pending {
        shown.faithful_json(&mut args, values);
        let arguments = args.to_string();
        return ModelResponse {
            text: String::new(),
            usage: Usage {
                input_tokens,
                output_tokens: rough_tokens(&arguments),
                cached_input_tokens: 0,
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
        shown.faithful(&text.join("\n\n"), values)
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
        let script = trial.sim.as_deref().ok_or_else(|| {
            format!(
                "trial `{}` has no reference plan for {}",
                trial.id,
                kind.model_name()
            )
        })?;
        Ok(respond(
            kind,
            script,
            &trial.agent,
            &trial.agent_root,
            turn,
            request,
        ))
    }
}
