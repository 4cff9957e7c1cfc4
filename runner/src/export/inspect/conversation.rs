//! A trial's visible half as Inspect chat messages: the participants' turns as the
//! sample's input, and the model calls' requests (as the model saw them, guardrail
//! applied) and responses (as the agent received them, guard applied) as its messages.
//! Only deliveries and model calls are read: the trace's labels, oracle answers and
//! guard decisions never reach the export.

use cosec_proxy::api::{Message, ModelResponse, Role, ToolCall};
use cosec_proxy::trace::{TraceEvent, TraceLine};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The conversation of one trial in Inspect's message shapes.
#[derive(Debug, Default)]
pub struct Conversation {
    /// The participants' messages, in delivery order (`ChatMessageUser`).
    pub input: Vec<Value>,
    /// Everything the model was sent and answered, each message once, in call order.
    pub messages: Vec<Value>,
    /// The last assistant message (the sample's output).
    pub last_answer: Option<Value>,
}

/// One session the harness kept: the last request it sent and whether the answer to
/// it was already emitted.
struct Thread {
    request: Vec<Message>,
    answered: bool,
}

/// Builds the conversation from a trial's trace lines; `model` names the answers.
pub fn conversation(trace: &[TraceLine], model: &str) -> Conversation {
    let mut out = Conversation::default();
    let mut threads: Vec<Thread> = Vec::new();
    let mut tool_names: BTreeMap<String, String> = BTreeMap::new();
    for line in trace {
        match &line.event {
            TraceEvent::Delivery {
                turn,
                community,
                speaker: Some(speaker),
                event_notice: false,
                text,
                ..
            } => out.input.push(json!({
                "role": "user",
                "content": text,
                "metadata": {"turn": turn, "community": community.as_str(), "speaker": speaker.as_str()},
            })),
            TraceEvent::ModelCall {
                request, response, ..
            } => {
                let new = continue_thread(&mut threads, &request.messages, response.is_some());
                for m in new {
                    out.messages.push(message(m, model, &mut tool_names));
                }
                if let Some(r) = response {
                    let answer = answer(r, model, &mut tool_names);
                    out.messages.push(answer.clone());
                    out.last_answer = Some(answer);
                }
            }
            _ => {}
        }
    }
    out
}

/// The messages of `request` the model had not seen yet: harnesses resend their whole
/// history, so a request continuing a session repeats that session's last request and,
/// next, the answer already emitted for it. A session whose system prompt changed (the
/// agent's view after a community event) continues with its new system prompt. A
/// request sharing nothing opens a new session.
fn continue_thread<'a>(
    threads: &mut Vec<Thread>,
    request: &'a [Message],
    answered: bool,
) -> Vec<&'a Message> {
    let best = threads
        .iter()
        .enumerate()
        .map(|(i, t)| (i, common_prefix(&t.request, request)))
        .max_by_key(|(_, n)| *n)
        // Sessions of different communities differ in their system prompts only; one
        // continues another only where they share a message after it.
        .filter(|(_, n)| request[..*n].iter().any(|m| !is_system(m)));
    match best {
        Some((i, shared)) => {
            let thread = &mut threads[i];
            let mut start = shared;
            let echoes_answer = shared == thread.request.len()
                && thread.answered
                && request
                    .get(shared)
                    .is_some_and(|m| m.role == Role::Assistant);
            if echoes_answer {
                start += 1;
            }
            let changed_system = thread
                .request
                .iter()
                .zip(request)
                .take(shared)
                .filter(|(old, new)| old != new)
                .map(|(_, new)| new);
            let new = changed_system.chain(request.iter().skip(start)).collect();
            thread.request = request.to_vec();
            thread.answered = answered;
            new
        }
        None => {
            threads.push(Thread {
                request: request.to_vec(),
                answered,
            });
            request.iter().collect()
        }
    }
}

/// How many leading messages two requests share; system prompts count as shared
/// whatever they say (a changed one is emitted apart).
fn common_prefix(a: &[Message], b: &[Message]) -> usize {
    a.iter()
        .zip(b)
        .take_while(|(x, y)| x == y || (is_system(x) && is_system(y)))
        .count()
}

fn is_system(m: &Message) -> bool {
    matches!(m.role, Role::System | Role::Developer)
}

fn message(m: &Message, model: &str, tool_names: &mut BTreeMap<String, String>) -> Value {
    match m.role {
        Role::System | Role::Developer => json!({"role": "system", "content": m.content}),
        Role::User => json!({"role": "user", "content": m.content}),
        Role::Assistant => assistant(&m.content, &m.tool_calls, model, tool_names),
        Role::Tool => {
            let id = m.tool_call_id.clone().unwrap_or_default();
            json!({
                "role": "tool",
                "content": m.content,
                "tool_call_id": m.tool_call_id,
                "function": tool_names.get(&id),
            })
        }
    }
}

fn answer(r: &ModelResponse, model: &str, tool_names: &mut BTreeMap<String, String>) -> Value {
    assistant(&r.text, &r.tool_calls, model, tool_names)
}

fn assistant(
    text: &str,
    calls: &[ToolCall],
    model: &str,
    tool_names: &mut BTreeMap<String, String>,
) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|c| {
            tool_names.insert(c.id.clone(), c.name.clone());
            tool_call(c)
        })
        .collect();
    json!({
        "role": "assistant",
        "content": text,
        "source": "generate",
        "model": model,
        "tool_calls": if calls.is_empty() { Value::Null } else { Value::Array(calls) },
    })
}

/// Inspect keeps arguments as an object; arguments that are not one stay readable
/// under `parse_error`.
fn tool_call(c: &ToolCall) -> Value {
    let (arguments, parse_error) = match serde_json::from_str::<Value>(&c.arguments) {
        Ok(Value::Object(map)) => (map, None),
        Ok(other) => {
            let mut map = Map::new();
            map.insert("value".to_owned(), other);
            (map, None)
        }
        Err(_) if c.arguments.trim().is_empty() => (Map::new(), None),
        Err(e) => (
            Map::new(),
            Some(format!("arguments are not JSON ({e}): {}", c.arguments)),
        ),
    };
    json!({
        "id": c.id,
        "function": c.name,
        "arguments": arguments,
        "type": "function",
        "parse_error": parse_error,
    })
}
