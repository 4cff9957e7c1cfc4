//! Guarded streaming: an upstream (or simulated) SSE stream of either wire format is
//! parsed event by event and re-rendered with the guard applied.
//!
//! Reply text deltas go through a [`crate::guard::StreamGuard`]: everything but a
//! bounded hold-back window (`W` characters, see [`crate::guard::MAX_WINDOW`]) is
//! released with the event that brought it, so the reply still flows chunk by chunk
//! and a leak split across chunks is caught. Tool-call argument deltas are held per
//! call until the call is complete, then the call is checked and emitted whole
//! (unchanged, with redacted arguments, or as a `policy_blocked` call with the same
//! id). Nothing else is held: role, usage and bookkeeping events pass at once.

mod chat;
mod responses;

use super::guarded::ReplyGuard;
use crate::api::WireApi;
use crate::wire::sse::{data_frame, named_frame, SseEvent, SseParser};
use bytes::Bytes;
use serde_json::Value;

/// Re-renders one SSE stream with the guard applied.
pub(crate) struct StreamRewriter {
    parser: SseParser,
    inner: Inner,
    finished: bool,
}

enum Inner {
    Chat(Box<chat::ChatRewriter>),
    Responses(Box<responses::ResponsesRewriter>),
}

impl StreamRewriter {
    /// A rewriter for a stream of `api` guarded by `guard`.
    pub fn new(api: WireApi, guard: ReplyGuard) -> Self {
        let inner = match api {
            WireApi::ChatCompletions => Inner::Chat(Box::new(chat::ChatRewriter::new(guard))),
            WireApi::Responses => {
                Inner::Responses(Box::new(responses::ResponsesRewriter::new(guard)))
            }
        };
        StreamRewriter {
            parser: SseParser::new(),
            inner,
            finished: false,
        }
    }

    /// Feeds raw bytes; returns the frames to send now.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Bytes> {
        let mut out = Vec::new();
        for event in self.parser.feed(chunk) {
            self.event(&event, &mut out);
        }
        out
    }

    /// Ends the stream: flushes held text and calls. Later calls return nothing.
    pub fn finish(&mut self) -> Vec<Bytes> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        let mut out = Vec::new();
        let parser = std::mem::take(&mut self.parser);
        for event in parser.finish() {
            self.event(&event, &mut out);
        }
        match &mut self.inner {
            Inner::Chat(c) => c.finish(&mut out),
            Inner::Responses(r) => r.finish(&mut out),
        }
        out
    }

    fn event(&mut self, event: &SseEvent, out: &mut Vec<Bytes>) {
        match &mut self.inner {
            Inner::Chat(c) => c.event(event, out),
            Inner::Responses(r) => r.event(event, out),
        }
    }
}

/// Renders an event again: named when the original was named.
pub(super) fn frame(name: Option<&str>, payload: &Value) -> Bytes {
    match name {
        Some(n) => named_frame(n, payload),
        None => data_frame(payload),
    }
}

/// Renders an event whose data is not JSON exactly as it came.
pub(super) fn raw_frame(event: &SseEvent) -> Bytes {
    let mut text = String::new();
    if let Some(name) = &event.event {
        text.push_str("event: ");
        text.push_str(name);
        text.push('\n');
    }
    for line in event.data.split('\n') {
        text.push_str("data: ");
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    Bytes::from(text)
}
