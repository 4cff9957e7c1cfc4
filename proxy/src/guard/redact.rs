//! Redaction of denied spans, shared by whole texts and streams.
//!
//! The [`Redactor`] consumes text incrementally and releases everything except the
//! last `W` characters (the detector's window, see [`super::detect`]): any match
//! covering a released character is then complete, because no match is longer than
//! `W`. Whole texts go through the same code in one step, so a stream and the whole
//! text give exactly the same output. Denied spans that overlap or touch merge into one
//! [`MARKER`], which repeats no protected text, path or metadata.

use super::decide::Flow;
use super::detect::{Detector, ObjIdx};
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{GuardMode, GuardPoint};
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What replaces a denied span.
pub const MARKER: &str = "[withheld by policy]";

/// The result of checking a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The text to let through: denied spans replaced by [`MARKER`] (in shadow mode,
    /// the input unchanged).
    pub text: String,
    /// Whether any span was denied (in shadow mode: would have been).
    pub denied: bool,
    /// Whether no detected span was denied (also true when nothing was detected).
    pub allowed_all: bool,
    /// How many distinct protected objects were detected.
    pub detected: usize,
}

/// Incremental redaction of one outbound text.
pub(crate) struct Redactor {
    flow: Flow,
    detector: Arc<Detector>,
    /// Unreleased text, starting at absolute byte `emitted`.
    buf: String,
    /// The character just before `buf`.
    prev: Option<char>,
    /// Absolute byte offset up to which output has been produced.
    emitted: usize,
    /// Absolute end of the last denied region, if any.
    region_end: Option<usize>,
    denied: bool,
    detected: BTreeSet<ObjIdx>,
}

/// The byte offset in `buf` before which everything may be released when the last
/// `window` characters are held back.
fn release_limit(buf: &str, window: usize) -> usize {
    if window == 0 {
        return buf.len();
    }
    buf.char_indices()
        .rev()
        .nth(window - 1)
        .map_or(0, |(i, _)| i)
}

impl Redactor {
    /// A redactor for `flow` using `detector` (a snapshot of the candidates).
    pub fn new(flow: Flow, detector: Arc<Detector>) -> Self {
        Redactor {
            flow,
            detector,
            buf: String::new(),
            prev: None,
            emitted: 0,
            region_end: None,
            denied: false,
            detected: BTreeSet::new(),
        }
    }

    /// The hold-back window in characters.
    pub fn window(&self) -> usize {
        self.detector.window()
    }

    /// Adds text; returns what may be released now.
    pub fn push(&mut self, guard: &TrialGuard, delta: &str) -> String {
        if self.detector.is_empty() {
            return delta.to_owned();
        }
        self.buf.push_str(delta);
        let limit = release_limit(&self.buf, self.detector.window());
        self.process(guard, limit, false)
    }

    /// Ends the text; returns everything still held back, redacted.
    pub fn finish(&mut self, guard: &TrialGuard) -> String {
        if self.detector.is_empty() {
            return String::new();
        }
        let limit = self.buf.len();
        self.process(guard, limit, true)
    }

    /// Releases `buf[..limit]`, deciding every match that starts before `limit`.
    fn process(&mut self, guard: &TrialGuard, limit: usize, at_end: bool) -> String {
        if limit == 0 && !at_end {
            return String::new();
        }
        let base = self.emitted;
        let hits = self.detector.scan(&self.buf, self.prev, at_end);
        let mut out = String::new();
        // Next absolute position whose text has not been emitted or suppressed.
        let mut cur = self.region_end.map_or(base, |r| r.max(base));
        for hit in hits {
            if hit.start >= limit {
                continue;
            }
            let mut denied = false;
            for o in &hit.objects {
                self.detected.insert(*o);
                denied |= self.flow.denied(guard, *o);
            }
            if !denied {
                continue;
            }
            self.denied = true;
            let (s, e) = (base + hit.start, base + hit.end);
            match self.region_end {
                Some(r) if s <= r => {
                    let r = r.max(e);
                    self.region_end = Some(r);
                    cur = cur.max(r);
                }
                _ => {
                    if cur < s {
                        out.push_str(&self.buf[cur - base..s - base]);
                    }
                    out.push_str(MARKER);
                    self.region_end = Some(e);
                    cur = e;
                }
            }
        }
        let end = base + limit;
        if cur < end {
            out.push_str(&self.buf[cur - base..limit]);
        }
        self.prev = self.buf[..limit].chars().next_back().or(self.prev);
        self.buf.drain(..limit);
        self.emitted = end;
        out
    }

    /// Whether any span was denied, and how many objects were detected.
    pub fn summary(&self) -> (bool, usize) {
        (self.denied, self.detected.len())
    }
}

impl TrialGuard {
    /// Checks an outbound text of `action` to `destination` at `point` in the turn
    /// `ctx`: every detected candidate is decided, denied spans are replaced by
    /// [`MARKER`] (enforce mode) and every decision is traced.
    pub fn check_text(
        &self,
        ctx: &TurnContext,
        text: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Checked {
        self.check_with(ctx, text, action, destination, point, self.candidates())
    }

    fn check_with(
        &self,
        ctx: &TurnContext,
        text: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
        detector: Arc<Detector>,
    ) -> Checked {
        let flow = Flow::new(
            ctx.clone(),
            action,
            destination.clone(),
            point,
            GuardOutcome::Redact,
        );
        let mut r = Redactor::new(flow, detector);
        let mut out = r.push(self, text);
        out.push_str(&r.finish(self));
        let (denied, detected) = r.summary();
        Checked {
            text: if self.mode == GuardMode::Enforce {
                out
            } else {
                text.to_owned()
            },
            denied,
            allowed_all: !denied,
            detected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::release_limit;

    #[test]
    fn release_limit_holds_back_the_last_characters() {
        assert_eq!(release_limit("abcdef", 2), 4);
        assert_eq!(release_limit("ab", 5), 0);
        assert_eq!(release_limit("héllo", 3), 3);
        assert_eq!(release_limit("abc", 0), 3);
    }
}
