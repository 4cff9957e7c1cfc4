//! Newline-delimited JSON with a live harness process: one object per line each way,
//! the protocol of Hermes's ACP server and of the stdio bridge to OpenClaw's gateway.
//! Every read has a deadline; a process that dies or writes something that is not JSON
//! on its protocol stream is an error naming what it last wrote to stderr.

use crate::sandbox::live::{Live, StderrLog};
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::time::Instant;

/// Longest protocol line accepted (a session update can carry a whole tool result).
pub const MAX_LINE: usize = 16 << 20;

/// Why a protocol exchange with a live process failed.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Nothing complete arrived before the deadline.
    #[error("no answer before the deadline")]
    Timeout,
    /// The process closed its stdout (it exited or crashed).
    #[error("the process ended")]
    Ended,
    /// Reading or writing a pipe failed.
    #[error("pipe: {0}")]
    Pipe(#[from] std::io::Error),
    /// A line that is not a JSON object, or one longer than [`MAX_LINE`].
    #[error("not a protocol line: {0}")]
    Garbled(String),
}

/// A live process spoken to in JSON lines.
pub struct JsonLines {
    live: Live,
    reader: BufReader<Box<dyn AsyncRead + Send + Unpin>>,
}

impl JsonLines {
    /// Speaks JSON lines over the pipes of `live`.
    pub fn new(mut live: Live) -> JsonLines {
        let stdout = std::mem::replace(&mut live.stdout, Box::new(tokio::io::empty()));
        JsonLines {
            live,
            reader: BufReader::new(stdout),
        }
    }

    /// The process's stderr.
    pub fn stderr(&self) -> &StderrLog {
        &self.live.stderr
    }

    /// Writes `message` as one line.
    pub async fn send(&mut self, message: &Value) -> Result<(), LineError> {
        let mut line = message.to_string();
        line.push('\n');
        self.live.stdin.write_all(line.as_bytes()).await?;
        self.live.stdin.flush().await?;
        Ok(())
    }

    /// The next JSON object the process writes, waiting until `deadline`. Blank lines
    /// are skipped.
    pub async fn next(&mut self, deadline: Instant) -> Result<Value, LineError> {
        loop {
            let mut line = String::new();
            let mut limited = (&mut self.reader).take(MAX_LINE as u64);
            let read = limited.read_line(&mut line);
            let n = match tokio::time::timeout_at(deadline, read).await {
                Ok(n) => n?,
                Err(_) => return Err(LineError::Timeout),
            };
            if n == 0 {
                return Err(LineError::Ended);
            }
            if !line.ends_with('\n') && n >= MAX_LINE {
                return Err(LineError::Garbled(format!("a line over {MAX_LINE} bytes")));
            }
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            return match serde_json::from_str::<Value>(trimmed) {
                Ok(value) if value.is_object() => Ok(value),
                _ => Err(LineError::Garbled(crate::harness::native::turn::tail(
                    trimmed, 400,
                ))),
            };
        }
    }

    /// Closes stdin, gives the process a moment and kills what is left.
    pub async fn end(self) {
        self.live.end().await;
    }
}

/// The deadline `within` from now.
pub fn deadline(within: Duration) -> Instant {
    Instant::now() + within
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::sandbox::live::Ending;
    use async_trait::async_trait;

    struct Nothing;
    #[async_trait]
    impl Ending for Nothing {
        async fn end(self: Box<Self>) {}
    }

    /// A process whose stdout is `script`'s bytes and whose stdin is discarded.
    fn fake(script: &'static [u8]) -> JsonLines {
        JsonLines::new(Live::new(
            Box::new(tokio::io::sink()),
            Box::new(script),
            StderrLog::default(),
            Box::new(Nothing),
        ))
    }

    #[tokio::test]
    async fn objects_are_read_line_by_line_and_the_end_is_reported() {
        let mut lines = fake(b"{\"a\":1}\n\n{\"b\":2}\n");
        let later = deadline(Duration::from_secs(5));
        assert_eq!(lines.next(later).await.unwrap()["a"], 1);
        assert_eq!(lines.next(later).await.unwrap()["b"], 2);
        assert!(matches!(lines.next(later).await, Err(LineError::Ended)));
    }

    #[tokio::test]
    async fn a_line_that_is_not_an_object_is_refused_with_its_text() {
        let mut lines = fake(b"Traceback: boom\n");
        let err = lines.next(deadline(Duration::from_secs(5))).await;
        match err {
            Err(LineError::Garbled(text)) => assert!(text.contains("boom")),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_silent_process_times_out() {
        let (_keep, quiet) = tokio::io::duplex(64);
        let mut lines = JsonLines::new(Live::new(
            Box::new(tokio::io::sink()),
            Box::new(quiet),
            StderrLog::default(),
            Box::new(Nothing),
        ));
        let err = lines.next(deadline(Duration::from_millis(50))).await;
        assert!(matches!(err, Err(LineError::Timeout)), "{err:?}");
    }
}
