//! `cosec proxy serve`: the guard standing alone in front of any agent.

use crate::cli::{ServeArgs, ServeGuardModeArg};
use crate::error::CliError;
use cosec_proxy::guard::{GuardMode, GuardPolicy};
use cosec_proxy::registry::Secret;
use cosec_proxy::server::limits::ServerLimits;
use cosec_proxy::standalone::{serve_standalone, serve_unguarded, StandaloneConfig};
use cosec_proxy::upstream::UpstreamTimeouts;
use std::process::ExitCode;
use std::time::Duration;

/// Runs the standalone guard until interrupted.
pub fn serve(args: ServeArgs) -> Result<ExitCode, CliError> {
    let policy = match &args.policy {
        Some(path) => GuardPolicy::from_file(path, super::empty_policy(args.allow_empty_policy))
            .map_err(|source| CliError::GuardPolicy {
                origin: format!("--policy {}", path.display()),
                source,
            })?,
        None => GuardPolicy::from_source(
            cosec_policies::evaluate::DEFAULT_DEFENSE_SOURCE,
            cosec_policies::evaluate::DEFAULT_DEFENSE_FILE_NAME,
        )
        .map_err(|source| CliError::GuardPolicy {
            origin: "built-in defense policy".to_owned(),
            source,
        })?,
    };
    let config = StandaloneConfig {
        listen: args.listen,
        upstream: args.upstream.trim_end_matches('/').to_owned(),
        api_key: args.api_key.filter(|k| !k.is_empty()).map(Secret::new),
        model: args.model,
        policy,
        mode: match args.guard_mode {
            ServeGuardModeArg::Enforce | ServeGuardModeArg::Off => GuardMode::Enforce,
            ServeGuardModeArg::Shadow => GuardMode::Shadow,
        },
        state: args.state,
        trace: args.trace,
        workspace: args.workspace,
        guardrail: None,
        threads: args.threads.map(usize::from).unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
        timeouts: UpstreamTimeouts {
            first_byte: Duration::from_secs(args.upstream_first_byte_timeout),
            idle: Duration::from_secs(args.upstream_idle_timeout),
        },
        limits: ServerLimits {
            max_body: usize::try_from(args.max_body).unwrap_or(usize::MAX),
            max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
            header_timeout: Duration::from_secs(args.header_timeout),
            body_timeout: Duration::from_secs(args.body_timeout),
            idle_timeout: Duration::from_secs(args.idle_timeout),
        },
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(async {
        let started = if args.guard_mode == ServeGuardModeArg::Off {
            serve_unguarded(config).await
        } else {
            serve_standalone(config).await
        };
        let server = started?;
        if server.guarded() {
            eprintln!(
                "cosec proxy: guarding on {} (point your agent's OpenAI base URL there); Ctrl-C stops",
                server.base_url()
            );
        } else {
            eprintln!(
                "cosec proxy: forwarding WITHOUT a guard on {} (--guard-mode off: nothing is checked); Ctrl-C stops",
                server.base_url()
            );
        }
        tokio::signal::ctrl_c()
            .await
            .map_err(CliError::CtrlC)?;
        server.shutdown().await;
        Ok(ExitCode::SUCCESS)
    })
}
