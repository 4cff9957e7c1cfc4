//! Values assembled from pieces spread over several texts that reach one reader, in any
//! order of arrival: each piece is a cut of the value's canonical form, searched like a
//! value of its own (every reading and rendering family of [`Haystack`]), so one piece
//! may be plain, the next base64 and the third spelled out, with any words between and
//! around them.
//!
//! A value is assembled at the first text, in arrival order, after which its canonical
//! form is covered end to end by at most [`MAX_PIECES`] pieces found in two or more of
//! the texts read so far, that text among them. Only values of at least
//! [`MIN_SPLIT_BITS`] bits are searched, and each piece must carry [`MIN_BITS`] in at
//! least [`MIN_PIECE`] letters and digits. A piece made of whole words without a digit
//! (`diabetes` of `type 1 diabetes`) is what ordinary conversation repeats by chance,
//! so it counts only with [`MIN_WORD_PIECE_BITS`]: a writer who wants it to count cuts
//! inside a word or a number.

use super::split::{MIN_PIECE, MIN_SPLIT_BITS};
use super::{bits, project::squeezed, MIN_BITS};
use crate::canon::{Needle, BOUNDARY};
use crate::haystack::Haystack;
use crate::set::NeedleSet;
use crate::views::ViewPath;
use std::collections::HashMap;
use std::ops::Range;

/// Most pieces one value is assembled from.
pub const MAX_PIECES: usize = 4;
/// Minimum bits of a piece made of whole words of the value without a digit.
pub const MIN_WORD_PIECE_BITS: f64 = 60.0;

/// A piece as the value spells it, with the ranges of the value's canonical form it
/// stands for.
type Spelled = (String, Vec<Range<usize>>);

/// The pieces of a set of values, searched as one needle set.
#[derive(Debug, Clone, Default)]
pub struct Pieces {
    set: NeedleSet,
    /// For needle `i` of `set`: the value it belongs to and every byte range of that
    /// value's canonical form it stands for (a cut next to a space trims it).
    spans: Vec<(usize, Vec<Range<usize>>)>,
    /// Per value: the length of its canonical form, `None` when it is not searched.
    lengths: Vec<Option<usize>>,
}

/// A piece found in one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The value it belongs to (index in the values given to [`Pieces::new`]).
    pub value: usize,
    /// The byte ranges of the value's canonical form it covers.
    pub spans: Vec<Range<usize>>,
    /// The reading and rendering that found it.
    pub view: ViewPath,
    /// Where it lies in the text.
    pub source: Range<usize>,
}

/// One piece of an assembled value: the text (index in arrival order) that held it,
/// where, and which part of the value it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Index of the text in arrival order.
    pub text: usize,
    /// The byte range of the value's canonical form it covers.
    pub covers: Range<usize>,
    /// The reading and rendering that found it.
    pub view: ViewPath,
    /// Where it lies in its text.
    pub source: Range<usize>,
}

/// A value assembled from pieces of several texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembly {
    /// The text whose arrival completed the value (index in arrival order).
    pub completed_by: usize,
    /// The pieces, in the value's order.
    pub parts: Vec<Part>,
}

/// Whether a cut of the value's canonical form from `a` to `b`, trimmed, is a piece
/// that counts; if so, the piece in canonical form and as the value spells it (the
/// renderings of some families depend on the spelling: ROT47 of `25/100` is not ROT47
/// of `25100`).
fn piece_of(needle: &Needle, a: usize, b: usize) -> Option<(String, String)> {
    let canon = needle.canonical();
    let text = canon.as_str().get(a..b)?;
    let lead = text.len() - text.trim_start().len();
    let piece = text.trim();
    let (start, end) = (a + lead, a + lead + piece.len());
    let alnum = squeezed(piece);
    let info = bits(alnum.as_str());
    if alnum.as_str().chars().count() < MIN_PIECE || info < MIN_BITS {
        return None;
    }
    let whole_words = canon.flag(start, BOUNDARY) && canon.flag(end, BOUNDARY);
    if whole_words && !piece.chars().any(char::is_numeric) && info < MIN_WORD_PIECE_BITS {
        return None;
    }
    let spelled = needle
        .raw()
        .get(canon.source_span(start..end))
        .filter(|raw| Needle::new(raw).is_some_and(|n| n.as_str() == piece))
        .unwrap_or(piece);
    Some((piece.to_owned(), spelled.to_owned()))
}

impl Pieces {
    /// The pieces of every value of `values` that carries enough information.
    pub fn new(values: &[Needle]) -> Self {
        // (value, canonical piece) -> (spelling, ranges of the value it stands for).
        let mut by_text: HashMap<(usize, String), Spelled> = HashMap::new();
        let mut lengths = Vec::with_capacity(values.len());
        for (v, needle) in values.iter().enumerate() {
            let canon = needle.as_str();
            if needle.is_strict() || bits(squeezed(canon).as_str()) < MIN_SPLIT_BITS {
                lengths.push(None);
                continue;
            }
            lengths.push(Some(canon.len()));
            let cuts: Vec<usize> = canon
                .char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(canon.len()))
                .collect();
            for (k, &a) in cuts.iter().enumerate() {
                for &b in cuts.iter().skip(k + 1) {
                    if a == 0 && b == canon.len() {
                        continue;
                    }
                    if let Some((piece, spelled)) = piece_of(needle, a, b) {
                        by_text
                            .entry((v, piece))
                            .or_insert_with(|| (spelled, Vec::new()))
                            .1
                            .push(a..b);
                    }
                }
            }
        }
        let mut entries: Vec<_> = by_text.into_iter().collect();
        entries.sort_by(|x, y| x.0.cmp(&y.0));
        let mut needles = Vec::with_capacity(entries.len());
        let mut spans = Vec::with_capacity(entries.len());
        for ((v, _), (spelled, ranges)) in entries {
            if let Some(n) = Needle::new(&spelled) {
                needles.push(n);
                spans.push((v, ranges));
            }
        }
        // The automaton of short ASCII-and-letter patterns cannot fail to build; if it
        // did, nothing would be assembled, and single texts are still read whole.
        let set = NeedleSet::new(needles).unwrap_or_default();
        if set.is_empty() {
            spans.clear();
        }
        Pieces {
            set,
            spans,
            lengths,
        }
    }

    /// Whether no value is searched in pieces.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Whether value `value` is searched in pieces.
    pub fn searches(&self, value: usize) -> bool {
        self.lengths.get(value).is_some_and(Option::is_some)
    }

    /// Every piece `hay` holds, outside its masked spans.
    pub fn held(&self, hay: &Haystack) -> Vec<Held> {
        if self.is_empty() {
            return Vec::new();
        }
        hay.find_set(&self.set)
            .into_iter()
            .filter_map(|m| {
                let (value, spans) = self.spans.get(m.needle)?;
                Some(Held {
                    value: *value,
                    spans: spans.clone(),
                    view: m.found.view,
                    source: m.found.source,
                })
            })
            .collect()
    }

    /// The first text, in the order of `held` (what each text holds, in arrival order),
    /// at which `value` is assembled from pieces of two or more texts, that one among
    /// them.
    pub fn assemble(&self, held: &[Vec<Held>], value: usize) -> Option<Assembly> {
        let len = (*self.lengths.get(value)?)?;
        (0..held.len()).find_map(|k| cover(held, value, len, k))
    }
}

/// A state of the cover search: the position reached, whether text `k` and another
/// text were used.
type State = (usize, bool, bool);

/// The fewest pieces from texts `..=k` that cover `value` from 0 to `len`, text `k`
/// and at least one other text among them.
fn cover(held: &[Vec<Held>], value: usize, len: usize, k: usize) -> Option<Assembly> {
    // Every usable piece once: (start, end, text, held index).
    let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (t, items) in held.iter().enumerate().take(k + 1) {
        for (h, item) in items.iter().enumerate() {
            if item.value == value {
                edges.extend(item.spans.iter().map(|r| (r.start, r.end, t, h)));
            }
        }
    }
    if !edges.iter().any(|e| e.2 == k) {
        return None;
    }
    // Breadth first by number of pieces: back[state] = (previous state, edge).
    let mut back: HashMap<State, (State, usize)> = HashMap::new();
    let mut frontier: Vec<State> = vec![(0, false, false)];
    for _ in 0..MAX_PIECES {
        let mut next = Vec::new();
        for &(at, used_k, used_other) in &frontier {
            for (e, &(start, end, t, _)) in edges.iter().enumerate() {
                if start != at {
                    continue;
                }
                let state = (end, used_k || t == k, used_other || t != k);
                if state == (0, false, false) || back.contains_key(&state) {
                    continue;
                }
                back.insert(state, ((at, used_k, used_other), e));
                next.push(state);
            }
        }
        if back.contains_key(&(len, true, true)) {
            return Some(walk_back(&back, &edges, held, k, (len, true, true)));
        }
        frontier = next;
    }
    None
}

/// The pieces on the path that reached `last`, in the value's order.
fn walk_back(
    back: &HashMap<State, (State, usize)>,
    edges: &[(usize, usize, usize, usize)],
    held: &[Vec<Held>],
    k: usize,
    last: State,
) -> Assembly {
    let mut parts = Vec::new();
    let mut at = last;
    while let Some(&(prev, e)) = back.get(&at) {
        if let Some(&(start, end, t, h)) = edges.get(e) {
            if let Some(item) = held.get(t).and_then(|items| items.get(h)) {
                parts.push(Part {
                    text: t,
                    covers: start..end,
                    view: item.view.clone(),
                    source: item.source.clone(),
                });
            }
        }
        if prev == (0, false, false) {
            break;
        }
        at = prev;
    }
    parts.reverse();
    Assembly {
        completed_by: k,
        parts,
    }
}

#[cfg(test)]
mod tests;
