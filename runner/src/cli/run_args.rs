//! `cosec run`'s flags.

use super::{Defense, GuardModeArg, HarnessName, SuiteFilter, SuiteSource};
use crate::run::infra::InfraLimit;
use crate::run::progress::ProgressMode;
use clap::Args;
use std::path::PathBuf;

/// `cosec run` options.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Which part of the frozen suite (ignored when --scenario or --scenario-file is given).
    #[arg(long, value_enum, default_value_t = SuiteFilter::All)]
    pub suite: SuiteFilter,
    /// Run only these scenario ids of the suite (repeatable).
    #[arg(long = "scenario", value_name = "ID")]
    pub scenarios: Vec<String>,
    /// Run custom scenario files; the run is marked as outside the frozen suite (repeatable).
    #[arg(long = "scenario-file", value_name = "PATH")]
    pub scenario_files: Vec<PathBuf>,
    /// The agent system.
    #[arg(long, value_enum, default_value_t = HarnessName::Builtin)]
    pub harness: HarnessName,
    /// `sim:comply`, `sim:refuse`, `sim:ideal` (simulated, offline) or `openai:NAME` (an
    /// OpenAI-compatible upstream from --model-base-url / COSEC_MODEL_BASE_URL).
    #[arg(long, default_value = "sim:comply")]
    pub model: String,
    /// Base URL of the upstream model API, ending in /v1.
    #[arg(long, env = "COSEC_MODEL_BASE_URL", value_name = "URL")]
    pub model_base_url: Option<String>,
    /// API key of the upstream (prefer the environment variable; it is never written to traces).
    #[arg(
        long,
        env = "COSEC_MODEL_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub model_api_key: Option<String>,
    /// The condition.
    #[arg(long, value_enum, default_value_t = Defense::None)]
    pub defense: Defense,
    /// Defense policy for `--defense proxy` (default: the built-in
    /// policies/defense/default.cedar); validated against the schema before any trial.
    #[arg(long, value_name = "FILE.cedar")]
    pub policy: Option<PathBuf>,
    /// Accept a --policy file holding no policy (empty or only comments), which blocks
    /// every flow; refused by default.
    #[arg(long, requires = "policy")]
    pub allow_empty_policy: bool,
    /// `enforce` or `shadow` (decide and trace only) for `--defense proxy`.
    #[arg(long, value_enum, default_value_t = GuardModeArg::Enforce)]
    pub guard_mode: GuardModeArg,
    /// The guard's layers for `--defense proxy`: `input` (keep labeled content the
    /// policy denies out of the model's context; labeled files moved by path),
    /// `output` (match what the model writes), or both.
    #[arg(long, value_name = "input,output", default_value = "input,output")]
    pub guard_layers: String,
    /// `none`, or judge model names served at COSEC_JUDGE_BASE_URL (key in
    /// COSEC_JUDGE_API_KEY), comma-separated: the first decides the verdicts, the others
    /// are asked too and their agreement with it (Cohen's kappa) is reported. Default:
    /// the judge configured by COSEC_JUDGE_BASE_URL and COSEC_JUDGE_MODEL when set, else
    /// none.
    #[arg(long, value_name = "none|MODEL[,MODEL...]")]
    pub judge: Option<String>,
    /// Trials run at once (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Output folder (default: runs/<timestamp>-<harness>-<model>-<defense>).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Continue an interrupted run in --out DIR: only unfinished trials run again.
    #[arg(long, requires = "out")]
    pub resume: bool,
    /// Retries of a trial after an infrastructure failure with no scorable turn yet.
    #[arg(long, default_value_t = 3)]
    pub retries: u32,
    /// Seconds between those retries.
    #[arg(long, default_value_t = 60)]
    pub retry_delay: u64,
    /// Seconds before a trial is stopped as an infrastructure failure.
    #[arg(long, default_value_t = 3600)]
    pub trial_timeout: u64,
    /// Seconds before a delivery is stopped as an infrastructure failure: a native
    /// harness process, or each model call of the built-in agent.
    #[arg(long, default_value_t = 600)]
    pub turn_timeout: u64,
    /// What confines the native harnesses: `docker` (a one-shot container per harness
    /// process, no network, from the image of `cosec sandbox image build`), `bwrap`
    /// (bubblewrap), or `auto`: docker when its daemon answers and the image is built,
    /// else bwrap.
    #[arg(long, value_enum, default_value_t = crate::sandbox::SandboxChoice::Auto)]
    pub sandbox: crate::sandbox::SandboxChoice,
    /// Run only slice K of N (K counts from 0): trial i of the selection is in slice
    /// i mod N. Combine the slices' folders with `cosec merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::scale::shard::Shard>,
    /// Most tokens the built-in agent asks the model for per call (`max_tokens`), so a
    /// model that rambles cannot fill its context.
    #[arg(long, default_value_t = crate::harness::builtin::DEFAULT_MAX_OUTPUT_TOKENS)]
    pub max_output_tokens: u32,
    /// Retries inside the proxy of one model call after a transient upstream failure
    /// (connection error, 5xx, 408, 429); other 4xx answers are never retried.
    #[arg(long, default_value_t = cosec_proxy::upstream::RetryPolicy::DEFAULT_RETRIES)]
    pub upstream_retries: u32,
    /// Milliseconds before the proxy's first retry of a model call; doubled on each
    /// further retry (a 429's Retry-After is honoured instead, up to 60 s).
    #[arg(long, default_value_t = cosec_proxy::upstream::RetryPolicy::DEFAULT_BACKOFF_MS)]
    pub upstream_backoff_ms: u64,
    /// Price file (per-model price per million input, output and cached-input tokens):
    /// prints the run's cost; checked before any trial starts.
    #[arg(long, value_name = "prices.toml")]
    pub prices: Option<PathBuf>,
    /// Skip the one small request to the model endpoint and the judges that checks
    /// address, key and model name before the first trial.
    #[arg(long)]
    pub no_preflight: bool,
    /// How progress is shown: a bar on a terminal, plain lines otherwise (`auto`).
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
    /// Exit 1 when more trials than this end as infrastructure failures: a count (5) or
    /// a share of the run (10%).
    #[arg(long, value_name = "N|P%", default_value = "10%")]
    pub max_infra_failures: InfraLimit,
    /// Stop scheduling trials after this many infrastructure failures of one kind in a
    /// row (0: never).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub max_consecutive_infra: u32,
    /// With --resume: run again the trials that ended as infrastructure failures.
    #[arg(long, requires = "resume")]
    pub retry_infra: bool,
    /// With --resume: run again the trials that ended unadjudicable.
    #[arg(long, requires = "resume")]
    pub retry_unadjudicated: bool,
    /// At the end of the run, also write its Inspect eval log (`cosec export inspect`)
    /// into DIR (default: the run folder's `inspect/`).
    #[arg(long, value_name = "DIR", num_args = 0..=1, require_equals = true)]
    pub inspect_log: Option<Option<PathBuf>>,
    /// The run's name in `report`, `compare` and the HTML page (default: the folder's name).
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Run every selected scenario K times, as independent trials; rates count every
    /// trial and their intervals are clustered by scenario.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub epochs: u32,
    /// Run only the first N scenarios of the selection.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Sampling temperature sent with every model call (default: the harness's own).
    #[arg(long, value_name = "T")]
    pub temperature: Option<f64>,
    /// Seed sent with every model call (default: none).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// At most this many model calls per second for the whole run (rate-limited endpoints).
    #[arg(long, value_name = "R")]
    pub max_rps: Option<f64>,
    #[command(flatten)]
    pub attack: super::AttackArgs,
    #[command(flatten)]
    pub source: SuiteSource,
}
