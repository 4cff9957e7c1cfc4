//! Projections of a reading that rendering families are searched in. Each is a
//! [`Mapped`] whose spans are byte ranges of the reading (not of the original text).

use crate::canon::prepare;
use crate::mapped::Mapped;
use std::ops::Range;
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

/// `c` lowercased, without diacritics, letters and digits only.
///
/// An ASCII character, what most text is made of, takes a shortcut with the same
/// result: it lowercases to one ASCII character, which has no decomposition.
pub(crate) fn norm(c: char) -> impl Iterator<Item = char> {
    let ascii = c.is_ascii();
    let quick = Some(c.to_ascii_lowercase()).filter(|l| ascii && l.is_ascii_alphanumeric());
    let full = (!ascii).then(|| norm_decomposed(c));
    quick.into_iter().chain(full.into_iter().flatten())
}

/// [`norm`] through lowercasing and canonical decomposition, for any character.
pub(super) fn norm_decomposed(c: char) -> impl Iterator<Item = char> {
    c.to_lowercase()
        .flat_map(|l| l.nfd())
        .filter(|&d| canonical_combining_class(d) == 0 && d.is_alphanumeric())
}

/// A word of a spelling table or of a text, normalised like a projection reads it.
pub(crate) fn word_key(w: &str) -> String {
    prepare(&Mapped::identity(w))
        .as_str()
        .chars()
        .flat_map(norm)
        .collect()
}

/// The letters and digits of the reading, lowercased, without diacritics: what is left
/// of a value written one character a line, dotted, spaced or with emoji between.
pub(crate) fn squeezed(reading: &str) -> Mapped {
    let mut out = Mapped::with_capacity(reading.len());
    for (i, c) in reading.char_indices() {
        for n in norm(c) {
            out.push(n, i..i + c.len_utf8());
        }
    }
    out
}

/// The look-alike class of a lowercased character in leetspeak.
pub(crate) fn leet_class(c: char) -> Option<char> {
    Some(match c {
        'a' | '4' | '@' | '^' => 'a',
        'b' | '8' => 'b',
        'e' | '3' | '€' => 'e',
        'g' | '9' | '6' => 'g',
        'i' | 'l' | '1' | '!' | '|' => 'i',
        'o' | '0' => 'o',
        's' | '5' | '$' => 's',
        't' | '7' | '+' => 't',
        'z' | '2' => 'z',
        c if c.is_alphanumeric() => c,
        _ => return None,
    })
}

/// The squeezed reading with every character replaced by its leetspeak class.
pub(crate) fn leet(reading: &str) -> Mapped {
    let mut out = Mapped::with_capacity(reading.len());
    for (i, c) in reading.char_indices() {
        let span = i..i + c.len_utf8();
        if let Some(k) = leet_class(c.to_ascii_lowercase()).filter(|_| !c.is_alphanumeric()) {
            out.push(k, span);
            continue;
        }
        for n in norm(c) {
            if let Some(k) = leet_class(n) {
                out.push(k, span.clone());
            }
        }
    }
    out
}

/// The reading without whitespace, case kept: where block encodings and ROT47 are
/// searched (a payload wrapped over lines reads as one).
pub(crate) fn nospace(reading: &str) -> Mapped {
    let mut out = Mapped::with_capacity(reading.len());
    for (i, c) in reading.char_indices() {
        if !c.is_whitespace() {
            out.push(c, i..i + c.len_utf8());
        }
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c), 0x3007 | 0x4E00..=0x9FFF | 0x3400..=0x4DBF)
}

/// The words of the reading (letter and digit runs; each CJK ideograph a word), with
/// their byte ranges and normalised forms.
pub(crate) fn words(reading: &str) -> Vec<(Range<usize>, String)> {
    let mut out: Vec<(Range<usize>, String)> = Vec::new();
    let mut cur: Option<(Range<usize>, String)> = None;
    for (i, c) in reading.char_indices() {
        let end = i + c.len_utf8();
        let keep = c.is_alphanumeric() || canonical_combining_class(c) != 0;
        if !keep || is_cjk(c) {
            out.extend(cur.take());
            if keep {
                out.push((i..end, norm(c).collect()));
            }
            continue;
        }
        match &mut cur {
            Some((r, w)) => {
                r.end = end;
                w.extend(norm(c));
            }
            None => cur = Some((i..end, norm(c).collect())),
        }
    }
    out.extend(cur);
    out.retain(|(_, w)| !w.is_empty());
    out
}

/// The letters and digits Morse code in the reading spells, lowercased; `None` when it
/// holds no Morse.
pub(crate) fn morse(reading: &str) -> Option<Mapped> {
    let read = crate::views::morse::morse(&Mapped::identity(reading))?;
    let mut out = Mapped::with_capacity(read.as_str().len());
    for (i, c) in read.as_str().char_indices() {
        for n in norm(c) {
            out.push(n, read.span_of(i));
        }
    }
    Some(out)
}

/// A projection of reordered words, and where its words start and end (by byte of the
/// projection): a match in it must start and end there, since its spans run backwards
/// and a boundary of the reading says nothing about one of the projection.
pub(crate) type Reordered = (Mapped, Vec<bool>);

/// Every whitespace-separated word spelled backwards, the words in reading order
/// (`matecaritevel 005 gm` reads `levetiracetam500mg`), letters and digits only.
pub(crate) fn words_reversed(reading: &str) -> Reordered {
    reordered(whitespace_words(reading), true)
}

/// The whitespace-separated words in reverse order, each as written, letters and digits
/// only (`March 10-12` reads `1012march`).
pub(crate) fn word_order_reversed(reading: &str) -> Reordered {
    let mut words = whitespace_words(reading);
    words.reverse();
    reordered(words, false)
}

fn reordered(words: Vec<(usize, &str)>, backwards: bool) -> Reordered {
    let size = words.iter().map(|(_, w)| w.len()).sum();
    let mut out = Mapped::with_capacity(size);
    let mut bounds = Vec::with_capacity(size + 1);
    bounds.push(true);
    for (start, word) in words {
        let before = out.as_str().len();
        let mut add = |(i, c): (usize, char)| {
            for n in norm(c) {
                out.push(n, start + i..start + i + c.len_utf8());
            }
        };
        if backwards {
            word.char_indices().rev().for_each(&mut add);
        } else {
            word.char_indices().for_each(&mut add);
        }
        let added = out.as_str().len() - before;
        if added > 0 {
            bounds.truncate(before);
            bounds.resize(before + added, false);
            if let Some(first) = bounds.get_mut(before) {
                *first = true;
            }
            bounds.push(true);
        }
    }
    (out, bounds)
}

fn whitespace_words(reading: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in reading.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.extend(reading.get(s..i).map(|w| (s, w)));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.extend(reading.get(s..).map(|w| (s, w)));
    }
    out
}

/// The first letter of every word that starts with one.
pub(crate) fn initials(words: &[(Range<usize>, String)]) -> Mapped {
    let mut out = Mapped::with_capacity(words.len());
    for (r, w) in words {
        // An acrostic is spelled with words' first letters: the first digits of a list
        // of numbers (a hex dump, character codes) are any digits.
        if let Some(c) = w.chars().next().filter(|c| c.is_alphabetic()) {
            out.push(c, r.clone());
        }
    }
    out
}

/// The words with those of table `t` replaced by the character they spell; `None` when
/// no word is in the table. `spells` is [`spelling`] of `words`.
pub(crate) fn spelled(
    words: &[(Range<usize>, String)],
    spells: &[Option<&[Option<char>]>],
    t: usize,
) -> Option<Mapped> {
    let in_table = |k: usize| spells.get(k).copied().flatten().and_then(|s| *s.get(t)?);
    if !(0..words.len()).any(|k| in_table(k).is_some()) {
        return None;
    }
    let mut out = Mapped::with_capacity(words.iter().map(|(_, w)| w.len()).sum());
    for (k, (r, w)) in words.iter().enumerate() {
        match in_table(k) {
            Some(c) => out.push(c, r.clone()),
            None => out.push_str(w, r.clone()),
        }
    }
    Some(out)
}

/// For each word, what it spells in each table (`None` for a word of no table): one
/// lookup per word for all the tables.
pub(crate) fn spelling(words: &[(Range<usize>, String)]) -> Vec<Option<&'static [Option<char>]>> {
    let index = super::words::index();
    words
        .iter()
        .map(|(_, w)| index.get(w).map(Vec::as_slice))
        .collect()
}

/// Shift-invariant form of a squeezed text: for each character after the first, the
/// difference to the one before (mod 26 between ASCII letters, mod 10 between digits),
/// so every Caesar shift of a value has the same form. Byte `i` stands for characters
/// `i` and `i + 1` of the squeezed text.
pub(crate) fn deltas(chars: &[char]) -> String {
    chars
        .windows(2)
        .map(|w| {
            match (
                w.first().copied().unwrap_or(' '),
                w.get(1).copied().unwrap_or(' '),
            ) {
                (a, b) if a.is_ascii_lowercase() && b.is_ascii_lowercase() => {
                    char::from(b'a' + ((b as u8 + 26 - a as u8) % 26))
                }
                (a, b) if a.is_ascii_digit() && b.is_ascii_digit() => {
                    char::from(b'0' + ((b as u8 + 10 - a as u8) % 10))
                }
                (a, b) if a.is_ascii_lowercase() && b.is_ascii_digit() => '#',
                (a, b) if a.is_ascii_digit() && b.is_ascii_lowercase() => '%',
                _ => '?',
            }
        })
        .collect()
}
