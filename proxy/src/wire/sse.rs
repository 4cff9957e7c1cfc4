//! Server-sent events: an incremental parser for upstream streams (bytes arrive in
//! arbitrary pieces, so a line or an event may span several chunks) and the two
//! framings the OpenAI wire formats use.

use bytes::Bytes;
use serde_json::Value;

/// One parsed event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` name, if the event had one.
    pub event: Option<String>,
    /// The `data:` lines joined with newlines.
    pub data: String,
}

/// Incremental SSE parser: feed chunks, collect whole events.
#[derive(Debug, Default)]
pub struct SseParser {
    pending: Vec<u8>,
    /// How much of `pending` is known to hold no line end, so that a long line
    /// arriving in many chunks is searched once.
    scanned: usize,
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// A parser with nothing buffered.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk and returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(pos) = self.pending[from..].iter().position(|b| *b == b'\n') {
            let end = from + pos;
            let raw = &self.pending[start..=end];
            let line = String::from_utf8_lossy(raw).into_owned();
            let line = line.trim_end_matches(['\n', '\r']);
            self.line(line, &mut events);
            start = end + 1;
            from = start;
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len();
        events
    }

    /// Flushes an event left unterminated when the stream ended.
    pub fn finish(mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.pending.is_empty() {
            let rest = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.line(rest.trim_end_matches('\r'), &mut events);
        }
        self.line("", &mut events);
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if !self.data.is_empty() || self.event.is_some() {
                events.push(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data).join("\n"),
                });
            }
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => self.data.push(value.to_owned()),
            _ => {}
        }
    }
}

/// A Chat Completions frame: `data: JSON\n\n`.
pub fn data_frame(payload: &Value) -> Bytes {
    Bytes::from(format!("data: {payload}\n\n"))
}

/// The Chat Completions end-of-stream marker.
pub fn done_frame() -> Bytes {
    Bytes::from_static(b"data: [DONE]\n\n")
}

/// A Responses API frame: `event: NAME\ndata: JSON\n\n`.
pub fn named_frame(name: &str, payload: &Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {payload}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks_and_crlf_are_reassembled() {
        let mut p = SseParser::new();
        assert!(p.feed(b"event: a\r\nda").is_empty());
        let evs = p.feed(b"ta: {\"x\":1}\r\n\r\ndata: one\ndata: two\n\n: comment\n");
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: Some("a".into()),
                    data: "{\"x\":1}".into()
                },
                SseEvent {
                    event: None,
                    data: "one\ntwo".into()
                },
            ]
        );
        assert!(p.feed(b"data: [DONE]").is_empty());
        assert_eq!(p.finish()[0].data, "[DONE]");
    }
}
