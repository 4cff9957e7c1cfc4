//! One turn of a native harness, the same for every adapter: the harness process runs
//! inside the trial's sandbox with the turn timeout, its stderr tail goes into the hidden
//! trace, and a timeout, a failed start or a failed trace write is a crash; plus the
//! export of native state after a turn, and the capping of native evidence.

use super::{process, Native};
use crate::harness::{Delivery, HarnessError};
use crate::sandbox::SandboxSpec;
use cosec_proxy::trace::{TraceEvent, TraceWriter};
use std::ffi::OsString;
use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

/// Bytes of a harness's stderr that a failure quotes and the trace keeps: enough for a
/// Node or Python stack trace with the error that caused it, which 2000 bytes often cut.
pub const STDERR_TAIL: usize = 4096;

/// How long an export of native state after a turn may take (OpenClaw's transcript,
/// Hermes's session). It only reads a local SQLite store, which takes a second or two;
/// 30 s leaves room for a loaded machine without letting a hung export double a turn.
pub const EXPORT_TIMEOUT: Duration = Duration::from_secs(30);

/// Largest native text recorded in one `HarnessOutput` trace line.
pub const TRACE_CAP: usize = 64 * 1024;

/// Where one delivery's native evidence goes: the trial's hidden trace.
pub struct Evidence<'a> {
    /// The hidden trace.
    pub trace: &'a TraceWriter,
    /// The delivery the evidence belongs to.
    pub delivery: &'a Delivery,
}

impl Evidence<'_> {
    /// Records non-blank `text` from `source`, capped at [`TRACE_CAP`]. A failed write is
    /// a crash: a trial whose hidden trace lacks the harness's own record of what it did
    /// cannot be verified, and a retried trial is better than a silently thinner one.
    pub fn record(&self, source: &str, text: &str) -> Result<(), HarnessError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        let event = TraceEvent::HarnessOutput {
            turn: self.delivery.turn,
            community: self.delivery.community.clone(),
            source: source.to_owned(),
            text: cap(text),
        };
        self.trace
            .record(event)
            .map_err(|e| HarnessError::Crash(format!("cannot write the hidden trace: {e}")))
    }
}

/// A turn whose harness process exited (successfully or not) before the time limit.
#[derive(Debug)]
pub struct Exited {
    /// How it exited.
    pub status: ExitStatus,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

impl Exited {
    /// The harness `name` failed the turn because `what`: a crash quoting the stderr tail.
    pub fn crash(&self, name: &str, what: &str) -> HarnessError {
        HarnessError::Crash(format!(
            "{name} {what}; stderr tail:\n{}",
            tail(&self.stderr, STDERR_TAIL)
        ))
    }
}

impl Native {
    /// Runs `program args` of the harness `name` inside `spec` with `input` on stdin
    /// (or stdin closed), killed after `deadline`; a failure to start is a crash.
    pub async fn run(
        &self,
        name: &str,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
        input: Option<String>,
        deadline: Duration,
    ) -> Result<process::Finished, HarnessError> {
        let sandbox = self.sandbox.as_ref();
        process::run(sandbox, spec, name, program, args, input, deadline)
            .await
            .map_err(HarnessError::Crash)
    }

    /// Runs one turn of the harness `name`: its entry with `args` and `input` within
    /// the turn timeout. The stderr tail is recorded as evidence; a run killed at the
    /// timeout is a crash naming the turn and the community.
    pub async fn turn(
        &self,
        name: &str,
        spec: &SandboxSpec,
        evidence: &Evidence<'_>,
        args: &[OsString],
        input: Option<String>,
    ) -> Result<Exited, HarnessError> {
        let entry = &self.installed.entry;
        let done = self
            .run(name, spec, entry, args, input, self.turn_timeout)
            .await?;
        let stderr_tail = tail(&done.stderr, STDERR_TAIL);
        evidence.record("stderr_tail", &stderr_tail)?;
        let Some(status) = done.status else {
            let d = evidence.delivery;
            return Err(HarnessError::Crash(format!(
                "{name} did not finish turn {} in {} within {} s and was killed; stderr tail:\n{stderr_tail}",
                d.turn,
                d.community,
                self.turn_timeout.as_secs()
            )));
        };
        Ok(Exited {
            status,
            stdout: done.stdout,
            stderr: done.stderr,
        })
    }

    /// Exports native state after a turn: `program args` of the harness `name` within
    /// [`EXPORT_TIMEOUT`], stdin closed. Its stdout, or why there is none (the stderr
    /// tail, or the timeout), which the adapter records instead: a failed export loses
    /// evidence but not the turn.
    pub async fn export(
        &self,
        name: &str,
        spec: &SandboxSpec,
        program: &Path,
        args: &[OsString],
    ) -> Result<String, String> {
        let done = self
            .run(name, spec, program, args, None, EXPORT_TIMEOUT)
            .await
            .map_err(|e| e.to_string())?;
        match done.status {
            Some(status) if status.success() => Ok(done.stdout),
            Some(status) => Err(format!(
                "exited with {status}: {}",
                tail(&done.stderr, STDERR_TAIL)
            )),
            None => Err(format!(
                "timed out after {} s: {}",
                EXPORT_TIMEOUT.as_secs(),
                tail(&done.stderr, STDERR_TAIL)
            )),
        }
    }
}

/// Caps `text` at [`TRACE_CAP`] bytes, keeping its head and tail (the tail holds the
/// final reply and the turn result).
pub fn cap(text: &str) -> String {
    if text.len() <= TRACE_CAP {
        return text.to_owned();
    }
    let half = TRACE_CAP / 2;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    let (kept_head, kept_tail) = (text.get(..head), text.get(tail..));
    format!(
        "{}\n…[{} bytes cut]…\n{}",
        kept_head.unwrap_or_default(),
        tail - head,
        kept_tail.unwrap_or_default()
    )
}

/// The last `max` bytes of `text` without trailing white space (on a character
/// boundary, marked `…` when cut), for error messages.
pub fn tail(text: &str, max: usize) -> String {
    let text = text.trim_end();
    if text.len() <= max {
        return text.to_owned();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", text.get(start..).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn capping_keeps_both_ends_and_respects_characters() {
        let text = format!("{}{}", "é".repeat(TRACE_CAP), "END");
        let capped = cap(&text);
        assert!(capped.len() <= TRACE_CAP + 64);
        assert!(capped.starts_with('é') && capped.ends_with("END"));
        assert!(capped.contains("bytes cut"));
        assert_eq!(cap("short"), "short");
    }

    #[test]
    fn the_tail_is_cut_on_a_character_boundary_and_marked() {
        assert_eq!(tail("abcdef\n", 3), "…def");
        assert_eq!(tail("éé", 3), "…é");
        assert_eq!(tail("short\n", 10), "short");
    }
}
