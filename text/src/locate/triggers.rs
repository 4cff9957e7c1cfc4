//! Places of a text that a decoding view may read as something else, whatever the
//! values: tokens that decode to text, escapes, number lists, Morse code, number words.

use crate::mapped::Mapped;
use crate::views::{apply, View};
use std::ops::Range;

/// The token decoders: each reads whitespace-free tokens on their own.
const TOKEN_VIEWS: &[View] = &[
    View::Base64,
    View::Base32,
    View::Base58,
    View::Ascii85,
    View::Hex,
    View::Percent,
];

/// Shortest token a token decoder reads (a base64 group).
const MIN_TOKEN: usize = 4;
/// Shortest token of letters only that may be base32, base58 or base64 of text
/// (shorter ones are words).
const MIN_LETTER_TOKEN: usize = 8;

/// English number words the spelled-numbers view reads (and `oh`, `point`).
const NUMBER_WORDS: &[&str] = &[
    "zero", "oh", "nought", "one", "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
    "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty",
    "seventy", "eighty", "ninety", "hundred", "thousand", "point",
];

fn is_morse(c: char) -> bool {
    matches!(
        c,
        '.' | '·' | '•' | '∙' | '-' | '_' | '–' | '−' | '—' | '/' | '|'
    )
}

/// Where a token decoder reads `token` (whitespace-free, at `at` in the text) as text.
fn decoded(token: &str, at: usize, places: &mut Vec<Range<usize>>) {
    let m = Mapped::identity(token);
    for &v in TOKEN_VIEWS {
        for (_, d) in apply(v, &m) {
            let span = d.source_span(0..d.as_str().len());
            places.push(at + span.start..at + span.end);
        }
    }
}

/// Maximal runs of non-whitespace bytes.
fn tokens_of(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in text.bytes().enumerate() {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// Whether `token` could be an encoder's output worth decoding: a token of letters
/// only is a word unless it is long.
fn may_decode(token: &str) -> bool {
    let b = token.as_bytes();
    if b.len() < MIN_TOKEN {
        return false;
    }
    let letters_only = b.iter().all(u8::is_ascii_alphabetic);
    let inner_capital = b.iter().skip(1).any(u8::is_ascii_uppercase);
    !letters_only || inner_capital || b.len() >= MIN_LETTER_TOKEN
}

/// Whether `token` holds an escape, a character reference or a code point.
fn escaped(token: &str) -> bool {
    let b = token.as_bytes();
    let hex2 = |i: usize| {
        b.get(i).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
    };
    let mut qp = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\\' => return true,
            b'%' if hex2(i + 1) => return true,
            b'&' => {
                let tail = b.get(i + 1..(i + 12).min(b.len())).unwrap_or(&[]);
                if tail.contains(&b';') {
                    return true;
                }
            }
            b'+' if i > 0 && matches!(b.get(i - 1), Some(b'U' | b'u')) && hex2(i + 1) => {
                return true
            }
            b'=' if hex2(i + 1) => qp += 1,
            b'=' if i + 1 == b.len() => qp += 1,
            _ => {}
        }
    }
    qp >= 2 || (qp == 1 && b.len() <= 3)
}

/// Whether `token` is a number of a list (decimal, octal, binary, hex byte), possibly
/// several separated by commas or semicolons.
fn numeric(token: &str) -> bool {
    let t = token.trim_end_matches(['.', ',', ';', ')', ']']);
    let t = t.trim_start_matches(['(', '[']);
    !t.is_empty()
        && t.bytes().any(|b| b.is_ascii_digit())
        && t
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || matches!(b, b',' | b';' | b'x' | b'X'))
        && t.split([',', ';']).all(|n| n.len() <= 10)
}

fn is_number_word(w: &str) -> bool {
    NUMBER_WORDS.iter().any(|n| w.eq_ignore_ascii_case(n))
}

/// Adds the places of `text` a decoding view may read, whatever the values.
pub(super) fn find(text: &str, places: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    let tokens = tokens_of(text);
    // (start of a run, tokens in it) for number lists, Morse and number words.
    let mut numbers: Option<(usize, usize)> = None;
    let mut morse: Option<(usize, usize)> = None;
    let mut spelled: Option<(usize, usize, bool)> = None;
    let mut prev_end = 0;
    for r in &tokens {
        let token = text.get(r.clone()).unwrap_or_default();
        if escaped(token) {
            places.push(r.clone());
        } else if may_decode(token) {
            decoded(token, r.start, places);
        }
        if token.starts_with("<~") {
            let end = text
                .get(r.start..)
                .and_then(|t| t.find("~>"))
                .map_or(text.len(), |e| r.start + e + 2);
            places.push(r.start..end);
        }
        if token == "begin"
            && (r.start == 0 || bytes.get(r.start - 1) == Some(&b'\n'))
        {
            let end = text
                .get(r.start..)
                .and_then(|t| t.find("\nend"))
                .map_or(text.len(), |e| r.start + e + 4);
            places.push(r.start..end);
        }
        let list = |run: &mut Option<(usize, usize)>, member: bool, min: usize, places: &mut Vec<_>| {
            match (member, run.as_mut()) {
                (true, Some((_, n))) => *n += 1,
                (true, None) => *run = Some((r.start, 1)),
                (false, Some(&mut (start, n))) => {
                    if n >= min {
                        places.push(start..prev_end);
                    }
                    *run = None;
                }
                (false, None) => {}
            }
        };
        list(&mut numbers, numeric(token), 3, places);
        if token.split([',', ';']).filter(|n| !n.is_empty()).count() >= 3 && numeric(token) {
            places.push(r.clone());
        }
        let dots = token.chars().all(is_morse) && token.chars().any(|c| !matches!(c, '/' | '|'));
        list(&mut morse, dots, 2, places);
        if dots && token.chars().count() >= 5 {
            places.push(r.clone());
        }
        // Number words, and what they may be joined with (`PF two`, `2 hundred`).
        let words: Vec<&str> = token
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let number = words.iter().any(|w| is_number_word(w));
        let code = token.bytes().any(|b| b.is_ascii_digit())
            || token.bytes().skip(1).any(|b| b.is_ascii_uppercase());
        match (&mut spelled, number || code) {
            (Some((start, n, any)), true) => {
                *n += 1;
                *any |= number;
                if *n >= 2 && *any {
                    places.push(*start..r.end);
                }
            }
            (slot, true) => *slot = Some((r.start, 1, number)),
            (slot, false) => *slot = None,
        }
        if words.iter().filter(|w| is_number_word(w)).count() >= 2 {
            places.push(r.clone());
        }
        prev_end = r.end;
    }
    for (run, min) in [(numbers, 3), (morse, 2)] {
        if let Some((start, n)) = run.filter(|(_, n)| *n >= min) {
            let _ = n;
            places.push(start..prev_end);
        }
    }
}
