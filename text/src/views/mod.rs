//! Decoding views: the readings of a text an agent can produce without tools.
//!
//! Each view turns a prepared text (see [`crate::prepare`]) into zero or more derived
//! texts, each mapped to the original bytes it came from. A view that finds nothing to
//! decode yields nothing, so an ordinary text has few readings. Radix views hand their
//! decoded bytes to [`container`], which opens compressed and archived payloads, so a
//! reading may name several steps (`gzip>base64`).

mod container;
mod escapes;
mod label;
mod lists;
pub(crate) mod morse;
mod radix;
mod spelled;
mod structure;
mod tokens;
mod transform;

pub(crate) use label::LANGS;
pub use label::{Block, View, ViewPath};
pub(crate) use lists::MIN_BITS_RUN;
pub(crate) use spelled::is_number_word;
pub(crate) use tokens::runs;
pub(crate) use transform::is_flipped;

use crate::canon::{prepare, prepare_borrowed, prepare_owned};
use crate::mapped::Mapped;
use std::collections::HashSet;
use std::ops::Range;

/// The decoding views, in the order readings are tried.
pub(crate) const DECODERS: &[View] = &[
    View::Markdown,
    View::Json,
    View::Csv,
    View::SpelledNumbers,
    View::Escapes,
    View::Base64,
    View::Base32,
    View::Base58,
    View::Ascii85,
    View::Uuencode,
    View::Hex,
    View::Binary,
    View::Octal,
    View::Decimal,
    View::CodePoints,
    View::Percent,
    View::QuotedPrintable,
    View::Rot13,
    View::Reversed,
];

/// Applies a decoding view: the derived texts, each with the container steps
/// (`gzip`, `tar`) its decoded bytes went through.
pub(crate) fn apply(view: View, text: &Mapped) -> Vec<(Vec<View>, Mapped)> {
    let plain = |v: Vec<Mapped>| v.into_iter().map(|m| (Vec::new(), m)).collect();
    match view {
        View::Base64 => joined(tokens::base64(text)),
        View::Base32 => joined(radix::base32(text)),
        View::Base58 => joined(radix::base58(text)),
        View::Ascii85 => joined(radix::ascii85(text)),
        View::Uuencode => joined(radix::uuencode(text)),
        View::Hex => joined(tokens::hex(text)),
        View::Binary => joined(lists::binary(text)),
        View::Octal => joined(lists::octal(text)),
        View::Decimal => joined(lists::decimal(text)),
        View::CodePoints => joined(lists::code_points(text)),
        View::Percent => joined(tokens::percent(text)),
        View::QuotedPrintable => plain(escapes::quoted_printable(text).into_iter().collect()),
        View::Escapes => plain(escapes::escapes(text).into_iter().collect()),
        View::Rot13 => plain(transform::rot13(text).into_iter().collect()),
        View::Reversed => plain(transform::reversed(text).into_iter().collect()),
        View::SpelledNumbers => plain(spelled::digits(text).into_iter().collect()),
        View::Markdown => plain(transform::markdown(text).into_iter().collect()),
        View::Json => plain(structure::json(text)),
        View::Csv => plain(structure::csv(text).into_iter().collect()),
        _ => Vec::new(),
    }
}

/// One token as it is; several read as one text joined directly and joined by spaces.
/// Tokens that went through a container keep their steps and are read alone.
fn joined(tokens: Vec<(Vec<View>, Mapped)>) -> Vec<(Vec<View>, Mapped)> {
    let (boxed, bare): (Vec<_>, Vec<_>) = tokens.into_iter().partition(|(s, _)| !s.is_empty());
    let mut out = boxed;
    if bare.len() < 2 {
        out.extend(bare);
        return out;
    }
    let mut direct = Mapped::default();
    let mut spaced = Mapped::default();
    for (k, (_, t)) in bare.iter().enumerate() {
        if k > 0 {
            let at = spaced.span_of(spaced.as_str().len());
            spaced.push(' ', at);
        }
        direct.append(t);
        spaced.append(t);
    }
    out.push((Vec::new(), direct));
    out.push((Vec::new(), spaced));
    out
}

/// Every reading of `source`: the prepared text itself, then each view of it, then each
/// view of those (two views deep), skipping readings whose text was already read.
///
/// Views read prepared text, except reversal, which reads what was written before it is
/// prepared: preparation can turn one character into several (a skeleton) or attach
/// marks to the character before them, so reversing a prepared text is not preparing a
/// reversed one.
pub fn readings(source: &Mapped) -> Vec<(ViewPath, Mapped)> {
    let plain = prepare(source);
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(plain.as_str().to_owned());
    // (path, as written, prepared)
    let mut all = vec![(ViewPath::plain(), source.clone(), plain)];
    let mut level = 0..1;
    for _depth in 0..2 {
        let mut next = Vec::new();
        for i in level.clone() {
            let Some((path, raw, text)) = all.get(i) else {
                continue;
            };
            for &view in DECODERS {
                if path
                    .0
                    .last()
                    .is_some_and(|&v| v == view && v.is_involution())
                {
                    continue;
                }
                let input = if view == View::Reversed { raw } else { text };
                for (steps, written) in apply(view, input) {
                    let derived = prepare(&written);
                    if derived.is_empty() || !seen.insert(derived.as_str().to_owned()) {
                        continue;
                    }
                    let mut p = path.0.clone();
                    p.push(view);
                    p.extend(steps);
                    next.push((ViewPath(p), written, derived));
                }
            }
        }
        let start = all.len();
        all.extend(next);
        level = start..all.len();
    }
    // Text turned upside down is a rendering of characters, the first a writer applies
    // and so the last to undo: it is undone in every reading, whatever its depth.
    let mut turned = Vec::new();
    for (path, raw, _) in &all {
        if let Some(written) = transform::upside_down(raw) {
            let derived = prepare(&written);
            if !derived.is_empty() && seen.insert(derived.as_str().to_owned()) {
                turned.push((path.then(View::UpsideDown), written, derived));
            }
        }
    }
    all.extend(turned);
    all.into_iter()
        .map(|(path, _, prepared)| (path, prepared))
        .collect()
}

/// An encoded run of a reading: where it is and the first step a reading takes to
/// decode it (the decoder itself, or the reversal or ROT13 that precedes it).
#[derive(Debug, Clone)]
pub(crate) struct Run {
    /// Bytes of the reading's prepared text.
    pub(crate) span: Range<usize>,
    /// Views a reading that decodes the run starts with.
    pub(crate) opened_by: Vec<View>,
    /// Whether it decodes to written text (else it decodes to something, such as a few
    /// scattered code points, that may as well be what the writer meant).
    pub(crate) textual: bool,
}

/// Where `text` (a prepared reading) holds runs of encoded written text, in its own byte
/// coordinates: read as it is, backwards, in ROT13 and both, since an encoding
/// rearranged character by character is still an encoder's output (`%48` reversed is
/// `84%`).
pub(crate) fn encoded_runs_in(text: &str) -> Vec<Run> {
    let local = Mapped::identity(text);
    // (variant, the views that turn the text into it; none: the text itself)
    let mut variants = Vec::new();
    if let Some(back) = transform::reversed(&local) {
        variants.extend(
            transform::rot13(&back).map(|m| (prepare_owned(m), vec![View::Reversed, View::Rot13])),
        );
        variants.push((prepare_owned(back), vec![View::Reversed]));
    }
    variants.extend(transform::rot13(&local).map(|m| (prepare_owned(m), vec![View::Rot13])));
    variants.insert(0, (prepare_owned(local), Vec::new()));
    let mut runs = Vec::new();
    for (variant, turns) in &variants {
        for &view in DECODERS.iter().filter(|v| v.decodes_encoding()) {
            for (_, written) in apply(view, variant) {
                let opened_by = if turns.is_empty() {
                    vec![view]
                } else {
                    turns.clone()
                };
                runs.extend(
                    encoded_runs(&written, &prepare_borrowed(&written), text)
                        .into_iter()
                        .map(|(span, textual)| Run {
                            span,
                            opened_by: opened_by.clone(),
                            textual,
                        }),
                );
            }
        }
    }
    runs
}

/// Fewest characters an encoded run must decode to.
const MIN_RUN_CHARS: usize = 2;
/// Fewest bytes of the text an encoded run must span (one `%20` is not a run).
const MIN_RUN_BYTES: usize = 8;

/// The spans of `original` that the characters of a decoded text were decoded from, of
/// at least [`MIN_RUN_BYTES`], and whether each decodes to written text.
///
/// A span gathers the characters of `written` (a decoder's output) that took more
/// original bytes than they have themselves, joined across gaps of separators only
/// (`48 65`, `%48%65`, `\\x48\\x65`). It decodes to written text when what it decoded
/// to (in `written`, or in `prepared`, the same output prepared) is at least
/// [`MIN_RUN_CHARS`] characters, mostly printable ASCII (upside down or not), as the
/// encodings of ordinary writing are. A list of numbers that decodes to a few scattered
/// code points may as well be what the writer meant.
fn encoded_runs(written: &Mapped, prepared: &Mapped, original: &str) -> Vec<(Range<usize>, bool)> {
    let mut spans: Vec<Range<usize>> = written
        .as_str()
        .char_indices()
        .map(|(i, c)| (written.span_of(i), c))
        .filter(|(span, c)| span.len() > c.len_utf8())
        .map(|(span, _)| span)
        .collect();
    spans.sort_by_key(|s| (s.start, s.end));
    let mut merged: Vec<Range<usize>> = Vec::new();
    for span in spans {
        if let Some(last) = merged.last_mut() {
            let gap = original.get(last.end..span.start).unwrap_or("");
            if span.start <= last.end || !gap.chars().any(char::is_alphanumeric) {
                last.end = last.end.max(span.end);
                continue;
            }
        }
        merged.push(span);
    }
    let as_written = readable_counts(&merged, written);
    let as_prepared = readable_counts(&merged, prepared);
    let reads = |(all, ascii): (usize, usize)| all >= MIN_RUN_CHARS && ascii * 10 >= all * 9;
    merged
        .into_iter()
        .zip(as_written.into_iter().zip(as_prepared))
        .filter(|(run, _)| run.len() >= MIN_RUN_BYTES)
        .map(|(run, (w, p))| (run, reads(w) || reads(p)))
        .collect()
}

/// For each of `runs` (disjoint, sorted), how many characters of `decoded` came from it
/// and how many of those show a printable ASCII character: as they are, turned back
/// from upside down, or by their compatibility decomposition (fullwidth, bold).
fn readable_counts(runs: &[Range<usize>], decoded: &Mapped) -> Vec<(usize, usize)> {
    let shows_ascii = |c: char| {
        let mut first = None;
        unicode_normalization::char::decompose_compatible(c, |d| {
            first.get_or_insert(d);
        });
        [Some(c), transform::turned_back(c), first]
            .into_iter()
            .flatten()
            .any(|d| d.is_ascii_graphic() || d.is_ascii_whitespace())
    };
    let mut counts = vec![(0usize, 0usize); runs.len()];
    for (i, c) in decoded.as_str().char_indices() {
        let span = decoded.span_of(i);
        let Some(k) = runs
            .partition_point(|r| r.start <= span.start)
            .checked_sub(1)
        else {
            continue;
        };
        if let (Some(run), Some(count)) = (runs.get(k), counts.get_mut(k)) {
            if span.end <= run.end {
                count.0 += 1;
                count.1 += usize::from(shows_ascii(c));
            }
        }
    }
    counts
}
