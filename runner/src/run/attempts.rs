//! One trial of a scenario: its attack attempts (one unless `--attempts`), each run with
//! retries after infrastructure failures and a timeout, then verified. An adaptive
//! search stops at the first attempt that leaks; each later attempt's participants know
//! what they saw of the earlier ones. The trial's results line is the verdict of the
//! attempt that leaked (else of the last), under that attempt's trial id.

use super::trial::{run_attempt, trial_id, AttemptCtx, AttemptEnd, TrialPaths};
use super::{epoch_route, infra, Shared};
use crate::attack::{AttackOutcome, AttemptRecord, EarlierAttempt, Player};
use crate::verify::{self, TrialMeta, TrialStatus, Verdict};
use cosec_scenarios::ids::FIRST_TURN_TIME;
use cosec_scenarios::Scenario;
use sha2::{Digest, Sha256};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The trial id of attack attempt `attempt` of a trial: the trial's own id for the
/// first, so a run without `--attempts` keeps its ids.
fn attempt_id(trial: &str, attempt: u32) -> String {
    if attempt == 0 {
        return trial.to_owned();
    }
    hex::encode(&Sha256::digest(format!("{trial}\n{attempt}").as_bytes())[..8])
}

/// Runs one trial (repeat `epoch` of its scenario) and verifies it.
pub(super) async fn run_trial(shared: &Shared, scenario: &Arc<Scenario>, epoch: u32) -> Verdict {
    let plan = &shared.plan;
    let base = trial_id(&plan.record.nonce, scenario, epoch);
    let Some(attack) = plan.attack.as_ref() else {
        return run_verified(shared, scenario, epoch, &base, None).await.0;
    };
    let attempts = attack.settings.attempts.max(1);
    let mut earlier: Vec<EarlierAttempt> = Vec::new();
    let mut records: Vec<AttemptRecord> = Vec::new();
    let mut attempt = 0u32;
    loop {
        let id = attempt_id(&base, attempt);
        let player = Player::new(attack, scenario, attempt, earlier.clone());
        let (mut verdict, transcript) =
            run_verified(shared, scenario, epoch, &id, Some(&player)).await;
        attempt += 1;
        if attempts == 1 {
            return verdict;
        }
        records.push(AttemptRecord {
            trial: id,
            pvr: verdict.pvr,
            pvr_all: verdict.all_outputs_pvr(),
            rewrites: verdict.rewrites.clone().unwrap_or_default(),
        });
        let done = verdict.status != TrialStatus::Valid
            || verdict.pvr
            || attempt >= attempts
            || shared.stopping.load(Ordering::SeqCst);
        if done {
            if verdict.status == TrialStatus::Valid && !verdict.pvr && attempt < attempts {
                // Stopped by the run, not by the search: the budget curve would lie.
                verdict.status = TrialStatus::InfraFailure;
                verdict.cause = Some(format!(
                    "the run stopped after {attempt} of {attempts} attack attempts"
                ));
            }
            if let Some(cause) = verdict.cause.as_mut() {
                if verdict.status == TrialStatus::InfraFailure && attempt > 1 {
                    *cause = format!("attack attempt {attempt}: {cause}");
                }
            }
            // The line keeps the id of the attempt whose verdict it is, so that its
            // trace is the one the report shows beside it.
            verdict.attack = Some(AttackOutcome { attempts: records });
            return verdict;
        }
        earlier.push(EarlierAttempt {
            heard: transcript
                .into_iter()
                .filter(|h| h.time >= FIRST_TURN_TIME)
                .collect(),
            leaked: attack.settings.oracle_feedback.then_some(verdict.pvr),
        });
    }
}

/// Runs one attempt with retries and a timeout, then verifies it; the verdict and the
/// attempt's transcript (what its participants saw).
async fn run_verified(
    shared: &Shared,
    scenario: &Arc<Scenario>,
    epoch: u32,
    id: &str,
    player: Option<&Player<'_>>,
) -> (Verdict, Vec<crate::attack::Heard>) {
    let plan = &shared.plan;
    let paths = TrialPaths::new(&plan.out, id);
    let model = epoch_route(&plan.model, epoch);
    let ctx = AttemptCtx {
        scenario,
        harness: shared.harness.as_ref(),
        registry: &shared.registry,
        shim: &shared.shim,
        proxy_root: &shared.proxy_root,
        model: &model,
        model_name: &plan.record.model,
        guardrail: plan.guardrail.as_deref(),
        shim_sockets: shared.shim_sockets.as_deref(),
        guard: shared.guard.as_ref(),
        player,
    };
    let started = Instant::now();
    let mut infra: Option<String> = None;
    for retry in 0..=plan.retries {
        let timeout = Duration::from_secs(plan.trial_timeout);
        let end = match tokio::time::timeout(timeout, run_attempt(&ctx, id, &paths)).await {
            Ok(Ok(end)) => end,
            Ok(Err(cause)) => AttemptEnd::Infra {
                cause,
                scorable_turns: 0,
            },
            Err(_) => AttemptEnd::Infra {
                cause: format!("trial timed out after {} s", plan.trial_timeout),
                scorable_turns: 0,
            },
        };
        match end {
            AttemptEnd::Completed => {
                infra = None;
                break;
            }
            AttemptEnd::Refused { cause } => {
                infra = Some(cause);
                break;
            }
            AttemptEnd::Infra {
                cause,
                scorable_turns,
            } => {
                // A wrong address, key or model does not heal by waiting.
                let again = scorable_turns == 0
                    && retry < plan.retries
                    && !infra::FailureKind::of(&cause).is_fatal()
                    && !shared.stopping.load(Ordering::SeqCst);
                infra = Some(format!(
                    "{cause} (attempt {} of {})",
                    retry + 1,
                    plan.retries + 1
                ));
                if !again {
                    break;
                }
                shared.progress.warn(&format!(
                    "{}: infrastructure failure, retrying in {} s: {cause}",
                    scenario.id, plan.retry_delay
                ));
                tokio::time::sleep(Duration::from_secs(plan.retry_delay)).await;
            }
        }
    }
    let meta = TrialMeta {
        trial: id.to_owned(),
        harness: shared.harness.name().to_owned(),
        model: plan.record.model.clone(),
        defense: plan.record.defense.clone(),
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    let mut verdict = verify::verify_trial_with_panel(
        scenario,
        &meta,
        &paths.trace,
        &paths.agent_root,
        infra,
        &shared.judges,
    )
    .await;
    verdict.epoch = epoch;
    let transcript = player.map(Player::transcript).unwrap_or_default();
    (verdict, transcript)
}
