//! Where a long text can hold a value of a [`NeedleSet`]: found in one pass, so that the
//! full reading (every view, every rendering family) is paid only there.
//!
//! A reading of a text can hold a value only where one of these is:
//!
//! - a **form of a value** in a cheap projection of the text as written: its letters
//!   and digits where they start and end words (the value in a reading that reverses,
//!   rotates, unescapes or strips markup from the text), the squeezed renderings the
//!   families search (the value spread out, Atbash, concatenated spellings), their
//!   leetspeak classes, the text without whitespace (ROT47, block cores), the
//!   shift-invariant differences (Caesar), the words with spelled words read back
//!   (every spelling table; words read as written, reversed, in ROT13), word initials
//!   and last letters, every word reversed, and values spread with filler; each also
//!   reversed and in ROT13. A form the families count only on word boundaries counts
//!   only where the text has one ([`bounded`]);
//! - a **trigger** ([`triggers`]): a character outside ASCII that some reading may turn
//!   into a letter or digit (look-alikes, invisible characters, upside-down or
//!   fullwidth text, other scripts; not ordinary typography, nor a symbol that
//!   preparation keeps and no view reads, such as a currency sign, nor an ASCII letter
//!   with diacritics such as `é`, which the projections read as the letter the
//!   families read; either unless a form of the values holds it), a token that a
//!   token decoder (base64, base32, base58, Ascii85, hex, percent-encoding) reads as
//!   text as written, reversed or in ROT13, escapes and character references, lists of
//!   numbers, runs of bits, uuencoded lines, Morse code, runs of number words (as
//!   written, reversed or in ROT13) and Ascii85 blocks. A list of numbers is a place
//!   only where its view reads anything in it; Morse code and runs of number words
//!   only where what their view reads around them (as written or reversed; number
//!   words also in ROT13) has a place by these rules that reaches into the run
//!   ([`Locator::reaches`]); a token of percent escapes only where the percent view's
//!   reading of the whole text (every such token, joined), as written or reversed, has
//!   one. A rule of dashes read as Morse `ooo`, dates read as control characters, a
//!   percentage read backwards as one letter (`15%` as `%51`, `Q`), or counting in
//!   prose (`at nine nine`) hold no value.
//!
//! A form inside a plain occurrence of a value is that occurrence, which the plain
//! reading of the whole text finds. Each other place becomes a [`Window`] with context
//! around it (a decodable token alone), and only the windows are read
//! ([`crate::Haystack::find_set_located`]). A window may hold nothing; what a full
//! reading of the whole text finds lies in a window, except matches whose place the
//! whole text alone makes (a reading of prose with a stray quote as one CSV cell over
//! many lines) and chance readings that need more of the text than a window holds.
//! `runner/tests/located.rs` compares the two readings on generated long texts.

mod project;
mod triggers;

use crate::mapped::Mapped;
use crate::render::project::deltas;
use crate::render::Families;
use crate::{Needle, SetMatch};
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use project::{FillerForms, Projections};
use std::collections::HashSet;
use std::ops::Range;

/// Bytes of context read on each side of a place that can hold a value.
pub(crate) const MARGIN: usize = 160;
/// Texts shorter than this are read whole (a window would be most of them anyway).
pub(crate) const MIN_LOCATED: usize = 2048;
/// A text whose windows cover more than this share of it is read whole.
const MAX_COVERED: f64 = 0.6;

/// Most decoding views a place's reading is followed through (Morse code, number
/// words, percent escapes read, and what they read read again): the full reading goes
/// two views deep.
const MAX_REACH_DEPTH: usize = 3;

/// Most pattern bytes of an automaton built as a DFA (about 200 bytes of memory each).
const MAX_DFA_BYTES: usize = 8 * 1024;

/// The places of a text that can hold a value, each with the readings it stands for
/// ([`Turns`]), and its tokens to read alone.
type Places = (Vec<(Range<usize>, Turns)>, Vec<Range<usize>>);

/// The readings a place stands for, as bits: the text's orientation in the reading
/// (as written, in ROT13, reversed, both; [`orientation`]) and [`TRIGGER`], a place
/// some decoding view reads (every reading may hold a value there).
pub(crate) type Turns = u8;
const AS_WRITTEN: Turns = 1;
const ROT13: Turns = 2;
const ROT13_REVERSED: Turns = 8;
const REVERSED: Turns = 4;
/// A trigger: every reading of its window is searched (alone, in a run of decodable
/// tokens: every reading through a decoding view).
pub(crate) const TRIGGER: Turns = 16;
/// Every reading.
pub(crate) const EVERY_READING: Turns = 31;

/// The orientation bit of a reading along `path`: whether it turned the text an odd
/// number of times by ROT13 and by reversal (a reading through a decoding view is
/// searched where its orientation is and also where a [`TRIGGER`] is).
pub(crate) fn orientation(path: &[crate::views::View]) -> Turns {
    use crate::views::View;
    let odd = |v: View| path.iter().filter(|&&s| s == v).count() % 2 == 1;
    match (odd(View::Rot13), odd(View::Reversed)) {
        (false, false) => AS_WRITTEN,
        (true, false) => ROT13,
        (false, true) => REVERSED,
        (true, true) => ROT13_REVERSED,
    }
}

/// An automaton over forms of the values, with the readings each pattern stands for.
#[derive(Debug, Clone)]
struct Forms {
    automaton: AhoCorasick,
    turns: Vec<Turns>,
}

impl Forms {
    /// The matches of the forms in `bytes`: (byte range, readings it stands for).
    fn find<'a>(&'a self, bytes: &'a [u8]) -> impl Iterator<Item = (Range<usize>, Turns)> + 'a {
        self.automaton.find_overlapping_iter(bytes).map(|m| {
            let turns = self
                .turns
                .get(m.pattern().as_usize())
                .copied()
                .unwrap_or(EVERY_READING);
            (m.range(), turns)
        })
    }
}

/// The automata of the forms of a set of values, one per projection.
#[derive(Debug, Clone, Default)]
pub(crate) struct Locator {
    /// Every value's letters and digits, found where they start and end a word of the
    /// text: the value in a reading that reverses, rotates, unescapes or strips markup
    /// from the text, matched there on word boundaries like any plain value.
    bounded: Option<Forms>,
    /// The squeezed renderings of the values the families search.
    squeezed: Option<Forms>,
    words: Option<Forms>,
    initials: Option<Forms>,
    leet: Option<Forms>,
    nospace: Option<Forms>,
    deltas: Option<Forms>,
    filler: FillerForms,
    /// Most words a spelled form can take: its letters and digits.
    reach: usize,
    /// A value with no letter or digit: nothing can be told apart, every text is read
    /// whole.
    whole: bool,
    /// The characters outside ASCII of the forms, and their lowercase and uppercase: a
    /// letter with diacritics that no form holds matters only as the ASCII letter the
    /// families read it as (one a form holds is a place).
    form_chars: HashSet<char>,
}

fn rot13(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + 13) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + 13) % 26),
            _ => c,
        })
        .collect()
}

fn reversed(s: &str) -> String {
    s.chars().rev().collect()
}

/// `p` as it shows in the reversed and ROT13 readings too, each with the reading in
/// which it reads as `p`.
fn turned(p: &str) -> [(String, Turns); 4] {
    let r = reversed(p);
    [
        (p.to_owned(), AS_WRITTEN),
        (rot13(p), ROT13),
        (rot13(&r), ROT13_REVERSED),
        (r, REVERSED),
    ]
}

/// An automaton over the ASCII patterns of `patterns` (a pattern with other characters
/// can only match where the text has them, which is a trigger). One that cannot be
/// built sets `broken`: the locator then reads every text whole rather than miss what
/// it would have found.
fn automaton(
    patterns: impl IntoIterator<Item = (String, Turns)>,
    broken: &mut bool,
) -> Option<Forms> {
    let mut ps: Vec<(String, Turns)> = patterns
        .into_iter()
        .filter(|(p, _)| !p.is_empty() && p.is_ascii())
        .collect();
    ps.sort_unstable();
    // One pattern per form, standing for every reading any of its copies stands for.
    let mut forms: Vec<(String, Turns)> = Vec::with_capacity(ps.len());
    for (p, t) in ps {
        match forms.last_mut() {
            Some((last, turns)) if *last == p => *turns |= t,
            _ => forms.push((p, t)),
        }
    }
    if forms.is_empty() {
        return None;
    }
    // A DFA scans several times faster than an NFA but takes memory and time to build
    // in proportion to the patterns times the alphabet: the few-pattern automata get
    // one, the large ones (concatenated spellings) stay NFAs.
    let kind = if forms.iter().map(|(p, _)| p.len()).sum::<usize>() <= MAX_DFA_BYTES {
        AhoCorasickKind::DFA
    } else {
        AhoCorasickKind::ContiguousNFA
    };
    let built = AhoCorasick::builder()
        .kind(Some(kind))
        .match_kind(MatchKind::Standard)
        .build(forms.iter().map(|(p, _)| p));
    *broken |= built.is_err();
    Some(Forms {
        automaton: built.ok()?,
        turns: forms.into_iter().map(|(_, t)| t).collect(),
    })
}

impl Locator {
    /// The forms of `needles` and of their renderings in `families`.
    pub(crate) fn new(needles: &[Needle], families: &Families) -> Self {
        let seeds = &families.seeds;
        let mut whole = false;
        let mut bounded: Vec<(String, Turns)> = Vec::new();
        for n in needles {
            let s: String = crate::render::project::squeezed(n.as_str())
                .as_str()
                .to_owned();
            if s.is_empty() {
                whole = true;
            }
            bounded.extend(turned(&s));
        }
        let mut broken = false;
        let chars = |s: &str| s.chars().collect::<Vec<char>>();
        let form_chars: HashSet<char> = bounded
            .iter()
            .map(|(f, _)| f)
            .chain(
                [
                    &seeds.squeezed,
                    &seeds.words,
                    &seeds.initials,
                    &seeds.leet,
                    &seeds.nospace,
                    &seeds.caesar,
                    &seeds.filler,
                ]
                .into_iter()
                .flatten(),
            )
            .flat_map(|f| f.chars())
            .filter(|c| !c.is_ascii())
            .flat_map(|c| {
                std::iter::once(c)
                    .chain(c.to_lowercase())
                    .chain(c.to_uppercase())
            })
            .collect();
        Locator {
            bounded: automaton(bounded, &mut broken),
            squeezed: automaton(seeds.squeezed.iter().flat_map(|p| turned(p)), &mut broken),
            // The words of a text are read back through every spelling table, as
            // written, reversed and in ROT13, and its initials and last letters both
            // ways: a form found there may stand for any reading.
            words: automaton(
                seeds
                    .words
                    .iter()
                    .flat_map(|p| turned(p).map(|(f, _)| (f, EVERY_READING))),
                &mut broken,
            ),
            initials: automaton(
                seeds
                    .initials
                    .iter()
                    .flat_map(|p| turned(p).map(|(f, _)| (f, EVERY_READING))),
                &mut broken,
            ),
            // The leetspeak projection of the text in ROT13 turns these by one bit
            // ([`leet_in_rot13`]).
            leet: automaton(
                seeds
                    .leet
                    .iter()
                    .flat_map(|p| [(p.clone(), AS_WRITTEN), (reversed(p), REVERSED)]),
                &mut broken,
            ),
            nospace: automaton(seeds.nospace.iter().flat_map(|p| turned(p)), &mut broken),
            deltas: automaton(
                seeds
                    .caesar
                    .iter()
                    // Every shift has the same form, ROT13 among them.
                    .flat_map(|s| {
                        [
                            (deltas(&chars(s)), AS_WRITTEN | ROT13),
                            (deltas(&chars(&reversed(s))), REVERSED | ROT13_REVERSED),
                        ]
                    }),
                &mut broken,
            ),
            filler: FillerForms::new(
                seeds
                    .filler
                    .iter()
                    .flat_map(|p| turned(p))
                    .filter(|(p, _)| p.is_ascii())
                    .map(|(p, _)| p.into_bytes())
                    .collect(),
            ),
            reach: seeds
                .words
                .iter()
                .map(|p| p.chars().count())
                .max()
                .unwrap_or(0),
            whole: whole || broken,
            form_chars,
        }
    }

    /// The byte ranges of `text` to read, in order and disjoint; `None` when the text
    /// is better read whole.
    pub(crate) fn windows(&self, text: &str, plain: &[SetMatch]) -> Option<Vec<Window>> {
        if self.whole || text.len() < MIN_LOCATED {
            return None;
        }
        let (mut places, tight) = self.places(text)?;
        // What lies inside a plain occurrence of a value is that occurrence (the value
        // as written matches its own squeezed, leetspeak, shift-invariant and filler
        // forms), found already by the plain reading.
        let mut found: Vec<&Range<usize>> = plain.iter().map(|m| &m.found.source).collect();
        found.sort_unstable_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
        let inside = |p: &Range<usize>| {
            let k = found.partition_point(|r| r.start <= p.start);
            found
                .get(..k)
                .is_some_and(|before| before.iter().rev().take(8).any(|r| p.end <= r.end))
        };
        places.retain(|(p, _)| !inside(p));
        let windows = merge(text, places, tight);
        let covered: usize = windows.iter().map(|w| w.range.len()).sum();
        (covered as f64 <= text.len() as f64 * MAX_COVERED).then_some(windows)
    }

    /// The spans of the stretch of text that `decoded` (what a decoding view reads in
    /// it, with the spans each part came from) was read from that a place of `decoded`
    /// covers, found by the same search as a text as written; `None` when anything
    /// may hold a value. A rule of dashes read as Morse `ooo` in ordinary prose has
    /// none, half a value in Morse next to its other half has one. `depth` counts the
    /// readings already taken to get here: past [`MAX_REACH_DEPTH`] anything may hold
    /// a value, so that a view that leaves a run as it found it cannot recurse forever.
    fn reaches(&self, decoded: &Mapped, depth: usize) -> Option<Vec<Range<usize>>> {
        if self.whole || depth >= MAX_REACH_DEPTH {
            return None;
        }
        let (places, tight) = self.places_at(decoded.as_str(), depth + 1)?;
        Some(
            places
                .iter()
                .map(|(p, _)| p)
                .chain(&tight)
                .map(|p| decoded.source_span(p.clone()))
                .collect(),
        )
    }

    /// The places of `text` that can hold a value (forms and triggers), each with the
    /// readings it stands for, and its tokens to read alone; `None` when the text is
    /// better read whole.
    fn places(&self, text: &str) -> Option<Places> {
        self.places_at(text, 0)
    }

    /// [`Locator::places`] of a text read through `depth` decoding views.
    fn places_at(&self, text: &str, depth: usize) -> Option<Places> {
        let (mut triggered, mut tight) = (Vec::new(), Vec::new());
        let p = Projections::new(text, &self.form_chars, &mut triggered);
        triggers::find(text, &mut triggered, &mut tight, &|d: &Mapped| {
            self.reaches(d, depth)
        });
        let mut places: Vec<(Range<usize>, Turns)> =
            triggered.into_iter().map(|r| (r, EVERY_READING)).collect();
        let found = |a: &Option<Forms>, proj: &project::Proj, places: &mut Vec<_>| {
            if let Some(a) = a {
                for (r, turns) in a.find(proj.bytes.as_slice()) {
                    places.push((proj.source(r), turns));
                }
            }
        };
        // The families these forms stand for count a match only on word boundaries of
        // its reading (a letter or digit next to something else, a change between
        // letters and digits, a small letter before a capital); where the text has no
        // such boundary, no reading of it has one there either.
        let on_boundaries = |a: &Option<Forms>,
                             proj: &project::Proj,
                             turn: fn(Turns) -> Turns,
                             places: &mut Vec<_>| {
            if let Some(a) = a {
                for (r, turns) in a.find(proj.bytes.as_slice()) {
                    let r = proj.source(r);
                    if bounded(text, &r) {
                        places.push((r, turn(turns)));
                    }
                }
            }
        };
        let same = |t: Turns| t;
        on_boundaries(&self.squeezed, &p.squeezed, same, &mut places);
        on_boundaries(&self.leet, &p.leet, same, &mut places);
        on_boundaries(&self.leet, &p.leet13, leet_in_rot13, &mut places);
        if let Some(a) = &self.deltas {
            // A difference stands for a character and the next one.
            for (m, turns) in a.find(p.deltas.bytes.as_slice()) {
                let r = p.squeezed.source(m.start..m.end + 1);
                if bounded(text, &r) {
                    places.push((r, turns));
                }
            }
        }
        if let Some(a) = &self.bounded {
            let bytes = text.as_bytes();
            let word_edge = |at: Option<&u8>| !at.is_some_and(u8::is_ascii_alphanumeric);
            for (m, turns) in a.find(p.squeezed.bytes.as_slice()) {
                let r = p.squeezed.source(m);
                let before = r.start.checked_sub(1).and_then(|b| bytes.get(b));
                if word_edge(before) && word_edge(bytes.get(r.end)) {
                    places.push((r, turns));
                }
            }
        }
        found(&self.nospace, &p.nospace, &mut places);
        found(&self.initials, &p.initials, &mut places);
        found(&self.initials, &p.finals, &mut places);
        if self.words.is_some() {
            found(&self.words, &p.words_reversed, &mut places);
            for proj in p.spelled(self.reach) {
                found(&self.words, &proj, &mut places);
            }
        }
        // Values spread with filler may stand for any reading (the forms are few and
        // long, and their places rare).
        places.extend(
            p.squeezed
                .filler(&self.filler)
                .into_iter()
                .filter(|r| bounded(text, r))
                .map(|r| (r, EVERY_READING)),
        );
        Some((places, tight))
    }
}

/// The readings a leetspeak form found in the projection of the text in ROT13 stands
/// for: each of its readings with ROT13 applied once more.
fn leet_in_rot13(turns: Turns) -> Turns {
    [
        (AS_WRITTEN, ROT13),
        (ROT13, AS_WRITTEN),
        (REVERSED, ROT13_REVERSED),
        (ROT13_REVERSED, REVERSED),
    ]
    .iter()
    .filter(|(from, _)| turns & from != 0)
    .fold(turns & TRIGGER, |out, (_, to)| out | to)
}

/// Whether text span `r` (from the first to the last byte of ASCII letters and digits)
/// starts and ends where some reading may see a word boundary: next to a byte that is
/// not an ASCII letter or digit, at a change between letters and digits, or between a
/// small letter and a capital in either order (a reversed reading turns the order).
fn bounded(text: &str, r: &Range<usize>) -> bool {
    let bytes = text.as_bytes();
    let split = |a: Option<&u8>, b: Option<&u8>| match (a, b) {
        (Some(a), Some(b)) if a.is_ascii_alphanumeric() && b.is_ascii_alphanumeric() => {
            a.is_ascii_digit() != b.is_ascii_digit()
                || a.is_ascii_lowercase() && b.is_ascii_uppercase()
                || a.is_ascii_uppercase() && b.is_ascii_lowercase()
        }
        _ => true,
    };
    let before = r.start.checked_sub(1).and_then(|b| bytes.get(b));
    let last = r.end.checked_sub(1).and_then(|b| bytes.get(b));
    split(before, bytes.get(r.start)) && split(last, bytes.get(r.end))
}

/// The byte ranges of `text` that the located reading reads around `places`: each
/// widened by [`MARGIN`] and to whitespace, merged where they overlap or nearly touch.
pub(crate) fn around(text: &str, places: impl Iterator<Item = Range<usize>>) -> Vec<Range<usize>> {
    merge(
        text,
        places.map(|r| (r, EVERY_READING)).collect(),
        Vec::new(),
    )
    .into_iter()
    .map(|w| w.range)
    .collect()
}

/// The places widened to whitespace (or the text's ends) and merged where they overlap
/// or nearly touch: `wide` ones by [`MARGIN`] first, `tight` ones (decodable tokens,
/// whose readings hold nothing of the text around them) only to their whole token.
fn merge(text: &str, wide: Vec<(Range<usize>, Turns)>, tight: Vec<Range<usize>>) -> Vec<Window> {
    let mut places: Vec<(Range<usize>, usize, Turns)> = wide
        .into_iter()
        .map(|(r, turns)| (r, MARGIN, turns))
        // A decodable token stands for the readings that decode it.
        .chain(tight.into_iter().map(|r| (r, 0, TRIGGER)))
        .collect();
    places.sort_unstable_by_key(|(r, _, _)| (r.start, r.end));
    let bytes = text.as_bytes();
    let widen_start = |at: usize, margin: usize| {
        let mut s = at.saturating_sub(margin);
        let floor = s.saturating_sub(MARGIN / 2);
        while s > floor && !bytes.get(s - 1).is_some_and(u8::is_ascii_whitespace) {
            s -= 1;
        }
        while !text.is_char_boundary(s) {
            s -= 1;
        }
        s
    };
    let widen_end = |at: usize, margin: usize| {
        let mut e = (at + margin).min(text.len());
        let ceiling = (e + MARGIN / 2).min(text.len());
        while e < ceiling && !bytes.get(e).is_some_and(u8::is_ascii_whitespace) {
            e += 1;
        }
        while !text.is_char_boundary(e) {
            e += 1;
        }
        e
    };
    // (window, whether a wide place is in it, the readings its places stand for)
    let mut out: Vec<(Range<usize>, bool, Turns)> = Vec::new();
    for (p, margin, turns) in places {
        let (s, e) = (
            widen_start(p.start, margin),
            widen_end(p.end.max(p.start), margin),
        );
        let wide = margin > 0;
        match out.last_mut() {
            Some((last, last_wide, last_turns))
                if s <= last.end
                    || ((wide || *last_wide) && s <= last.end + MARGIN)
                    || bytes
                        .get(last.end..s)
                        .is_some_and(|gap| gap.iter().all(u8::is_ascii_whitespace)) =>
            {
                last.end = last.end.max(e);
                *last_wide |= wide;
                *last_turns |= turns;
            }
            _ => out.push((s..e, wide, turns)),
        }
    }
    out.into_iter()
        .map(|(range, wide, turns)| Window { range, wide, turns })
        .collect()
}

/// A byte range of a text to read in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) range: Range<usize>,
    /// Whether a place with context around it is in it (else it is decodable tokens
    /// only, whose reading depends on nothing but their text).
    pub(crate) wide: bool,
    /// The readings its places stand for: only those are searched by the families.
    pub(crate) turns: Turns,
}

#[cfg(test)]
mod tests;
