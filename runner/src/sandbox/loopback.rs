//! The host side of the loopback relays: for each loopback listener a sandboxed process
//! must reach (the model proxy), a unix socket in a private folder whose every connection
//! is joined to that listener. Both backends run without a network; inside, `cosec-shim
//! launch` serves each address again and joins it to its socket, mounted at
//! [`RELAY_DIR`]. The socket is the sandbox's only way out; the relay stops and its
//! folder is removed when the run ends.

use crate::sandbox::SandboxError;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::net::{TcpStream, UnixListener};
use tokio::task::JoinHandle;

/// Folder inside the sandbox holding the loopback relay sockets.
pub(crate) const RELAY_DIR: &str = "/run/cosec";

/// Distinguishes the relay folders of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The relays of one run.
pub(crate) struct Relays {
    folder: Option<PathBuf>,
    sockets: Vec<(SocketAddr, PathBuf)>,
    tasks: Vec<JoinHandle<()>>,
}

impl Relays {
    /// Opens one relay socket per address of `loopback` (none: no folder at all).
    pub(crate) fn open(loopback: &[SocketAddr]) -> Result<Relays, SandboxError> {
        let mut relays = Relays {
            folder: None,
            sockets: Vec::new(),
            tasks: Vec::new(),
        };
        if loopback.is_empty() {
            return Ok(relays);
        }
        for addr in loopback {
            if !addr.ip().is_loopback() {
                return Err(SandboxError::Start(format!(
                    "{addr} is not a loopback address; a sandboxed harness reaches only the runner's loopback listeners"
                )));
            }
        }
        let folder = std::env::temp_dir().join(format!(
            "cosec-relay-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let failed = |e: std::io::Error| {
            SandboxError::Start(format!(
                "cannot make the relay folder {}: {e}",
                folder.display()
            ))
        };
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir(&folder).map_err(failed)?;
        relays.folder = Some(folder.clone());
        for addr in loopback {
            let socket = folder.join(format!("{}.sock", addr.port()));
            let listener = UnixListener::bind(&socket).map_err(|e| {
                SandboxError::Start(format!("cannot listen on {}: {e}", socket.display()))
            })?;
            relays.tasks.push(tokio::spawn(serve(listener, *addr)));
            relays.sockets.push((*addr, socket));
        }
        Ok(relays)
    }

    /// The `cosec-shim launch` arguments serving every relayed address inside the
    /// sandbox, each joined to its socket at [`RELAY_DIR`]: (host socket, socket inside,
    /// `--loopback ADDR=SOCKET`).
    pub(crate) fn mounts(&self) -> Vec<(PathBuf, String, [String; 2])> {
        self.sockets
            .iter()
            .map(|(addr, socket)| {
                let inside = format!("{RELAY_DIR}/{}.sock", addr.port());
                let arg = ["--loopback".to_owned(), format!("{addr}={inside}")];
                (socket.clone(), inside, arg)
            })
            .collect()
    }
}

impl Drop for Relays {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        if let Some(folder) = &self.folder {
            let _ = std::fs::remove_dir_all(folder);
        }
    }
}

/// Joins every connection of `listener` to `target`.
async fn serve(listener: UnixListener, target: SocketAddr) {
    while let Ok((mut inside, _)) = listener.accept().await {
        tokio::spawn(async move {
            // A refused or broken connection reaches the harness as a failed model call.
            if let Ok(mut outside) = TcpStream::connect(target).await {
                let _ = tokio::io::copy_bidirectional(&mut inside, &mut outside).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_connection_to_the_socket_reaches_the_loopback_listener() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut conn, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 4];
            conn.read_exact(&mut buf).await.unwrap();
            conn.write_all(&buf).await.unwrap();
        });
        let relays = Relays::open(&[addr]).unwrap();
        let (socket, inside, arg) = relays.mounts().remove(0);
        assert_eq!(inside, format!("{RELAY_DIR}/{}.sock", addr.port()));
        assert_eq!(arg[1], format!("{addr}={inside}"));
        let mut conn = tokio::net::UnixStream::connect(&socket).await.unwrap();
        conn.write_all(b"ping").await.unwrap();
        let mut echoed = [0u8; 4];
        conn.read_exact(&mut echoed).await.unwrap();
        assert_eq!(&echoed, b"ping");
        drop(relays);
        assert!(
            !socket.exists(),
            "the relay folder is removed with the relays"
        );
    }

    #[test]
    fn only_loopback_addresses_are_relayed() {
        let outside: SocketAddr = "10.0.0.1:80".parse().unwrap();
        assert!(Relays::open(&[outside]).is_err());
        assert!(Relays::open(&[]).unwrap().mounts().is_empty());
    }
}
