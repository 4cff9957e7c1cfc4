//! The Codex CLI adapter: every delivery is one `codex exec --json` run inside the
//! trial's sandbox (bubblewrap or Docker).
//!
//! Native state, per trial: `HOME` is the trial's harness home and `CODEX_HOME` is
//! `<harness home>/.codex`, holding the generated `config.toml` (the proxy as the only
//! provider, Responses wire API, the shim relay as MCP server `cosec`), Codex's session
//! rollouts (`sessions/YYYY/MM/DD/rollout-*-THREAD.jsonl`) and its SQLite state.
//!
//! Sessions: one Codex thread per community, started by the community's first delivery
//! (`codex exec`) and continued with `codex exec resume THREAD`; threads are never
//! shared between communities. The delivery's text goes to Codex on stdin (`-`), which
//! is then closed: `codex exec` waits on an open stdin.
//!
//! Seeded state: the community's seeded session history opens that thread's first
//! message ("Earlier in this community:"). Codex has no memory store of its own that can
//! be seeded (its `memories` database is distilled from past rollouts), so seeded
//! private memory stays in `memory/notes.md` of the agent half, where the shim put it;
//! the first message of every thread names that file and shows its current text, as
//! the built-in agent's system prompt does.
//!
//! Evidence: the `--json` event stream of every run (`item.*` events: commands, MCP
//! calls, messages), Codex's stderr and the lines each run appended to its rollout files
//! go into the hidden trace as `HarnessOutput`.
//!
//! Codex runs with `danger-full-access` and no approvals: it runs commands without its
//! own sandbox. That is safe only because the whole process runs inside bubblewrap,
//! which shows it the agent half, its home, its install and the relay, and nothing else.

mod text;

use text::API_KEY_VAR;

use super::native::turn::{Evidence, Exited};
use super::native::{self, Adapter, Native, NativeHarness, NativeTrial, DUMMY_KEY};
use super::{Delivery, HarnessError, Session, TrialEnv, TurnOutput};
use crate::sandbox::SandboxSpec;
use async_trait::async_trait;
use cosec_scenarios::CommunityId;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs Codex CLI as a CoSec harness.
pub type CodexHarness = NativeHarness<Codex>;

/// What sets Codex CLI apart (see [`CodexHarness`]).
pub struct Codex;

impl CodexHarness {
    /// `CODEX_HOME` of a trial.
    pub fn codex_home(env: &TrialEnv) -> PathBuf {
        env.harness_home.join(".codex")
    }
}

#[async_trait]
impl Adapter for Codex {
    const KIND: crate::harness::HarnessKind = crate::harness::HarnessKind::Codex;

    /// `HOME` is the harness home, with `CODEX_HOME` inside it.
    fn vars(env: &TrialEnv) -> Vec<(String, String)> {
        let mut vars = native::home_vars(env, "CODEX_HOME", &CodexHarness::codex_home(env));
        vars.push((API_KEY_VAR.into(), DUMMY_KEY.into()));
        vars
    }

    async fn start(trial: NativeTrial) -> Result<Box<dyn Session>, HarnessError> {
        let NativeTrial { shared, spec, env } = trial;
        let codex_home = CodexHarness::codex_home(&env);
        std::fs::create_dir_all(&codex_home).map_err(|e| Self::crash("create", &codex_home, e))?;
        let config = codex_home.join("config.toml");
        let toml = text::config_toml(&env, &shared.relay, env.shim_socket.as_deref())
            .map_err(|e| HarnessError::Crash(format!("codex: config.toml: {e}")))?;
        std::fs::write(&config, toml).map_err(|e| Self::crash("write", &config, e))?;
        Ok(Box::new(CodexSession {
            spec,
            shared,
            env,
            threads: BTreeMap::new(),
            rollout_seen: BTreeMap::new(),
        }))
    }
}

/// One trial of Codex.
struct CodexSession {
    shared: Arc<Native>,
    env: TrialEnv,
    spec: SandboxSpec,
    /// The Codex thread of each community that has had a delivery.
    threads: BTreeMap<CommunityId, String>,
    /// Bytes of each rollout file already copied into the trace.
    rollout_seen: BTreeMap<PathBuf, usize>,
}

impl CodexSession {
    /// The command-line arguments of one delivery; the input itself goes through stdin
    /// (`-`), which keeps it clear of the argument length limit and of `ps`.
    fn args(&self, thread: Option<&str>) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["exec".into()];
        if thread.is_some() {
            args.push("resume".into());
        }
        // `--strict-config`: a version bump that drops a key we rely on (web search off,
        // no retries, the MCP server) fails loudly instead of running differently.
        args.extend(["--strict-config", "--json", "--skip-git-repo-check"].map(OsString::from));
        match thread {
            Some(thread) => {
                // `exec resume` has no --sandbox flag; this is its equivalent.
                args.push("--dangerously-bypass-approvals-and-sandbox".into());
                args.push("--".into());
                args.push(thread.into());
            }
            None => {
                args.extend(["--sandbox", "danger-full-access", "-C"].map(OsString::from));
                args.push(self.env.agent_root.clone().into());
                args.push("--".into());
            }
        }
        args.push("-".into());
        args
    }

    /// Copies what Codex appended to its rollout files since the last delivery.
    fn record_rollouts(&mut self, evidence: &Evidence<'_>) -> Result<(), HarnessError> {
        let sessions = Self::sessions_dir(&self.env);
        let mut files = Vec::new();
        collect_jsonl(&sessions, &mut files, 0);
        files.sort();
        for file in files {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let seen = self.rollout_seen.get(&file).copied().unwrap_or(0);
            if bytes.len() <= seen {
                continue;
            }
            let name = file
                .strip_prefix(&sessions)
                .unwrap_or(&file)
                .display()
                .to_string();
            let new = String::from_utf8_lossy(&bytes[seen..]).into_owned();
            evidence.record(&format!("session_file:{name}"), &new)?;
            self.rollout_seen.insert(file, bytes.len());
        }
        Ok(())
    }

    fn sessions_dir(env: &TrialEnv) -> PathBuf {
        CodexHarness::codex_home(env).join("sessions")
    }
}

/// Rollout files under Codex's `sessions/` folder (year/month/day, so depth 4 at most).
fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>, depth: u8) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() && depth < 4 => collect_jsonl(&path, out, depth + 1),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "jsonl") => {
                out.push(path);
            }
            _ => {}
        }
    }
}

#[async_trait]
impl Session for CodexSession {
    async fn deliver(&mut self, delivery: &Delivery) -> Result<TurnOutput, HarnessError> {
        let thread = self.threads.get(&delivery.community).cloned();
        let input = text::user_input(&self.env, delivery, thread.is_none());
        let args = self.args(thread.as_deref());
        // The trace is held apart from `self`, which the rollout watermark updates.
        let trace = Arc::clone(&self.env.trace);
        let evidence = Evidence {
            trace: &trace,
            delivery,
        };
        let run: Exited = self
            .shared
            .turn(Codex::NAME, &self.spec, &evidence, &args, Some(input))
            .await?;
        evidence.record("events", &run.stdout)?;
        self.record_rollouts(&evidence)?;
        let events = text::parse_events(&run.stdout);
        if !run.status.success() {
            let failure = events
                .failure
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
            return Err(run.crash(Codex::NAME, &format!("exited with {}{failure}", run.status)));
        }
        if let Some(failure) = events.failure.filter(|_| !events.completed) {
            return Err(HarnessError::Model(format!(
                "codex reported a failed turn: {failure}"
            )));
        }
        if thread.is_none() {
            let Some(id) = events.thread_id else {
                return Err(run.crash(Codex::NAME, "started no thread (no thread.started event)"));
            };
            self.threads.insert(delivery.community.clone(), id);
        }
        Ok(TurnOutput {
            reply: events.reply.unwrap_or_default(),
            // Codex does not report its model calls; each tool item costs one call and
            // the final answer another.
            model_calls: events.tool_items + 1,
        })
    }

    async fn finish(self: Box<Self>) -> Result<(), HarnessError> {
        Ok(())
    }
}
