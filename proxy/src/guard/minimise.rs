//! The input layer: labeled content is kept out of the model's context when the
//! defense policy does not let it into this turn.
//!
//! Before a request goes to the model, every text in it (system and developer
//! instructions, participants' and earlier assistant messages, tool calls and tool
//! results, whatever the harness put there from memory, files or shell output) is
//! scanned for the protected objects' distinctive parts (see [`super::patterns`]; a
//! whole line or sentence of an object's content is a pattern too, so content a
//! harness read verbatim is found as a whole). For each object found, the guard asks
//! Cedar `read` with the turn's requester as principal, the object as resource and the
//! turn's reply destination in the context, plus `receive` for everyone that
//! destination reaches, under the community state of the turn. Denied spans are
//! replaced by [`PLACEHOLDER`] in the forwarded request only: the harness keeps its own
//! history, so content the policy lets into a later turn is there again.
//!
//! The cost to legitimate work: a turn that may not disclose an object to its
//! destination cannot use it either, not even for an allowed summary or a derived
//! fact (docs/guard.md).

use super::decide::Flow;
use super::detect::{Detector, Hit};
use super::redact::{merge, replace_spans, token_run};
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{reply_destination, GuardLayer, GuardMode, GuardPoint};
use crate::api::WireApi;
use crate::registry::TurnContext;
use crate::trace::TraceEvent;
use crate::wire::fields::{self, Opaque, BY_REFERENCE_KEYS};
use cosec_scenarios::{Action, Destination, ObjectId};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;
use std::hash::{BuildHasher, RandomState};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// What replaces content the model may not see in this turn: neutral, with no
/// protected text, path or label.
pub const PLACEHOLDER: &str = "[not available in this conversation]";

/// Strings longer than this are scanned in overlapping segments, so the matcher's
/// working memory stays bounded whatever the size of a request. The matcher's
/// readings and projections of a segment take several hundred times its size, so a
/// segment is kept small; the time to scan a text hardly depends on it (only the
/// overlaps are read twice).
pub const SEGMENT_BYTES: usize = 32 * 1024;

/// Request texts whose matches are cached per trial before the cache starts again.
const MAX_CACHED_TEXTS: usize = 1 << 16;

/// The object named in the trace for content the guard could not read.
pub const UNREADABLE: &str = "(unreadable)";

/// What minimising a request did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Minimised {
    /// Whether the forwarded request differs from the client's.
    pub changed: bool,
    /// How many spans were withheld (in shadow mode: would have been).
    pub withheld: usize,
    /// How many parts the guard could not read were replaced or removed (in shadow
    /// mode: would have been).
    pub unreadable: usize,
    /// Why the request must be refused rather than forwarded: it makes the upstream
    /// add conversation state the guard cannot read (enforce mode only).
    pub refused: Option<String>,
}

impl TrialGuard {
    /// Minimises a request in wire JSON, in place, for turn `ctx`; in shadow mode
    /// decides and traces only. Without the input layer nothing is done.
    ///
    /// Every string of the request is read except structural tokens
    /// ([`crate::wire::fields`]). A part the guard cannot read (an image, audio, video
    /// or file part) is replaced by a text part holding [`PLACEHOLDER`]; a reasoning
    /// item the upstream encrypted is removed; a request that refers to conversation
    /// state the upstream keeps (`previous_response_id`, `conversation`,
    /// `item_reference`) is refused, since what it would add to the context cannot be
    /// checked.
    pub fn minimise_request(&self, ctx: &TurnContext, api: WireApi, body: &mut Value) -> Minimised {
        let mut out = Minimised::default();
        if !self.layers.input {
            return out;
        }
        let mut flow = Flow::new(
            ctx.clone(),
            Action::Read,
            reply_destination(ctx),
            GuardPoint::Context,
            GuardLayer::Input,
            GuardOutcome::Withhold,
        );
        let Some(obj) = body.as_object_mut() else {
            return out;
        };
        for key in BY_REFERENCE_KEYS {
            if obj.get(*key).is_some_and(|v| !v.is_null()) {
                self.refuse(ctx, &mut out, &format!("`{key}`"));
            }
        }
        let mut walk = Walk {
            flow: &mut flow,
            out: &mut out,
            api,
        };
        for (key, value) in obj.iter_mut() {
            self.minimise_value(key, value, &mut walk);
        }
        if self.mode != GuardMode::Enforce {
            out.refused = None;
        }
        // What the request lets through has entered the turn: its labels go with
        // whatever the turn writes elsewhere.
        let allowed: Vec<_> = flow
            .allowed()
            .filter_map(|o| self.object(o).map(|p| p.id.clone()))
            .collect();
        self.note_entered(allowed);
        out
    }

    /// Walks a wire value found under `key`.
    fn minimise_value(&self, key: &str, v: &mut Value, walk: &mut Walk<'_>) {
        match v {
            Value::String(s) if !fields::is_structural(key, s) => self.minimise_text(s, walk),
            Value::Array(items) => {
                let before = items.len();
                let mut kept = Vec::with_capacity(before);
                for mut item in std::mem::take(items) {
                    let encrypted = item.as_object().is_some_and(fields::is_encrypted);
                    if encrypted {
                        self.unreadable(walk, "a reasoning item the upstream encrypted");
                        if self.mode == GuardMode::Enforce {
                            continue;
                        }
                    }
                    self.minimise_value(key, &mut item, walk);
                    kept.push(item);
                }
                if kept.len() != before {
                    walk.out.changed = true;
                }
                *items = kept;
            }
            Value::Object(map) => match fields::opaque_part(map) {
                Some(Opaque::Reference) => {
                    let ctx = walk.flow.ctx.clone();
                    self.refuse(&ctx, walk.out, "an `item_reference` item");
                }
                Some(Opaque::Media(kind)) => {
                    self.unreadable(walk, &format!("a `{kind}` part: the guard reads text only"));
                    if self.mode == GuardMode::Enforce {
                        *v = placeholder_part(walk.api, map);
                        walk.out.changed = true;
                    }
                }
                None => {
                    if fields::is_encrypted(map) {
                        self.unreadable(walk, "content the upstream encrypted");
                        if self.mode == GuardMode::Enforce {
                            map.remove("encrypted_content");
                            walk.out.changed = true;
                        }
                    }
                    for (k, item) in map.iter_mut() {
                        self.minimise_value(k, item, walk);
                    }
                }
            },
            _ => {}
        }
    }

    /// Withholds the denied spans of one request string.
    fn minimise_text(&self, s: &mut String, walk: &mut Walk<'_>) {
        let spans = self.withheld_spans(s, walk.flow);
        if spans.is_empty() {
            return;
        }
        walk.out.withheld += spans.len();
        if self.mode == GuardMode::Enforce {
            *s = replace_spans(s, &spans, PLACEHOLDER);
            walk.out.changed = true;
        }
    }

    /// Counts and traces a part the input layer cannot read.
    fn unreadable(&self, walk: &mut Walk<'_>, what: &str) {
        walk.out.unreadable += 1;
        let destination = walk.flow.destination.clone();
        self.trace_unreadable(
            &walk.flow.ctx,
            GuardPoint::Context,
            GuardLayer::Input,
            Action::Read,
            &destination,
            what,
        );
    }

    /// Refuses the request (enforce mode), naming what the guard cannot read.
    fn refuse(&self, ctx: &TurnContext, out: &mut Minimised, what: &str) {
        out.unreadable += 1;
        self.trace_unreadable(
            ctx,
            GuardPoint::Context,
            GuardLayer::Input,
            Action::Read,
            &reply_destination(ctx),
            &format!("{what} refers to conversation state the upstream keeps"),
        );
        out.refused.get_or_insert_with(|| {
            format!(
                "refused by the guard (fail closed): the request uses {what}, so the upstream would add conversation state the guard cannot check; send the whole conversation instead (`store: false`, no stored items)"
            )
        });
    }

    /// Traces (and counts) content the guard could not read at all; it is withheld,
    /// removed or refused as the layer's rule says.
    pub(crate) fn trace_unreadable(
        &self,
        ctx: &TurnContext,
        point: GuardPoint,
        layer: GuardLayer,
        action: Action,
        destination: &Destination,
        what: &str,
    ) {
        let outcome = match layer {
            GuardLayer::Input => GuardOutcome::Withhold,
            GuardLayer::Output => GuardOutcome::Redact,
        };
        self.count(layer, outcome, 0);
        if !self.recording() {
            return;
        }
        self.record(TraceEvent::GuardDecision {
            turn: ctx.turn,
            point,
            layer,
            object: ObjectId::from(UNREADABLE),
            pattern: None,
            view: None,
            requester: ctx.requester.clone(),
            principals: Vec::new(),
            time: Some(ctx.time),
            action,
            destination: destination.to_string(),
            decision: outcome,
            policies: Vec::new(),
            errors: vec![what.to_owned()],
            enforced: self.mode == GuardMode::Enforce,
            latency_us: 0,
        });
    }

    /// The merged spans of `text` the flow denies: strong matches of denied objects,
    /// and weak matches of objects denied in this request or anchored before.
    fn withheld_spans(&self, text: &str, flow: &mut Flow) -> Vec<std::ops::Range<usize>> {
        let echoes = self.echoes(&flow.ctx, &flow.destination);
        let all = self.context_hits(text);
        let hits: Vec<&Hit> = all
            .iter()
            .filter(|h| !echoes.contains(&h.pattern))
            .collect();
        let mut spans = Vec::new();
        let mut denied = BTreeSet::new();
        for hit in hits.iter().filter(|h| h.kind.is_strong()) {
            for o in &hit.objects {
                if flow.denied(self, *o, Some(*hit)) {
                    denied.insert(*o);
                    spans.push(token_run(text, hit.start..hit.end));
                }
            }
        }
        for hit in hits.iter().filter(|h| !h.kind.is_strong()) {
            if hit
                .objects
                .iter()
                .any(|o| denied.contains(o) || flow.was_denied(*o))
            {
                spans.push(token_run(text, hit.start..hit.end));
            }
        }
        merge(spans)
    }

    /// The matches in a request text, scanned once per distinct text (a long text in
    /// overlapping segments, see [`segments`]).
    pub(crate) fn context_hits(&self, text: &str) -> Arc<Vec<Hit>> {
        let key = text_key(text);
        if let Some(found) = self.lock_context_hits().get(&key) {
            return Arc::clone(found);
        }
        let hits = scan_segments(&self.candidates(), text);
        let hits = Arc::new(hits);
        let mut cache = self.lock_context_hits();
        if cache.len() >= MAX_CACHED_TEXTS {
            cache.clear();
        }
        cache.insert(key, Arc::clone(&hits));
        hits
    }

    fn lock_context_hits(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, Arc<Vec<Hit>>>> {
        self.context_hits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What one walk over a request carries along.
struct Walk<'a> {
    flow: &'a mut Flow,
    out: &'a mut Minimised,
    api: WireApi,
}

/// The text part that stands in for a part the guard cannot read.
fn placeholder_part(api: WireApi, part: &Map<String, Value>) -> Value {
    let kind = match (api, part.get("type").and_then(Value::as_str)) {
        (WireApi::ChatCompletions, _) => "text",
        (WireApi::Responses, Some(k)) if k.starts_with("output_") => "output_text",
        (WireApi::Responses, _) => "input_text",
    };
    json!({"type": kind, "text": PLACEHOLDER})
}

/// The cache key of a request text: keyed per process at random, so that a text
/// cannot be made to collide with another on purpose.
fn text_key(text: &str) -> u64 {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new).hash_one(text)
}

/// Every match of `detector` in `text`, scanned segment by segment (see [`segments`])
/// so that the matcher's working memory stays bounded. The segments of a long text are
/// read in parallel on rayon's pool (its threads keep their memory of decoded tokens
/// across texts); the hits come back in text order.
pub(crate) fn scan_segments(detector: &Detector, text: &str) -> Vec<Hit> {
    use rayon::prelude::*;
    let parts = segments(text, detector.window());
    let scan = |i: usize, part: &Range<usize>| -> Vec<Hit> {
        // A match starting at or after the next segment's start is found there.
        let next = parts.get(i + 1).map_or(usize::MAX, |p| p.start);
        let Some(segment) = text.get(part.clone()) else {
            return Vec::new();
        };
        detector
            .scan(segment)
            .into_iter()
            .map(|mut h| {
                h.start += part.start;
                h.end += part.start;
                h
            })
            .filter(|h| h.start < next)
            .collect()
    };
    if parts.len() < 2 {
        return parts.first().map(|p| scan(0, p)).unwrap_or_default();
    }
    let per_segment: Vec<Vec<Hit>> = parts
        .par_iter()
        .enumerate()
        .map(|(i, part)| scan(i, part))
        .collect();
    per_segment.into_iter().flatten().collect()
}

/// Whether a byte position of a text is a good place to start a segment: after
/// whitespace or a character that never continues a token.
fn is_cut(text: &str, at: usize) -> bool {
    text.get(..at)
        .and_then(|head| head.chars().next_back())
        .is_some_and(|c| {
            c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\''
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '<'
                        | '>'
                        | '`'
                        | '|'
                        | ','
                        | ';'
                )
        })
}

/// How many bytes two segments share for matches of at most `window` characters: a
/// character takes at most 4 bytes, and the margin covers the token run a redaction
/// widens to.
fn overlap_bytes(window: usize) -> usize {
    window.saturating_mul(4).saturating_add(256)
}

/// The byte ranges in which `text` is scanned when matches are at most `window`
/// characters long: the whole text when it is at most one segment long, otherwise
/// segments of [`SEGMENT_BYTES`] (or four times the overlap, when values are long)
/// each starting at a token boundary (after whitespace or punctuation) far enough
/// before the end of the previous one that a match starting before the cut lies whole
/// inside the previous segment. Inside a token longer than a segment the cut falls on
/// a multiple of 12 bytes from the segment's start, so that base64, hex and percent
/// encodings keep their alignment.
pub(crate) fn segments(text: &str, window: usize) -> Vec<Range<usize>> {
    let overlap = overlap_bytes(window);
    // Segments grow with long values so that the overlap stays a quarter of one at
    // most; only an unbounded window reads the text whole.
    let size = SEGMENT_BYTES.max(overlap.saturating_mul(4));
    if text.len() <= size {
        return std::iter::once(0..text.len()).collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        if text.len() - start <= size {
            out.push(start..text.len());
            return out;
        }
        let mut end = start + size;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        out.push(start..end);
        let latest = end - overlap;
        let earliest = start + (latest - start) / 2;
        let mut cut = latest;
        while cut > earliest && !(text.is_char_boundary(cut) && is_cut(text, cut)) {
            cut -= 1;
        }
        if cut == earliest {
            cut = start + (latest - start) / 12 * 12;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
        }
        start = cut.max(start + 1);
        while !text.is_char_boundary(start) {
            start += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_into_overlapping_segments_at_token_boundaries() {
        let text = "word ".repeat(200_000);
        let parts = segments(&text, 100);
        assert!(parts.len() > 3, "{}", parts.len());
        assert_eq!(parts[0].start, 0);
        assert_eq!(parts.last().unwrap().end, text.len());
        for pair in parts.windows(2) {
            let overlap = pair[0].end - pair[1].start;
            assert!(overlap >= 400, "{overlap}");
            assert!(is_cut(&text, pair[1].start));
        }
        assert_eq!(segments("short", 100).len(), 1);
        // One long token: cuts keep a 12-byte alignment.
        let token = "QUJD".repeat(200_000);
        for p in segments(&token, 100) {
            assert_eq!(p.start % 12, 0);
        }
    }

    /// The segments of a long text are read in parallel: every value planted in it,
    /// also across the cut between two segments, is found once, the hits come in text
    /// order, and they are the hits one thread finds.
    #[test]
    fn segments_read_in_parallel_find_what_one_thread_finds_in_text_order() {
        let secret = "Ole takes levetiracetam 500 mg twice daily; call Ingrid on 07700 900412.";
        let lib = super::super::detect::PatternLibrary::build([(0, secret)], &[]);
        let detector = Detector::build(&lib, |_| true);
        let filler = "the club meets at the car park before lunch and walks the ridge ";
        let mut text = String::new();
        let mut planted = Vec::new();
        while text.len() < 6 * SEGMENT_BYTES {
            text.push_str(&filler.repeat(37));
            planted.push(text.len());
            text.push_str("levetiracetam ");
        }
        let parts = segments(&text, detector.window());
        assert!(parts.len() >= 6, "{} segments", parts.len());
        // A value inside the overlap of two segments.
        assert!(planted
            .iter()
            .any(|&at| parts.windows(2).any(|p| p[1].start <= at && at < p[0].end)));
        let read_with = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map(|pool| pool.install(|| scan_segments(&detector, &text)))
        };
        let one = read_with(1).expect("a pool of one thread");
        let four = read_with(4).expect("a pool of four threads");
        assert_eq!(one, four);
        assert!(one.windows(2).all(|h| h[0].start <= h[1].start));
        // No hit is reported twice by the two segments that overlap at it.
        assert!(one.windows(2).all(|h| h[0] != h[1]));
        let mut found: Vec<usize> = one
            .iter()
            .filter(|h| &text[h.start..h.end] == "levetiracetam")
            .map(|h| h.start)
            .collect();
        found.dedup();
        assert_eq!(found, planted);
    }

    #[test]
    fn long_values_lengthen_segments_instead_of_reading_the_text_whole() {
        let text = "word ".repeat(200_000);
        for window in [10, 5_000, 20_000] {
            let overlap = overlap_bytes(window);
            let size = SEGMENT_BYTES.max(overlap * 4);
            let parts = segments(&text, window);
            assert!(parts.len() > 1, "window {window}: read whole");
            for (i, p) in parts.iter().enumerate() {
                assert!(p.len() <= size, "window {window}: segment of {}", p.len());
                if let Some(next) = parts.get(i + 1) {
                    assert!(p.end - next.start >= overlap, "window {window}");
                }
            }
        }
        // Only an unbounded window reads the text whole.
        let whole = segments(&text, usize::MAX);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0], 0..text.len());
    }
}
