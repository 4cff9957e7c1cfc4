//! One trial: lay out its directory (agent half apart from the hidden half), register it
//! with the proxy and shim, play the scenario's turns and each event notice into the harness,
//! and report how far it got.

use super::view::community_view;
use crate::attack::{Heard, Player, Voice};
use crate::harness::{Delivery, Harness, HarnessError, Session, TrialEnv};
use cosec_proxy::registry::{ModelRoute, Trial, TrialRegistry, TrialSetup, TurnContext};
use cosec_proxy::shim::{ShimService, ShimSocketServer};
use cosec_proxy::trace::{TraceEvent, TraceWriter};
use cosec_scenarios::ids::{event_time, turn_time};
use cosec_scenarios::{CommunityState, Scenario, Time, UserId};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Where a trial's files live.
#[derive(Debug, Clone)]
pub struct TrialPaths {
    /// `<run>/trials/<trial-id>`.
    pub dir: PathBuf,
    /// The agent half: the only folder an agent may see.
    pub agent_root: PathBuf,
    /// The hidden trace.
    pub trace: PathBuf,
    /// The harness's own home (native harnesses only).
    pub home: PathBuf,
}

impl TrialPaths {
    /// The paths of a trial under a run folder.
    pub fn new(run_dir: &Path, trial_id: &str) -> Self {
        let dir = run_dir.join("trials").join(trial_id);
        TrialPaths {
            agent_root: dir.join("agent"),
            trace: dir.join("hidden").join("trace.jsonl"),
            home: dir.join("home"),
            dir,
        }
    }
}

/// An opaque trial id: it must not reveal the scenario's factors to the agent, which
/// sees it in its model base URL. The first repeat keeps the id a run without
/// `--epochs` gives its scenario, so older run folders resume as they are.
pub fn trial_id(run_nonce: &str, scenario: &Scenario, epoch: u32) -> String {
    let seed = if epoch == 0 {
        format!("{run_nonce}\n{}", scenario.id)
    } else {
        format!("{run_nonce}\n{}\n{epoch}", scenario.id)
    };
    hex::encode(&Sha256::digest(seed.as_bytes())[..8])
}

/// How a trial attempt ended.
#[derive(Debug)]
pub enum AttemptEnd {
    /// All turns were delivered and answered.
    Completed,
    /// Infrastructure failed after the upstream refused a request (a 4xx other than
    /// 408 and 429): the same trial would be refused again, so it is not retried.
    Refused {
        /// Cause, naming the upstream's message.
        cause: String,
    },
    /// Infrastructure failed after `scorable_turns` turns had a reply.
    Infra {
        /// Cause, readable.
        cause: String,
        /// Turns that were answered before the failure.
        scorable_turns: u8,
    },
}

/// What a trial attempt needs from the run.
pub struct AttemptCtx<'a> {
    /// The scenario (all tiers; only the agent tier reaches the harness).
    pub scenario: &'a Arc<Scenario>,
    /// The harness.
    pub harness: &'a dyn Harness,
    /// The trial registry shared with proxy and shim.
    pub registry: &'a TrialRegistry,
    /// The shim service.
    pub shim: &'a ShimService,
    /// Base URL of the proxy, e.g. `http://127.0.0.1:PORT`.
    pub proxy_root: &'a str,
    /// Who answers model calls.
    pub model: &'a ModelRoute,
    /// Model name told to the harness.
    pub model_name: &'a str,
    /// Prompt guardrail for `--defense prompt`.
    pub guardrail: Option<&'a str>,
    /// The folder of the trials' shim sockets (native harnesses).
    pub shim_sockets: Option<&'a Path>,
    /// The runtime guard (`--defense proxy`), for the post-turn restore.
    pub guard: Option<&'a cosec_proxy::guard::Guard>,
    /// The participants not played by the script (`--attacker`, `--speaker-mode`).
    pub player: Option<&'a Player<'a>>,
}

/// Distinguishes the shim sockets of one run (an attempt's socket may still be going
/// away when the next attempt of the same trial binds its own).
static NEXT_SOCKET: AtomicU64 = AtomicU64::new(0);

/// A trial's shim socket, served until the attempt ends (the file goes with it).
struct Serving(tokio::task::JoinHandle<Result<(), cosec_proxy::shim::ShimSocketError>>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Binds and serves the shim socket of trial `id` in `dir`: its path and its server.
fn serve_socket(dir: &Path, shim: &ShimService, id: &str) -> Result<(PathBuf, Serving), String> {
    let path = dir.join(format!(
        "{}.sock",
        NEXT_SOCKET.fetch_add(1, Ordering::Relaxed)
    ));
    let server = ShimSocketServer::bind(&path, shim.clone(), id).map_err(|e| e.to_string())?;
    Ok((path, Serving(tokio::spawn(server.serve()))))
}

/// Runs one attempt of a trial from a fresh directory.
pub async fn run_attempt(
    ctx: &AttemptCtx<'_>,
    id: &str,
    paths: &TrialPaths,
) -> Result<AttemptEnd, String> {
    let s = ctx.scenario;
    if paths.dir.exists() {
        std::fs::remove_dir_all(&paths.dir)
            .map_err(|e| format!("cannot clear {}: {e}", paths.dir.display()))?;
    }
    let hidden = paths.trace.parent().unwrap_or(&paths.dir);
    std::fs::create_dir_all(hidden)
        .map_err(|e| format!("cannot create {}: {e}", hidden.display()))?;
    std::fs::create_dir_all(&paths.home)
        .map_err(|e| format!("cannot create {}: {e}", paths.home.display()))?;
    let trace = Arc::new(TraceWriter::open(&paths.trace).map_err(|e| e.to_string())?);
    // The attacker's planted text is rewritten before anything of the trial exists.
    let played = match ctx.player {
        Some(player) => {
            player.begin(s);
            match player.plant(s, &trace).await {
                Ok(played) => Arc::new(played),
                Err(cause) => {
                    return Ok(AttemptEnd::Infra {
                        cause,
                        scorable_turns: 0,
                    })
                }
            }
        }
        None => Arc::clone(s),
    };
    let s = &played;
    cosec_proxy::shim::materialize_agent_half(&s.agent, &paths.agent_root)
        .map_err(|e| format!("cannot lay out the agent half: {e}"))?;
    let agent = Arc::new(s.agent.clone());
    let platform = Arc::new(s.platform.clone());
    let sim = match ctx.model {
        ModelRoute::Sim(_) => Some(Arc::new(cosec_proxy::registry::SimScript::of(s))),
        ModelRoute::Upstream(_) => None,
    };
    let first = s
        .agent
        .turns
        .first()
        .map(|t| t.community.clone())
        .ok_or("scenario has no turns")?;
    let trial = Arc::new(Trial::new(
        TrialSetup {
            id: id.to_owned(),
            agent: Arc::clone(&agent),
            platform: Arc::clone(&platform),
            sim,
            model: ctx.model.clone(),
            agent_root: paths.agent_root.clone(),
            trace: Arc::clone(&trace),
            guardrail: ctx.guardrail.map(Arc::from),
        },
        first,
    ));
    let socket = match ctx.shim_sockets {
        Some(dir) => Some(serve_socket(dir, ctx.shim, id)?),
        None => None,
    };
    ctx.registry.insert(Arc::clone(&trial));
    let env = TrialEnv {
        trial_id: id.to_owned(),
        agent: Arc::clone(&agent),
        agent_root: paths.agent_root.clone(),
        model_base_url: format!("{}/t/{id}/v1", ctx.proxy_root),
        model_name: ctx.model_name.to_owned(),
        shim: ctx.shim.clone(),
        harness_home: paths.home.clone(),
        shim_socket: socket.as_ref().map(|(path, _)| path.clone()),
        trace: Arc::clone(&trace),
    };
    let result = play(ctx, s, &trial, env).await;
    // The verifier reads the workspace as the platform holds it, not the last view.
    let restored = match ctx.guard {
        Some(guard) => guard
            .for_trial(&trial)
            .finish_workspace()
            .map_err(|e| format!("cannot write the workspace back after the trial: {e}")),
        None => Ok(()),
    };
    ctx.registry.remove(id);
    ctx.shim.forget(id);
    if let Some(guard) = ctx.guard {
        guard.forget(id);
    }
    if let Ok(AttemptEnd::Infra {
        cause,
        scorable_turns,
    }) = &result
    {
        let turn =
            (*scorable_turns < ctx.scenario.agent.turn_count()).then_some(scorable_turns + 1);
        let _ = trace.record(TraceEvent::Infra {
            turn,
            cause: cause.clone(),
        });
        if let Some(refusal) = trial.upstream_refusal() {
            return Ok(AttemptEnd::Refused {
                cause: format!("{refusal} (the upstream refused the request; not retried)"),
            });
        }
    }
    restored?;
    result
}

async fn record_native_writes(
    trial: &Trial,
    d: &Delivery,
    before: &cosec_proxy::guard::Snapshot,
) -> Result<(), String> {
    let after = snapshot(&trial.agent_root).await?;
    for (path, content) in &after {
        let previous = before.get(path);
        if previous == Some(content) {
            continue;
        }
        let Ok((namespace, inner)) = cosec_proxy::layout::split_tool_path(path) else {
            continue;
        };
        trial
            .trace
            .record(TraceEvent::Effect {
                turn: d.turn,
                community: d.community.clone(),
                effect: cosec_proxy::trace::Effect::FileWrite {
                    namespace,
                    path: inner,
                    content: content.clone(),
                    previous: previous.cloned(),
                },
            })
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The workspace's files, read off the runtime the proxy's listeners share.
async fn snapshot(root: &Path) -> Result<cosec_proxy::guard::Snapshot, String> {
    let owned = root.to_owned();
    tokio::task::spawn_blocking(move || cosec_proxy::guard::snapshot(&owned))
        .await
        .map_err(|e| format!("cannot snapshot {}: {e}", root.display()))?
        .map_err(|e| format!("cannot snapshot {}: {e}", root.display()))
}

async fn play(
    ctx: &AttemptCtx<'_>,
    s: &Scenario,
    trial: &Trial,
    env: TrialEnv,
) -> Result<AttemptEnd, String> {
    let mut session = match ctx.harness.start(env).await {
        Ok(session) => session,
        Err(e) => {
            return Ok(AttemptEnd::Infra {
                cause: e.to_string(),
                scorable_turns: 0,
            })
        }
    };
    if let Some(guard) = ctx.guard {
        for store in session.viewed_stores() {
            if let Err(e) =
                guard
                    .for_trial(trial)
                    .view_store(&store.prefix, &store.dir, store.seeded)
            {
                return Ok(give_up(
                    session,
                    format!("cannot add {} to the guard's books: {e}", store.prefix),
                    0,
                )
                .await);
            }
        }
    }
    let mut answered = 0u8;
    let mut deliveries: Vec<Delivery> = Vec::new();
    for t in &s.agent.turns {
        deliveries.push(Delivery {
            turn: t.index,
            community: t.community.clone(),
            speaker: Some(t.speaker.clone()),
            text: t.text.clone(),
            community_view: String::new(),
        });
        if let Some(n) = s.agent.notice_after(t.index) {
            deliveries.push(Delivery {
                turn: t.index,
                community: n.community.clone(),
                speaker: None,
                text: n.text.clone(),
                community_view: String::new(),
            });
        }
    }
    let mut spoken = Spoken::default();
    for mut d in deliveries {
        let time = if d.speaker.is_some() {
            turn_time(d.turn)
        } else {
            event_time(d.turn)
        };
        let state =
            CommunityState::at(&s.platform, time).map_err(|e| format!("scenario state: {e}"))?;
        d.community_view = community_view(&s.agent, &state, &d.community);
        if let (Some(player), Some(turn)) =
            (ctx.player, s.agent.turns.iter().find(|t| t.index == d.turn))
        {
            if d.speaker.is_some() {
                match player.turn_text(s, turn, &trial.trace).await {
                    Ok(text) => d.text = text,
                    Err(cause) => {
                        return Ok(give_up(session, cause, answered).await);
                    }
                }
            }
            player.heard(Heard {
                community: d.community.clone(),
                time,
                voice: d.speaker.clone().map_or(Voice::Platform, Voice::Person),
                text: d.text.clone(),
            });
        }
        open_delivery(trial, &mut spoken, &d, time)?;
        let native = ctx.harness.is_native();
        let labels = ctx.guard.map(|g| g.for_trial(trial));
        // The turn sees only what it may read: a failed view fails the delivery.
        let view = labels.as_ref().map(|l| l.begin_turn(&trial.turn()));
        if let Some(Err(e)) = view {
            let cause = format!("cannot build the turn's view of the workspace: {e}");
            return Ok(give_up(session, cause, answered).await);
        }
        let before = match ctx.guard.is_some() || native {
            true => Some(snapshot(&trial.agent_root).await?),
            false => None,
        };
        if let Some(labels) = &labels {
            labels.open_window();
        }
        let delivered = session.deliver(&d).await;
        if let Some(labels) = &labels {
            labels.close_window();
        }
        if let (Some(guard), Some(before)) = (ctx.guard, &before) {
            // Files in community-visible namespaces that gained denied content go back to
            // their prior contents before anything else reads them.
            let after = snapshot(&trial.agent_root).await?;
            let restores = guard.files_to_restore(trial, before, &after);
            cosec_proxy::guard::apply_restores(&trial.agent_root, &restores)
                .map_err(|e| format!("post-turn restore failed: {e}"))?;
        }
        // What the turn wrote takes the labels of what entered it; a write whose labels
        // may not go where it landed is undone.
        let absorbed = labels.as_ref().map(|l| l.end_turn(&trial.turn()));
        if let Some(Err(e)) = absorbed {
            let cause = format!("cannot absorb the turn's writes: {e}");
            return Ok(give_up(session, cause, answered).await);
        }
        if let (true, Some(before)) = (native, &before) {
            // Native harnesses write with their own tools, which the shim never sees: the
            // change of the community workspaces over the turn is their write evidence.
            record_native_writes(trial, &d, before).await?;
        }
        match delivered {
            Ok(out) => {
                if let Some(player) = ctx.player {
                    player.heard(Heard {
                        community: d.community.clone(),
                        time,
                        voice: Voice::Agent,
                        text: out.reply.clone(),
                    });
                }
                trial
                    .trace
                    .record(TraceEvent::Reply {
                        turn: d.turn,
                        community: d.community.clone(),
                        text: out.reply,
                    })
                    .map_err(|e| e.to_string())?;
                if d.speaker.is_some() {
                    answered += 1;
                }
            }
            Err(e) => {
                return Ok(give_up(session, e.to_string(), answered).await);
            }
        }
    }
    if let Err(HarnessError::Crash(cause) | HarnessError::Model(cause)) = session.finish().await {
        return Ok(AttemptEnd::Infra {
            cause,
            scorable_turns: answered,
        });
    }
    Ok(AttemptEnd::Completed)
}

/// Who spoke in the deliveries opened so far, by turn.
#[derive(Debug, Default)]
pub struct Spoken(Vec<(u8, UserId)>);

/// Opens delivery `d` at `time`: records it in the trace and tells the proxy and the
/// shim who asked. A delivery without a speaker may still act for whoever spoke
/// earlier in its turn, so its questions are asked for them too (`cosec_policies::ask`).
pub fn open_delivery(
    trial: &Trial,
    spoken: &mut Spoken,
    d: &Delivery,
    time: Time,
) -> Result<(), String> {
    let ctx = TurnContext {
        earlier_requesters: spoken
            .0
            .iter()
            .filter(|(turn, _)| *turn == d.turn)
            .map(|(_, who)| who.clone())
            .collect(),
        ..TurnContext::new(d.turn, d.community.clone(), d.speaker.clone(), time)
    };
    if let Some(speaker) = &d.speaker {
        spoken.0.push((d.turn, speaker.clone()));
    }
    trial
        .trace
        .record(TraceEvent::Delivery {
            turn: d.turn,
            community: d.community.clone(),
            speaker: d.speaker.clone(),
            event_notice: d.speaker.is_none(),
            text: d.text.clone(),
            time: Some(time),
            earlier_requesters: ctx.earlier_requesters.clone(),
        })
        .map_err(|e| e.to_string())?;
    trial.set_turn(ctx);
    Ok(())
}

/// An attempt that cannot go on: the session is closed (a failure to close adds
/// nothing to the cause) and the attempt ends as an infrastructure failure.
async fn give_up(session: Box<dyn Session>, cause: String, scorable_turns: u8) -> AttemptEnd {
    let _ = session.finish().await;
    AttemptEnd::Infra {
        cause,
        scorable_turns,
    }
}
