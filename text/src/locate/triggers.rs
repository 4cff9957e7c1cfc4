//! Places of a text that a decoding view may read as something else, whatever the
//! values: tokens that decode to text, escapes, number lists, runs of bits, uuencoded
//! lines, Ascii85 blocks, Morse code, number words.

use super::rot13;
use crate::mapped::Mapped;
use crate::views::{apply, runs, View, MIN_BITS_RUN};
use std::collections::HashMap;
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

fn is_morse(c: char) -> bool {
    matches!(
        c,
        '.' | '·' | '•' | '∙' | '-' | '_' | '–' | '−' | '—' | '/' | '|'
    )
}

/// Whether a token decoder reads `token` (whitespace-free) as text: as written, reversed
/// or in ROT13. Readings go two views deep, so a decoder reads a token so turned, but
/// not turned both ways.
fn decoded(token: &str) -> bool {
    [
        token.to_owned(),
        rot13(token),
        token.chars().rev().collect(),
    ]
    .iter()
    .any(|variant| {
        let m = Mapped::identity(variant);
        TOKEN_VIEWS.iter().any(|&v| !apply(v, &m).is_empty())
    })
}

/// Longest token whose decoding is remembered across texts.
const MAX_REMEMBERED_TOKEN: usize = 48;
/// Most tokens remembered per thread (the memory is cleared when full).
const MAX_REMEMBERED: usize = 1 << 14;

thread_local! {
    /// Whether a short token decodes to text: ordinary words recur across the texts a
    /// thread reads, and most of a locating pass over fresh prose would otherwise go to
    /// decoding them again.
    static DECODES: std::cell::RefCell<HashMap<String, bool>> =
        std::cell::RefCell::new(HashMap::new());
}

/// [`decoded`], remembered per thread for short tokens.
fn decodes(token: &str) -> bool {
    if token.len() > MAX_REMEMBERED_TOKEN {
        return decoded(token);
    }
    DECODES.with(|memory| {
        if let Some(&known) = memory.borrow().get(token) {
            return known;
        }
        let known = decoded(token);
        let mut memory = memory.borrow_mut();
        if memory.len() >= MAX_REMEMBERED {
            memory.clear();
        }
        memory.insert(token.to_owned(), known);
        known
    })
}

/// Whether `token` holds a run of `0` and `1` as long as the binary view decodes.
fn has_bit_run(token: &str) -> bool {
    let mut run = 0;
    for b in token.bytes() {
        run = if matches!(b, b'0' | b'1') { run + 1 } else { 0 };
        if run >= MIN_BITS_RUN {
            return true;
        }
    }
    false
}

/// Whether `line` (without its line break) reads as a uuencoded line: a length
/// character and characters from space to backtick in the number that length takes.
fn uu_line(line: &[u8]) -> bool {
    let Some((&first, body)) = line.split_first() else {
        return false;
    };
    let n = usize::from(first.wrapping_sub(b' ') & 63);
    n > 0
        && (body.len() == n.div_ceil(3) * 4 || body.len() == (n * 4).div_ceil(3))
        && line.iter().all(|b| (b' '..=b'`').contains(b))
}

/// Adds the uuencoded lines of `text`, as written or reversed.
fn uuencoded(text: &str, places: &mut Vec<Range<usize>>) {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\r', '\n']).as_bytes();
        let reversed: Vec<u8> = body.iter().rev().copied().collect();
        if body.len() >= 5 && (uu_line(body) || uu_line(&reversed)) {
            places.push(offset..offset + body.len());
        }
        offset += line.len();
    }
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
        b.get(i).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
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
        && t.bytes()
            .all(|b| b.is_ascii_hexdigit() || matches!(b, b',' | b';' | b'x' | b'X'))
        && t.split([',', ';']).all(|n| n.len() <= 10)
}

/// Whether `w` (ASCII letters and digits) is a number word as written, reversed or in
/// ROT13: the readings that reverse or rotate the text before the number-words view
/// read it so.
fn is_turned_number_word(w: &str) -> bool {
    let b = w.as_bytes();
    if !(2..=9).contains(&b.len()) {
        return false;
    }
    // The turned word is written into a buffer on the stack: this runs for every word.
    let mut buf = [0u8; 9];
    let mut reads = |bytes: &mut dyn Iterator<Item = u8>| {
        let n = buf.iter_mut().zip(bytes).map(|(slot, x)| *slot = x).count();
        buf.get(..n)
            .and_then(|t| std::str::from_utf8(t).ok())
            .is_some_and(is_number_word)
    };
    is_number_word(w)
        || reads(&mut b.iter().rev().copied())
        || reads(&mut b.iter().map(|&x| super::project::rot13(x)))
}

fn is_number_word(w: &str) -> bool {
    // Number words are two to nine letters and start with one of a few letters; most
    // words of a text fail here, before the view's own lookup.
    let starts = |b: &u8| {
        matches!(
            b.to_ascii_lowercase(),
            b'e'..=b'h' | b'n' | b'o' | b'p' | b's' | b't' | b'z'
        )
    };
    (2..=9).contains(&w.len())
        && w.as_bytes().first().is_some_and(starts)
        && crate::views::is_number_word(w)
}

/// What one pass over a token's bytes tells about it, so that most tokens skip most
/// checks.
#[derive(Debug, Default)]
struct Shape {
    digit: bool,
    letter: bool,
    /// An uppercase letter after the first byte.
    inner_upper: bool,
    /// A byte that starts an escape, a reference or quoted-printable (`\ % & + =`).
    special: bool,
    /// Only Morse symbols as far as ASCII goes (characters outside ASCII checked later).
    maybe_morse: bool,
}

impl Shape {
    fn of(token: &str) -> Self {
        let mut shape = Shape {
            maybe_morse: true,
            ..Shape::default()
        };
        for (i, &b) in token.as_bytes().iter().enumerate() {
            shape.digit |= b.is_ascii_digit();
            shape.letter |= b.is_ascii_alphabetic();
            shape.inner_upper |= i > 0 && b.is_ascii_uppercase();
            shape.special |= matches!(b, b'\\' | b'%' | b'&' | b'+' | b'=');
            shape.maybe_morse &= !b.is_ascii() || matches!(b, b'.' | b'-' | b'_' | b'/' | b'|');
        }
        shape
    }
}

/// The spans of a stretch of text that the places of what a view decoded from it
/// cover; `None` when anything may hold a value.
pub(super) type Reaches<'a> = &'a dyn Fn(&Mapped) -> Option<Vec<Range<usize>>>;

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// The views that read lists of numbers (the hex view reads hex byte lists).
const LIST_VIEWS: &[View] = &[
    View::Decimal,
    View::Octal,
    View::Binary,
    View::CodePoints,
    View::Hex,
];

/// Whether one of `views` reads anything in `run`, as written or reversed. These views
/// read each run alone and join what they read, so a run they read nothing in adds
/// nothing to any of their readings (a date or a percentage read as control
/// characters).
fn decodes_in(views: &[View], run: &str) -> bool {
    let reversed: String = run.chars().rev().collect();
    [run, reversed.as_str()].iter().any(|variant| {
        let m = Mapped::identity(variant);
        views.iter().any(|&v| !apply(v, &m).is_empty())
    })
}

/// Whether `read`, a view that rewrites runs where they stand (Morse code, number
/// words), reads something in the text around the run at `r` (the window the run would
/// get), as written, reversed or (with `in_rot13`) in ROT13, that has a place reaching
/// into the run.
fn rewritten_holds(
    read: impl Fn(&Mapped) -> Option<Mapped>,
    text: &str,
    r: &Range<usize>,
    reaches: Reaches,
    in_rot13: bool,
) -> bool {
    let around = super::around(text, std::iter::once(r.clone()));
    let Some((near, at)) = around
        .first()
        .and_then(|w| Some((text.get(w.clone())?, w.start)))
    else {
        return true;
    };
    let run = r.start.saturating_sub(at)..r.end.saturating_sub(at);
    let reversed: String = near.chars().rev().collect();
    let run_reversed = near.len().saturating_sub(run.end)..near.len().saturating_sub(run.start);
    // ROT13 keeps every byte where it is.
    let rotated = if in_rot13 { rot13(near) } else { String::new() };
    let mut variants = vec![(near, run.clone()), (reversed.as_str(), run_reversed)];
    if in_rot13 {
        variants.push((rotated.as_str(), run));
    }
    variants.iter().any(|(variant, run)| {
        read(&Mapped::identity(variant))
            .is_some_and(|d| reaches(&d).is_none_or(|spans| spans.iter().any(|s| overlaps(s, run))))
    })
}

/// The number-words view's reading of `text`, if it reads any.
fn number_words_read(text: &Mapped) -> Option<Mapped> {
    apply(View::SpelledNumbers, text)
        .into_iter()
        .next()
        .map(|(_, d)| d)
}

/// Whether the only escapes `token` may hold are percent escapes (`%41`), which the
/// percent view reads within the token alone.
fn percent_only(token: &str) -> bool {
    !token.contains(['\\', '&', '+', '='])
}

/// What the percent view reads in `text`, as written and reversed, with spans of
/// `text`, taken from the tokens holding `%` (`escapable`) alone: the view reads every
/// token alone and joins what it reads, so no other token adds to its reading.
pub(super) fn percent_readings(text: &str, escapable: &[Range<usize>]) -> Vec<Mapped> {
    let pieces: Vec<(usize, &str)> = escapable
        .iter()
        .filter_map(|r| Some((r.start, text.get(r.clone())?)))
        .collect();
    let mut as_written = Mapped::default();
    for &(at, token) in &pieces {
        for (i, c) in token.char_indices() {
            as_written.push(c, at + i..at + i + c.len_utf8());
        }
        as_written.push(' ', at + token.len()..at + token.len());
    }
    // The text reversed: its tokens in reverse order, each reversed.
    let mut reversed = Mapped::default();
    for &(at, token) in pieces.iter().rev() {
        for (i, c) in token.char_indices().rev() {
            reversed.push(c, at + i..at + i + c.len_utf8());
        }
        reversed.push(' ', at..at);
    }
    [as_written, reversed]
        .iter()
        .flat_map(|variant| apply(View::Percent, variant))
        .map(|(_, decoded)| decoded)
        .collect()
}

/// The tokens of `tokens` (of `text`) where the percent view's reading of the whole
/// text, as written or reversed ([`percent_readings`]), has a place. A token the view
/// turns into one letter (`15%` read backwards is `%51`, `Q`) holds a value only with
/// others that the reading joins to it.
fn percent_places(
    text: &str,
    escapable: &[Range<usize>],
    tokens: Vec<Range<usize>>,
    reaches: Reaches,
) -> Vec<Range<usize>> {
    if tokens.is_empty() {
        return tokens;
    }
    // Spans of the text that a place of a percent reading covers.
    let mut covered: Vec<Range<usize>> = Vec::new();
    for decoded in percent_readings(text, escapable) {
        let Some(spans) = reaches(&decoded) else {
            return tokens;
        };
        covered.extend(spans);
    }
    tokens
        .into_iter()
        .filter(|t| covered.iter().any(|c| overlaps(c, t)))
        .collect()
}

/// Adds the places of `text` a decoding view may read, whatever the values: to
/// `tight` the tokens a token decoder reads as text, to `places` the rest. A list of
/// numbers is a place only where its view reads anything in it; Morse code and runs of
/// number words only where what their view reads around them `reaches` into them; a
/// token of percent escapes only where the percent view's reading of the whole text
/// does.
pub(super) fn find(
    text: &str,
    places: &mut Vec<Range<usize>>,
    tight: &mut Vec<Range<usize>>,
    reaches: Reaches,
) {
    let tokens = runs(text, |b| !b.is_ascii_whitespace());
    uuencoded(text, places);
    // (start of a run, tokens in it) for number lists, Morse and number words.
    let mut numbers: Option<(usize, usize)> = None;
    let mut morse: Option<(usize, usize)> = None;
    let mut spelled: Option<(usize, usize, bool)> = None;
    // Runs of number words and codes, kept where the number-words view reads something
    // in them that, with the text around them, may hold a value.
    let mut numbered: Vec<Range<usize>> = Vec::new();
    let mut prev_end = 0;
    // Runs of Morse symbols, kept where the Morse view reads letters in them that,
    // with the text around them, may hold a value.
    let mut dotted: Vec<Range<usize>> = Vec::new();
    // Runs of numbers, kept where a list view reads anything in them.
    let mut listed: Vec<Range<usize>> = Vec::new();
    // Tokens whose only escapes are percent escapes, and every token holding `%`.
    let mut percented: Vec<Range<usize>> = Vec::new();
    let mut escapable: Vec<Range<usize>> = Vec::new();
    for r in &tokens {
        let token = text.get(r.clone()).unwrap_or_default();
        let shape = Shape::of(token);
        if shape.special && token.contains('%') {
            escapable.push(r.clone());
        }
        if shape.special && (escaped(token) || escaped(&token.chars().rev().collect::<String>())) {
            if percent_only(token) {
                percented.push(r.clone());
            } else {
                places.push(r.clone());
            }
        } else if may_decode(token) && decodes(token) {
            tight.push(r.clone());
        }
        if token.starts_with("<~") {
            let end = text
                .get(r.start..)
                .and_then(|t| t.find("~>"))
                .map_or(text.len(), |e| r.start + e + 2);
            places.push(r.start..end);
        }
        if shape.digit && has_bit_run(token) {
            tight.push(r.clone());
        }
        let list = |run: &mut Option<(usize, usize)>,
                    member: bool,
                    min: usize,
                    places: &mut Vec<_>| {
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
        let number_list = shape.digit && numeric(token);
        list(&mut numbers, number_list, 3, &mut listed);
        if number_list && token.split([',', ';']).filter(|n| !n.is_empty()).count() >= 3 {
            listed.push(r.clone());
        }
        let dots = shape.maybe_morse
            && token.chars().all(is_morse)
            && token.chars().any(|c| !matches!(c, '/' | '|'));
        // A word separator alone (`/`, `|`) continues a run: the words of a value
        // spelled in Morse read as the value only together.
        let separator =
            morse.is_some() && !token.is_empty() && token.chars().all(|c| matches!(c, '/' | '|'));
        list(&mut morse, dots || separator, 2, &mut dotted);
        if dots && token.chars().count() >= 5 {
            dotted.push(r.clone());
        }
        // Number words, and what they may be joined with (`PF two`, `2 hundred`).
        let number_words = if shape.letter {
            token
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| is_turned_number_word(w))
                .count()
        } else {
            0
        };
        let number = number_words > 0;
        let code = shape.digit || shape.inner_upper;
        match (&mut spelled, number || code) {
            (Some((start, n, any)), true) => {
                *n += 1;
                *any |= number;
                if *n >= 2 && *any {
                    match numbered.last_mut() {
                        Some(last) if last.start == *start => last.end = r.end,
                        _ => numbered.push(*start..r.end),
                    }
                }
            }
            (slot, true) => *slot = Some((r.start, 1, number)),
            (slot, false) => *slot = None,
        }
        if number_words >= 2 {
            numbered.push(r.clone());
        }
        prev_end = r.end;
    }
    if let Some((start, _)) = numbers.filter(|(_, n)| *n >= 3) {
        listed.push(start..prev_end);
    }
    places.extend(listed.into_iter().filter(|r| {
        text.get(r.clone())
            .is_some_and(|run| decodes_in(LIST_VIEWS, run))
    }));
    if let Some((start, _)) = morse.filter(|(_, n)| *n >= 2) {
        dotted.push(start..prev_end);
    }
    places.extend(dotted.into_iter().filter(|r| {
        text.get(r.clone())
            .is_some_and(|run| crate::views::morse::morse(&Mapped::identity(run)).is_some())
            && rewritten_holds(crate::views::morse::morse, text, r, reaches, false)
    }));
    places.extend(
        numbered
            .into_iter()
            .filter(|r| rewritten_holds(number_words_read, text, r, reaches, true)),
    );
    places.extend(percent_places(text, &escapable, percented, reaches));
}
