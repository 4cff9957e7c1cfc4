//! `cosec run`: trials in parallel on tokio, each verdict appended to `results.jsonl` as
//! it finishes, a `summary.json` and the metrics table at the end.

pub mod options;
pub mod results;
pub mod trial;
pub mod view;

use crate::error::CliError;
use crate::harness::Harness;
use crate::metrics::{self, RunConfig};
use crate::verify::{self, JudgeClient, TrialMeta, Verdict};
use cosec_proxy::guard::Guard;
use cosec_proxy::registry::TrialRegistry;
use cosec_proxy::server::{ProxyOptions, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::shim::{ShimService, ShimSocketServer};
use cosec_proxy::sim::SimBackend;
use cosec_scenarios::Scenario;
use indicatif::{ProgressBar, ProgressStyle};
use options::RunPlan;
use results::{read_results, ResultsFile};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;
use trial::{run_attempt, trial_id, AttemptCtx, AttemptEnd, TrialPaths};

/// Everything the trial tasks share.
struct Shared {
    plan: RunPlan,
    harness: Arc<dyn Harness>,
    registry: TrialRegistry,
    shim: ShimService,
    proxy_root: String,
    judges: Vec<JudgeClient>,
    results: ResultsFile,
    progress: ProgressBar,
    guard: Option<Guard>,
    shim_socket: Option<std::path::PathBuf>,
}

/// `cosec run`.
pub fn run(args: crate::cli::RunArgs) -> Result<ExitCode, CliError> {
    let (summary, out) = execute(&args)?;
    println!("{}", metrics::render_table(&summary));
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
    print!(
        "{}",
        crate::cost::render_cost_and_time(&loaded, cost.as_ref())
    );
    println!("results: {}", out.join("results.jsonl").display());
    Ok(ExitCode::SUCCESS)
}

/// Runs (or resumes) the trials `args` ask for and writes `summary.json`; returns the
/// summary and the run folder.
pub fn execute(args: &crate::cli::RunArgs) -> Result<(metrics::Summary, PathBuf), CliError> {
    let plan = options::plan(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(run_plan(plan))
}

async fn run_plan(plan: RunPlan) -> Result<(metrics::Summary, PathBuf), CliError> {
    let started = Instant::now();
    let out = plan.out.clone();
    let done: BTreeSet<String> = read_results::<Verdict>(&out.join("results.jsonl"))?
        .into_iter()
        .map(|v| v.scenario.to_string())
        .collect();
    let pending: Vec<Arc<Scenario>> = plan
        .scenarios
        .iter()
        .filter(|s| !done.contains(s.id.as_str()))
        .cloned()
        .collect();
    let results = ResultsFile::open(&out.join("results.jsonl"))?;

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
    // Native harnesses reach the shim only through this socket, relayed by `cosec-shim`.
    let shim_socket = if plan.harness == crate::cli::HarnessName::Builtin {
        None
    } else {
        let dir = out.join("sock");
        std::fs::create_dir_all(&dir).map_err(CliError::io(&dir))?;
        let path = dir.join("shim.sock");
        let socket = ShimSocketServer::bind(&path, shim.clone())?;
        tokio::spawn(socket.serve());
        Some(path)
    };
    eprintln!(
        "cosec run: {} trial(s) to run ({} already finished) -> {}",
        pending.len(),
        done.len(),
        out.display()
    );
    if plan.judges.is_empty() {
        eprintln!("judge: none — verdicts are deterministic only; semantic-only leaks (paraphrases) are not detected in this run");
    }
    let progress = ProgressBar::new(pending.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} trials {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
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
        shim_socket,
    });
    let jobs = Arc::new(Semaphore::new(shared.plan.jobs.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for scenario in pending {
        let shared = Arc::clone(&shared);
        let jobs = Arc::clone(&jobs);
        tasks.spawn(async move {
            let _permit = jobs.acquire_owned().await;
            let verdict = run_trial(&shared, &scenario).await;
            let line = shared.results.append(&verdict);
            shared.progress.inc(1);
            line
        });
    }
    // Every task is awaited before the first failure is reported, so that no trial is
    // left running.
    let mut first_error: Option<CliError> = None;
    while let Some(joined) = tasks.join_next().await {
        let failed = match joined {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(CliError::Results(e)),
            Err(e) => Some(CliError::TrialTask(e)),
        };
        first_error = first_error.or(failed);
    }
    shared.progress.finish_and_clear();
    server.shutdown().await;
    if let Some(e) = first_error {
        return Err(e);
    }
    let verdicts: Vec<Verdict> = read_results(&out.join("results.jsonl"))?;
    let summary = metrics::summarize(
        summary_config(&shared.plan, shared.harness.as_ref()),
        &verdicts,
        Some(started.elapsed().as_secs_f64()),
    );
    write_json_atomically(&out.join("summary.json"), &summary)?;
    Ok((summary, out))
}

fn judge_cache_dir(out: &Path) -> std::path::PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .map(|c| c.join("cosec").join("judge"))
        .unwrap_or_else(|| out.join("judge-cache"))
}

/// Runs one trial with retries and a timeout, then verifies it.
async fn run_trial(shared: &Shared, scenario: &Arc<Scenario>) -> Verdict {
    let plan = &shared.plan;
    let id = trial_id(&plan.record.nonce, scenario);
    let paths = TrialPaths::new(&plan.out, &id);
    let ctx = AttemptCtx {
        scenario,
        harness: shared.harness.as_ref(),
        registry: &shared.registry,
        shim: &shared.shim,
        proxy_root: &shared.proxy_root,
        model: &plan.model,
        model_name: &plan.record.model,
        guardrail: plan.guardrail.as_deref(),
        shim_socket: shared.shim_socket.as_deref(),
        guard: shared.guard.as_ref(),
    };
    let started = Instant::now();
    let mut infra: Option<String> = None;
    for attempt in 0..=plan.retries {
        let timeout = Duration::from_secs(plan.trial_timeout);
        let end = match tokio::time::timeout(timeout, run_attempt(&ctx, &id, &paths)).await {
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
                let retry = scorable_turns == 0 && attempt < plan.retries;
                infra = Some(format!(
                    "{cause} (attempt {} of {})",
                    attempt + 1,
                    plan.retries + 1
                ));
                if !retry {
                    break;
                }
                shared.progress.println(format!(
                    "{}: infrastructure failure, retrying in {} s: {cause}",
                    scenario.id, plan.retry_delay
                ));
                tokio::time::sleep(Duration::from_secs(plan.retry_delay)).await;
            }
        }
    }
    let meta = TrialMeta {
        trial: id,
        harness: shared.harness.name().to_owned(),
        model: plan.record.model.clone(),
        defense: plan.record.defense.clone(),
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    verify::verify_trial_with_panel(
        scenario,
        &meta,
        &paths.trace,
        &paths.agent_root,
        infra,
        &shared.judges,
    )
    .await
}

fn summary_config(plan: &RunPlan, harness: &dyn Harness) -> RunConfig {
    let mut config = options::config_from_record(&plan.record);
    config.harness_version = Some(harness.version());
    config.sandbox = harness.sandbox().map(str::to_owned);
    config.judge = options::panel_name(&plan.judges);
    config
}

/// Writes JSON to a temporary file and renames it into place.
pub fn write_json_atomically<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), CliError> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(CliError::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(CliError::io(path))
}
