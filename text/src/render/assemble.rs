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
//!
//! A value may also be dealt out character by character (see [`Dealt`]): odd
//! letters and digits in one text, even ones in the next, each stride searched like a
//! piece.
//!
//! A guard that knows a value only as one strong part of a longer text (a drug's name
//! in the sentence that gives its dose) searches that text's pieces around the part
//! instead ([`Pieces::around`]): only cuts with an end inside a part, so `cortison` and
//! `e injection on` cover `cortisone` although `e` alone is no piece.

use super::split::{MIN_PIECE, MIN_SPLIT_BITS};
use super::{bits, project::squeezed, MIN_BITS};
use crate::canon::{Needle, BOUNDARY};
use crate::haystack::Haystack;
use crate::set::NeedleSet;
use crate::views::ViewPath;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

mod dealt;
pub use dealt::{Dealt, MAX_WAYS};

/// Most pieces one value is assembled from.
pub const MAX_PIECES: usize = 4;
/// Minimum bits of a piece made of whole words of the value without a digit.
pub const MIN_WORD_PIECE_BITS: f64 = 60.0;

/// Per value a piece belongs to, the ranges of the value's canonical form it stands
/// for and the strides it is.
type Belongs = Vec<(usize, Vec<Range<usize>>, Vec<Dealt>)>;

/// A piece's first spelling and, per value it belongs to, the ranges it stands for and
/// the strides it is.
type Spelled = (String, BTreeMap<usize, (Vec<Range<usize>>, Vec<Dealt>)>);

/// The pieces of a set of values, searched as one needle set.
#[derive(Debug, Clone, Default)]
pub struct Pieces {
    set: NeedleSet,
    /// For needle `i` of `set`: each value it belongs to, every byte range of that
    /// value's canonical form it stands for (a cut next to a space trims it) and every
    /// stride it is. One needle serves every value that has the piece, so that each of
    /// them is told.
    spans: Vec<Belongs>,
    /// Per value: the ranges of its canonical form that count as assembled when
    /// covered, each with the index of the part it is (one range, the whole value, for
    /// [`Pieces::new`]); empty when the value is not searched.
    targets: Vec<Vec<(Range<usize>, usize)>>,
}

/// A piece found in one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The value it belongs to (index in the values given to [`Pieces::new`]).
    pub value: usize,
    /// The byte ranges of the value's canonical form it covers.
    pub spans: Vec<Range<usize>>,
    /// The strides of the value's parts it is.
    pub dealt: Vec<Dealt>,
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
    /// The byte range of the value's canonical form it covers (the whole part for a
    /// stride).
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
    /// The part covered (index in the parts given to [`Pieces::around`]; 0, the whole
    /// value, for [`Pieces::new`]).
    pub target: usize,
    /// Over how many texts the part's characters were dealt, if they were (one
    /// stride per part then, in residue order).
    pub dealt: Option<u8>,
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

/// The cuts of `needle` worth searching for its `targets`, each with its piece in
/// canonical form and as spelled: every piece inside a target with an end strictly
/// inside it, and every piece that starts (ends) strictly inside a target and ends
/// (starts) outside it up to the first word boundary where it is a piece. A longer
/// piece holds that one between word boundaries, so it is found all the same; a
/// piece that holds a target whole is the target, not a piece of it.
fn cuts_of(
    needle: &Needle,
    targets: &[(Range<usize>, usize)],
) -> BTreeSet<(usize, usize, String, String)> {
    let canon = needle.canonical();
    let len = canon.as_str().len();
    let cuts: Vec<usize> = canon
        .as_str()
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(len))
        .collect();
    let boundary = |i: usize| canon.flag(i, BOUNDARY);
    let mut out = BTreeSet::new();
    let mut take = |a: usize, b: usize| -> bool {
        if a == 0 && b == len {
            return false;
        }
        match piece_of(needle, a, b) {
            Some((piece, spelled)) => {
                out.insert((a, b, piece, spelled));
                true
            }
            None => false,
        }
    };
    for (r, _) in targets {
        let inside = |i: usize| r.start < i && i < r.end;
        for &a in cuts.iter().filter(|&&a| r.start <= a && a < r.end) {
            for &b in cuts.iter().filter(|&&b| a < b && b <= r.end) {
                if inside(a) || inside(b) {
                    take(a, b);
                }
            }
            if inside(a) && piece_of(needle, a, r.end).is_none() {
                for &b in cuts.iter().filter(|&&b| b > r.end) {
                    if take(a, b) && boundary(b) {
                        break;
                    }
                }
            }
        }
        for &b in cuts.iter().filter(|&&b| inside(b)) {
            if piece_of(needle, r.start, b).is_some() {
                continue;
            }
            for &a in cuts.iter().rev().filter(|&&a| a < r.start) {
                if take(a, b) && boundary(a) {
                    break;
                }
            }
        }
    }
    out
}

impl Pieces {
    /// The pieces of every value of `values` that carries enough information.
    pub fn new(values: &[Needle]) -> Self {
        let targets = values
            .iter()
            .map(|needle| {
                let canon = needle.as_str();
                let searched =
                    !needle.is_strict() && bits(squeezed(canon).as_str()) >= MIN_SPLIT_BITS;
                match searched {
                    true => vec![(0..canon.len(), 0)],
                    false => Vec::new(),
                }
            })
            .collect();
        Self::cut(values, targets)
    }

    /// The pieces of each text of `values` that cut one of its parts: every cut with
    /// an end strictly inside an occurrence of a part (as a word or number of the text),
    /// reaching as far into the text around it as the cut goes. A value counts as
    /// assembled when pieces cover one of its parts; a piece that holds a part whole is
    /// that part, not a piece of it.
    pub fn around(values: &[(Needle, Vec<Needle>)]) -> Self {
        let targets = values
            .iter()
            .map(|(text, parts)| {
                let canon = text.canonical();
                parts
                    .iter()
                    .enumerate()
                    .flat_map(|(i, part)| canon.find_iter(part).map(move |r| (r, i)))
                    .collect()
            })
            .collect();
        let texts: Vec<Needle> = values.iter().map(|(text, _)| text.clone()).collect();
        Self::cut(&texts, targets)
    }

    /// The pieces of `values` that cut one of their `targets` (every cut of a value
    /// whose only target is the whole value).
    fn cut(values: &[Needle], targets: Vec<Vec<(Range<usize>, usize)>>) -> Self {
        // Canonical piece -> (its first spelling, value -> ranges of the value it
        // stands for).
        let mut by_text: HashMap<String, Spelled> = HashMap::new();
        for (v, needle) in values.iter().enumerate() {
            let Some(ranges) = targets.get(v).filter(|t| !t.is_empty()) else {
                continue;
            };
            for (a, b, piece, spelled) in cuts_of(needle, ranges) {
                by_text
                    .entry(piece)
                    .or_insert_with(|| (spelled, BTreeMap::new()))
                    .1
                    .entry(v)
                    .or_default()
                    .0
                    .push(a..b);
            }
            for (range, part) in ranges {
                for (stride, d) in dealt::strides(needle.canonical(), range, *part) {
                    let dealt = &mut by_text
                        .entry(stride.clone())
                        .or_insert_with(|| (stride, BTreeMap::new()))
                        .1
                        .entry(v)
                        .or_default()
                        .1;
                    if !dealt.contains(&d) {
                        dealt.push(d);
                    }
                }
            }
        }
        let mut entries: Vec<_> = by_text.into_iter().collect();
        entries.sort_by(|x, y| x.0.cmp(&y.0));
        let mut needles = Vec::with_capacity(entries.len());
        let mut spans = Vec::with_capacity(entries.len());
        for (_, (spelled, values)) in entries {
            if let Some(n) = Needle::new(&spelled) {
                needles.push(n);
                spans.push(values.into_iter().map(|(v, (r, d))| (v, r, d)).collect());
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
            targets,
        }
    }

    /// Whether no value is searched in pieces.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Whether value `value` is searched in pieces.
    pub fn searches(&self, value: usize) -> bool {
        self.targets.get(value).is_some_and(|t| !t.is_empty())
    }

    /// Every piece `hay` holds, outside its masked spans.
    pub fn held(&self, hay: &Haystack) -> Vec<Held> {
        if self.is_empty() {
            return Vec::new();
        }
        hay.find_set(&self.set)
            .into_iter()
            .flat_map(|m| {
                let belongs = self.spans.get(m.needle).map_or(&[][..], Vec::as_slice);
                belongs.iter().map(move |(value, spans, dealt)| Held {
                    value: *value,
                    spans: spans.clone(),
                    dealt: dealt.clone(),
                    view: m.found.view.clone(),
                    source: m.found.source.clone(),
                })
            })
            .collect()
    }

    /// The first text, in the order of `held` (what each text holds, in arrival order),
    /// at which `value` is assembled from pieces of two or more texts, that one among
    /// them.
    pub fn assemble(&self, held: &[Vec<Held>], value: usize) -> Option<Assembly> {
        let targets = self.targets.get(value)?;
        let all = |_: usize, _: usize| true;
        (0..held.len()).find_map(|k| {
            targets.iter().find_map(|(range, target)| {
                cover(held, value, range, *target, k, all)
                    .or_else(|| dealt::dealt_cover(held, value, range, *target, k, all))
            })
        })
    }

    /// Every part of `value` that the last text of `held` completes: covered by pieces
    /// of two or more of the texts, the last among them (one assembly per part), using
    /// only the pieces `usable` accepts for a part (text index, index in the text's
    /// pieces, part).
    pub fn completed_by_last(
        &self,
        held: &[Vec<Held>],
        value: usize,
        usable: impl Fn(usize, usize, usize) -> bool,
    ) -> Vec<Assembly> {
        let (Some(targets), Some(k)) = (self.targets.get(value), held.len().checked_sub(1)) else {
            return Vec::new();
        };
        let mut out: Vec<Assembly> = Vec::new();
        for (range, target) in targets {
            if out.iter().any(|a| a.target == *target) {
                continue;
            }
            let usable = |t: usize, h: usize| usable(t, h, *target);
            out.extend(
                cover(held, value, range, *target, k, usable)
                    .or_else(|| dealt::dealt_cover(held, value, range, *target, k, usable)),
            );
        }
        out
    }
}

/// A state of the cover search: the position reached, whether text `k` and another
/// text were used.
type State = (usize, bool, bool);

/// The fewest `usable` pieces (text, index in it) from texts `..=k` that cover `range`
/// of `value` (its part `target`), text `k` and at least one other text among them:
/// the first piece starts
/// at or before the range, each next one where the last ended, the last ends at or
/// after it.
fn cover(
    held: &[Vec<Held>],
    value: usize,
    range: &Range<usize>,
    target: usize,
    k: usize,
    usable: impl Fn(usize, usize) -> bool,
) -> Option<Assembly> {
    // Every usable piece once: (start, end, text, held index).
    let mut edges: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (t, items) in held.iter().enumerate().take(k + 1) {
        for (h, item) in items.iter().enumerate() {
            if item.value == value && usable(t, h) {
                edges.extend(item.spans.iter().map(|r| (r.start, r.end, t, h)));
            }
        }
    }
    if !edges.iter().any(|e| e.2 == k) {
        return None;
    }
    // Breadth first by number of pieces: back[state] = (previous state, edge). The
    // search starts from a state before every position, so that a first piece may
    // start anywhere up to the range's start.
    const START: State = (usize::MAX, false, false);
    let mut back: HashMap<State, (State, usize)> = HashMap::new();
    let mut frontier: Vec<State> = vec![START];
    for _ in 0..MAX_PIECES {
        let mut next = Vec::new();
        for &(at, used_k, used_other) in &frontier {
            // A range reached is covered: a piece after it adds nothing.
            if at != usize::MAX && at >= range.end {
                continue;
            }
            for (e, &(start, end, t, _)) in edges.iter().enumerate() {
                let follows = match at {
                    usize::MAX => start <= range.start && end > range.start,
                    _ => start == at,
                };
                if !follows {
                    continue;
                }
                let state = (end.min(range.end), used_k || t == k, used_other || t != k);
                if back.contains_key(&state) {
                    continue;
                }
                back.insert(state, ((at, used_k, used_other), e));
                next.push(state);
                let done = (range.end, true, true);
                if state == done {
                    return Some(walk_back(&back, &edges, held, k, done, target));
                }
            }
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
    target: usize,
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
        if prev.0 == usize::MAX {
            break;
        }
        at = prev;
    }
    parts.reverse();
    Assembly {
        completed_by: k,
        parts,
        target,
        dealt: None,
    }
}

#[cfg(test)]
mod tests;
