//! Turning `cosec run` flags into a run plan: which scenarios, which model route,
//! which folder, and the `run.json` record that makes `--resume` safe.

use crate::cli::{Defense, GuardModeArg, RunArgs, SuiteFilter};
use crate::error::CliError;
use crate::verify::JudgeConfig;
use cosec_proxy::guard::{GuardLayers, GuardMode, GuardPolicy};
use cosec_proxy::registry::{ModelRoute, Secret, SimKind, Upstream};
use cosec_scenarios::factors::Suite;
use cosec_scenarios::{suite, Scenario};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::record::{read_record, RunRecord, RUN_RECORD_VERSION};

/// The copy of the defense policy's text a run folder keeps.
pub const POLICY_COPY: &str = "policy.cedar";

/// The guardrail paragraph of `--defense prompt` (kept as a file in the repository).
pub const GUARDRAIL: &str = include_str!("../../prompts/guardrail.md");

/// What `--defense proxy` runs with.
pub struct GuardPlan {
    /// The validated defense policy.
    pub policy: GuardPolicy,
    /// Enforce or shadow.
    pub mode: GuardMode,
    /// The layers that run.
    pub layers: GuardLayers,
}

/// A fully resolved run.
pub struct RunPlan {
    /// Which harness.
    pub harness: crate::harness::HarnessKind,
    /// The sandbox of native harnesses.
    pub sandbox: crate::sandbox::SandboxChoice,
    /// Per-delivery timeout of native harnesses, seconds.
    pub turn_timeout: u64,
    /// The guard, for `--defense proxy`.
    pub guard: Option<GuardPlan>,
    /// The guardrail paragraph, for `--defense prompt`.
    pub guardrail: Option<String>,
    /// Scenarios to run.
    pub scenarios: Vec<Arc<Scenario>>,
    /// Who answers model calls.
    pub model: ModelRoute,
    /// Judges, the deciding one first (empty: no judge).
    pub judges: Vec<JudgeConfig>,
    /// Output folder (exists).
    pub out: PathBuf,
    /// The record written to `run.json`.
    pub record: RunRecord,
    /// Trials at once.
    pub jobs: usize,
    /// Retries after infrastructure failures with no scorable turn.
    pub retries: u32,
    /// Seconds between retries.
    pub retry_delay: u64,
    /// Per-trial timeout in seconds.
    pub trial_timeout: u64,
    /// `max_tokens` of the built-in agent's model calls.
    pub max_output_tokens: u32,
    /// How the proxy retries transient upstream failures of one model call.
    pub upstream_retry: cosec_proxy::upstream::RetryPolicy,
    /// Prices for the cost line (`--prices`), checked to cover the run's model.
    pub prices: Option<crate::cost::PriceTable>,
    /// How progress is shown.
    pub progress: super::progress::ProgressMode,
    /// When a run with infrastructure failures exits 1.
    pub infra_limit: super::infra::InfraLimit,
    /// Infrastructure failures of one kind in a row that stop the run (0: never).
    pub max_consecutive_infra: u32,
    /// Run again the trials that ended as infrastructure failures (`--resume`).
    pub retry_infra: bool,
    /// Run again the trials that ended unadjudicable (`--resume`).
    pub retry_unadjudicated: bool,
    /// The cap on model calls per second (`--max-rps`).
    pub pace: Option<Arc<cosec_proxy::upstream::Pacer>>,
    /// Participants played by a model or by mutation, and attack attempts (`--attacker`).
    pub attack: Option<crate::attack::AttackPlan>,
}

/// The scenarios a run selects with the suite's digest, whether they lie outside the
/// frozen suite, and the suite version (none for custom scenario files).
type Selection = (Vec<Scenario>, String, bool, Option<u32>);

fn select(args: &RunArgs) -> Result<Selection, CliError> {
    if !args.scenario_files.is_empty() {
        let mut scenarios: Vec<Scenario> = Vec::new();
        let mut hasher = Sha256::new();
        for (i, path) in args.scenario_files.iter().enumerate() {
            let bytes = suite::read_scenario_bytes(path)?;
            hasher.update(&bytes);
            let scenario = suite::load_scenario_bytes(path, &bytes)?;
            if let Some(first) = scenarios.iter().position(|s| s.id == scenario.id) {
                return Err(duplicate(
                    scenario.id.as_str(),
                    &format!("--scenario-file {}", args.scenario_files[first].display()),
                    &format!("--scenario-file {}", args.scenario_files[i].display()),
                ));
            }
            scenarios.push(scenario);
        }
        return Ok((scenarios, hex::encode(hasher.finalize()), true, None));
    }
    for (i, id) in args.scenarios.iter().enumerate() {
        if args.scenarios[..i].contains(id) {
            let flag = format!("--scenario {id}");
            return Err(duplicate(id, &flag, &flag));
        }
    }
    let loaded = match &args.source.suite_dir {
        Some(dir) => suite::load_dir(dir, args.source.allow_modified)?,
        None => suite::load_embedded(args.source.allow_modified)?,
    };
    let scenarios: Vec<Scenario> = if args.scenarios.is_empty() {
        loaded
            .scenarios
            .into_iter()
            .filter(|s| match args.suite {
                SuiteFilter::All => true,
                SuiteFilter::Static112 => s.factors.suite == Suite::Static112,
                SuiteFilter::Dyn96 => s.factors.suite == Suite::Dyn96,
            })
            .collect()
    } else {
        let mut picked = Vec::new();
        for id in &args.scenarios {
            let found = loaded
                .scenarios
                .iter()
                .find(|s| s.id.as_str() == id)
                .ok_or_else(|| CliError::UnknownScenario {
                    id: id.clone(),
                    hint: String::new(),
                })?;
            picked.push(found.clone());
        }
        picked
    };
    Ok((
        scenarios,
        loaded.suite_digest,
        loaded.modified,
        Some(loaded.suite_version),
    ))
}

/// A scenario selected twice would run twice into the one trial folder its id names.
fn duplicate(id: &str, first: &str, second: &str) -> CliError {
    CliError::Run(format!(
        "scenario `{id}` is selected twice (by `{first}` and by `{second}`); each trial's folder is named by its scenario id, so select each scenario once"
    ))
}

/// Parses `--model`.
pub fn model_route(args: &RunArgs) -> Result<ModelRoute, CliError> {
    let m = args.model.trim();
    let sim = match m {
        "sim:comply" => Some(SimKind::Comply),
        "sim:refuse" => Some(SimKind::Refuse),
        "sim:ideal" => Some(SimKind::Ideal),
        _ => None,
    };
    if let Some(kind) = sim {
        return Ok(ModelRoute::Sim(kind));
    }
    let Some(name) = m.strip_prefix("openai:").filter(|n| !n.is_empty()) else {
        return Err(CliError::Run(format!(
            "--model `{m}` is not known; use sim:comply, sim:refuse, sim:ideal or openai:NAME"
        )));
    };
    let base_url = args.model_base_url.clone().filter(|u| !u.trim().is_empty()).ok_or_else(|| {
        CliError::Run(format!(
            "--model {m} needs the upstream's base URL: set COSEC_MODEL_BASE_URL or --model-base-url (e.g. https://api.example.com/v1)"
        ))
    })?;
    let base_url = checked_base_url(base_url.trim())?;
    Ok(ModelRoute::Upstream(Upstream {
        base_url: base_url.trim_end_matches('/').to_owned(),
        api_key: args
            .model_api_key
            .clone()
            .filter(|k| !k.is_empty())
            .map(Secret::new),
        model: name.to_owned(),
        sampling: cosec_proxy::registry::Sampling {
            temperature: args.temperature,
            seed: args.seed,
        },
    }))
}

/// The upstream's base URL parsed before any trial, so that a typo fails at once
/// instead of as an infrastructure failure of every trial.
fn checked_base_url(url: &str) -> Result<&str, CliError> {
    let bad = |why: String| {
        CliError::Run(format!(
            "--model-base-url (or COSEC_MODEL_BASE_URL) `{url}` is not a usable URL: {why}; give the upstream's base URL, e.g. https://api.example.com/v1"
        ))
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| bad(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad(format!(
            "the scheme is `{}`, not http or https",
            parsed.scheme()
        )));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad("it names no host".to_owned()));
    }
    Ok(url)
}

fn default_out(args: &RunArgs) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let model: String = args
        .model
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    PathBuf::from("runs").join(format!(
        "{}-{}-{model}-{}",
        utc_stamp(secs),
        args.harness.as_str(),
        args.defense.as_str()
    ))
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn utc_stamp(secs: u64) -> String {
    i64::try_from(secs)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .strftime("%Y%m%d-%H%M%S")
        .to_string()
}

/// How a run names its judges: `none`, or the models comma-separated, deciding one first.
pub fn panel_name(judges: &[JudgeConfig]) -> String {
    if judges.is_empty() {
        return "none".to_owned();
    }
    judges
        .iter()
        .map(|j| j.model.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Checks every flag that names something outside the run (model route and URL, price
/// file, defense policy, guard layers) without selecting scenarios or creating a
/// folder: `cosec matrix run` calls it for every cell before the first trial.
pub fn preflight(args: &RunArgs) -> Result<(), CliError> {
    model_route(args)?;
    prices(args)?;
    guard(args)?;
    Ok(())
}

/// `--prices`, loaded and checked to cover the run's model.
fn prices(args: &RunArgs) -> Result<Option<crate::cost::PriceTable>, CliError> {
    match &args.prices {
        Some(path) => {
            let table = crate::cost::PriceTable::load(path)?;
            table.require(args.model.trim())?;
            Ok(Some(table))
        }
        None => Ok(None),
    }
}

/// Where a run's defense policy came from, its text and its digest.
struct PolicyRecord {
    source: String,
    text: String,
    digest: String,
}

/// The guard of `--defense proxy` and the record of its policy.
fn guard(args: &RunArgs) -> Result<(Option<GuardPlan>, Option<PolicyRecord>), CliError> {
    let sha = |text: &str| hex::encode(Sha256::digest(text.as_bytes()));
    match args.defense {
        Defense::Proxy => {
            let (policy, text) = match &args.policy {
                Some(path) => {
                    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io {
                        path: path.clone(),
                        source,
                        hint: " (--policy)".to_owned(),
                    })?;
                    let policy = GuardPolicy::from_source_with(
                        &text,
                        &path.display().to_string(),
                        crate::commands::empty_policy(args.allow_empty_policy),
                    )
                    .map_err(|source| CliError::GuardPolicy {
                        origin: format!("--policy {}", path.display()),
                        source,
                    })?;
                    (policy, text)
                }
                None => {
                    let text = cosec_policies::evaluate::DEFAULT_DEFENSE_SOURCE;
                    let policy = GuardPolicy::from_source(
                        text,
                        cosec_policies::evaluate::DEFAULT_DEFENSE_FILE_NAME,
                    )
                    .map_err(|source| CliError::GuardPolicy {
                        origin: "built-in defense policy".to_owned(),
                        source,
                    })?;
                    (policy, text.to_owned())
                }
            };
            let mode = match args.guard_mode {
                GuardModeArg::Enforce => GuardMode::Enforce,
                GuardModeArg::Shadow => GuardMode::Shadow,
            };
            let layers = GuardLayers::parse(&args.guard_layers)
                .map_err(|e| CliError::Run(format!("--guard-layers: {e}")))?;
            let source = match &args.policy {
                Some(path) => path.display().to_string(),
                None => format!(
                    "built-in {}",
                    cosec_policies::evaluate::DEFAULT_DEFENSE_FILE_NAME
                ),
            };
            Ok((
                Some(GuardPlan {
                    policy,
                    mode,
                    layers,
                }),
                Some(PolicyRecord {
                    source,
                    digest: sha(&text),
                    text,
                }),
            ))
        }
        Defense::None | Defense::Prompt => {
            let default_layers =
                GuardLayers::parse(&args.guard_layers) == Ok(GuardLayers::default());
            if args.policy.is_some() || args.guard_mode == GuardModeArg::Shadow || !default_layers {
                return Err(CliError::Run(
                    "--policy, --guard-mode and --guard-layers apply to the runtime guard; add --defense proxy"
                        .to_owned(),
                ));
            }
            Ok((None, None))
        }
    }
}

/// Resolves flags into a plan, creating the run folder (or checking it on `--resume`).
pub fn plan(args: &RunArgs) -> Result<RunPlan, CliError> {
    let model = model_route(args)?;
    let attack = crate::attack::AttackPlan::from_args(&args.attack)
        .map_err(|e| CliError::Run(e.to_string()))?;
    let prices = prices(args)?;
    let judges = JudgeConfig::panel_from_flag(args.judge.as_deref())?;
    let (scenarios, suite_digest, outside, suite_version) = select(args)?;
    let sha = |text: &str| hex::encode(Sha256::digest(text.as_bytes()));
    let (guard, policy) = guard(args)?;
    let guardrail = (args.defense == Defense::Prompt).then(|| GUARDRAIL.trim().to_owned());
    let mut scenarios = scenarios;
    if let Some(limit) = args.limit {
        scenarios.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    if scenarios.is_empty() {
        return Err(CliError::Run("no scenario selected".to_owned()));
    }
    let mut out = args.out.clone().unwrap_or_else(|| default_out(args));
    let mut record = RunRecord {
        schema_version: RUN_RECORD_VERSION,
        harness: args.harness.as_str().to_owned(),
        model: args.model.trim().to_owned(),
        defense: args.defense.as_str().to_owned(),
        judge: panel_name(&judges),
        scenarios: scenarios.iter().map(|s| s.id.to_string()).collect(),
        suite_digest,
        suite_version,
        outside_frozen_suite: outside,
        policy_digest: policy.as_ref().map(|p| p.digest.clone()),
        guard_mode: guard.as_ref().map(|g| match g.mode {
            GuardMode::Enforce => "enforce".to_owned(),
            GuardMode::Shadow => "shadow".to_owned(),
        }),
        guard_layers: guard
            .as_ref()
            .map(|g| g.layers)
            .filter(|l| *l != GuardLayers::default())
            .map(GuardLayers::to_list),
        guardrail_digest: guardrail.as_deref().map(sha),
        nonce: String::new(),
        shard: args.shard,
        label: args.label.clone(),
        policy_source: policy.as_ref().map(|p| p.source.clone()),
        temperature: args.temperature,
        seed: args.seed,
        epochs: args.epochs,
        attack: (!attack.settings.is_seed()).then(|| attack.settings.clone()),
    };
    if args.resume {
        let old = read_record(&out)?;
        let mut expected = record.clone();
        expected.nonce = old.nonce.clone();
        // Folders written before the suite version was kept resume as they are.
        if old.suite_version.is_none() {
            expected.suite_version = None;
        }
        // The same policy may be read from another path; a label may be renamed later.
        expected.policy_source = old.policy_source.clone();
        if args.label.is_none() {
            expected.label = old.label.clone();
        }
        if old != expected {
            return Err(CliError::Run(format!(
                "{} was started with different options (harness {}, model {}, defense {}, judge {}, {} scenarios, suite {}, {}); resume it with the same flags",
                out.display(),
                old.harness,
                old.model,
                old.defense,
                old.judge,
                old.scenarios.len(),
                &old.suite_digest[..old.suite_digest.len().min(12)],
                crate::attack::describe_run(old.attack.as_ref())
            )));
        }
        record = old;
    } else {
        out = match &args.out {
            Some(_) if out.exists() => {
                return Err(CliError::Run(format!(
                "{} already exists; pass --resume to continue that run, or choose another --out",
                out.display()
            )))
            }
            Some(_) => {
                std::fs::create_dir_all(&out).map_err(CliError::io(&out))?;
                out
            }
            None => claim_fresh_dir(&out)?,
        };
        if record.label.is_none() {
            record.label = out.file_name().map(|n| n.to_string_lossy().into_owned());
        }
        if let Some(policy) = &policy {
            let copy = out.join(POLICY_COPY);
            std::fs::write(&copy, &policy.text).map_err(CliError::io(&copy))?;
        }
        let salt = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        record.nonce =
            hex::encode(&Sha256::digest(format!("{salt}-{}", std::process::id()).as_bytes())[..8]);
        crate::json_file::write_atomically(&out.join("run.json"), &record)?;
    }
    // The record keeps the whole selection so that `cosec merge` can tell a missing
    // trial; this folder runs only its slice.
    let scenarios = match args.shard {
        Some(shard) => shard.select(scenarios),
        None => scenarios,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    Ok(RunPlan {
        harness: args.harness.into(),
        sandbox: args.sandbox,
        turn_timeout: args.turn_timeout,
        guard,
        guardrail,
        scenarios: scenarios.into_iter().map(Arc::new).collect(),
        model,
        judges,
        out,
        record,
        jobs,
        retries: args.retries,
        retry_delay: args.retry_delay,
        trial_timeout: args.trial_timeout,
        max_output_tokens: args.max_output_tokens,
        upstream_retry: cosec_proxy::upstream::RetryPolicy::new(
            args.upstream_retries,
            std::time::Duration::from_millis(args.upstream_backoff_ms),
        ),
        prices,
        progress: args.progress,
        infra_limit: args.max_infra_failures,
        max_consecutive_infra: args.max_consecutive_infra,
        retry_infra: args.retry_infra,
        retry_unadjudicated: args.retry_unadjudicated,
        pace: match args.max_rps {
            None => None,
            Some(rate) => Some(Arc::new(
                cosec_proxy::upstream::Pacer::new(rate).ok_or_else(|| {
                    CliError::Run(format!(
                        "--max-rps {rate}: give a positive number of calls per second"
                    ))
                })?,
            )),
        },
        attack: attack.rewrites().then_some(attack),
    })
}

/// Creates the default run folder `base`, or `base-2`, `base-3`, ... when another run
/// started in the same second holds it (creation is the claim, so two runs never
/// share a folder).
fn claim_fresh_dir(base: &Path) -> Result<PathBuf, CliError> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(CliError::io(parent))?;
    }
    let name = base
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    for n in 1..1000 {
        let candidate = if n == 1 {
            base.to_owned()
        } else {
            base.with_file_name(format!("{name}-{n}"))
        };
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(CliError::io(&candidate)(source)),
        }
    }
    Err(CliError::Run(format!(
        "{} and 998 numbered folders beside it exist; choose --out",
        base.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::utc_stamp;

    #[test]
    fn run_folders_are_stamped_with_the_utc_date_and_time() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        assert_eq!(
            utc_stamp(1_767_225_600 + 13 * 3600 + 5 * 60 + 9),
            "20260101-130509"
        );
        assert_eq!(utc_stamp(951_782_400), "20000229-000000");
    }
}
