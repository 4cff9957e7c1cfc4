//! `cosec proxy serve`'s flags.

use super::ServeGuardModeArg;
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
