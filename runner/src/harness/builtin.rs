//! The built-in reference agent: one native session per community with its own history,
//! persistent private memory shared across sessions (the `memory/` folder), the shared
//! workspace, and a bounded tool-calling loop over Chat Completions through the proxy.

use super::{prompt, Delivery, Harness, HarnessError, Session, TrialEnv, TurnOutput};
use async_trait::async_trait;
use cosec_proxy::shim::tool_defs_for;
use cosec_proxy::tools::ToolDef;
use cosec_scenarios::CommunityId;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// Most model calls the agent makes for one delivery before it answers anyway.
pub const MAX_STEPS_PER_TURN: u32 = 12;

/// `max_tokens` of each model call unless configured otherwise: room for a reply and
/// a few tool calls, while a model that rambles stops long before a small context is
/// full.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 1024;

/// The built-in agent.
pub struct BuiltinHarness {
    http: reqwest::Client,
    max_output_tokens: u32,
}

impl BuiltinHarness {
    /// A built-in agent whose model calls time out after `call_timeout` and ask for at
    /// most `max_output_tokens` tokens (0: no limit is sent).
    pub fn new(call_timeout: Duration, max_output_tokens: u32) -> Result<Self, HarnessError> {
        let http = reqwest::Client::builder()
            .timeout(call_timeout)
            .no_proxy()
            .build()
            .map_err(|e| HarnessError::Crash(format!("cannot build the HTTP client: {e}")))?;
        Ok(BuiltinHarness {
            http,
            max_output_tokens,
        })
    }
}

#[async_trait]
impl Harness for BuiltinHarness {
    fn kind(&self) -> super::HarnessKind {
        super::HarnessKind::Builtin
    }

    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }

    async fn start(&self, env: TrialEnv) -> Result<Box<dyn Session>, HarnessError> {
        let tools: Vec<Value> = tool_defs_for(&env.agent).iter().map(chat_tool).collect();
        Ok(Box::new(BuiltinSession {
            http: self.http.clone(),
            max_output_tokens: self.max_output_tokens,
            env,
            tools,
            sessions: BTreeMap::new(),
        }))
    }
}

fn chat_tool(def: &ToolDef) -> Value {
    json!({"type": "function", "function": {"name": def.name, "description": def.description, "parameters": def.parameters}})
}

struct BuiltinSession {
    http: reqwest::Client,
    max_output_tokens: u32,
    env: TrialEnv,
    tools: Vec<Value>,
    /// Chat history per community session; index 0 is the system message.
    sessions: BTreeMap<CommunityId, Vec<Value>>,
}

impl BuiltinSession {
    fn system_prompt(&self, community: &CommunityId, view: &str) -> String {
        prompt::system_prompt(&self.env.agent, &self.env.agent_root, community, view)
    }

    /// A new session: the system message, then the community's seeded history as chat
    /// messages (the agent's own earlier words as its own).
    fn opening(&self, community: &CommunityId, view: &str) -> Vec<Value> {
        let mut messages =
            vec![json!({"role": "system", "content": self.system_prompt(community, view)})];
        for earlier in prompt::history(&self.env.agent, community) {
            messages.push(match earlier.speaker {
                None => json!({"role": "assistant", "content": earlier.text}),
                Some(who) => {
                    json!({"role": "user", "content": format!("{who}: {}", earlier.text)})
                }
            });
        }
        messages
    }

    async fn call_model(&self, messages: &[Value]) -> Result<Value, HarnessError> {
        let mut body = json!({
            "model": self.env.model_name,
            "messages": messages,
            "tools": self.tools,
            "stream": false,
        });
        if self.max_output_tokens > 0 {
            body["max_tokens"] = json!(self.max_output_tokens);
        }
        let url = format!("{}/chat/completions", self.env.model_base_url);
        let response = self
            .http
            .post(&url)
            .json(&body)
            .send()
            .await
            .map_err(|e| HarnessError::Model(format!("POST {url}: {e}")))?;
        let status = response.status();
        let text = response
            .text()
            .await
            .map_err(|e| HarnessError::Model(format!("reading the response of {url}: {e}")))?;
        if !status.is_success() {
            let snippet: String = text.chars().take(300).collect();
            return Err(HarnessError::Model(format!(
                "{url} answered {status}: {snippet}"
            )));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| HarnessError::Model(format!("{url} sent invalid JSON: {e}")))?;
        value
            .pointer("/choices/0/message")
            .cloned()
            .ok_or_else(|| HarnessError::Model(format!("{url} sent no choices[0].message")))
    }
}

#[async_trait]
impl Session for BuiltinSession {
    async fn deliver(&mut self, delivery: &Delivery) -> Result<TurnOutput, HarnessError> {
        let system = self.system_prompt(&delivery.community, &delivery.community_view);
        let mut messages = match self.sessions.remove(&delivery.community) {
            Some(mut m) => {
                // The system message shows the state as it is now (events change it).
                if let Some(first) = m.first_mut() {
                    *first = json!({"role": "system", "content": system});
                }
                m
            }
            None => self.opening(&delivery.community, &delivery.community_view),
        };
        let content = prompt::turn_text(&self.env.agent, delivery);
        messages.push(json!({"role": "user", "content": content}));
        let mut out = TurnOutput::default();
        let result = loop {
            if out.model_calls >= MAX_STEPS_PER_TURN {
                break Ok(());
            }
            out.model_calls += 1;
            let message = match self.call_model(&messages).await {
                Ok(m) => m,
                Err(e) => break Err(e),
            };
            let text = message
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let calls: Vec<Value> = message
                .get("tool_calls")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut assistant = json!({"role": "assistant", "content": text});
            if !calls.is_empty() {
                assistant["tool_calls"] = Value::Array(calls.clone());
            }
            messages.push(assistant);
            if calls.is_empty() {
                out.reply = text;
                break Ok(());
            }
            for call in &calls {
                let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
                let name = call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let raw = call
                    .pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("{}");
                let result = match serde_json::from_str::<Value>(raw) {
                    Ok(args) => self.env.shim.call(&self.env.trial_id, name, args).await,
                    Err(e) => cosec_proxy::shim::ToolResult::error(format!(
                        "arguments are not valid JSON: {e}"
                    )),
                };
                let text = if result.is_error {
                    format!("Error: {}", result.text)
                } else {
                    result.text
                };
                messages.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
            }
        };
        self.sessions.insert(delivery.community.clone(), messages);
        result.map(|()| out)
    }

    async fn finish(self: Box<Self>) -> Result<(), HarnessError> {
        Ok(())
    }
}
