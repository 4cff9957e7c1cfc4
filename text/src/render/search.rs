//! The precomputed renderings of a set of values (one automaton per projection) and
//! their search in the projections of a reading.

use super::project::{self, leet_class};
use super::words::tables;
use super::{
    bits, blocks, MAX_FILLER, MIN_BITS, MIN_FILLER_BITS, MIN_INITIALS_BITS, MIN_LEET_BITS,
    MIN_ROT47_CHARS, MIN_SHIFT_BITS,
};
use crate::canon::Needle;
use crate::mapped::Mapped;
use crate::views::{View, LANGS};
use aho_corasick::{AhoCorasick, AhoCorasickKind};
use std::ops::Range;

/// What a pattern found in the squeezed projection stands for.
#[derive(Debug, Clone, Copy)]
enum SqKind {
    /// The value itself (`spaced`, or the family of the word projection searched).
    Identity,
    /// A fixed rendering with its own label.
    Label(View),
}

/// An automaton over labelled patterns.
#[derive(Debug, Clone)]
struct Patterns<T> {
    automaton: Option<AhoCorasick>,
    labels: Vec<(usize, T)>,
}

impl<T> Default for Patterns<T> {
    fn default() -> Self {
        Patterns {
            automaton: None,
            labels: Vec::new(),
        }
    }
}

impl<T: Copy> Patterns<T> {
    fn build(items: Vec<(usize, T, String)>) -> Self {
        let mut items = items;
        items.retain(|(_, _, p)| !p.is_empty());
        let automaton = if items.is_empty() {
            None
        } else {
            // A contiguous NFA: a value set is often built for a few lookups (a
            // verifier's trial), where a DFA's build costs more than its faster search.
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(items.iter().map(|(_, _, p)| p.as_str()))
                .ok()
        };
        Patterns {
            automaton,
            labels: items.into_iter().map(|(n, t, _)| (n, t)).collect(),
        }
    }

    /// Every (needle, label, byte range) found in `hay`, overlapping ones included.
    fn find<'a>(&'a self, hay: &'a str) -> impl Iterator<Item = (usize, T, Range<usize>)> + 'a {
        self.automaton
            .iter()
            .flat_map(move |a| a.find_overlapping_iter(hay))
            .filter_map(|m| {
                let (n, t) = *self.labels.get(m.pattern().as_usize())?;
                Some((n, t, m.range()))
            })
    }
}

/// Caesar pattern data of one value: its first letter and first digit.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    letter: Option<(usize, u8)>,
    digit: Option<(usize, u8)>,
}

/// The renderings of a set of values, precomputed once.
#[derive(Debug, Clone, Default)]
pub struct Families {
    squeezed: Patterns<SqKind>,
    shifted: Patterns<Anchor>,
    leet: Patterns<()>,
    nospace: Patterns<View>,
    filler: Vec<(usize, Vec<char>)>,
    /// Needles with enough bits to be searched as word initials.
    initials: Vec<usize>,
    /// The patterns above as written, by the projection they are searched in: what
    /// [`crate::locate`] looks for in a long text before reading any of it.
    pub(crate) seeds: Seeds,
}

/// The patterns of a set of values, by the projection of a reading they are searched
/// in (before any shift, reversal or ROT13 a reading may add).
#[derive(Debug, Clone, Default)]
pub(crate) struct Seeds {
    /// Searched in the squeezed reading (the values, Atbash, concatenated spellings).
    pub(crate) squeezed: Vec<String>,
    /// The squeezed values, searched in projections of words (spelled words, initials
    /// of eligible values, reordered words).
    pub(crate) words: Vec<String>,
    /// The squeezed values with enough bits for word initials.
    pub(crate) initials: Vec<String>,
    /// Leetspeak classes.
    pub(crate) leet: Vec<String>,
    /// ROT47 renderings and block cores, searched in the text without whitespace.
    pub(crate) nospace: Vec<String>,
    /// Squeezed values searched under every Caesar shift.
    pub(crate) caesar: Vec<String>,
    /// Squeezed values searched with filler between their characters.
    pub(crate) filler: Vec<String>,
}

fn atbash(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'z' - (c as u8 - b'a')),
            _ => c,
        })
        .collect()
}

fn rot47(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '!'..='~' => char::from(b'!' + (c as u8 - b'!' + 47) % 94),
            _ => c,
        })
        .collect()
}

impl Families {
    /// Whether no needle has a rendering searched (all too short, or none).
    pub fn is_empty(&self) -> bool {
        self.squeezed.automaton.is_none()
            && self.shifted.automaton.is_none()
            && self.leet.automaton.is_none()
            && self.nospace.automaton.is_none()
            && self.filler.is_empty()
    }

    /// The renderings of `needles`; needle `i` is reported as index `i`.
    pub fn new(needles: &[Needle]) -> Self {
        let (mut sq, mut sh, mut le, mut ns, mut filler) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut initials = Vec::new();
        let mut caesar_values = Vec::new();
        let tabs = tables();
        for (i, n) in needles.iter().enumerate() {
            let value = n.raw();
            // Squeezed after the same preparation as the readings (look-alikes folded).
            let prepared = crate::canon::prepare(&Mapped::identity(value));
            let s: String = project::squeezed(prepared.as_str()).as_str().to_owned();
            let b = bits(&s);
            if n.is_strict() || b < MIN_BITS {
                continue;
            }
            if b >= MIN_INITIALS_BITS {
                initials.push(i);
            }
            sq.push((i, SqKind::Identity, s.clone()));
            let ab = atbash(&s);
            if ab != s {
                sq.push((i, SqKind::Label(View::Atbash), ab));
            }
            // Concatenated spellings (no spaces between the words).
            for ((t, table), native) in tabs
                .iter()
                .enumerate()
                .flat_map(|t| [(t, false), (t, true)])
            {
                let mut spelled = String::new();
                let mut changed = false;
                for c in s.chars() {
                    let word = table
                        .iter()
                        .filter(|(_, &v)| v == c)
                        .map(|(w, _)| w.as_str())
                        .min_by_key(|w| (w.is_ascii() == native, w.len(), *w));
                    match word {
                        Some(w) => {
                            spelled.push_str(w);
                            changed = true;
                        }
                        None => spelled.push(c),
                    }
                }
                if changed && !sq.iter().any(|(n, _, p)| *n == i && *p == spelled) {
                    sq.push((i, SqKind::Label(table_view(t)), spelled));
                }
            }
            // Leetspeak of the letters and digits, and of the value read the way a
            // reading is (`€` inside `€45 instead of €180` reads as an `e` there).
            if b >= MIN_LEET_BITS {
                let l: String = s.chars().filter_map(leet_class).collect();
                let trimmed = prepared
                    .as_str()
                    .trim_matches(|c: char| !c.is_alphanumeric());
                let read = project::leet(trimmed).as_str().to_owned();
                if read != l {
                    le.push((i, (), read));
                }
                le.push((i, (), l));
            }
            let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
            for sp in [
                compact.clone(),
                compact.to_uppercase(),
                compact.to_lowercase(),
            ] {
                let r = rot47(&sp);
                if r.chars().count() >= MIN_ROT47_CHARS {
                    ns.push((i, View::Rot47, r));
                }
            }
            for (label, core) in blocks::cores(value) {
                ns.push((i, label, core));
            }
            let ascii = s.chars().all(|c| c.is_ascii_alphanumeric());
            if ascii && b >= MIN_SHIFT_BITS {
                let chars: Vec<char> = s.chars().collect();
                let pos = |f: fn(&char) -> bool| {
                    chars
                        .iter()
                        .position(f)
                        .and_then(|p| Some((p, *chars.get(p)? as u8)))
                };
                let anchor = Anchor {
                    letter: pos(char::is_ascii_lowercase),
                    digit: pos(char::is_ascii_digit),
                };
                sh.push((i, anchor, project::deltas(&chars)));
                caesar_values.push(s.clone());
            }
            if b >= MIN_FILLER_BITS {
                filler.push((i, s.chars().collect()));
            }
        }
        let seeds = Seeds {
            squeezed: sq.iter().map(|(_, _, p)| p.clone()).collect(),
            words: sq
                .iter()
                .filter(|(_, k, _)| matches!(k, SqKind::Identity))
                .map(|(_, _, p)| p.clone())
                .collect(),
            initials: sq
                .iter()
                .filter(|(n, k, _)| matches!(k, SqKind::Identity) && initials.contains(n))
                .map(|(_, _, p)| p.clone())
                .collect(),
            leet: le.iter().map(|(_, _, p)| p.clone()).collect(),
            nospace: ns.iter().map(|(_, _, p)| p.clone()).collect(),
            caesar: caesar_values,
            filler: filler
                .iter()
                .map(|(_, v): &(usize, Vec<char>)| v.iter().collect())
                .collect(),
        };
        Families {
            seeds,
            squeezed: Patterns::build(sq),
            shifted: Patterns::build(sh),
            leet: Patterns::build(le),
            nospace: Patterns::build(ns),
            filler,
            initials,
        }
    }
}

/// The view of word table `t` (0 is NATO).
fn table_view(t: usize) -> View {
    match t.checked_sub(1).and_then(|l| u8::try_from(l).ok()) {
        Some(l) if usize::from(l) < LANGS.len() => View::Spelled(l),
        _ => View::Nato,
    }
}

/// A projection of a reading's words, with the source spans of the words a spelling
/// table spelled (a match must hold one of them: the rest of its words are as written,
/// which the plain reading reads with its own word boundaries; `None` for projections
/// that change every word).
type WordProjection = (View, Mapped, Option<Vec<Range<usize>>>);

/// The projections of one reading.
#[derive(Debug, Clone)]
pub(crate) struct Projections {
    reading: String,
    squeezed: Mapped,
    chars: Vec<(char, Range<usize>)>,
    deltas: String,
    leet: Mapped,
    nospace: Mapped,
    /// Projections of words (initials, each spelling table, Morse).
    words: Vec<WordProjection>,
    /// Projections of reordered words, with their word bounds.
    reordered: Vec<(View, project::Reordered)>,
}

impl Projections {
    /// The projections of a prepared reading.
    pub fn new(reading: &Mapped) -> Self {
        let r = reading.as_str();
        let squeezed = project::squeezed(r);
        let chars: Vec<(char, Range<usize>)> = squeezed
            .as_str()
            .char_indices()
            .map(|(i, c)| (c, squeezed.span_of(i)))
            .collect();
        let plain: Vec<char> = chars.iter().map(|(c, _)| *c).collect();
        let ws = project::words(r);
        let mut words = vec![(View::Initials, project::initials(&ws), None)];
        let reordered = vec![
            (View::WordsReversed, project::words_reversed(r)),
            (View::WordOrder, project::word_order_reversed(r)),
        ];
        let spells = project::spelling(&ws);
        for t in 0..tables().len() {
            if let Some(m) = project::spelled(&ws, &spells, t) {
                let spelled = ws
                    .iter()
                    .zip(&spells)
                    .filter(|(_, s)| s.and_then(|s| *s.get(t)?).is_some())
                    .map(|((r, _), _)| r.clone())
                    .collect();
                words.push((table_view(t), m, Some(spelled)));
            }
        }
        words.extend(project::morse(r).map(|m| (View::Morse, m, None)));
        Projections {
            reading: r.to_owned(),
            deltas: project::deltas(&plain),
            chars,
            squeezed,
            leet: project::leet(r),
            nospace: project::nospace(r),
            words,
            reordered,
        }
    }

    /// Whether reading range `r` starts and ends on a word boundary. Besides anything
    /// that is not a letter or digit, a change between letters and digits and a small
    /// letter followed by a capital are boundaries: a value spread out with filler often
    /// loses the spaces around it too (`1.4.Q.u.a.r.r.y.T.e.r.r.a.c.e` reads as
    /// `14QuarryTerrace`).
    fn bounded(&self, r: &Range<usize>) -> bool {
        let last = |s: &str| s.chars().next_back();
        let first = |s: &str| s.chars().next();
        let at = |range: Range<usize>| self.reading.get(range);
        let split = |a: Option<char>, b: Option<char>| match (a, b) {
            (Some(a), Some(b)) if a.is_alphanumeric() && b.is_alphanumeric() => {
                a.is_numeric() != b.is_numeric() || (a.is_lowercase() && b.is_uppercase())
            }
            _ => true,
        };
        let start = split(at(0..r.start).and_then(last), at(r.clone()).and_then(first));
        let end = split(
            at(r.clone()).and_then(last),
            at(r.end..self.reading.len()).and_then(first),
        );
        start && end
    }

    /// Every (needle, family, reading range) of `f` in this reading.
    pub fn search(&self, f: &Families) -> Vec<(usize, View, Range<usize>)> {
        let mut out = Vec::new();
        let mut push = |n: usize, v: View, r: Range<usize>, bounded: bool| {
            if !bounded || self.bounded(&r) {
                out.push((n, v, r));
            }
        };
        for (n, k, r) in f.squeezed.find(self.squeezed.as_str()) {
            let v = match k {
                SqKind::Identity => View::Spaced,
                SqKind::Label(v) => v,
            };
            push(n, v, self.squeezed.source_span(r), true);
        }
        for (view, m, spelled) in &self.words {
            for (n, k, r) in f.squeezed.find(m.as_str()) {
                let weak = *view == View::Initials && !f.initials.contains(&n);
                let source = m.source_span(r);
                // Spelled words are in reading order and apart: the first one ending
                // after the match starts is the only one to look at.
                let holds_spelled = spelled.as_ref().is_none_or(|words| {
                    let k = words.partition_point(|w| w.end <= source.start);
                    words.get(k).is_some_and(|w| w.start < source.end)
                });
                if matches!(k, SqKind::Identity) && !weak && holds_spelled {
                    push(n, *view, source, true);
                }
            }
        }
        for (view, (m, bounds)) in &self.reordered {
            let at = |i: usize| bounds.get(i).copied().unwrap_or(false);
            for (n, k, r) in f.squeezed.find(m.as_str()) {
                if matches!(k, SqKind::Identity) && at(r.start) && at(r.end) {
                    push(n, *view, m.source_span(r), false);
                }
            }
        }
        for (n, (), r) in f.leet.find(self.leet.as_str()) {
            push(n, View::Leet, self.leet.source_span(r), true);
        }
        for (n, v, r) in f.nospace.find(self.nospace.as_str()) {
            push(n, v, self.nospace.source_span(r), false);
        }
        for (n, a, r) in f.shifted.find(&self.deltas) {
            let at = |k: usize| self.chars.get(r.start + k).map(|(c, _)| *c as u8);
            let shift = |anchor: Option<(usize, u8)>, base: u8| {
                anchor.and_then(|(k, v)| Some((at(k)? + base - v) % base))
            };
            let l = shift(a.letter, 26).unwrap_or(0);
            let d = shift(a.digit, 10).unwrap_or(0);
            if l == 0 && d == 0 {
                continue;
            }
            let (Some(first), Some(last)) = (self.chars.get(r.start), self.chars.get(r.end)) else {
                continue;
            };
            push(n, View::Caesar(l, d), first.1.start..last.1.end, true);
        }
        for (n, value) in &f.filler {
            for r in self.filler(value) {
                push(*n, View::Filler(MAX_FILLER as u8), r, true);
            }
        }
        out
    }

    /// Reading ranges where `value`'s characters occur in order with at most
    /// [`MAX_FILLER`] other letters or digits between each two, some gap used.
    fn filler(&self, value: &[char]) -> Vec<Range<usize>> {
        let Some(&first) = value.first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // Positions reached after the characters so far, and after the next one: kept
        // across starts, as most starts end after a character or two.
        let (mut frontier, mut next): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        for (start, (c, span)) in self.chars.iter().enumerate() {
            if *c != first {
                continue;
            }
            frontier.clear();
            frontier.push(start);
            let mut gapped = false;
            for &want in value.iter().skip(1) {
                next.clear();
                for &p in &frontier {
                    for q in p + 1..=p + 1 + MAX_FILLER {
                        if self.chars.get(q).is_some_and(|(c, _)| *c == want) && !next.contains(&q)
                        {
                            gapped |= q > p + 1;
                            next.push(q);
                        }
                    }
                }
                std::mem::swap(&mut frontier, &mut next);
                if frontier.is_empty() {
                    break;
                }
            }
            if let (true, Some(&end)) = (gapped, frontier.iter().min()) {
                if let Some((_, last)) = self.chars.get(end) {
                    out.push(span.start..last.end);
                }
            }
        }
        out
    }
}
