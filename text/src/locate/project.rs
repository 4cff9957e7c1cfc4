//! The cheap projections of a text as written that the forms of values are looked
//! for in: bytes with the offset of the text each came from.

use crate::render::project::leet_class;
use crate::render::words::tables;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

/// Bytes, each with the text offset it came from.
#[derive(Debug, Default)]
pub(super) struct Proj {
    pub(super) bytes: Vec<u8>,
    at: Vec<u32>,
}

impl Proj {
    fn with_capacity(n: usize) -> Self {
        Proj {
            bytes: Vec::with_capacity(n),
            at: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, b: u8, at: usize) {
        self.bytes.push(b);
        self.at.push(u32::try_from(at).unwrap_or(u32::MAX));
    }

    /// The text span of projected bytes `r` (from its first to its last source byte,
    /// whichever order the projection put them in).
    pub(super) fn source(&self, r: Range<usize>) -> Range<usize> {
        let spans = self.at.get(r).unwrap_or(&[]);
        let lo = spans.iter().min().copied().unwrap_or(0) as usize;
        let hi = spans.iter().max().copied().unwrap_or(0) as usize;
        lo..hi + 1
    }

    /// Text spans where `form`'s bytes occur in order with at most
    /// [`crate::render::MAX_FILLER`] other bytes between each two.
    pub(super) fn filler(&self, form: &[u8]) -> Vec<Range<usize>> {
        let Some((&first, rest)) = form.split_first() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for start in memchr_all(first, &self.bytes) {
            let mut frontier = vec![start];
            for &want in rest {
                let mut next: Vec<usize> = Vec::new();
                for &p in &frontier {
                    for q in p + 1..=p + 1 + crate::render::MAX_FILLER {
                        if self.bytes.get(q) == Some(&want) && !next.contains(&q) {
                            next.push(q);
                        }
                    }
                }
                frontier = next;
                if frontier.is_empty() {
                    break;
                }
            }
            if let Some(&end) = frontier.iter().max() {
                out.push(self.source(start..end + 1));
            }
        }
        out
    }
}

fn memchr_all(b: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b, hay)
}

/// Characters outside ASCII that ordinary typography uses and no reading turns into a
/// letter or digit: curly quotes, dashes, the ellipsis, bullets, non-breaking and
/// other visible spaces.
fn is_typography(c: char) -> bool {
    matches!(
        c,
        '\u{A0}'
            | '\u{2010}'..='\u{2015}'
            | '\u{2018}'..='\u{201F}'
            | '\u{2022}'
            | '\u{2026}'
            | '\u{2002}'..='\u{200A}'
            | '\u{00AB}'
            | '\u{00BB}'
    )
}

fn rot13(b: u8) -> u8 {
    match b {
        b'a'..=b'z' => b'a' + (b - b'a' + 13) % 26,
        b'A'..=b'Z' => b'A' + (b - b'A' + 13) % 26,
        _ => b,
    }
}

/// The class byte of a lowercased ASCII letter or digit in leetspeak.
fn leet(b: u8) -> Option<u8> {
    leet_class(char::from(b)).and_then(|c| u8::try_from(c).ok())
}

/// The projections of one text.
pub(super) struct Projections<'t> {
    text: &'t str,
    /// Letters and digits, lowercased.
    pub(super) squeezed: Proj,
    /// Their leetspeak classes, with the symbols that have one.
    pub(super) leet: Proj,
    /// The same of the text in ROT13.
    pub(super) leet13: Proj,
    /// The text without whitespace, case kept.
    pub(super) nospace: Proj,
    /// Shift-invariant differences of `squeezed`.
    pub(super) deltas: Proj,
    /// First letters of words.
    pub(super) initials: Proj,
    /// Last letters of words (the initials of the reversed text, backwards).
    pub(super) finals: Proj,
    /// Every whitespace-separated word reversed, letters and digits only.
    pub(super) words_reversed: Proj,
    /// Words: runs of ASCII letters and digits.
    words: Vec<Range<usize>>,
}

impl<'t> Projections<'t> {
    /// The projections of `text`; characters that are triggers go to `places`.
    pub(super) fn new(text: &'t str, places: &mut Vec<Range<usize>>) -> Self {
        let n = text.len();
        let mut p = Projections {
            text,
            squeezed: Proj::with_capacity(n),
            leet: Proj::with_capacity(n),
            leet13: Proj::with_capacity(n),
            nospace: Proj::with_capacity(n),
            deltas: Proj::default(),
            initials: Proj::default(),
            finals: Proj::default(),
            words_reversed: Proj::with_capacity(n),
            words: Vec::new(),
        };
        let mut word: Option<usize> = None;
        let mut ws_word: Option<usize> = None;
        for (i, c) in text.char_indices() {
            let b = if c.is_ascii() {
                c as u8
            } else {
                if !is_typography(c) {
                    places.push(i..i + c.len_utf8());
                }
                0xFF
            };
            if b.is_ascii_alphanumeric() {
                let l = b.to_ascii_lowercase();
                p.squeezed.push(l, i);
                p.leet.push(leet(l).unwrap_or(l), i);
                p.leet13.push(leet(rot13(l)).unwrap_or(l), i);
                p.nospace.push(b, i);
                word.get_or_insert(i);
                ws_word.get_or_insert(i);
                continue;
            }
            if let Some(start) = word.take() {
                p.words.push(start..i);
            }
            if b.is_ascii_whitespace() {
                if let Some(start) = ws_word.take() {
                    p.reverse_word(start..i);
                }
                continue;
            }
            ws_word.get_or_insert(i);
            p.nospace.push(b, i);
            if let Some(k) = leet(b) {
                p.leet.push(k, i);
                p.leet13.push(k, i);
            }
        }
        if let Some(start) = word {
            p.words.push(start..n);
        }
        if let Some(start) = ws_word {
            p.reverse_word(start..n);
        }
        p.deltas = Self::deltas_of(&p.squeezed);
        let bytes = text.as_bytes();
        for w in &p.words {
            if let Some(&b) = bytes.get(w.start).filter(|b| b.is_ascii_alphabetic()) {
                p.initials.push(b.to_ascii_lowercase(), w.start);
            }
            let last = w.end.saturating_sub(1);
            if let Some(&b) = bytes.get(last).filter(|b| b.is_ascii_alphabetic()) {
                p.finals.push(b.to_ascii_lowercase(), last);
            }
        }
        p
    }

    fn reverse_word(&mut self, r: Range<usize>) {
        let bytes = self.text.as_bytes();
        for i in r.rev() {
            if let Some(&b) = bytes.get(i).filter(|b| b.is_ascii_alphanumeric()) {
                self.words_reversed.push(b.to_ascii_lowercase(), i);
            }
        }
    }

    fn deltas_of(sq: &Proj) -> Proj {
        let mut out = Proj::with_capacity(sq.bytes.len());
        for (k, w) in sq.bytes.windows(2).enumerate() {
            let (a, b) = (w.first().copied().unwrap_or(0), w.get(1).copied().unwrap_or(0));
            let d = match (a, b) {
                (b'a'..=b'z', b'a'..=b'z') => b'a' + (b + 26 - a) % 26,
                (b'0'..=b'9', b'0'..=b'9') => b'0' + (b + 10 - a) % 10,
                (b'a'..=b'z', b'0'..=b'9') => b'#',
                (b'0'..=b'9', b'a'..=b'z') => b'%',
                _ => b'?',
            };
            out.push(d, sq.at.get(k).copied().unwrap_or(0) as usize);
        }
        out
    }

    /// The words with the words of a spelling table read back, for every table that
    /// has a word of the text, with the words read as written, in ROT13, reversed and
    /// both (the spelled projections of the readings that reverse or rotate the text).
    pub(super) fn spelled(&self) -> Vec<Proj> {
        let lookup = word_tables();
        let bytes = self.text.as_bytes();
        let mut out = Vec::new();
        let mut key = Vec::new();
        for variant in 0..4u8 {
            // The tables each word of this variant is in: (word index, char per table).
            let mut hits: Vec<(usize, &[Option<u8>])> = Vec::new();
            for (k, w) in self.words.iter().enumerate() {
                key.clear();
                let word = bytes.get(w.clone()).unwrap_or(&[]);
                if word.len() > MAX_KEY {
                    continue;
                }
                key.extend(word.iter().map(u8::to_ascii_lowercase));
                if variant & 1 == 1 {
                    key.iter_mut().for_each(|b| *b = rot13(*b));
                }
                if variant & 2 == 2 {
                    key.reverse();
                }
                if let Some(chars) = lookup.get(key.as_slice()) {
                    hits.push((k, chars.as_slice()));
                }
            }
            if hits.is_empty() {
                continue;
            }
            for t in 0..tables().len() {
                let mut spelled = hits
                    .iter()
                    .filter_map(|(k, chars)| chars.get(t).copied().flatten().map(|c| (*k, c)))
                    .peekable();
                if spelled.peek().is_none() {
                    continue;
                }
                let mut next = spelled.next();
                let mut proj = Proj::with_capacity(self.squeezed.bytes.len());
                for (k, w) in self.words.iter().enumerate() {
                    if let Some((_, c)) = next.filter(|(j, _)| *j == k) {
                        proj.push(c, w.start);
                        next = spelled.next();
                        continue;
                    }
                    for i in w.clone() {
                        let b = bytes.get(i).copied().unwrap_or(0).to_ascii_lowercase();
                        proj.push(if variant & 1 == 1 { rot13(b) } else { b }, i);
                    }
                }
                out.push(proj);
            }
        }
        out
    }
}

/// Longest ASCII word of any spelling table, in bytes.
const MAX_KEY: usize = 16;

/// Every ASCII word of the spelling tables, with the character it spells in each table.
fn word_tables() -> &'static HashMap<Vec<u8>, Vec<Option<u8>>> {
    static WORDS: OnceLock<HashMap<Vec<u8>, Vec<Option<u8>>>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let all = tables();
        let mut out: HashMap<Vec<u8>, Vec<Option<u8>>> = HashMap::new();
        for (t, table) in all.iter().enumerate() {
            for (w, c) in table {
                if !w.is_ascii() || w.len() > MAX_KEY || !c.is_ascii() {
                    continue;
                }
                let slot = out
                    .entry(w.as_bytes().to_vec())
                    .or_insert_with(|| vec![None; all.len()]);
                if let (Some(s), Ok(b)) = (slot.get_mut(t), u8::try_from(*c)) {
                    *s = Some(b);
                }
            }
        }
        out
    })
}
