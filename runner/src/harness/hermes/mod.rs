//! The Hermes Agent adapter: every delivery is one `hermes chat -Q --yolo -q TEXT` run
//! inside the trial's sandbox (bubblewrap or Docker), with stdin closed.
//!
//! Native state, per trial: `HOME` is the trial's harness home and `HERMES_HOME` is
//! `<harness home>/.hermes`, holding the generated `config.yaml` (the proxy as the only
//! provider, `custom` with the trial's base URL and model; the shim relay as MCP server
//! `cosec`, so its tools reach the model as `mcp__cosec__TOOL`), Hermes's SQLite session
//! store `state.db`, its `memories/` and its logs.
//!
//! Sessions: one Hermes session per community, created by the community's first
//! delivery and continued with `--resume ID` (the id Hermes prints as `session_id:` on
//! stderr; it changes when Hermes compresses a long session, and the adapter follows
//! it); sessions are never shared between communities.
//!
//! Seeded state: the community's seeded session history opens that session's first
//! message ("Earlier in this community:"). Seeded private memory goes into Hermes's own
//! memory store, `memories/MEMORY.md` (entries separated by `§` lines), which Hermes
//! puts into the system prompt of every session it opens and edits with its `memory`
//! tool; the shim's copy in the agent half's `memory/notes.md` stays as well, so the
//! files the agent sees are the same under every harness.
//!
//! Evidence: after every run the adapter exports the session (`hermes sessions export
//! --session-id ID -`) and records the messages the run added (tool calls with their
//! arguments, tool results, replies) in the hidden trace as `HarnessOutput`, with
//! Hermes's stdout (tool previews and the reply), the stderr tail of failed runs and
//! every change Hermes made to `MEMORY.md`. The reply is the run's last assistant
//! message without tool calls.
//!
//! Quirks handled: stdin closed; `GET {base}/../api/v1/models` and similar probes are
//! answered (404 is fine) by the proxy; no tirith download, lazy pip installs, update
//! checks or background memory and skill reviews at run time (`config.yaml`).
//! Hermes runs with `--yolo` (no approval prompts for its terminal): that is safe only
//! because the whole process runs inside bubblewrap.

pub mod text;

use super::native::turn::Evidence;
use super::native::{self, Adapter, Native, NativeHarness, NativeTrial, DUMMY_KEY};
use super::{Delivery, HarnessError, Session, TrialEnv, TurnOutput, ViewedStore};
use crate::sandbox::SandboxSpec;
use async_trait::async_trait;
use cosec_scenarios::CommunityId;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

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
        Ok(Box::new(HermesSession {
            shared,
            env,
            spec,
            home,
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

/// A community's native Hermes session.
struct CommunitySession {
    /// Hermes's session id.
    id: String,
    /// How many of its messages are already in the trace.
    seen: usize,
}

struct HermesSession {
    shared: Arc<Native>,
    env: TrialEnv,
    spec: SandboxSpec,
    home: PathBuf,
    sessions: BTreeMap<CommunityId, CommunitySession>,
    /// `MEMORY.md` as last recorded.
    memory: String,
}

impl HermesSession {
    /// The session's messages from Hermes's own store, or why they are unavailable.
    async fn export(&self, id: &str) -> Result<Vec<serde_json::Value>, String> {
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
        let previous = self.sessions.get(&d.community);
        let message = text::user_input(&self.env, d, previous.is_none());
        let mut args: Vec<OsString> = ["chat", "-Q", "--yolo", "-q"].map(OsString::from).to_vec();
        args.push(message.into());
        if let Some(known) = previous {
            args.extend([OsString::from("--resume"), OsString::from(&known.id)]);
        }
        // The trace is held apart from `self`, which the memory record updates.
        let trace = Arc::clone(&self.env.trace);
        let evidence = Evidence {
            trace: &trace,
            delivery: d,
        };
        let done = self
            .shared
            .turn(Hermes::NAME, &self.spec, &evidence, &args, None)
            .await?;
        evidence.record("stdout", &done.stdout)?;
        if !done.status.success() {
            return Err(done.crash(Hermes::NAME, &format!("exited with {}", done.status)));
        }
        let Some(id) = text::session_id(&done.stderr).or_else(|| text::session_id(&done.stdout))
        else {
            return Err(done.crash(Hermes::NAME, "printed no session_id"));
        };
        // A compressed session continues under a new id, starting with a summary.
        let seen = match self.sessions.get(&d.community) {
            Some(known) if known.id == id => known.seen,
            _ => 0,
        };
        let mut out = TurnOutput {
            reply: text::reply_from_stdout(&done.stdout),
            model_calls: 1,
        };
        let mut total = seen;
        match self.export(&id).await {
            Ok(messages) => {
                let new = messages.get(seen..).unwrap_or_default();
                let lines: Vec<String> = new.iter().map(|m| m.to_string()).collect();
                evidence.record(&format!("session_file:state.db/{id}"), &lines.join("\n"))?;
                if let Some(reply) = text::final_reply(new) {
                    out.reply = reply;
                }
                out.model_calls = text::model_calls(new).max(1);
                total = messages.len();
            }
            Err(why) => {
                evidence.record(&format!("session_file:state.db/{id}:export_failed"), &why)?
            }
        }
        self.record_memory(&evidence)?;
        self.sessions
            .insert(d.community.clone(), CommunitySession { id, seen: total });
        Ok(out)
    }

    async fn finish(self: Box<Self>) -> Result<(), HarnessError> {
        Ok(())
    }
}
