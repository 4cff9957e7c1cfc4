//! The local relay endpoint: newline-delimited JSON over a Unix socket, served from the
//! runner's process. The MCP server inside a harness sandbox connects here, so the shim
//! service (and with it every label and trace) stays outside the sandbox. Each socket
//! serves one trial: the sandbox of a trial is given only its own socket, so a request
//! naming another trial's id is refused instead of acting in that trial.

use super::protocol::{ShimRequest, ToolList, WireTool};
use super::{ShimService, ToolResult};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

/// Longest request line accepted (a write_file of a large file fits comfortably).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Errors of the shim socket.
#[derive(Debug, thiserror::Error)]
pub enum ShimSocketError {
    /// Something other than a stale socket is in the way.
    #[error("{0} exists and is not a socket; refusing to replace it")]
    PathTaken(PathBuf),
    /// Binding or configuring the socket failed.
    #[error("cannot listen on {path}: {source}")]
    Bind {
        /// The socket path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// Removes the socket file when the server goes away.
struct Unlink(PathBuf);

impl Drop for Unlink {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A bound shim socket; call [`ShimSocketServer::serve`] to answer requests.
pub struct ShimSocketServer {
    listener: std::os::unix::net::UnixListener,
    shim: ShimService,
    trial: String,
    path: PathBuf,
    _unlink: Unlink,
}

impl ShimSocketServer {
    /// Binds the socket of `trial` at `path` (replacing a stale socket file, never another
    /// file) and makes it reachable by the current user only; requests for any other
    /// trial are refused.
    pub fn bind(path: &Path, shim: ShimService, trial: &str) -> Result<Self, ShimSocketError> {
        let bind_err = |source| ShimSocketError::Bind {
            path: path.to_owned(),
            source,
        };
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if !meta.file_type().is_socket() {
                return Err(ShimSocketError::PathTaken(path.to_owned()));
            }
            std::fs::remove_file(path).map_err(bind_err)?;
        }
        let listener = std::os::unix::net::UnixListener::bind(path).map_err(bind_err)?;
        let unlink = Unlink(path.to_owned());
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(bind_err)?;
        listener.set_nonblocking(true).map_err(bind_err)?;
        Ok(ShimSocketServer {
            listener,
            shim,
            trial: trial.to_owned(),
            path: path.to_owned(),
            _unlink: unlink,
        })
    }

    /// The socket path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Answers connections until the task is dropped; each connection is served on its
    /// own task, requests on one connection in order.
    pub async fn serve(self) -> Result<(), ShimSocketError> {
        let ShimSocketServer {
            listener,
            shim,
            trial,
            path,
            _unlink,
        } = self;
        let trial: std::sync::Arc<str> = trial.into();
        let listener = tokio::net::UnixListener::from_std(listener).map_err(|source| {
            ShimSocketError::Bind {
                path: path.clone(),
                source,
            }
        })?;
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    let shim = shim.clone();
                    let trial = std::sync::Arc::clone(&trial);
                    tokio::spawn(async move {
                        if let Err(e) = serve_connection(stream, shim, &trial).await {
                            tracing::debug!(error = %e, "shim socket connection ended");
                        }
                    });
                }
                Err(e) => {
                    // Out of file descriptors and similar: back off instead of spinning.
                    tracing::warn!(error = %e, "shim socket accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}

async fn serve_connection(
    stream: UnixStream,
    shim: ShimService,
    trial: &str,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let limit = u64::try_from(MAX_LINE_BYTES)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        let n = (&mut reader)
            .take(limit)
            .read_until(b'\n', &mut buf)
            .await?;
        if n == 0 {
            return Ok(());
        }
        if buf.last() != Some(&b'\n') {
            if buf.len() > MAX_LINE_BYTES {
                let too_long =
                    ToolResult::error(format!("request longer than {MAX_LINE_BYTES} bytes"));
                write_line(&mut write, &encode(&too_long)).await?;
            }
            // A line cut off by a closed connection is never acted on: the relay may
            // resend it, and a tool must not run twice.
            return Ok(());
        }
        let answer = answer(&shim, trial, &buf).await;
        write_line(&mut write, &answer).await?;
    }
}

async fn write_line(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    line: &str,
) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    write.write_all(&bytes).await?;
    write.flush().await
}

fn encode<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| {
        r#"{"text":"internal error: unencodable answer","is_error":true}"#.to_owned()
    })
}

/// The answer line (without newline) to one request line on the socket of `trial`.
async fn answer(shim: &ShimService, trial: &str, line: &[u8]) -> String {
    let request: ShimRequest = match serde_json::from_slice(line) {
        Ok(r) => r,
        Err(e) => return encode(&ToolResult::error(format!("bad request: {e}"))),
    };
    if request.trial != trial {
        return encode(&ToolResult::error(format!(
            "trial `{}` is refused: this shim socket serves only the trial it was opened for",
            request.trial
        )));
    }
    if request.list_tools {
        return match shim.tool_defs(&request.trial) {
            Some(defs) => encode(&ToolList {
                tools: defs.iter().map(WireTool::from).collect(),
            }),
            None => encode(&ToolResult::error(format!(
                "unknown trial `{}`",
                request.trial
            ))),
        };
    }
    let Some(tool) = request.tool else {
        return encode(&ToolResult::error(
            "bad request: neither `tool` nor `list_tools`",
        ));
    };
    let arguments = request
        .arguments
        .unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new()));
    encode(&shim.call(&request.trial, &tool, arguments).await)
}
