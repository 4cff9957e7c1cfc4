//! The OpenClaw adapter: one OpenClaw gateway per trial inside the trial's sandbox
//! (bubblewrap or Docker), started by the first delivery and stopped when the trial
//! ends; each delivery is one `agent` request to it, in the community's own OpenClaw
//! session (session id `cosec-<community>`, key `agent:main:explicit:cosec-<community>`).
//! The gateway listens on the sandbox's own loopback only; a small Node bridge started
//! in the same sandbox (`gateway_bridge.mjs`) starts it and joins its WebSocket to the
//! bridge's stdin and stdout, which are the runner's only way in ([`gateway`]). A
//! delivery that misses the turn timeout stops the gateway, and the attempt fails as a
//! crash, as a killed one-shot run did.
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
//! OpenClaw reads its workspace files on every run (the bootstrap context, `read`), so
//! the guard's per-turn workspace views, rewritten in place between deliveries, reach
//! the live gateway at its next read. Its `memory_search` index is refreshed by a file
//! watcher about 1.5 s after a change, so a search right after a memory file changed may
//! still see the previous index.
//!
//! Evidence for the hidden trace, per delivery: the run's result (`stdout`, the shape
//! `openclaw agent --json` prints), the gateway's stderr during the delivery, the new
//! events of the session's transcript exported from OpenClaw's SQLite store
//! (`session_file:transcript/<session-id>`, which holds every tool call with its
//! arguments and result), and the stderr tail when the run failed.

mod gateway;
mod text;

use super::native::lines::{self, JsonLines, LineError};
use super::native::turn::{tail, Evidence, STDERR_TAIL};
use super::native::{Adapter, Native, NativeHarness, NativeTrial, DUMMY_KEY};
use super::{Delivery, HarnessError, Session, TrialEnv, TurnOutput};
use crate::sandbox::SandboxSpec;
use async_trait::async_trait;
use cosec_proxy::trace::{TraceEvent, TraceLine};
use cosec_scenarios::CommunityId;
use gateway::{AgentRun, Gateway, GatewayError};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::time::Instant;

/// The bridge script in the harness home (see `gateway_bridge.mjs`).
const BRIDGE: &str = "cosec-gateway-bridge.mjs";

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
            (text::GATEWAY_TOKEN_VAR.into(), gateway_token()),
            // The embedding preset of OpenClaw's docs: no mDNS announcement, no
            // self-restart into another process, no messaging channels.
            ("OPENCLAW_DISABLE_BONJOUR".into(), "1".into()),
            ("OPENCLAW_NO_RESPAWN".into(), "1".into()),
            ("OPENCLAW_SKIP_CHANNELS".into(), "1".into()),
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
        std::fs::write(&path, body).map_err(|e| Self::crash("write", &path, e))?;
        let bridge = env.harness_home.join(BRIDGE);
        std::fs::write(&bridge, include_str!("gateway_bridge.mjs"))
            .map_err(|e| Self::crash("write", &bridge, e))?;
        let token = spec
            .env
            .iter()
            .find(|(k, _)| k == text::GATEWAY_TOKEN_VAR)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let session = OpenClawSession {
            spec,
            shared,
            env,
            token,
            gateway: None,
            sessions: BTreeMap::new(),
            deliveries: 0,
            memory: Vec::new(),
        };
        Ok(Box::new(session))
    }
}

/// One trial of OpenClaw.
struct OpenClawSession {
    shared: Arc<Native>,
    env: TrialEnv,
    spec: SandboxSpec,
    /// The gateway's token (also in the sandbox's environment).
    token: String,
    /// The trial's gateway, started by the first delivery.
    gateway: Option<Gateway>,
    /// Communities whose OpenClaw session exists, with the transcript row already
    /// copied into the trace.
    sessions: BTreeMap<CommunityId, i64>,
    /// Deliveries so far (numbers the message files).
    deliveries: u32,
    /// The memory files as the previous delivery left them (see [`memory_stamp`]).
    memory: Vec<(PathBuf, std::time::SystemTime, u64)>,
}

/// How long a changed memory file takes to reach OpenClaw's memory index: the watcher's
/// 1.5 s debounce and a margin for the reindex itself.
const MEMORY_INDEX_SETTLE: std::time::Duration = std::time::Duration::from_millis(2500);

/// Path, modification time and size of every file OpenClaw indexes as memory in the
/// workspace `root` (`MEMORY.md`, `USER.md` and `memory/`), sorted.
fn memory_stamp(root: &std::path::Path) -> Vec<(PathBuf, std::time::SystemTime, u64)> {
    let mut files = Vec::new();
    let mut todo = vec![root.join("memory")];
    for top in ["MEMORY.md", "USER.md"] {
        files.push(root.join(top));
    }
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => todo.push(path),
                Ok(_) => files.push(path),
                Err(_) => {}
            }
        }
    }
    let mut stamp: Vec<_> = files
        .into_iter()
        .filter_map(|path| {
            let meta = std::fs::symlink_metadata(&path).ok()?;
            Some((path, meta.modified().ok()?, meta.len()))
        })
        .collect();
    stamp.sort();
    stamp
}

/// A fresh random token for a trial's gateway (it guards a listener that only the
/// trial's own sandbox can reach; unguessable all the same).
fn gateway_token() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 24];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        // No /dev/urandom: the time and the process, hashed, still differ per trial.
        use sha2::Digest;
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        let digest = sha2::Sha256::digest(seed.as_bytes());
        bytes.copy_from_slice(digest.get(..24).unwrap_or(&[0; 24]));
    }
    hex::encode(bytes)
}

impl OpenClawSession {
    /// The running gateway, started (bridge, gateway, handshake) when there is none.
    async fn gateway(&mut self, deadline: Instant) -> Result<&mut Gateway, HarnessError> {
        if self.gateway.is_none() {
            let node = crate::harness::install::openclaw::node_binary(&self.shared.installed);
            let port = text::gateway_port(&self.env.model_base_url);
            let args = [
                self.env.harness_home.join(BRIDGE).into_os_string(),
                self.shared.installed.entry.clone().into_os_string(),
                port.to_string().into(),
            ];
            let live = self
                .shared
                .sandbox
                .spawn(&self.spec, &node, &args)
                .await
                .map_err(|e| {
                    HarnessError::Crash(format!(
                        "cannot start openclaw's gateway in the {} sandbox: {e}",
                        self.shared.sandbox.name()
                    ))
                })?;
            let lines = JsonLines::new(live);
            let stderr = lines.stderr().clone();
            let gateway = Gateway::connect(lines, &self.token, deadline)
                .await
                .map_err(|e| {
                    HarnessError::Crash(format!(
                        "openclaw's gateway did not start ({e}); stderr tail:\n{}",
                        tail(&stderr.since(0), STDERR_TAIL)
                    ))
                })?;
            self.gateway = Some(gateway);
        }
        self.gateway
            .as_mut()
            .ok_or_else(|| HarnessError::Crash("openclaw's gateway is gone".to_owned()))
    }

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

    /// Waits for the live gateway's memory index when a memory file changed since the
    /// previous delivery (the turn's view, a restored write): `memory_search` answers
    /// from an index a file watcher refreshes about 1.5 s after a change, and a search
    /// must not return what this turn's view withholds.
    async fn settle_memory_index(&mut self) {
        let now = memory_stamp(&self.env.agent_root);
        if self.gateway.is_some() && now != self.memory {
            tokio::time::sleep(MEMORY_INDEX_SETTLE).await;
        }
        self.memory = now;
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
        let deadline = lines::deadline(self.shared.turn_timeout);
        let session_id = text::session_id(&delivery.community);
        let first = !self.sessions.contains_key(&delivery.community);
        let input = text::user_input(&self.env, delivery, first);
        self.deliveries += 1;
        // The message is kept in a file as evidence of what the turn was given.
        let message = self
            .env
            .harness_home
            .join("turns")
            .join(format!("{:03}-{session_id}.txt", self.deliveries));
        std::fs::write(&message, &input).map_err(|e| OpenClaw::crash("write", &message, e))?;
        let calls_before = self.model_calls_so_far();
        // The trace is held apart from `self`, which the transcript watermark updates.
        let trace = Arc::clone(&self.env.trace);
        let evidence = Evidence {
            trace: &trace,
            delivery,
        };
        // A delivery that starts the process keeps its start-up in the evidence too.
        let starting = self.gateway.is_none();
        self.settle_memory_index().await;
        let stderr = self.gateway(deadline).await?.stderr().clone();
        let mark = if starting { 0 } else { stderr.mark() };
        let key = text::session_key(&session_id);
        let idempotency = format!("{}-{}", self.env.trial_id, self.deliveries);
        let run = match self.gateway.as_mut() {
            Some(gateway) => {
                gateway
                    .agent(&input, (&session_id, &key), &idempotency, deadline)
                    .await
            }
            None => Err(GatewayError::Line(LineError::Ended)),
        };
        let stderr_tail = tail(&stderr.since(mark), STDERR_TAIL);
        evidence.record("stderr_tail", &stderr_tail)?;
        let run = match run {
            Ok(run) => run,
            Err(e) => {
                // A gateway that missed the deadline holds the run half done: it is
                // stopped, and the attempt with it.
                if let Some(gateway) = self.gateway.take() {
                    gateway.end().await;
                }
                let why = match e {
                    GatewayError::Line(LineError::Timeout) => format!(
                        "did not finish turn {} in {} within {} s and was killed",
                        delivery.turn,
                        delivery.community,
                        self.shared.turn_timeout.as_secs()
                    ),
                    other => format!(
                        "failed turn {} in {}: {other}",
                        delivery.turn, delivery.community
                    ),
                };
                return Err(HarnessError::Crash(format!(
                    "{} {why}; stderr tail:\n{stderr_tail}",
                    OpenClaw::NAME
                )));
            }
        };
        self.sessions.entry(delivery.community.clone()).or_insert(0);
        let result = match run {
            AgentRun::Finished(result) => result,
            AgentRun::Failed(error) => {
                self.record_transcript(&evidence, &session_id).await?;
                // OpenClaw words provider failures as "... request failed ...".
                if error.contains("request failed") {
                    return Err(HarnessError::Model(format!("openclaw: {error}")));
                }
                return Err(HarnessError::Crash(format!(
                    "{} failed turn {} in {}: {error}; stderr tail:\n{stderr_tail}",
                    OpenClaw::NAME,
                    delivery.turn,
                    delivery.community
                )));
            }
        };
        let printed = result.to_string();
        evidence.record("stdout", &text::stdout_evidence(&printed, first))?;
        self.record_transcript(&evidence, &session_id).await?;
        let parsed = text::parse_result(&printed);
        if let Some(error) = parsed.error {
            if parsed.model_failure {
                return Err(HarnessError::Model(format!("openclaw: {error}")));
            }
            return Err(HarnessError::Crash(format!(
                "{} failed turn {} in {}: {error}",
                OpenClaw::NAME,
                delivery.turn,
                delivery.community
            )));
        }
        let calls = self.model_calls_so_far().saturating_sub(calls_before);
        // What the turn itself wrote to memory was indexed by the gateway as it went.
        self.memory = memory_stamp(&self.env.agent_root);
        Ok(TurnOutput {
            reply: parsed.reply.unwrap_or_default(),
            model_calls: u32::try_from(calls).unwrap_or(u32::MAX),
        })
    }

    async fn finish(mut self: Box<Self>) -> Result<(), HarnessError> {
        if let Some(gateway) = self.gateway.take() {
            gateway.end().await;
        }
        // Node's compile cache (about 36 MB) only speeds up this trial's later turns;
        // the session store and message files stay for inspection. A cache left behind
        // costs disk, not evidence, so it never fails a trial whose turns all ran.
        let cache = OpenClawHarness::compile_cache(&self.env);
        if cache.exists() {
            if let Err(e) = std::fs::remove_dir_all(&cache) {
                tracing::warn!("openclaw: cannot remove {}: {e}", cache.display());
            }
        }
        Ok(())
    }
}
