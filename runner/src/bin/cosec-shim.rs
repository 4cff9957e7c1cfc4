//! `cosec-shim`: the MCP stdio relay a native harness launches inside its sandbox.
//!
//! It is a separate, small binary on purpose: the `cosec` binary embeds the frozen suite
//! and the oracle, and anything a sandboxed agent can execute must not carry them. This
//! relay knows only the socket path and the trial id; labels and traces stay with the
//! runner on the other side of the socket.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut socket: Option<PathBuf> = None;
    let mut trial: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--socket" => socket = args.next().map(PathBuf::from),
            "--trial" => trial = args.next(),
            "--help" | "-h" => {
                println!("usage: cosec-shim --socket PATH --trial ID  (MCP over stdio)");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("cosec-shim: unknown argument `{other}`; usage: cosec-shim --socket PATH --trial ID");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(socket), Some(trial)) = (socket, trial) else {
        eprintln!("cosec-shim: --socket PATH and --trial ID are required");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cosec-shim: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(cosec_proxy::shim::mcp::run_stdio_relay(&socket, &trial)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cosec-shim: {e}");
            ExitCode::from(1)
        }
    }
}
