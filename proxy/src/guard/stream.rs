//! Streaming redaction with a bounded hold-back window.
//!
//! [`StreamGuard::push`] returns the text that is safe to release now: everything but
//! the last `W` characters seen, where `W = min(512, 3 x the longest candidate
//! pattern)` in characters (see [`super::detect`]; about 50 to 150 characters for the
//! suite's objects, and 0 when there is no candidate, when text flows through
//! unchanged). A leak split across chunks is therefore still caught, and the rest of the
//! reply flows chunk by chunk. [`StreamGuard::finish`] releases the tail. The
//! concatenated output is exactly what [`TrialGuard::check_text`] returns for the whole
//! text. In shadow mode chunks pass through at once and decisions are still traced.
//! Without the output layer (`--guard-layers input`) chunks pass through unread, as
//! [`TrialGuard::check_text`] lets a whole text pass.

use super::redact::Redactor;
use super::trial::TrialGuard;
use super::{GuardMode, GuardPoint};
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination};
use std::sync::Arc;

/// The guard over one streamed outbound text (e.g. a model reply).
pub struct StreamGuard {
    guard: Arc<TrialGuard>,
    /// `None` without the output layer: the stream is not read.
    redactor: Option<Redactor>,
    finished: bool,
}

impl StreamGuard {
    /// A stream of `action` to `destination` in turn `ctx`; the candidates are those of
    /// the moment it starts.
    pub fn new(
        guard: Arc<TrialGuard>,
        ctx: &TurnContext,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Self {
        let redactor = guard.output_redactor(ctx, action, destination, point);
        StreamGuard {
            guard,
            redactor,
            finished: false,
        }
    }

    /// The hold-back window of this stream, in characters (0 when it is not read).
    pub fn window(&self) -> usize {
        self.redactor.as_ref().map_or(0, Redactor::window)
    }

    /// Adds a chunk; returns the text safe to release now (possibly empty).
    pub fn push(&mut self, delta: &str) -> String {
        if self.finished {
            return String::new();
        }
        let Some(redactor) = self.redactor.as_mut() else {
            return delta.to_owned();
        };
        let out = redactor.push(&self.guard, delta);
        match self.guard.mode {
            GuardMode::Enforce => out,
            GuardMode::Shadow => delta.to_owned(),
        }
    }

    /// Ends the stream; returns the held-back tail (redacted). Later calls return "".
    pub fn finish(&mut self) -> String {
        if self.finished {
            return String::new();
        }
        self.finished = true;
        let Some(redactor) = self.redactor.as_mut() else {
            return String::new();
        };
        let out = redactor.finish(&self.guard);
        match self.guard.mode {
            GuardMode::Enforce => out,
            GuardMode::Shadow => String::new(),
        }
    }

    /// Whether a span was denied so far (in shadow mode: would have been).
    pub fn denied(&self) -> bool {
        self.redactor.as_ref().is_some_and(|r| r.summary().0)
    }
}

impl TrialGuard {
    /// A [`StreamGuard`] for a streamed text of this trial.
    pub fn stream(
        self: &Arc<Self>,
        ctx: &TurnContext,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> StreamGuard {
        StreamGuard::new(Arc::clone(self), ctx, action, destination, point)
    }
}
