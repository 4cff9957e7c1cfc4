//! The Codex CLI adapter: every delivery is one `codex exec --json` run inside the
//! trial's bubblewrap sandbox.
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

use super::install::Installed;
use super::{Delivery, Harness, HarnessError, Session, TrialEnv, TurnOutput};
use crate::sandbox::{Sandbox, SandboxSpec};
use async_trait::async_trait;
use cosec_proxy::trace::TraceEvent;
use cosec_scenarios::CommunityId;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The dummy API key the sandboxed Codex sends to the proxy (the proxy holds the real
/// upstream key, if any; the harness never sees it).
const DUMMY_KEY: &str = "sk-cosec-local";

/// How much of stderr an infrastructure failure quotes.
const STDERR_TAIL: usize = 2000;

/// Runs Codex CLI as a CoSec harness.
pub struct CodexHarness {
    shared: Arc<Shared>,
}

/// What the harness and its sessions share.
struct Shared {
    installed: Installed,
    sandbox: Arc<dyn Sandbox>,
    relay: PathBuf,
    turn_timeout: Duration,
}

impl CodexHarness {
    /// A Codex harness running `installed` through `sandbox`, with the MCP relay binary
    /// `relay` (`cosec-shim`) and a per-delivery timeout.
    pub fn new(
        installed: Installed,
        sandbox: Arc<dyn Sandbox>,
        relay: PathBuf,
        turn_timeout: Duration,
    ) -> Self {
        CodexHarness {
            shared: Arc::new(Shared {
                installed,
                sandbox,
                relay,
                turn_timeout,
            }),
        }
    }

    /// `CODEX_HOME` of a trial.
    pub fn codex_home(env: &TrialEnv) -> PathBuf {
        env.harness_home.join(".codex")
    }

    /// What the Codex process of a trial may see: the agent half and the harness home
    /// writable; the install, the relay binary and the shim socket read-only (the
    /// socket file itself, not its folder, so nothing beside it shows); only the
    /// variables Codex needs.
    pub fn sandbox_spec(&self, env: &TrialEnv) -> SandboxSpec {
        let installed = &self.shared.installed;
        let mut readonly = installed.readonly.clone();
        readonly.push(self.shared.relay.clone());
        if let Some(socket) = &env.shim_socket {
            readonly.push(socket.clone());
        }
        let home = env.harness_home.display().to_string();
        let mut vars: Vec<(String, String)> = vec![
            ("HOME".into(), home),
            (
                "CODEX_HOME".into(),
                Self::codex_home(env).display().to_string(),
            ),
            (API_KEY_VAR.into(), DUMMY_KEY.into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("TMPDIR".into(), "/tmp".into()),
            ("USER".into(), "agent".into()),
        ];
        for (key, value) in &installed.env {
            vars.retain(|(k, _)| k != key);
            vars.push((key.clone(), value.clone()));
        }
        if !vars.iter().any(|(k, _)| k == "PATH") {
            vars.push(("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()));
        }
        SandboxSpec {
            writable: vec![env.agent_root.clone(), env.harness_home.clone()],
            readonly,
            env: vars,
            workdir: env.agent_root.clone(),
        }
    }
}

fn crash(what: &str, path: &Path, e: std::io::Error) -> HarnessError {
    HarnessError::Crash(format!("codex: cannot {what} {}: {e}", path.display()))
}

#[async_trait]
impl Harness for CodexHarness {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn version(&self) -> String {
        self.shared.installed.version.clone()
    }

    async fn start(&self, env: TrialEnv) -> Result<Box<dyn Session>, HarnessError> {
        let codex_home = Self::codex_home(&env);
        std::fs::create_dir_all(&codex_home).map_err(|e| crash("create", &codex_home, e))?;
        let config = codex_home.join("config.toml");
        let toml = text::config_toml(&env, &self.shared.relay, env.shim_socket.as_deref());
        std::fs::write(&config, toml).map_err(|e| crash("write", &config, e))?;
        Ok(Box::new(CodexSession {
            spec: self.sandbox_spec(&env),
            shared: Arc::clone(&self.shared),
            env,
            threads: BTreeMap::new(),
            rollout_seen: BTreeMap::new(),
        }))
    }
}

/// One trial of Codex.
struct CodexSession {
    shared: Arc<Shared>,
    env: TrialEnv,
    spec: SandboxSpec,
    /// The Codex thread of each community that has had a delivery.
    threads: BTreeMap<CommunityId, String>,
    /// Bytes of each rollout file already copied into the trace.
    rollout_seen: BTreeMap<PathBuf, usize>,
}

/// How one Codex run ended.
struct RunOutput {
    stdout: String,
    stderr: String,
    /// Exit status, or `None` if the run timed out and was killed.
    status: Option<std::process::ExitStatus>,
}

impl CodexSession {
    /// The command-line arguments of one delivery; the input itself goes through stdin
    /// (`-`), which keeps it clear of the argument length limit and of `ps`.
    fn args(&self, thread: Option<&str>) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["exec".into()];
        // `--strict-config`: a version bump that drops a key we rely on (web search off,
        // no retries, the MCP server) fails loudly instead of running differently.
        match thread {
            Some(thread) => {
                args.extend(
                    [
                        "resume",
                        "--strict-config",
                        "--json",
                        "--skip-git-repo-check",
                    ]
                    .map(OsString::from),
                );
                // `exec resume` has no --sandbox flag; this is its equivalent.
                args.push("--dangerously-bypass-approvals-and-sandbox".into());
                args.push("--".into());
                args.push(thread.into());
            }
            None => {
                args.extend(
                    [
                        "--strict-config",
                        "--json",
                        "--skip-git-repo-check",
                        "--sandbox",
                        "danger-full-access",
                    ]
                    .map(OsString::from),
                );
                args.push("-C".into());
                args.push(self.env.agent_root.clone().into());
                args.push("--".into());
            }
        }
        args.push("-".into());
        args
    }

    /// Runs Codex once inside the sandbox with `input` on stdin, killing it at the turn
    /// timeout.
    async fn run(&self, args: &[OsString], input: String) -> Result<RunOutput, HarnessError> {
        let mut cmd = self
            .shared
            .sandbox
            .command(&self.spec, &self.shared.installed.entry, args)
            .map_err(|e| HarnessError::Crash(format!("codex sandbox: {e}")))?;
        // `codex exec` reads stdin to its end: it gets the input, then end of file.
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| HarnessError::Crash(format!("cannot start codex in the sandbox: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            tokio::spawn(async move {
                // A failed write shows up as Codex failing the turn, with its stderr.
                let _ = stdin.write_all(input.as_bytes()).await;
                let _ = stdin.shutdown().await;
            });
        }
        let stdout = child.stdout.take().map(|mut out| {
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let _ = out.read_to_end(&mut buf).await;
                buf
            })
        });
        let stderr = child.stderr.take().map(|mut err| {
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let _ = err.read_to_end(&mut buf).await;
                buf
            })
        });
        let status = match tokio::time::timeout(self.shared.turn_timeout, child.wait()).await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(e)) => return Err(HarnessError::Crash(format!("waiting for codex: {e}"))),
            Err(_) => {
                kill_group(&mut child).await;
                None
            }
        };
        let collect = |task: Option<tokio::task::JoinHandle<Vec<u8>>>| async move {
            let Some(task) = task else {
                return String::new();
            };
            // Grandchildren that escaped the kill could hold the pipe open: bound it.
            match tokio::time::timeout(Duration::from_secs(5), task).await {
                Ok(Ok(buf)) => String::from_utf8_lossy(&buf).into_owned(),
                _ => String::new(),
            }
        };
        Ok(RunOutput {
            stdout: collect(stdout).await,
            stderr: collect(stderr).await,
            status,
        })
    }

    /// Records native evidence of one run in the hidden trace.
    fn record(&self, delivery: &Delivery, source: &str, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        // A trace write failure must not pass for a harness failure; the runner's own
        // trace writes will surface it.
        let _ = self.env.trace.record(TraceEvent::HarnessOutput {
            turn: delivery.turn,
            community: delivery.community.clone(),
            source: source.to_owned(),
            text: text::cap(text),
        });
    }

    /// Copies what Codex appended to its rollout files since the last delivery.
    fn record_rollouts(&mut self, delivery: &Delivery) {
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
            self.record(delivery, &format!("session_file:{name}"), &new);
            self.rollout_seen.insert(file, bytes.len());
        }
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

/// Kills the process group of a timed-out run (bubblewrap's PID namespace then takes
/// every process inside with it) and reaps the child.
async fn kill_group(child: &mut tokio::process::Child) {
    if let Some(pid) = child.id() {
        let _ = tokio::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
    let _ = child.kill().await;
}

#[async_trait]
impl Session for CodexSession {
    async fn deliver(&mut self, delivery: &Delivery) -> Result<TurnOutput, HarnessError> {
        let thread = self.threads.get(&delivery.community).cloned();
        let input = text::user_input(&self.env, delivery, thread.is_none());
        let args = self.args(thread.as_deref());
        let run = self.run(&args, input).await?;
        self.record(delivery, "events", &run.stdout);
        self.record(
            delivery,
            "stderr_tail",
            &text::tail(&run.stderr, STDERR_TAIL),
        );
        self.record_rollouts(delivery);
        let events = text::parse_events(&run.stdout);
        let stderr_tail = text::tail(&run.stderr, STDERR_TAIL);
        let Some(status) = run.status else {
            return Err(HarnessError::Crash(format!(
                "codex did not finish the turn within {} s and was killed; stderr tail:\n{stderr_tail}",
                self.shared.turn_timeout.as_secs()
            )));
        };
        if !status.success() {
            let failure = events
                .failure
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
            return Err(HarnessError::Crash(format!(
                "codex exited with {status}{failure}; stderr tail:\n{stderr_tail}"
            )));
        }
        if let Some(failure) = events.failure.filter(|_| !events.completed) {
            return Err(HarnessError::Model(format!(
                "codex reported a failed turn: {failure}"
            )));
        }
        if thread.is_none() {
            let Some(id) = events.thread_id else {
                return Err(HarnessError::Crash(format!(
                    "codex started no thread (no thread.started event); stderr tail:\n{stderr_tail}"
                )));
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
