//! `cosec run`: trials in parallel on tokio, each verdict appended to `results.jsonl` as
//! it finishes, a `summary.json` and the metrics table at the end.

pub mod attempts;
pub mod infra;
pub mod options;
pub mod preflight;
pub mod progress;
pub mod record;
pub mod results;
pub mod trial;
pub mod view;

use crate::error::CliError;
use crate::harness::Harness;
use crate::metrics::{self, RunConfig};
use crate::verify::{JudgeClient, JudgeConfig, TrialStatus, Verdict};
use cosec_proxy::guard::Guard;
use cosec_proxy::registry::{ModelRoute, TrialRegistry};
use cosec_proxy::server::{ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::shim::ShimService;
use cosec_proxy::sim::SimBackend;
use cosec_scenarios::Scenario;
use options::RunPlan;
use progress::{Progress, TrialEnd};
use results::{read_results, ResultsFile};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Everything the trial tasks share.
struct Shared {
    plan: RunPlan,
    harness: Arc<dyn Harness>,
    registry: TrialRegistry,
    shim: ShimService,
    proxy_root: String,
    judges: Vec<JudgeClient>,
    results: ResultsFile,
    progress: Progress,
    guard: Option<Guard>,
    shim_sockets: Option<std::path::PathBuf>,
    breaker: infra::Breaker,
    /// Set by the breaker or Ctrl-C: trials not yet started are skipped.
    stopping: AtomicBool,
}

/// How a run ended, beyond its summary.
pub struct RunEnd {
    /// The summary written to `summary.json`.
    pub summary: metrics::Summary,
    /// The run folder.
    pub out: PathBuf,
    /// Infrastructure-failure causes grouped by kind, with counts.
    pub infra_causes: Vec<(String, usize)>,
    /// Why trials were left unscheduled, if any were.
    pub stopped: Option<Stopped>,
    /// Trials of the selection without a results line.
    pub not_run: usize,
}

/// Why a run stopped scheduling trials.
#[derive(Debug, Clone, PartialEq)]
pub enum Stopped {
    /// The same kind of infrastructure failure, this many times in a row.
    Breaker(infra::FailureKind, u32),
    /// Ctrl-C.
    Interrupted,
}

/// `cosec run`.
pub fn run(args: crate::cli::RunArgs) -> Result<ExitCode, CliError> {
    let plan = prepare(&args)?;
    // The export masks each trial's protected values, read from the scenarios it ran.
    let scenarios = match args.inspect_log {
        Some(_) => plan.scenarios.clone(),
        None => Vec::new(),
    };
    let end = execute(plan)?;
    let out = end.out.clone();
    let mut text = metrics::render_table(&end.summary);
    text.push('\n');
    // The price file was checked against the run's model before any trial started.
    let prices = match &args.prices {
        Some(path) => Some(crate::cost::PriceTable::load(path)?),
        None => None,
    };
    let loaded = crate::compare::load_run(&out)?;
    let cost = match &prices {
        Some(p) => Some(crate::cost::run_cost(&loaded, p)?),
        None => None,
    };
    text.push_str(&crate::cost::render_cost_and_time(&loaded, cost.as_ref()));
    text.push_str(&render_infra_causes(
        &end.infra_causes,
        end.summary.trials.total,
    ));
    text.push_str(&format!(
        "results: {}\n",
        out.join("results.jsonl").display()
    ));
    if let Some(dir) = &args.inspect_log {
        let dir = dir.clone().unwrap_or_else(|| out.join("inspect"));
        let log = crate::export::inspect::export_run(&loaded, &dir, &scenarios)?;
        text.push_str(&format!("inspect log: {}\n", log.display()));
    }
    crate::commands::print(&text)?;
    let (code, why) = exit_status(&end, args.max_infra_failures);
    if let Some(why) = why {
        eprintln!("cosec run: {why}");
    }
    if end.not_run > 0 {
        eprintln!(
            "cosec run: {} of {} trials not run; resume with: {}",
            end.not_run,
            end.summary.trials.total as usize + end.not_run,
            resume_command(&out)
        );
    }
    Ok(code)
}

/// The exit code of a finished run and, when not 0, why.
fn exit_status(end: &RunEnd, infra_limit: infra::InfraLimit) -> (ExitCode, Option<String>) {
    let t = &end.summary.trials;
    let total = t.total as usize + end.not_run;
    let infra = usize::try_from(t.infra_failure).unwrap_or(usize::MAX);
    match &end.stopped {
        Some(Stopped::Interrupted) => return (ExitCode::from(130), Some("interrupted".to_owned())),
        Some(Stopped::Breaker(kind, streak)) => {
            return (
                ExitCode::from(1),
                Some(format!(
                    "stopped after {streak} infrastructure failures in a row: {}",
                    kind.label()
                )),
            )
        }
        None => {}
    }
    if t.valid == 0 {
        return (
            ExitCode::from(1),
            Some("no trial is valid: the rates above mean nothing".to_owned()),
        );
    }
    if infra_limit.exceeded(infra, total) {
        return (
            ExitCode::from(1),
            Some(format!(
                "{infra} of {total} trials are infrastructure failures, more than --max-infra-failures allows"
            )),
        );
    }
    (ExitCode::SUCCESS, None)
}

/// The grouped causes under a summary, or nothing when there were none.
pub fn render_infra_causes(causes: &[(String, usize)], trials: u64) -> String {
    let count: usize = causes.iter().map(|(_, n)| n).sum();
    if count == 0 {
        return String::new();
    }
    let mut text = format!("infrastructure failures: {count} of {trials} trials\n");
    for (cause, n) in causes {
        text.push_str(&format!("  {n:>5}  {cause}\n"));
    }
    text
}

/// The command that continues the run in `out`: this process's own command line with
/// `--resume --out DIR` in place of any `--out`, `--resume` or `--retry-*` it had.
fn resume_command(out: &Path) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1).peekable();
    while let Some(arg) = args.next() {
        if arg == "--out" {
            args.next();
        } else if !(arg.starts_with("--out=")
            || arg == "--resume"
            || arg.starts_with("--retry-infra")
            || arg.starts_with("--retry-unadjudicated"))
        {
            words.push(arg);
        }
    }
    words.push("--resume".to_owned());
    words.push("--out".to_owned());
    words.push(out.display().to_string());
    let quoted: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
    format!("cosec {}", quoted.join(" "))
}

/// `word` quoted for a POSIX shell when it needs it.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,%@+".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What `cosec run`'s flags ask for, as the run's plan: every endpoint is asked once
/// (unless `--no-preflight`), then the selection, the guard and the run folder are
/// settled (a resume is checked against the folder's record).
pub fn prepare(args: &crate::cli::RunArgs) -> Result<RunPlan, CliError> {
    if !args.no_preflight {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(CliError::Runtime)?;
        runtime.block_on(preflight_all(args))?;
    }
    options::plan(args)
}

/// Runs (or resumes) the trials of `plan` and writes `summary.json`.
pub fn execute(plan: RunPlan) -> Result<RunEnd, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(run_plan(plan))
}

/// Asks the model endpoint and each judge once before anything is created.
async fn preflight_all(args: &crate::cli::RunArgs) -> Result<(), CliError> {
    use preflight::Preflight;
    let mut checks = Vec::new();
    if let ModelRoute::Upstream(up) = options::model_route(args)? {
        checks.push((
            "model endpoint".to_owned(),
            up.base_url,
            up.model,
            up.api_key,
        ));
    }
    let attack = crate::attack::AttackPlan::from_args(&args.attack)
        .map_err(|e| CliError::Run(e.to_string()))?;
    // One check per endpoint and model: the participants often share the attacker's.
    let speakers = attack
        .speakers
        .filter(|s| attack.attacker.as_ref().is_none_or(|a| a.model != s.model));
    for (what, config) in [
        ("attacker model", attack.attacker),
        ("participants' model", speakers),
    ] {
        if let Some(c) = config {
            checks.push((
                format!("{what} {}", c.model),
                c.base_url,
                c.model,
                c.api_key,
            ));
        }
    }
    for judge in JudgeConfig::panel_from_flag(args.judge.as_deref())? {
        checks.push((
            format!("judge {}", judge.model),
            judge.base_url,
            judge.model,
            judge.api_key,
        ));
    }
    for (what, base, model, key) in checks {
        match preflight::check(&what, &base, &model, key.as_ref()).await {
            Preflight::Ready => {}
            Preflight::Doubtful(said) => {
                eprintln!("warning: {said}\n  (the run starts anyway; failing trials are retried)");
            }
            Preflight::Fatal(said) => {
                return Err(CliError::Run(format!("{said}\n  no trial was started")));
            }
        }
    }
    Ok(())
}

async fn run_plan(plan: RunPlan) -> Result<RunEnd, CliError> {
    let started = Instant::now();
    let out = plan.out.clone();
    let results_path = out.join("results.jsonl");
    let retried = results::remove_lines(&results_path, |line| {
        let status = line.get("status").and_then(|s| s.as_str());
        (plan.retry_infra && status == Some("infra_failure"))
            || (plan.retry_unadjudicated && status == Some("unadjudicable"))
    })?;
    let done: BTreeSet<(String, u32)> = read_results::<Verdict>(&results_path)?
        .into_iter()
        .map(|v| (v.scenario.to_string(), v.epoch))
        .collect();
    let pending: Vec<(Arc<Scenario>, u32)> = planned_trials(&plan)
        .filter(|(s, epoch)| !done.contains(&(s.id.to_string(), *epoch)))
        .map(|(s, epoch)| (Arc::clone(s), epoch))
        .collect();
    let results = ResultsFile::open(&results_path)?;

    let registry = TrialRegistry::new();
    let guard = plan
        .guard
        .as_ref()
        .map(|g| Guard::new(g.policy.clone(), g.mode).with_layers(g.layers));
    let server = ProxyServer::bind_with(
        DEFAULT_ADDR,
        registry.clone(),
        Arc::new(SimBackend),
        ProxyOptions {
            guard: guard.clone(),
            threads: 0,
            retry: plan.upstream_retry,
            pace: plan.pace.clone(),
            // A trial has its own time limits; the upstream's are the run's.
            ..ProxyOptions::default()
        },
    )
    .await?;
    let proxy_root = format!("http://{}", server.local_addr());
    let shim = ShimService::with_guard(registry.clone(), guard.clone());
    let judges = plan
        .judges
        .iter()
        .map(|config| JudgeClient::new(config.clone(), &judge_cache_dir(&out)))
        .collect::<Result<Vec<_>, _>>()?;
    let harness = crate::harness::select(
        plan.harness,
        plan.sandbox,
        Duration::from_secs(plan.turn_timeout),
        plan.max_output_tokens,
    )
    .await?;
    // Native harnesses reach the shim only through a socket of their own trial's, in here.
    let shim_sockets = if !harness.is_native() {
        None
    } else {
        let dir = out.join("sock");
        std::fs::create_dir_all(&dir).map_err(CliError::io(&dir))?;
        Some(dir)
    };
    eprintln!(
        "cosec run: {} trial(s) to run ({} already finished{}) -> {}",
        pending.len(),
        done.len(),
        if retried.is_empty() {
            String::new()
        } else {
            format!(", {} to run again", retried.len())
        },
        out.display()
    );
    if plan.judges.is_empty() {
        eprintln!("judge: none — verdicts are deterministic only; semantic-only leaks (paraphrases) are not detected in this run");
    }
    let progress = Progress::new(
        plan.progress,
        pending.len() as u64,
        PLAIN_EVERY,
        PLAIN_QUIET,
    );
    let breaker = infra::Breaker::new(plan.max_consecutive_infra);
    let shared = Arc::new(Shared {
        plan,
        harness,
        registry,
        shim,
        proxy_root,
        judges,
        results,
        progress,
        guard,
        shim_sockets,
        breaker,
        stopping: AtomicBool::new(false),
    });
    let ticker = {
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(shared.progress.tick());
            loop {
                tick.tick().await;
                shared.progress.heartbeat();
            }
        })
    };
    let jobs = Arc::new(Semaphore::new(shared.plan.jobs.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (scenario, epoch) in pending {
        let shared = Arc::clone(&shared);
        let jobs = Arc::clone(&jobs);
        tasks.spawn(async move {
            let _permit = jobs.acquire_owned().await;
            if shared.stopping.load(Ordering::SeqCst) {
                return Ok(());
            }
            let verdict = attempts::run_trial(&shared, &scenario, epoch).await;
            let line = shared.results.append(&verdict);
            let failure = (verdict.status == TrialStatus::InfraFailure)
                .then(|| verdict.cause.clone().unwrap_or_default());
            if let Some((kind, streak)) = shared.breaker.record(failure.as_deref()) {
                shared.stopping.store(true, Ordering::SeqCst);
                shared.progress.warn(&format!(
                    "cosec run: {streak} infrastructure failures in a row ({}): no further trials are scheduled",
                    kind.label()
                ));
            }
            shared.progress.trial_done(match verdict.status {
                TrialStatus::Valid => TrialEnd::Valid,
                TrialStatus::InfraFailure => TrialEnd::Infra,
                TrialStatus::Unadjudicable => TrialEnd::Unadjudicable,
            });
            line
        });
    }
    // Every task is awaited before the first failure is reported, so that no trial is
    // left running; the first Ctrl-C stops scheduling, the second abandons the trials
    // in flight.
    let mut first_error: Option<CliError> = None;
    let mut interrupts = 0u8;
    loop {
        tokio::select! {
            joined = tasks.join_next() => {
                let Some(joined) = joined else { break };
                let failed = match joined {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(CliError::Results(e)),
                    Err(e) if e.is_cancelled() => None,
                    Err(e) => Some(CliError::TrialTask(e)),
                };
                first_error = first_error.or(failed);
            }
            signal = tokio::signal::ctrl_c(), if interrupts < 2 => {
                if signal.is_err() {
                    interrupts = 2;
                    continue;
                }
                interrupts += 1;
                shared.stopping.store(true, Ordering::SeqCst);
                if interrupts == 1 {
                    shared.progress.warn("cosec run: interrupted; finishing the trials in flight (Ctrl-C again abandons them)");
                } else {
                    shared.progress.warn("cosec run: abandoning the trials in flight");
                    tasks.abort_all();
                }
            }
        }
    }
    ticker.abort();
    shared.progress.finish();
    server.shutdown().await;
    if let Some(e) = first_error {
        return Err(e);
    }
    let verdicts: Vec<Verdict> = read_results(&results_path)?;
    let summary = metrics::summarize(
        summary_config(&shared.plan, shared.harness.as_ref()),
        &verdicts,
        Some(started.elapsed().as_secs_f64()),
    );
    crate::json_file::write_atomically(&out.join("summary.json"), &summary)?;
    let finished: BTreeSet<(&str, u32)> = verdicts.iter().map(Verdict::key).collect();
    let not_run = planned_trials(&shared.plan)
        .filter(|(s, epoch)| !finished.contains(&(s.id.as_str(), *epoch)))
        .count();
    let stopped = if interrupts > 0 {
        Some(Stopped::Interrupted)
    } else {
        shared
            .breaker
            .tripped()
            .map(|(kind, streak)| Stopped::Breaker(kind, streak))
    };
    Ok(RunEnd {
        infra_causes: infra_causes(&verdicts),
        summary,
        out,
        stopped,
        not_run,
    })
}

/// The infrastructure-failure causes of a run's verdicts, grouped.
pub fn infra_causes(verdicts: &[Verdict]) -> Vec<(String, usize)> {
    infra::grouped(
        verdicts
            .iter()
            .filter(|v| v.status == TrialStatus::InfraFailure)
            .map(|v| v.cause.as_deref().unwrap_or("no cause recorded")),
    )
}

/// Trials between two plain progress lines.
const PLAIN_EVERY: u64 = 10;
/// The longest a plain log stays silent.
const PLAIN_QUIET: Duration = Duration::from_secs(60);

fn judge_cache_dir(out: &Path) -> std::path::PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .map(|c| c.join("cosec").join("judge"))
        .unwrap_or_else(|| out.join("judge-cache"))
}

/// Every trial the plan asks for, a scenario and its repeat: each scenario's first
/// repeat before any second one, so that a run stopped early has covered the
/// selection as evenly as it could.
fn planned_trials(plan: &RunPlan) -> impl Iterator<Item = (&Arc<Scenario>, u32)> {
    (0..plan.record.epochs).flat_map(move |epoch| plan.scenarios.iter().map(move |s| (s, epoch)))
}

/// The model route of repeat `epoch`: with `--seed S`, repeat `e` is sent `S + e`, so
/// repeats are independent draws that a second run reproduces.
pub(super) fn epoch_route(route: &ModelRoute, epoch: u32) -> ModelRoute {
    let mut route = route.clone();
    if let ModelRoute::Upstream(up) = &mut route {
        up.sampling.seed = up
            .sampling
            .seed
            .map(|seed| seed.wrapping_add(u64::from(epoch)));
    }
    route
}

fn summary_config(plan: &RunPlan, harness: &dyn Harness) -> RunConfig {
    let mut config = record::config_from_record(&plan.record);
    config.harness_version = Some(harness.version());
    config.sandbox = harness.sandbox().map(str::to_owned);
    config.judge = options::panel_name(&plan.judges);
    config
}
