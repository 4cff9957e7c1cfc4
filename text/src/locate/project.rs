//! The cheap projections of a text as written that the forms of values are looked
//! for in: bytes with the offset of the text each came from.

use crate::render::project::leet_class;
use crate::render::words::tables;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

mod filler;
pub(super) use filler::FillerForms;

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

/// How the locating projections read a character outside ASCII.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outside {
    /// A symbol in every reading, and the letter it is in leetspeak (`€` as `e`) if
    /// any: preparation keeps it as it is, it is no letter, digit or combining mark of
    /// any script, and no view turns it into one (Morse symbols are the triggers' to
    /// find, in runs).
    Symbol(Option<u8>),
    /// An ASCII letter with diacritics (`é`, `Ñ`): preparation and case folding keep it
    /// one letter of its own, which the rendering families read without its marks;
    /// the projections read it as that ASCII letter (case kept).
    Accented(u8),
    /// Anything else: a place that a reading may turn into something else.
    Place,
}

fn outside_of(c: char) -> Outside {
    use unicode_normalization::char::is_combining_mark;
    use unicode_normalization::UnicodeNormalization;
    let mut buf = [0u8; 4];
    let written = crate::mapped::Mapped::identity(c.encode_utf8(&mut buf));
    let unchanged = crate::canon::prepare(&written)
        .as_str()
        .chars()
        .eq(std::iter::once(c));
    if !unchanged || crate::views::is_flipped(c) {
        return Outside::Place;
    }
    if !c.is_alphanumeric() && !is_combining_mark(c) {
        return Outside::Symbol(
            leet_class(c)
                .and_then(|k| u8::try_from(k).ok())
                .and_then(leet),
        );
    }
    let mut parts = c.nfd();
    let base = parts.next().filter(char::is_ascii_alphanumeric);
    let marks_only = parts.all(is_combining_mark);
    let folds_alone = {
        use caseless::Caseless;
        let lower: Vec<char> = c.to_lowercase().collect();
        std::iter::once(c)
            .default_case_fold()
            .eq(lower.iter().copied())
            && lower.len() == 1
    };
    match base.and_then(|b| u8::try_from(b).ok()) {
        Some(b) if marks_only && folds_alone => Outside::Accented(b),
        _ => Outside::Place,
    }
}

/// [`outside_of`], remembered per thread.
fn outside(c: char) -> Outside {
    thread_local! {
        static KINDS: std::cell::RefCell<HashMap<char, Outside>> =
            std::cell::RefCell::new(HashMap::new());
    }
    KINDS.with(|kinds| {
        if let Some(k) = kinds.borrow().get(&c) {
            return *k;
        }
        let k = outside_of(c);
        let mut kinds = kinds.borrow_mut();
        // Texts hold few distinct characters outside ASCII; a text with a whole
        // script's worth starts the memory again.
        if kinds.len() >= 4096 {
            kinds.clear();
        }
        kinds.insert(c, k);
        k
    })
}

/// One byte in ROT13 (letters turned by 13, anything else as it is).
pub(super) fn rot13(b: u8) -> u8 {
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

/// What an ASCII byte projects to: lowercased if a letter or digit (else 0), its
/// leetspeak class and that of its ROT13 (0 for none).
#[derive(Debug, Clone, Copy, Default)]
struct Class {
    lower: u8,
    leet: u8,
    leet13: u8,
}

fn classes() -> &'static [Class; 256] {
    static CLASSES: OnceLock<[Class; 256]> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut out = [Class::default(); 256];
        for (b, slot) in (0u8..=0x7f).zip(out.iter_mut()) {
            if b.is_ascii_alphanumeric() {
                let l = b.to_ascii_lowercase();
                *slot = Class {
                    lower: l,
                    leet: leet(l).unwrap_or(l),
                    leet13: leet(rot13(l)).unwrap_or(l),
                };
            } else if let Some(k) = leet(b) {
                *slot = Class {
                    lower: 0,
                    leet: k,
                    leet13: k,
                };
            }
        }
        // Any character outside ASCII reads as 0xFF, a letter of no form: it breaks a
        // leetspeak form as it does a squeezed one.
        if let Some(last) = out.last_mut() {
            last.leet = 0xFF;
            last.leet13 = 0xFF;
        }
        out
    })
}

/// The projections of one text.
pub(super) struct Projections {
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
    /// Words: runs of letters and digits, as ranges of `squeezed`.
    words: Vec<Range<usize>>,
}

impl Projections {
    /// The projections of `text`; characters that are triggers go to `places`. An ASCII
    /// letter with diacritics reads as the letter, and a symbol as a symbol, unless
    /// `form_chars` (the characters outside ASCII of the values' forms) holds it: a form
    /// without it matches there only as the letter the families read; one with it
    /// (`€` in a value's ROT47 form) is left out of the automata, so the character is a
    /// place.
    pub(super) fn new(
        text: &str,
        form_chars: &std::collections::HashSet<char>,
        places: &mut Vec<Range<usize>>,
    ) -> Self {
        let n = text.len();
        let classes = classes();
        let mut p = Projections {
            squeezed: Proj::with_capacity(n),
            leet: Proj::with_capacity(n),
            leet13: Proj::default(),
            nospace: Proj::with_capacity(n),
            deltas: Proj::default(),
            initials: Proj::default(),
            finals: Proj::default(),
            words_reversed: Proj::with_capacity(n),
            words: Vec::new(),
        };
        let mut leet13 = Vec::with_capacity(n);
        // Where the current word and whitespace-separated word start in `squeezed`.
        let mut word: Option<usize> = None;
        let mut ws_word: Option<usize> = None;
        let bytes = text.as_bytes();
        // Byte by byte: a character outside ASCII is taken at its first byte (its other
        // bytes are skipped), and reads as one byte that is no letter, digit or space,
        // as its leetspeak class if it is a symbol with one, or as its letter if it is
        // an accented letter.
        let mut i = 0;
        while let Some(&raw) = bytes.get(i) {
            let at = i;
            let mut symbol_leet = None;
            let b = if raw.is_ascii() {
                i += 1;
                raw
            } else {
                let c = text
                    .get(i..)
                    .and_then(|t| t.chars().next())
                    .unwrap_or('\u{FFFD}');
                i += c.len_utf8().max(1);
                let kind = if is_typography(c) {
                    Outside::Symbol(None)
                } else {
                    outside(c)
                };
                match kind {
                    Outside::Symbol(leet) if !form_chars.contains(&c) => {
                        symbol_leet = leet;
                        0xFF
                    }
                    Outside::Accented(letter) if !form_chars.contains(&c) => letter,
                    Outside::Symbol(_) | Outside::Accented(_) | Outside::Place => {
                        places.push(at..i);
                        0xFF
                    }
                }
            };
            let mut class = classes.get(usize::from(b)).copied().unwrap_or_default();
            if let Some(leet) = symbol_leet {
                class.leet = leet;
                class.leet13 = leet;
            }
            if class.lower != 0 {
                word.get_or_insert(p.squeezed.bytes.len());
                ws_word.get_or_insert(p.squeezed.bytes.len());
                p.squeezed.push(class.lower, at);
                p.leet.push(class.leet, at);
                leet13.push(class.leet13);
                p.nospace.push(b, at);
                continue;
            }
            if let Some(start) = word.take() {
                p.words.push(start..p.squeezed.bytes.len());
            }
            if b.is_ascii_whitespace() {
                if let Some(start) = ws_word.take() {
                    p.reverse_word(start);
                }
                continue;
            }
            ws_word.get_or_insert(p.squeezed.bytes.len());
            p.nospace.push(b, at);
            if class.leet != 0 {
                p.leet.push(class.leet, at);
                leet13.push(class.leet);
            }
        }
        if let Some(start) = word {
            p.words.push(start..p.squeezed.bytes.len());
        }
        if let Some(start) = ws_word {
            p.reverse_word(start);
        }
        p.leet13 = Proj {
            bytes: leet13,
            at: p.leet.at.clone(),
        };
        p.deltas = Self::deltas_of(&p.squeezed);
        let sq = &p.squeezed;
        for w in &p.words {
            let letter = |k: usize| {
                let b = sq.bytes.get(k).filter(|b| b.is_ascii_alphabetic())?;
                Some((*b, *sq.at.get(k)? as usize))
            };
            if let Some((b, at)) = letter(w.start) {
                p.initials.push(b, at);
            }
            if let Some((b, at)) = w.end.checked_sub(1).and_then(letter) {
                p.finals.push(b, at);
            }
        }
        p
    }

    /// Pushes the letters and digits of the whitespace-separated word that starts at
    /// `start` of `squeezed` and ends at its end, reversed.
    fn reverse_word(&mut self, start: usize) {
        let sq = &self.squeezed;
        for k in (start..sq.bytes.len()).rev() {
            if let (Some(&b), Some(&at)) = (sq.bytes.get(k), sq.at.get(k)) {
                self.words_reversed.push(b, at as usize);
            }
        }
    }

    fn deltas_of(sq: &Proj) -> Proj {
        let mut out = Proj::with_capacity(sq.bytes.len());
        for (k, w) in sq.bytes.windows(2).enumerate() {
            let (a, b) = (
                w.first().copied().unwrap_or(0),
                w.get(1).copied().unwrap_or(0),
            );
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
    ///
    /// Only the words within `reach` words of a table word are projected (a value
    /// spelled with a table word lies within its length of it); stretches of words far
    /// apart are separated by a space, which no form holds.
    pub(super) fn spelled(&self, reach: usize) -> Vec<Proj> {
        let finder = word_finder();
        let bytes = self.squeezed.bytes.as_slice();
        // (word index, variant, character per table) of every word of a table.
        let mut hits: Vec<(usize, u8, &[Option<u8>])> = Vec::new();
        for (k, w) in self.words.iter().enumerate() {
            if !finder.lengths.contains(&w.len()) {
                continue;
            }
            let Some(spellings) = bytes
                .get(w.clone())
                .and_then(|word| finder.by_form.get(word))
            else {
                continue;
            };
            for (variant, chars) in spellings {
                hits.push((k, *variant, chars.as_slice()));
            }
        }
        let mut out = Vec::new();
        for variant in 0..4u8 {
            let of_variant: Vec<&(usize, u8, &[Option<u8>])> =
                hits.iter().filter(|(_, v, _)| *v == variant).collect();
            if of_variant.is_empty() {
                continue;
            }
            for t in 0..tables().len() {
                let spelled: Vec<(usize, u8)> = of_variant
                    .iter()
                    .filter_map(|(k, _, chars)| Some((*k, chars.get(t).copied().flatten()?)))
                    .collect();
                if spelled.is_empty() {
                    continue;
                }
                out.push(self.spelled_near(&spelled, variant, reach));
            }
        }
        out
    }

    /// The projection of the words within `reach` letters and digits of `spelled` (word
    /// index, character, sorted), those replaced by their character; stretches that do
    /// not touch are separated by a space.
    fn spelled_near(&self, spelled: &[(usize, u8)], variant: u8, reach: usize) -> Proj {
        let len = |k: usize| self.words.get(k).map_or(0, ExactSizeIterator::len);
        // The stretches of words to project, merged where they touch.
        let mut stretches: Vec<Range<usize>> = Vec::new();
        for &(k, _) in spelled {
            let (mut lo, mut before) = (k, 0);
            while lo > 0 && before < reach {
                lo -= 1;
                before += len(lo);
            }
            let (mut hi, mut after) = (k + 1, 0);
            while hi < self.words.len() && after < reach {
                after += len(hi);
                hi += 1;
            }
            match stretches.last_mut() {
                Some(last) if lo <= last.end => last.end = last.end.max(hi),
                _ => stretches.push(lo..hi),
            }
        }
        let sq = &self.squeezed;
        let at_of = |k: usize| sq.at.get(k).map_or(0, |&a| a as usize);
        let mut proj = Proj::default();
        let mut table_words = spelled.iter().peekable();
        for stretch in stretches {
            if !proj.bytes.is_empty() {
                let at = self.words.get(stretch.start).map_or(0, |w| at_of(w.start));
                proj.push(b' ', at);
            }
            for k in stretch {
                let Some(w) = self.words.get(k) else {
                    break;
                };
                while table_words.peek().is_some_and(|&&(j, _)| j < k) {
                    table_words.next();
                }
                if let Some(&&(_, c)) = table_words.peek().filter(|&&&(j, _)| j == k) {
                    proj.push(c, at_of(w.start));
                    continue;
                }
                for i in w.clone() {
                    let b = sq.bytes.get(i).copied().unwrap_or(0);
                    proj.push(if variant & 1 == 1 { rot13(b) } else { b }, at_of(i));
                }
            }
        }
        proj
    }
}

/// The ASCII words of the spelling tables as a text shows them in each variant (as
/// written, in ROT13, reversed, both; lowercase), each with the variants and the
/// character the word spells in each table.
struct WordFinder {
    by_form: HashMap<Vec<u8>, Vec<Spelling>>,
    /// The lengths of the forms: most words of a text are of none, and skip the lookup.
    lengths: std::ops::RangeInclusive<usize>,
}

/// A variant of a text word (bit 1: ROT13, bit 2: reversed) and the character it
/// spells in each table.
type Spelling = (u8, Vec<Option<u8>>);

fn word_finder() -> &'static WordFinder {
    static FINDER: OnceLock<WordFinder> = OnceLock::new();
    FINDER.get_or_init(|| {
        let mut by_form: HashMap<Vec<u8>, Vec<Spelling>> = HashMap::new();
        for (key, chars) in word_tables() {
            for variant in 0..4u8 {
                // A text word reads as `key` after lowercasing, ROT13 (bit 1) and
                // reversal (bit 2): the word is `key` with both undone.
                let mut form = key.to_ascii_lowercase();
                if variant & 2 == 2 {
                    form.reverse();
                }
                if variant & 1 == 1 {
                    form.iter_mut().for_each(|b| *b = rot13(*b));
                }
                by_form
                    .entry(form)
                    .or_default()
                    .push((variant, chars.clone()));
            }
        }
        let shortest = by_form.keys().map(Vec::len).min().unwrap_or(0);
        let longest = by_form.keys().map(Vec::len).max().unwrap_or(0);
        WordFinder {
            by_form,
            lengths: shortest..=longest,
        }
    })
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

#[cfg(test)]
mod tests {
    use super::{outside_of, Outside};

    /// Latin letters with diacritics read as their letter; letters that preparation or
    /// case folding turn into something else, and other scripts, stay places.
    #[test]
    fn accented_latin_letters_read_as_their_ascii_letter() {
        for (c, letter) in [
            ('é', b'e'),
            ('É', b'E'),
            ('ñ', b'n'),
            ('ü', b'u'),
            ('Ö', b'O'),
        ] {
            assert_eq!(outside_of(c), Outside::Accented(letter), "{c}");
        }
        for c in ['ß', 'ı', 'İ', 'ﬁ', '\u{212B}', 'е', 'ё', 'λ', '二', 'ǝ'] {
            assert_eq!(outside_of(c), Outside::Place, "{c}");
        }
        assert_eq!(outside_of('€'), Outside::Symbol(Some(b'e')));
        assert_eq!(outside_of('°'), Outside::Symbol(None));
    }
}
