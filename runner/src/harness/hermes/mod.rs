//! The Hermes Agent adapter: one Hermes ACP server per trial inside the trial's sandbox
//! (bubblewrap or Docker), started by the first delivery and stopped when the trial
//! ends ([`acp`]); each delivery is one `session/prompt` to it. The server runs the
//! agent `hermes chat -Q --yolo` would build (`acp_server.py`: platform `cli`, the
//! `hermes-cli` toolset with the MCP tools, `agent.max_turns` as step budget, no edit
//! approvals), so a delivery sees the same system prompt, tools and budget as a
//! one-shot CLI run, without Python's start-up every time. A delivery that misses the
//! turn timeout, or a server that breaks the protocol, ends the server and fails the
//! attempt as a crash.
//!
//! Native state, per trial: `HOME` is the trial's harness home and `HERMES_HOME` is
//! `<harness home>/.hermes`, holding the generated `config.yaml` (the proxy as the only
//! provider, `custom` with the trial's base URL and model; the shim relay as MCP server
//! `cosec`, so its tools reach the model as `mcp__cosec__TOOL`), Hermes's SQLite session
//! store `state.db`, its `memories/`, its logs and the server script.
//!
//! Sessions: one ACP session per community, opened by the community's first delivery
//! (`session/new` in the agent half); sessions are never shared between communities.
//! Hermes stores each under an internal id that moves when it compresses a long session;
//! the server says so (`session_info_update`) and the adapter follows it.
//!
//! Seeded state: the community's seeded session history opens that session's first
//! message ("Earlier in this community:"). Seeded private memory goes into Hermes's own
//! memory store, `memories/MEMORY.md` (entries separated by `§` lines), which Hermes
//! puts into the system prompt of every session it opens and edits with its `memory`
//! tool; the shim's copy in the agent half's `memory/notes.md` stays as well, so the
//! files the agent sees are the same under every harness.
//!
//! Evidence: after every delivery the adapter exports the session (`hermes sessions
//! export --session-id ID -`, a one-shot run in the same sandbox) and records the
//! messages the turn added (tool calls with their arguments, tool results, replies) in
//! the hidden trace as `HarnessOutput`, with the server's updates of the turn
//! (`events`), its stderr during the turn and every change Hermes made to `MEMORY.md`.
//! The reply is the turn's last assistant message without tool calls. The ACP server
//! reports a failed model call as the turn's text; a turn whose export holds no
//! assistant message is therefore a failure, as a failed CLI run's is.
//!
//! Quirks handled: `GET {base}/../api/v1/models` and similar probes are answered (404
//! is fine) by the proxy; no tirith download, lazy pip installs, update checks, session
//! titles or background memory and skill reviews at run time (`config.yaml`). Hermes
//! runs in yolo mode (no approval prompts for its terminal): that is safe only because
//! the whole process runs inside the sandbox.

pub mod acp;
pub mod text;

use super::native::lines::{self, JsonLines, LineError};
use super::native::turn::{tail, Evidence, STDERR_TAIL};
use super::native::{self, Adapter, Native, NativeHarness, NativeTrial, DUMMY_KEY};
use super::{Delivery, HarnessError, Session, TrialEnv, TurnOutput, ViewedStore};
use crate::sandbox::SandboxSpec;
use acp::{Acp, AcpError, Prompted};
use async_trait::async_trait;
use cosec_scenarios::CommunityId;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::time::Instant;

/// The ACP server script in `HERMES_HOME` (see `acp_server.py`).
const ACP_SERVER: &str = "cosec-acp-server.py";

/// Runs Hermes Agent as a CoSec harness.
pub type HermesHarness = NativeHarness<Hermes>;

/// What sets Hermes Agent apart (see [`HermesHarness`]).
pub struct Hermes;

#[async_trait]
impl Adapter for Hermes {
    const KIND: crate::harness::HarnessKind = crate::harness::HarnessKind::Hermes;

    /// `HOME` is the harness home, with `HERMES_HOME` inside it, and no terminal colours
    /// (the install is the venv and the real prefix of its Python).
    fn vars(env: &TrialEnv) -> Vec<(String, String)> {
        let home = HermesHarness::hermes_home(env);
        let mut vars = native::home_vars(env, "HERMES_HOME", &home);
        let own = [
            ("OPENAI_API_KEY", DUMMY_KEY),
            ("TERM", "dumb"),
            ("NO_COLOR", "1"),
        ];
        vars.extend(own.map(|(k, v)| (k.to_owned(), v.to_owned())));
        vars
    }

    async fn start(trial: NativeTrial) -> Result<Box<dyn Session>, HarnessError> {
        let NativeTrial { shared, spec, env } = trial;
        let Some(socket) = env.shim_socket.clone() else {
            return Err(HarnessError::Crash(
                "hermes: no shim socket; a native harness reaches the community tools only through it".into(),
            ));
        };
        let home = HermesHarness::hermes_home(&env);
        let memories = home.join("memories");
        std::fs::create_dir_all(&memories).map_err(|e| Self::crash("create", &memories, e))?;
        let memory = text::memory_md(&env.agent);
        if let Some(seeded) = &memory {
            let path = memories.join("MEMORY.md");
            std::fs::write(&path, seeded).map_err(|e| Self::crash("write", &path, e))?;
        }
        let config = text::config_yaml(
            &env.model_base_url,
            &env.model_name,
            &shared.relay,
            Some((&socket, &env.trial_id)),
            memory.as_deref().map_or(0, str::len),
        )
        .map_err(|e| HarnessError::Crash(format!("hermes: config.yaml: {e}")))?;
        let path = home.join("config.yaml");
        std::fs::write(&path, config).map_err(|e| Self::crash("write", &path, e))?;
        let path = home.join(ACP_SERVER);
        std::fs::write(&path, include_str!("acp_server.py"))
            .map_err(|e| Self::crash("write", &path, e))?;
        Ok(Box::new(HermesSession {
            shared,
            env,
            spec,
            home,
            server: None,
            sessions: BTreeMap::new(),
            memory: memory.unwrap_or_default(),
        }))
    }
}

impl HermesHarness {
    /// `HERMES_HOME` of a trial: Hermes's config, `state.db`, `memories/` and logs.
    pub fn hermes_home(env: &TrialEnv) -> PathBuf {
        env.harness_home.join(".hermes")
    }
}

/// A community's Hermes session.
struct CommunitySession {
    /// The ACP server's handle for it.
    acp: String,
    /// Hermes's internal session id, which its store and export use (the ACP handle
    /// at first; it moves when Hermes compresses a long session).
    id: String,
    /// How many of its messages are already in the trace.
    seen: usize,
}

struct HermesSession {
    shared: Arc<Native>,
    env: TrialEnv,
    spec: SandboxSpec,
    home: PathBuf,
    /// The trial's ACP server, started by the first delivery.
    server: Option<Acp>,
    sessions: BTreeMap<CommunityId, CommunitySession>,
    /// `MEMORY.md` as last recorded.
    memory: String,
}

impl HermesSession {
    /// The running ACP server, started (and introduced to) when there is none.
    async fn server(&mut self, deadline: Instant) -> Result<&mut Acp, HarnessError> {
        if self.server.is_none() {
            let python = self.shared.installed.entry.with_file_name("python");
            let args = [self.home.join(ACP_SERVER).into_os_string()];
            let live = self
                .shared
                .sandbox
                .spawn(&self.spec, &python, &args)
                .await
                .map_err(|e| {
                    HarnessError::Crash(format!(
                        "cannot start hermes's ACP server in the {} sandbox: {e}",
                        self.shared.sandbox.name()
                    ))
                })?;
            let lines = JsonLines::new(live);
            let stderr = lines.stderr().clone();
            let acp = Acp::initialize(lines, deadline).await.map_err(|e| {
                HarnessError::Crash(format!(
                    "hermes's ACP server did not start ({e}); stderr tail:\n{}",
                    tail(&stderr.since(0), STDERR_TAIL)
                ))
            })?;
            self.server = Some(acp);
        }
        self.server
            .as_mut()
            .ok_or_else(|| HarnessError::Crash("hermes's ACP server is gone".to_owned()))
    }

    /// Sends the delivery's message to its community's session and follows the turn.
    async fn prompt(&mut self, d: &Delivery, deadline: Instant) -> Result<Prompted, AcpError> {
        let first = !self.sessions.contains_key(&d.community);
        let message = text::user_input(&self.env, d, first);
        let cwd = self.env.agent_root.clone();
        let server = self
            .server
            .as_mut()
            .ok_or(AcpError::Line(LineError::Ended))?;
        if first {
            let acp = server.new_session(&cwd, deadline).await?;
            let session = CommunitySession {
                id: acp.clone(),
                acp,
                seen: 0,
            };
            self.sessions.insert(d.community.clone(), session);
        }
        let acp = self
            .sessions
            .get(&d.community)
            .map(|s| s.acp.clone())
            .unwrap_or_default();
        server.prompt(&acp, &message, deadline).await
    }

    /// The session's messages from Hermes's own store, or why they are unavailable.
    /// (`&mut`: the live server makes the session `Send` but not `Sync`, so no shared
    /// borrow of it may be held across an await.)
    async fn export(&mut self, id: &str) -> Result<Vec<serde_json::Value>, String> {
        let args = ["sessions", "export", "--session-id", id, "-"].map(OsString::from);
        let entry = &self.shared.installed.entry;
        let export = self
            .shared
            .export(Hermes::NAME, &self.spec, entry, &args)
            .await?;
        Ok(text::exported_messages(&export))
    }

    /// Records `MEMORY.md` if Hermes changed it during the delivery.
    fn record_memory(&mut self, evidence: &Evidence<'_>) -> Result<(), HarnessError> {
        let now = std::fs::read_to_string(self.home.join("memories/MEMORY.md")).unwrap_or_default();
        if now != self.memory {
            evidence.record("session_file:memories/MEMORY.md", &now)?;
            self.memory = now;
        }
        Ok(())
    }
}

#[async_trait]
impl Session for HermesSession {
    /// Hermes's memory store holds the seeded private memory, which Hermes puts into the
    /// system prompt of every session: it is viewed like the agent's own memory file.
    fn viewed_stores(&self) -> Vec<ViewedStore> {
        let seeded = text::memory_record(&self.env.agent)
            .map(|r| BTreeMap::from([("MEMORY.md".to_owned(), r)]))
            .unwrap_or_default();
        vec![ViewedStore {
            prefix: "@hermes-memories".to_owned(),
            dir: self.home.join("memories"),
            seeded,
        }]
    }

    async fn deliver(&mut self, d: &Delivery) -> Result<TurnOutput, HarnessError> {
        let deadline = lines::deadline(self.shared.turn_timeout);
        // The trace is held apart from `self`, which the memory record updates.
        let trace = Arc::clone(&self.env.trace);
        let evidence = Evidence {
            trace: &trace,
            delivery: d,
        };
        // A delivery that starts the process keeps its start-up in the evidence too.
        let starting = self.server.is_none();
        let stderr = self.server(deadline).await?.stderr().clone();
        let mark = if starting { 0 } else { stderr.mark() };
        let prompted = self.prompt(d, deadline).await;
        let stderr_tail = tail(&stderr.since(mark), STDERR_TAIL);
        evidence.record("stderr_tail", &stderr_tail)?;
        let prompted = match prompted {
            Ok(prompted) => prompted,
            Err(e) => {
                // A server that missed the deadline or broke the protocol holds the
                // turn half done: it is ended, and the attempt with it.
                if let Some(server) = self.server.take() {
                    server.end().await;
                }
                let why = match e {
                    AcpError::Line(LineError::Timeout) => format!(
                        "did not finish turn {} in {} within {} s and was killed",
                        d.turn,
                        d.community,
                        self.shared.turn_timeout.as_secs()
                    ),
                    other => format!("failed turn {} in {}: {other}", d.turn, d.community),
                };
                return Err(HarnessError::Crash(format!(
                    "{} {why}; stderr tail:\n{stderr_tail}",
                    Hermes::NAME
                )));
            }
        };
        evidence.record("events", &prompted.updates.join("\n"))?;
        let Some(known) = self.sessions.get(&d.community) else {
            return Err(HarnessError::Crash(
                "hermes: the community's session was lost".to_owned(),
            ));
        };
        let id = prompted
            .moved_to
            .clone()
            .unwrap_or_else(|| known.id.clone());
        // A compressed session continues under a new id, starting with a summary.
        let seen = if id == known.id { known.seen } else { 0 };
        let failed = |what: &str| {
            HarnessError::Crash(format!(
                "{} {what} in turn {} of {}: {}; stderr tail:\n{stderr_tail}",
                Hermes::NAME,
                d.turn,
                d.community,
                prompted.text.trim()
            ))
        };
        if prompted.stop_reason == "refusal" {
            return Err(failed("refused the prompt"));
        }
        let mut out = TurnOutput {
            reply: prompted.text.trim().to_owned(),
            model_calls: 1,
        };
        let mut total = seen;
        match self.export(&id).await {
            Ok(messages) => {
                let new = messages.get(seen..).unwrap_or_default();
                let lines: Vec<String> = new.iter().map(|m| m.to_string()).collect();
                evidence.record(&format!("session_file:state.db/{id}"), &lines.join("\n"))?;
                // ACP reports a failed model call as the turn's text: the store then
                // holds no assistant message for the turn, as a failed CLI run's does.
                if text::model_calls(new) == 0 {
                    return Err(failed("ended without an answer of the model"));
                }
                if let Some(reply) = text::final_reply(new) {
                    out.reply = reply;
                }
                out.model_calls = text::model_calls(new);
                total = messages.len();
            }
            Err(why) => {
                evidence.record(&format!("session_file:state.db/{id}:export_failed"), &why)?
            }
        }
        self.record_memory(&evidence)?;
        if let Some(known) = self.sessions.get_mut(&d.community) {
            known.id = id;
            known.seen = total;
        }
        Ok(out)
    }

    async fn finish(mut self: Box<Self>) -> Result<(), HarnessError> {
        if let Some(server) = self.server.take() {
            server.end().await;
        }
        Ok(())
    }
}
