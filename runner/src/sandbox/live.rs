//! A program kept running inside a sandbox for a whole trial, spoken to through its
//! stdin and stdout: the long-lived modes of the native harnesses (Hermes's ACP server,
//! OpenClaw's gateway behind a stdio bridge). The confinement is the one of a one-shot
//! run ([`super::SandboxSpec`]); only the lifetime differs, so each backend says how it
//! starts the process and how it ends it, and this module holds what they share: the
//! pipes, a bounded record of stderr and the promise that a dropped process is killed.

use async_trait::async_trait;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};

/// Most bytes of a live process's stderr kept (the newest).
pub const STDERR_KEPT: usize = 64 * 1024;

/// How long a live process may take to exit after its stdin closed before it is killed.
/// Short on purpose: a harness keeps nothing unwritten between deliveries (each
/// delivery's evidence is exported when the delivery ends), so a longer grace would only
/// add to every trial's wall time.
pub const END_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// How a backend ends a live process: asked to stop, and killed when dropped first.
#[async_trait]
pub trait Ending: Send {
    /// Waits up to [`END_GRACE`] for the process to exit after its stdin closed, then
    /// kills whatever is left and releases what the run used (relays, container, lease).
    async fn end(self: Box<Self>);
}

/// The newest [`STDERR_KEPT`] bytes a live process wrote to stderr, with a running count
/// so a caller can take what was written since a mark (one delivery's share).
#[derive(Clone, Default)]
pub struct StderrLog {
    inner: Arc<Mutex<Kept>>,
}

#[derive(Default)]
struct Kept {
    /// Bytes written before `bytes[0]`.
    dropped: u64,
    bytes: Vec<u8>,
}

impl StderrLog {
    /// Appends `chunk`, forgetting the oldest bytes beyond [`STDERR_KEPT`].
    pub fn push(&self, chunk: &[u8]) {
        let Ok(mut kept) = self.inner.lock() else {
            return;
        };
        kept.bytes.extend_from_slice(chunk);
        let excess = kept.bytes.len().saturating_sub(STDERR_KEPT);
        if excess > 0 {
            kept.bytes.drain(..excess);
            kept.dropped += excess as u64;
        }
    }

    /// How many bytes were written so far (a mark for [`StderrLog::since`]).
    pub fn mark(&self) -> u64 {
        self.inner
            .lock()
            .map_or(0, |k| k.dropped + k.bytes.len() as u64)
    }

    /// What was written after `mark`, as far as it is still kept, lossily decoded.
    pub fn since(&self, mark: u64) -> String {
        let Ok(kept) = self.inner.lock() else {
            return String::new();
        };
        let start = mark.saturating_sub(kept.dropped) as usize;
        let bytes = kept.bytes.get(start..).unwrap_or_default();
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Copies `stream` into the log until it ends.
    pub fn follow<R: AsyncRead + Unpin + Send + 'static>(&self, mut stream: R) {
        let log = self.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; 8192];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                log.push(buf.get(..n).unwrap_or_default());
            }
        });
    }
}

/// A program running inside a sandbox: write to its stdin, read its stdout; its stderr
/// is kept in [`Live::stderr`]. Dropping it kills the program and everything it started.
pub struct Live {
    /// The program's stdin.
    pub stdin: Box<dyn AsyncWrite + Send + Unpin>,
    /// The program's stdout.
    pub stdout: Box<dyn AsyncRead + Send + Unpin>,
    /// The program's stderr, newest bytes.
    pub stderr: StderrLog,
    ending: Option<Box<dyn Ending>>,
}

impl Live {
    /// A live program from its pipes and the backend's way of ending it.
    pub fn new(
        stdin: Box<dyn AsyncWrite + Send + Unpin>,
        stdout: Box<dyn AsyncRead + Send + Unpin>,
        stderr: StderrLog,
        ending: Box<dyn Ending>,
    ) -> Live {
        Live {
            stdin,
            stdout,
            stderr,
            ending: Some(ending),
        }
    }

    /// Closes stdin, gives the program a moment to exit and kills what is left.
    pub async fn end(mut self) {
        let ending = self.ending.take();
        drop(self);
        if let Some(ending) = ending {
            ending.end().await;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_stderr_log_keeps_the_newest_bytes_and_answers_since_a_mark() {
        let log = StderrLog::default();
        log.push(b"first\n");
        let mark = log.mark();
        log.push(b"second\n");
        assert_eq!(log.since(mark), "second\n");
        assert_eq!(log.since(0), "first\nsecond\n");
        let big = vec![b'x'; STDERR_KEPT];
        log.push(&big);
        log.push(b"end");
        let all = log.since(0);
        assert_eq!(all.len(), STDERR_KEPT);
        assert!(all.ends_with("xend"));
        assert_eq!(log.mark(), (13 + STDERR_KEPT + 3) as u64);
        assert_eq!(log.since(log.mark()), "");
    }
}
