//! The options of the two long-running commands, `cosec run` and `cosec proxy serve`.

use super::{Defense, GuardModeArg, HarnessName, ServeGuardModeArg, SuiteFilter, SuiteSource};
use clap::Args;
use std::path::PathBuf;

/// `cosec proxy serve` options.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8787")]
    pub listen: std::net::SocketAddr,
    /// Upstream base URL ending in /v1.
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Upstream API key (else the client's Authorization header is forwarded).
    #[arg(
        long,
        env = "COSEC_UPSTREAM_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub api_key: Option<String>,
    /// Model name to send upstream (default: the client's).
    #[arg(long)]
    pub model: Option<String>,
    /// Defense policy (default: the built-in policies/defense/default.cedar).
    #[arg(long, value_name = "FILE.cedar")]
    pub policy: Option<PathBuf>,
    /// Accept a --policy file holding no policy (empty or only comments), which blocks
    /// every flow; refused by default.
    #[arg(long, requires = "policy")]
    pub allow_empty_policy: bool,
    /// Community state and labeled objects (JSON; see examples/proxy-serve/state.json).
    #[arg(long, value_name = "STATE.json")]
    pub state: PathBuf,
    /// `enforce`, `shadow`, or `off` (no guard: forwards unchecked; for benchmarks).
    #[arg(long, value_enum, default_value_t = ServeGuardModeArg::Enforce)]
    pub guard_mode: ServeGuardModeArg,
    /// Append model calls and guard decisions to this trace file.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// The agent's working directory (maps absolute paths in tool calls to namespaces).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Listener threads sharing the port (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Largest request body accepted, in bytes (larger ones are answered 413).
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024,
          value_parser = clap::value_parser!(u64).range(1024..))]
    pub max_body: u64,
    /// Most client connections open at once (beyond it the longest-idle one is closed,
    /// or 503 when all are busy); lowered to what the file limit allows.
    #[arg(long, value_name = "N", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: u64,
    /// Seconds a client has to send a whole request head (also how long an idle
    /// kept-alive connection stays open).
    #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout: u64,
    /// Seconds a client has to send a whole request body after its head (else 408).
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout: u64,
    /// Seconds a client may leave what the proxy sends it unread before it is dropped.
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
    /// Seconds the upstream has to send its response headers (not retried).
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    pub upstream_first_byte_timeout: u64,
    /// Seconds the upstream may go silent during a reply; the client's stream then
    /// ends with an error.
    #[arg(long, value_name = "SECS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..))]
    pub upstream_idle_timeout: u64,
}

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
    /// Seconds one delivery may take before the harness is stopped (native harnesses).
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
    #[command(flatten)]
    pub source: SuiteSource,
}
