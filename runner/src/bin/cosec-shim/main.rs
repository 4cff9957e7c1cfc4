//! `cosec-shim`: the relays a native harness uses inside its sandbox.
//!
//! - `cosec-shim --socket PATH --trial ID`: the MCP stdio relay a harness launches as
//!   its MCP server, joined to the runner's shim service through the shim socket.
//! - `cosec-shim launch --loopback ADDR=SOCKET... -- PROGRAM ARGS...`: the first process
//!   of a Docker sandbox container, which has no network: it serves each loopback
//!   address the harness expects (the model proxy) inside the container and joins every
//!   connection to the mounted relay socket of that address, then runs the program and
//!   exits with its status.
//!
//! It is a separate, small binary on purpose: the `cosec` binary embeds the frozen suite
//! and the oracle, and anything a sandboxed agent can execute must not carry them. This
//! relay knows only socket paths, addresses and the trial id; labels and traces stay
//! with the runner on the other side of the sockets.

mod launch;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cosec-shim --socket PATH --trial ID  (MCP over stdio)\n       \
                     cosec-shim launch [--loopback ADDR=SOCKET]... -- PROGRAM [ARGS]...";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("launch") {
        args.next();
        return launch::main(args.collect());
    }
    let mut socket: Option<PathBuf> = None;
    let mut trial: Option<String> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--socket" => socket = args.next().map(PathBuf::from),
            "--trial" => trial = args.next(),
            "--help" | "-h" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("cosec-shim: unknown argument `{other}`; {USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(socket), Some(trial)) = (socket, trial) else {
        eprintln!("cosec-shim: --socket PATH and --trial ID are required");
        return ExitCode::from(2);
    };
    let Some(runtime) = launch::runtime() else {
        return ExitCode::from(1);
    };
    match runtime.block_on(cosec_proxy::shim::mcp::run_stdio_relay(&socket, &trial)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cosec-shim: {e}");
            ExitCode::from(1)
        }
    }
}
