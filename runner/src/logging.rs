//! The `tracing` subscriber of the `cosec` binary: the proxy's and the runner's own
//! events (upstream retries, failed trace writes) on stderr, filtered by `RUST_LOG`.

use std::io::IsTerminal as _;
use tracing_subscriber::EnvFilter;

/// How log events are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    #[default]
    Text,
    /// One JSON object per event.
    Json,
}

/// Installs the subscriber. Without `RUST_LOG`, warnings and errors are shown where
/// nobody watches a progress bar (stderr not a terminal) and errors only on a
/// terminal, where the bar would be torn by every retry notice.
pub fn install(format: LogFormat) {
    let default = if std::io::stderr().is_terminal() {
        "error"
    } else {
        "warn"
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(true);
    // A second installation (tests calling into the CLI twice) keeps the first.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
