//! Redaction of denied spans, shared by whole texts and streams (the output layer).
//!
//! The [`Redactor`] consumes text incrementally. It scans whenever more than `W`
//! characters are held (`W`, the detector's window, see [`super::detect`]) and releases
//! text up to the last whitespace at least `W` characters before the end, so a match
//! is always seen whole and a token is never split between what was released and what
//! is held. Whole texts go through the same code in one step.
//!
//! Each strong match is decided (see [`super::patterns::PatternKind`]); a weak match
//! (a phrase) is redacted only for an object whose strong match was denied in the same
//! text, or in an earlier text to the same destination in this trial when this flow's
//! own question about the object is denied as well, so ordinary words are never
//! withheld on their own, a leak loses its context too, and an entitled requester's
//! later answer keeps it. A piece of the clause around a code or name that, with the
//! pieces earlier outputs released to some readers, completes the code or name is
//! decided for those readers (see [`super::pieces`]). A redaction
//! covers the whole run of the token it falls in (no `[withheld by policy].1 percent`)
//! and spans that overlap or touch merge into one [`MARKER`], which repeats no
//! protected text, path or metadata.

use super::decide::Flow;
use super::detect::{Detector, Hit, ObjIdx, PieceHit, PieceOf};
use super::pieces::{assembling, readers_of, Piece, Reader};
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{GuardLayer, GuardMode, GuardPoint};
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination, UserId};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;

/// What replaces a denied span.
pub const MARKER: &str = "[withheld by policy]";

/// Fewest characters past the window before a stream is scanned again.
const MIN_RELEASE: usize = 16;

/// Characters of released text kept as left context for the next scan.
const CONTEXT_CHARS: usize = 64;

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

/// Whether a character continues a token run (a redaction never stops inside one).
fn in_token_run(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '"' | '\'' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '`' | '|'
        )
}

/// `span` widened to the token runs it touches, within `text`.
pub(crate) fn token_run(text: &str, span: Range<usize>) -> Range<usize> {
    let mut start = span.start.min(text.len());
    let mut end = span.end.clamp(start, text.len());
    while let Some(c) = text.get(..start).and_then(|t| t.chars().next_back()) {
        if !in_token_run(c) {
            break;
        }
        start -= c.len_utf8();
    }
    while let Some(c) = text.get(end..).and_then(|t| t.chars().next()) {
        if !in_token_run(c) {
            break;
        }
        end += c.len_utf8();
    }
    start..end
}

/// Sorted, merged spans (overlapping or touching ones become one).
pub(crate) fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<usize>> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

/// `text` with each of the merged `spans` replaced by `marker`.
pub(crate) fn replace_spans(text: &str, spans: &[Range<usize>], marker: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cur = 0;
    for s in spans {
        if let Some(before) = text.get(cur..s.start) {
            out.push_str(before);
        }
        out.push_str(marker);
        cur = cur.max(s.end);
    }
    if let Some(rest) = text.get(cur..) {
        out.push_str(rest);
    }
    out
}

/// The byte offset in `buf` up to which text may be released when the last `window`
/// characters are held back: the end of the last whitespace before that point.
fn release_limit(buf: &str, window: usize) -> usize {
    if window == 0 {
        return buf.len();
    }
    let Some((cut, _)) = buf.char_indices().rev().nth(window.saturating_sub(1)) else {
        return 0;
    };
    buf.get(..cut)
        .and_then(|head| head.rfind(char::is_whitespace))
        .map_or(0, |i| i + buf[i..].chars().next().map_or(1, char::len_utf8))
}

/// Incremental redaction of one outbound text.
pub(crate) struct Redactor {
    flow: Flow,
    detector: Arc<Detector>,
    /// Patterns the destination's participants said themselves (never withheld).
    echoes: Arc<BTreeSet<usize>>,
    /// Unreleased text.
    buf: String,
    /// The end of the released text, as left context for matching.
    context: String,
    /// The end of earlier outputs to the same destination: a match that starts there
    /// and ends in this text is a value split over two outputs, and its part here is
    /// decided.
    history: String,
    /// Whether anything of this text was released yet (then `context` follows it).
    released_any: bool,
    /// The end of what this text released, for the destination's history.
    released_tail: String,
    denied: bool,
    detected: BTreeSet<ObjIdx>,
    /// Who the destination reaches (see [`super::pieces`]).
    readers: Vec<Reader>,
    /// The pieces of clauses this text released so far (clause key, piece).
    released_pieces: Vec<Piece>,
}

impl Redactor {
    /// A redactor for `flow` of `guard`'s trial.
    pub fn new(guard: &TrialGuard, flow: Flow) -> Self {
        Redactor {
            echoes: guard.echoes(&flow.ctx, &flow.destination),
            detector: guard.candidates(),
            history: guard.history_of(&flow.destination),
            readers: readers_of(guard, &flow.destination, flow.ctx.time),
            released_pieces: Vec::new(),
            flow,
            buf: String::new(),
            context: String::new(),
            released_any: false,
            released_tail: String::new(),
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
        let window = self.detector.window();
        if self.buf.chars().count() <= window.saturating_add(MIN_RELEASE) {
            return String::new();
        }
        let limit = release_limit(&self.buf, window);
        if limit == 0 {
            return String::new();
        }
        self.process(guard, limit)
    }

    /// Ends the text; returns everything still held back, redacted, and adds the
    /// text's end to the destination's history.
    pub fn finish(&mut self, guard: &TrialGuard) -> String {
        if self.detector.is_empty() {
            return String::new();
        }
        let limit = self.buf.len();
        let out = self.process(guard, limit);
        guard.remember(
            &self.flow.destination,
            &self.released_tail,
            self.detector.window(),
        );
        guard.release_pieces(&self.readers, &self.released_pieces);
        out
    }

    /// The hits that start in the held text, in buffer offsets; before the first
    /// release also the plain matches that start in the destination's history and end
    /// in the held text (a value split over two outputs), clipped to it.
    fn hits(&self) -> (Vec<Hit>, Vec<PieceHit>) {
        let off = self.context.len();
        let text = format!("{}{}", self.context, self.buf);
        let (found, pieces) = self.detector.scan_with_pieces(&text);
        // Pieces that start in the released context were decided when they were held.
        // A piece over a whole occurrence of one of its clause's codes or names was
        // that occurrence, decided as a hit: it never counts towards completing that
        // one, only the others of its clause.
        let pieces: Vec<PieceHit> = pieces
            .into_iter()
            .filter(|p| p.start >= off)
            .map(|mut p| {
                let parts = self
                    .detector
                    .clause(p.value)
                    .map_or(&[][..], |(_, parts)| parts);
                p.piece.wholes = (0..parts.len())
                    .filter(|&i| {
                        found.iter().any(|h| {
                            Some(&h.pattern) == parts.get(i) && h.start < p.end && p.start < h.end
                        })
                    })
                    .collect();
                p.start -= off;
                p.end -= off;
                p
            })
            .collect();
        let mut hits: Vec<Hit> = found
            .into_iter()
            // A match that starts in the released context was decided when it was
            // held (every match is shorter than the window).
            .filter(|h| h.start >= off)
            .map(|mut h| {
                h.start -= off;
                h.end -= off;
                h
            })
            .collect();
        if !self.released_any && !self.history.is_empty() {
            // Joined as the reader of both outputs would run them together.
            let joined = format!("{}{}", self.history, self.buf);
            let off = self.history.len();
            hits.extend(
                self.detector
                    .scan_plain(&joined)
                    .into_iter()
                    .filter(|h| h.start < off && h.end > off)
                    .map(|mut h| {
                        h.start = 0;
                        h.end -= off;
                        h
                    }),
            );
        }
        hits.retain(|h| !self.echoes.contains(&h.pattern));
        (hits, pieces)
    }

    /// Decides the pieces of strong patterns starting before `end` that are not yet
    /// decided: a piece that, with the pieces released before to some readers,
    /// completes its pattern for them is asked about for those readers; returns the
    /// spans to redact and the pieces that may go out, and adds the objects denied.
    fn decide_pieces(
        &mut self,
        guard: &TrialGuard,
        pieces: &[PieceHit],
        decided: &mut [bool],
        end: usize,
        denied_objects: &mut BTreeSet<ObjIdx>,
    ) -> (Vec<Range<usize>>, Vec<usize>) {
        let detector = Arc::clone(&self.detector);
        let mut by_clause: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut release = Vec::new();
        for (i, p) in pieces.iter().enumerate() {
            if decided.get(i).copied().unwrap_or(true) || p.start >= end {
                continue;
            }
            if let Some(d) = decided.get_mut(i) {
                *d = true;
            }
            by_clause.entry(p.value).or_default().push(i);
        }
        let mut spans = Vec::new();
        for (value, idxs) in by_clause {
            let Some((key, parts)) = detector.clause(value) else {
                continue;
            };
            let mut current: Vec<PieceOf> = self
                .released_pieces
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, p)| p.clone())
                .collect();
            current.extend(
                idxs.iter()
                    .filter_map(|&i| Some(pieces.get(i)?.piece.clone())),
            );
            // A part the destination's participants said themselves is never withheld,
            // whole or in parts.
            let mut who = assembling(
                detector.pieces(),
                value,
                &self.readers,
                |r| guard.released_pieces(r, key),
                &current,
            );
            let mut objects = BTreeSet::new();
            who.retain(|_, completed| {
                completed.retain(|t| parts.get(*t).is_some_and(|p| !self.echoes.contains(p)));
                for t in completed.iter() {
                    if let Some(&p) = parts.get(*t) {
                        objects.extend(detector.owners(p).iter().copied());
                    }
                }
                !completed.is_empty()
            });
            let mut denied = false;
            if !who.is_empty() {
                let persons: BTreeSet<UserId> = who
                    .keys()
                    .filter_map(|r| match r {
                        Reader::Person(u) => Some(u.clone()),
                        Reader::Place(_) => None,
                    })
                    .collect();
                for o in objects {
                    self.detected.insert(o);
                    // A destination without a known audience is asked its own question.
                    let no = match persons.len() == who.len() {
                        true => self.flow.denied_for(guard, o, &persons),
                        false => self.flow.denied(guard, o, None),
                    };
                    if no {
                        denied = true;
                        denied_objects.insert(o);
                    }
                }
            }
            // In shadow mode a denied piece goes out all the same, and is remembered so.
            let goes_out = !denied || guard.mode != GuardMode::Enforce;
            for &i in &idxs {
                let Some(p) = pieces.get(i) else { continue };
                if denied {
                    spans.push(token_run(&self.buf, p.start..p.end));
                }
                if goes_out {
                    release.push(i);
                }
            }
        }
        (spans, release)
    }

    /// Decides the hits starting before `limit` and releases at least `buf[..limit]`:
    /// more when a denied token run goes on past it, and then the hits starting before
    /// the new end are decided too.
    fn process(&mut self, guard: &TrialGuard, limit: usize) -> String {
        if limit == 0 {
            return String::new();
        }
        let (hits, pieces) = self.hits();
        let mut decided = vec![false; hits.len()];
        let mut pieces_decided = vec![false; pieces.len()];
        let mut released_pieces: Vec<usize> = Vec::new();
        let mut spans: Vec<Range<usize>> = Vec::new();
        let mut denied_objects = BTreeSet::new();
        let mut end = limit.min(self.buf.len());
        loop {
            for (i, hit) in hits.iter().enumerate() {
                if decided[i] || !hit.kind.is_strong() || hit.start >= end {
                    continue;
                }
                decided[i] = true;
                for o in &hit.objects {
                    self.detected.insert(*o);
                    if self.flow.denied(guard, *o, Some(hit)) {
                        denied_objects.insert(*o);
                        spans.push(token_run(&self.buf, hit.start..hit.end));
                    }
                }
            }
            let epoch = guard.epoch(self.flow.ctx.time);
            for o in &denied_objects {
                guard.anchor(*o, &self.flow.destination, epoch);
            }
            for (i, hit) in hits.iter().enumerate() {
                if decided[i] || hit.kind.is_strong() || hit.start >= end {
                    continue;
                }
                // A phrase goes with a value denied here, or with one denied earlier to
                // the same destination, but only if this flow's own question about the
                // object is denied too: an entitled requester's answer keeps its words.
                let mut anchored = false;
                for o in &hit.objects {
                    if denied_objects.contains(o)
                        || (guard.is_anchored(*o, &self.flow.destination, epoch)
                            && self.flow.denied(guard, *o, Some(hit)))
                    {
                        anchored = true;
                        break;
                    }
                }
                if anchored {
                    decided[i] = true;
                    spans.push(token_run(&self.buf, hit.start..hit.end));
                }
            }
            let (piece_spans, go) = self.decide_pieces(
                guard,
                &pieces,
                &mut pieces_decided,
                end,
                &mut denied_objects,
            );
            spans.extend(piece_spans);
            released_pieces.extend(go);
            let reach = spans
                .iter()
                .filter(|s| s.start < end)
                .map(|s| s.end)
                .fold(end, usize::max)
                .min(self.buf.len());
            if reach == end {
                break;
            }
            end = reach;
        }
        let spans = merge(spans);
        self.denied |= !spans.is_empty();
        // The pieces that go out, unless another redaction took them.
        for i in released_pieces {
            let Some(p) = pieces.get(i) else { continue };
            let covered = guard.mode == GuardMode::Enforce
                && spans.iter().any(|s| s.start < p.end && p.start < s.end);
            if !covered {
                if let Some((key, _)) = self.detector.clause(p.value) {
                    self.released_pieces.push((key.to_owned(), p.piece.clone()));
                }
            }
        }
        let released: Vec<Range<usize>> = spans.into_iter().filter(|s| s.start < end).collect();
        let head = self.buf.get(..end).unwrap_or_default();
        let out = replace_spans(head, &released, MARKER);
        let mut context = format!("{}{}", self.context, head);
        if let Some((cut, _)) = context.char_indices().rev().nth(CONTEXT_CHARS) {
            context.drain(..cut);
        }
        self.context = context;
        self.buf.drain(..end);
        self.released_any |= end > 0;
        self.released_tail.push_str(&out);
        if let Some((cut, _)) = self
            .released_tail
            .char_indices()
            .rev()
            .nth(self.detector.window())
        {
            self.released_tail.drain(..cut);
        }
        out
    }

    /// Whether any span was denied, and how many objects were detected.
    pub fn summary(&self) -> (bool, usize) {
        (self.denied, self.detected.len())
    }
}

impl TrialGuard {
    /// The output layer's redactor for a text of `action` to `destination` at `point`
    /// in the turn `ctx`; `None` when the output layer is off (the text is not read).
    pub(crate) fn output_redactor(
        &self,
        ctx: &TurnContext,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Option<Redactor> {
        self.layers.output.then(|| {
            let flow = Flow::new(
                ctx.clone(),
                action,
                destination.clone(),
                point,
                GuardLayer::Output,
                GuardOutcome::Redact,
            );
            Redactor::new(self, flow)
        })
    }

    /// Checks an outbound text of `action` to `destination` at `point` in the turn
    /// `ctx`: every detected candidate is decided, denied spans are replaced by
    /// [`MARKER`] (enforce mode) and every decision is traced. Without the output
    /// layer the text passes unchecked.
    pub fn check_text(
        &self,
        ctx: &TurnContext,
        text: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Checked {
        let Some(mut r) = self.output_redactor(ctx, action, destination, point) else {
            return Checked {
                text: text.to_owned(),
                denied: false,
                allowed_all: true,
                detected: 0,
            };
        };
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
    use super::{merge, release_limit, replace_spans, token_run};

    #[test]
    fn release_limit_ends_on_whitespace_before_the_window() {
        assert_eq!(release_limit("ab cd ef", 2), 6);
        assert_eq!(release_limit("ab cdef", 2), 3);
        assert_eq!(release_limit("abcdef", 2), 0);
        assert_eq!(release_limit("ab", 5), 0);
        assert_eq!(release_limit("abc", 0), 3);
    }

    #[test]
    fn redactions_cover_whole_token_runs() {
        let text = "A1c 7.1 percent, see (LAB-2025) \"x\"";
        let r = token_run(text, 4..5);
        assert_eq!(&text[r], "7.1");
        let r = token_run(text, 26..30);
        assert_eq!(&text[r], "LAB-2025");
        let spans = merge(vec![0..3, 2..7, 9..10]);
        assert_eq!(spans, vec![0..7, 9..10]);
        assert_eq!(replace_spans("abcdefghij", &spans, "#"), "#hi#");
    }
}
