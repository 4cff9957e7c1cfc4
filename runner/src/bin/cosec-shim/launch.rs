//! `cosec-shim launch`: loopback listeners relayed to unix sockets, then the program.

use std::net::SocketAddr;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitCode;
use tokio::net::{TcpListener, UnixStream};

/// A current-thread runtime, or `None` after saying why there is none.
pub fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("cosec-shim: cannot start the async runtime: {e}");
            None
        }
    }
}

/// Runs `launch ARGS`: the exit code of the program, or 2 for bad arguments and 1 for a
/// relay or program that cannot start.
pub fn main(args: Vec<String>) -> ExitCode {
    let (relays, command) = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("cosec-shim launch: {e}");
            return ExitCode::from(2);
        }
    };
    let Some(runtime) = runtime() else {
        return ExitCode::from(1);
    };
    match runtime.block_on(run(relays, command)) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("cosec-shim launch: {e}");
            ExitCode::from(1)
        }
    }
}

type Relay = (SocketAddr, PathBuf);

/// `--loopback ADDR=SOCKET`... `--` `PROGRAM ARGS...`.
fn parse(args: Vec<String>) -> Result<(Vec<Relay>, Vec<String>), String> {
    let mut relays = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--loopback" => {
                let value = args.next().ok_or("--loopback needs ADDR=SOCKET")?;
                let (addr, socket) = value
                    .split_once('=')
                    .ok_or_else(|| format!("--loopback {value}: expected ADDR=SOCKET"))?;
                let addr: SocketAddr = addr
                    .parse()
                    .map_err(|e| format!("--loopback {value}: {addr} is not an address: {e}"))?;
                relays.push((addr, PathBuf::from(socket)));
            }
            "--" => break,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let command: Vec<String> = args.collect();
    if command.is_empty() {
        return Err("no program after `--`".to_owned());
    }
    Ok((relays, command))
}

/// Binds every relay before the program starts (so its first call finds a listener),
/// then runs the program with this process's stdio, variables and folder.
async fn run(relays: Vec<Relay>, command: Vec<String>) -> Result<u8, String> {
    for (addr, socket) in relays {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        tokio::spawn(serve(listener, socket));
    }
    let (program, args) = command.split_first().ok_or("no program")?;
    let status = tokio::process::Command::new(program)
        .args(args)
        .status()
        .await
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let code = match (status.code(), status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => 1,
    };
    Ok(u8::try_from(code & 0xff).unwrap_or(1))
}

/// Joins every connection of `listener` to the unix socket `socket`.
async fn serve(listener: TcpListener, socket: PathBuf) {
    while let Ok((mut inside, _)) = listener.accept().await {
        let socket = socket.clone();
        tokio::spawn(async move {
            // A refused connection reaches the harness as a failed model call.
            if let Ok(mut outside) = UnixStream::connect(&socket).await {
                let _ = tokio::io::copy_bidirectional(&mut inside, &mut outside).await;
            }
        });
    }
}
