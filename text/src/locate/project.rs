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

    /// Text spans where a form of `forms` occurs: its bytes in order with at most
    /// [`crate::render::MAX_FILLER`] other bytes between each two. One pass over the
    /// projection for all forms: at each byte, only the forms that start with it and
    /// whose second byte follows within reach are followed further.
    pub(super) fn filler(&self, forms: &FillerForms) -> Vec<Range<usize>> {
        const STEP: usize = crate::render::MAX_FILLER + 1;
        let mut out = Vec::new();
        if forms.forms.is_empty() {
            return out;
        }
        for (start, b) in self.bytes.iter().enumerate() {
            let Some(starting) = forms.by_first.get(usize::from(*b)) else {
                continue;
            };
            for &k in starting {
                let Some(form) = forms.forms.get(k) else {
                    continue;
                };
                let reachable = match form.get(1) {
                    Some(second) => self
                        .bytes
                        .get(start + 1..(start + 1 + STEP).min(self.bytes.len()))
                        .is_some_and(|next| next.contains(second)),
                    None => true,
                };
                if reachable {
                    out.extend(self.filler_from(start, form));
                }
            }
        }
        out
    }

    /// The text span of `form` spread with filler from projected byte `start` (which
    /// holds its first byte), if it is there.
    fn filler_from(&self, start: usize, form: &[u8]) -> Option<Range<usize>> {
        const STEP: usize = crate::render::MAX_FILLER + 1;
        let rest = form.get(1..).unwrap_or(&[]);
        // Positions reached after each character, as bits of offsets from the start: a
        // form of n characters ends within `n * STEP` bytes of where it starts.
        if form.len() * STEP > 127 {
            return self.filler_long(start, rest);
        }
        let mut frontier: u128 = 1;
        for &want in rest {
            let mut spread: u128 = 0;
            for gap in 1..=STEP {
                spread |= frontier << gap;
            }
            let mut next: u128 = 0;
            while spread != 0 {
                let q = spread.trailing_zeros() as usize;
                spread &= spread - 1;
                if self.bytes.get(start + q) == Some(&want) {
                    next |= 1 << q;
                }
            }
            frontier = next;
            if frontier == 0 {
                return None;
            }
        }
        let end = start + (127 - frontier.leading_zeros() as usize);
        Some(self.source(start..end + 1))
    }

    /// [`Proj::filler_from`] for a form too long for the bit frontier.
    fn filler_long(&self, start: usize, rest: &[u8]) -> Option<Range<usize>> {
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
                return None;
            }
        }
        let end = frontier.iter().max()?;
        Some(self.source(start..end + 1))
    }
}

/// The forms of values spread with filler, by their first byte.
#[derive(Debug, Clone, Default)]
pub(super) struct FillerForms {
    forms: Vec<Vec<u8>>,
    /// For each byte, the forms that start with it.
    by_first: Vec<Vec<usize>>,
}

impl FillerForms {
    /// `forms` (duplicates dropped), indexed by their first byte.
    pub(super) fn new(mut forms: Vec<Vec<u8>>) -> Self {
        forms.sort_unstable();
        forms.dedup();
        let mut by_first = vec![Vec::new(); 256];
        for (k, form) in forms.iter().enumerate() {
            if let Some(list) = form.first().and_then(|&b| by_first.get_mut(usize::from(b))) {
                list.push(k);
            }
        }
        FillerForms { forms, by_first }
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

/// Whether a character outside ASCII reads as a symbol in every reading, and as which
/// letter in leetspeak (`€` as `e`) if any: preparation keeps it as it is, it is no
/// letter, digit or combining mark of any script, and no view turns it into one
/// (Morse symbols are the triggers' to find, in runs). Anything else is a place that
/// a reading may turn into something else.
fn symbol_of(c: char) -> Option<Option<u8>> {
    use unicode_normalization::char::is_combining_mark;
    let mut buf = [0u8; 4];
    let written = crate::mapped::Mapped::identity(c.encode_utf8(&mut buf));
    let unchanged = crate::canon::prepare(&written)
        .as_str()
        .chars()
        .eq(std::iter::once(c));
    let symbol =
        unchanged && !c.is_alphanumeric() && !is_combining_mark(c) && !crate::views::is_flipped(c);
    symbol.then(|| {
        leet_class(c)
            .and_then(|k| u8::try_from(k).ok())
            .and_then(leet)
    })
}

/// [`symbol_of`], remembered per thread.
fn symbol(c: char) -> Option<Option<u8>> {
    thread_local! {
        static SYMBOLS: std::cell::RefCell<HashMap<char, Option<Option<u8>>>> =
            std::cell::RefCell::new(HashMap::new());
    }
    SYMBOLS.with(|folds| {
        if let Some(f) = folds.borrow().get(&c) {
            return *f;
        }
        let f = symbol_of(c);
        let mut folds = folds.borrow_mut();
        // Texts hold few distinct characters outside ASCII; a text with a whole
        // script's worth starts the memory again.
        if folds.len() >= 4096 {
            folds.clear();
        }
        folds.insert(c, f);
        f
    })
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
        let classes = classes();
        let mut p = Projections {
            text,
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
        let mut word: Option<usize> = None;
        let mut ws_word: Option<usize> = None;
        let bytes = text.as_bytes();
        // Byte by byte: a character outside ASCII is taken at its first byte (its other
        // bytes are skipped), and reads as one byte that is no letter, digit or space,
        // or as its leetspeak class if it is a symbol with one.
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
                if !is_typography(c) {
                    match symbol(c) {
                        Some(leet) => symbol_leet = leet,
                        None => places.push(at..i),
                    }
                }
                0xFF
            };
            let mut class = classes.get(usize::from(b)).copied().unwrap_or_default();
            if let Some(leet) = symbol_leet {
                class.leet = leet;
                class.leet13 = leet;
            }
            if class.lower != 0 {
                p.squeezed.push(class.lower, at);
                p.leet.push(class.leet, at);
                leet13.push(class.leet13);
                p.nospace.push(b, at);
                word.get_or_insert(at);
                ws_word.get_or_insert(at);
                continue;
            }
            if let Some(start) = word.take() {
                p.words.push(start..at);
            }
            if b.is_ascii_whitespace() {
                if let Some(start) = ws_word.take() {
                    p.reverse_word(start..at);
                }
                continue;
            }
            ws_word.get_or_insert(at);
            p.nospace.push(b, at);
            if class.leet != 0 {
                p.leet.push(class.leet, at);
                leet13.push(class.leet);
            }
        }
        if let Some(start) = word {
            p.words.push(start..n);
        }
        if let Some(start) = ws_word {
            p.reverse_word(start..n);
        }
        p.leet13 = Proj {
            bytes: leet13,
            at: p.leet.at.clone(),
        };
        p.deltas = Self::deltas_of(&p.squeezed);
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
    /// `None` when the tables' automaton could not be built.
    pub(super) fn spelled(&self, reach: usize) -> Option<Vec<Proj>> {
        let finder = word_finder();
        let bytes = self.text.as_bytes();
        // (word index, variant, character per table) of every word of a table.
        let mut hits: Vec<(usize, u8, &[Option<u8>])> = Vec::new();
        let automaton = finder.automaton.as_ref()?;
        for (k, w) in self.words.iter().enumerate() {
            // The longest form starting at the word, within it: the word itself or none.
            let input = aho_corasick::Input::new(bytes)
                .range(w.clone())
                .anchored(aho_corasick::Anchored::Yes);
            let Some(m) = automaton.find(input).filter(|m| m.end() == w.end) else {
                continue;
            };
            for (variant, chars) in finder
                .entries
                .get(m.pattern().as_usize())
                .into_iter()
                .flatten()
            {
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
        Some(out)
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
        let bytes = self.text.as_bytes();
        let mut proj = Proj::default();
        let mut table_words = spelled.iter().peekable();
        for stretch in stretches {
            if !proj.bytes.is_empty() {
                let at = self.words.get(stretch.start).map_or(0, |w| w.start);
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
                    proj.push(c, w.start);
                    continue;
                }
                for i in w.clone() {
                    let b = bytes.get(i).copied().unwrap_or(0).to_ascii_lowercase();
                    proj.push(if variant & 1 == 1 { rot13(b) } else { b }, i);
                }
            }
        }
        proj
    }
}

/// An automaton over the ASCII words of the spelling tables as a text shows them in
/// each variant (as written, in ROT13, reversed, both), and for each of its patterns
/// the variants and the character the word spells in each table.
struct WordFinder {
    automaton: Option<aho_corasick::AhoCorasick>,
    entries: Vec<Vec<Spelling>>,
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
                let mut form = key.clone();
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
        let (forms, entries): (Vec<Vec<u8>>, Vec<_>) = by_form.into_iter().unzip();
        let automaton = aho_corasick::AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::DFA))
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .start_kind(aho_corasick::StartKind::Anchored)
            .ascii_case_insensitive(true)
            .build(&forms)
            .ok();
        WordFinder { automaton, entries }
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
