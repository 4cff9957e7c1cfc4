//! The OpenClaw adapter: each delivery is one `openclaw agent --local --json` run inside
//! bubblewrap, continuing the community's own OpenClaw session (`--session-id`).
//!
//! Per trial, `<harness_home>/state` is `OPENCLAW_STATE_DIR` (with `openclaw.json`, the
//! SQLite session store and OpenClaw's locks: `--local` locks the state folder, so every
//! trial has its own) and `<harness_home>/home` is `HOME`. The provider `cosec` points at
//! the proxy's `/t/<trial>/v1` with the Chat Completions wire API; the shim relay is the
//! MCP server `cosec`, whose tools OpenClaw lists as `cosec__<tool>` (tool search off).
//!
//! Memory: OpenClaw's own memory store is its workspace's `MEMORY.md` and `memory/*.md`
//! (searched by `memory_search`, read by `memory_get`). The workspace is the agent half
//! itself, with bootstrap files off so OpenClaw adds nothing to it; the seeded private
//! memory therefore stays in `memory/notes.md`, which is already inside OpenClaw's memory
//! folder, and whatever the agent remembers lands in the agent's `memory/` too. Like the
//! built-in agent, the first message of each session also shows that file.
//!
//! Seeded session history of a community opens that community's session: its first
//! message carries it under "Earlier in this community:". OpenClaw's internal-context
//! user messages and rewritten tool-call ids concern the proxy and the simulated
//! models, not this adapter (it never sees the wire).
//!
//! Evidence for the hidden trace, per delivery: the `--json` result (`stdout`), the new
//! events of the session's transcript exported from OpenClaw's SQLite store
//! (`session_file:transcript/<session-id>`, which holds every tool call with its
//! arguments and result), and the stderr tail when the run failed.

mod text;

use super::native::turn::Evidence;
use super::native::{Adapter, Native, NativeHarness, NativeTrial, DUMMY_KEY};
use super::{Delivery, HarnessError, Session, TrialEnv, TurnOutput};
use crate::sandbox::SandboxSpec;
use async_trait::async_trait;
use cosec_proxy::trace::{TraceEvent, TraceLine};
use cosec_scenarios::CommunityId;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

/// OpenClaw, as installed by `cosec harness install openclaw`.
pub type OpenClawHarness = NativeHarness<OpenClaw>;

/// What sets OpenClaw apart (see [`OpenClawHarness`]).
pub struct OpenClaw;

impl OpenClawHarness {
    /// The trial's `OPENCLAW_STATE_DIR`.
    pub fn state_dir(env: &TrialEnv) -> PathBuf {
        env.harness_home.join("state")
    }

    /// The trial's `OPENCLAW_CONFIG_PATH`.
    pub fn config_path(env: &TrialEnv) -> PathBuf {
        Self::state_dir(env).join("openclaw.json")
    }

    /// Node's compile cache for the trial (OpenClaw's default, under the temp folder,
    /// would be emptied by the sandbox every run).
    fn compile_cache(env: &TrialEnv) -> PathBuf {
        env.harness_home.join("node-compile-cache")
    }

    /// The trial's `HOME` inside the harness home.
    fn home_dir(env: &TrialEnv) -> PathBuf {
        env.harness_home.join("home")
    }
}

#[async_trait]
impl Adapter for OpenClaw {
    const KIND: crate::harness::HarnessKind = crate::harness::HarnessKind::Openclaw;

    /// Its own `HOME`, state folder and compile cache inside the harness home.
    fn vars(env: &TrialEnv) -> Vec<(String, String)> {
        let path = |p: PathBuf| p.display().to_string();
        vec![
            ("HOME".into(), path(OpenClawHarness::home_dir(env))),
            (
                "OPENCLAW_STATE_DIR".into(),
                path(OpenClawHarness::state_dir(env)),
            ),
            (
                "OPENCLAW_CONFIG_PATH".into(),
                path(OpenClawHarness::config_path(env)),
            ),
            ("OPENCLAW_NO_AUTO_UPDATE".into(), "1".into()),
            // Speeds up every turn after the first by about 3 s.
            (
                "NODE_COMPILE_CACHE".into(),
                path(OpenClawHarness::compile_cache(env)),
            ),
            (text::API_KEY_VAR.into(), DUMMY_KEY.into()),
        ]
    }

    async fn start(trial: NativeTrial) -> Result<Box<dyn Session>, HarnessError> {
        let NativeTrial { shared, spec, env } = trial;
        for dir in [
            OpenClawHarness::state_dir(&env),
            OpenClawHarness::home_dir(&env),
            env.harness_home.join("turns"),
        ] {
            std::fs::create_dir_all(&dir).map_err(|e| Self::crash("create", &dir, e))?;
        }
        let config = text::config_json(&env, &shared.relay, env.shim_socket.as_deref());
        let body = serde_json::to_string_pretty(&config)
            .map_err(|e| HarnessError::Crash(format!("openclaw: config: {e}")))?;
        let path = OpenClawHarness::config_path(&env);
        let session = OpenClawSession {
            spec,
            shared,
            env,
            sessions: BTreeMap::new(),
            deliveries: 0,
        };
        std::fs::write(&path, body).map_err(|e| Self::crash("write", &path, e))?;
        Ok(Box::new(session))
    }
}

/// One trial of OpenClaw.
struct OpenClawSession {
    shared: Arc<Native>,
    env: TrialEnv,
    spec: SandboxSpec,
    /// Communities whose OpenClaw session exists, with the transcript row already
    /// copied into the trace.
    sessions: BTreeMap<CommunityId, i64>,
    /// Deliveries so far (numbers the message files).
    deliveries: u32,
}

impl OpenClawSession {
    /// Copies the session's transcript events that are new since the last delivery
    /// (OpenClaw keeps transcripts in SQLite; the pinned Node reads them, sandboxed).
    async fn record_transcript(
        &mut self,
        evidence: &Evidence<'_>,
        session_id: &str,
    ) -> Result<(), HarnessError> {
        let db =
            OpenClawHarness::state_dir(&self.env).join("agents/main/agent/openclaw-agent.sqlite");
        if !db.is_file() {
            return Ok(());
        }
        let community = &evidence.delivery.community;
        let after = self.sessions.get(community).copied().unwrap_or(0);
        let node = crate::harness::install::openclaw::node_binary(&self.shared.installed);
        let args: Vec<OsString> = vec![
            "-e".into(),
            text::EXPORT_SCRIPT.into(),
            db.into_os_string(),
            text::session_key(session_id).into(),
            after.to_string().into(),
        ];
        let source = format!("session_file:transcript/{session_id}");
        match self
            .shared
            .export(OpenClaw::NAME, &self.spec, &node, &args)
            .await
        {
            Ok(export) => {
                evidence.record(&source, &export)?;
                if let Some(last) = text::last_rowid(&export) {
                    self.sessions.insert(community.clone(), last);
                }
            }
            Err(why) => evidence.record(&format!("{source}:export_failed"), &why)?,
        }
        Ok(())
    }

    /// Model calls recorded in the trial's trace so far (the proxy writes one line per
    /// call; OpenClaw's own result does not count its calls).
    fn model_calls_so_far(&self) -> usize {
        cosec_proxy::trace::read_trace(self.env.trace.path())
            .map(|lines| {
                lines
                    .iter()
                    .filter(|l: &&TraceLine| matches!(l.event, TraceEvent::ModelCall { .. }))
                    .count()
            })
            .unwrap_or(0)
    }
}

#[async_trait]
impl Session for OpenClawSession {
    async fn deliver(&mut self, delivery: &Delivery) -> Result<TurnOutput, HarnessError> {
        let session_id = text::session_id(&delivery.community);
        let first = !self.sessions.contains_key(&delivery.community);
        let input = text::user_input(&self.env, delivery, first);
        self.deliveries += 1;
        // The message goes in a file: it can be long, and it stays as evidence.
        let message = self
            .env
            .harness_home
            .join("turns")
            .join(format!("{:03}-{session_id}.txt", self.deliveries));
        std::fs::write(&message, &input).map_err(|e| OpenClaw::crash("write", &message, e))?;
        let args: Vec<OsString> = vec![
            "agent".into(),
            "--local".into(),
            "--session-id".into(),
            session_id.clone().into(),
            "--message-file".into(),
            message.into_os_string(),
            "--json".into(),
        ];
        let calls_before = self.model_calls_so_far();
        // The trace is held apart from `self`, which the transcript watermark updates.
        let trace = Arc::clone(&self.env.trace);
        let evidence = Evidence {
            trace: &trace,
            delivery,
        };
        let run = self
            .shared
            .turn(OpenClaw::NAME, &self.spec, &evidence, &args, None)
            .await?;
        evidence.record("stdout", &text::stdout_evidence(&run.stdout, first))?;
        self.sessions.entry(delivery.community.clone()).or_insert(0);
        self.record_transcript(&evidence, &session_id).await?;
        let result = text::parse_result(&run.stdout);
        if !run.status.success() || result.error.is_some() {
            let error = result.error.unwrap_or_default();
            if result.model_failure {
                return Err(HarnessError::Model(format!("openclaw: {error}")));
            }
            return Err(run.crash(
                OpenClaw::NAME,
                &format!("exited with {} ({error})", run.status),
            ));
        }
        let Some(reply) = result.reply else {
            return Err(run.crash(OpenClaw::NAME, "printed no JSON result"));
        };
        let calls = self.model_calls_so_far().saturating_sub(calls_before);
        Ok(TurnOutput {
            reply,
            model_calls: u32::try_from(calls).unwrap_or(u32::MAX),
        })
    }

    async fn finish(self: Box<Self>) -> Result<(), HarnessError> {
        // Node's compile cache (about 36 MB) only speeds up this trial's later turns;
        // the session store and message files stay for inspection.
        let cache = OpenClawHarness::compile_cache(&self.env);
        if cache.exists() {
            std::fs::remove_dir_all(&cache).map_err(|e| OpenClaw::crash("remove", &cache, e))?;
        }
        Ok(())
    }
}
