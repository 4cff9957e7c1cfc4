//! Lists of numbers that stand for characters: byte or code-point lists in binary,
//! octal and decimal (`01101100 01100101`, `154 145`, `108 101`), `U+006C` code points,
//! and a continuous run of bits (`0110110001100101`). Hex byte lists are read by the
//! hex view. A list needs [`MIN_ITEMS`] numbers, each followed by one separator, and is
//! kept only when it reads as text.

use super::tokens::{as_text, runs};
use super::View;
use crate::mapped::Mapped;
use std::ops::Range;

/// Fewest numbers in a list (three characters).
const MIN_ITEMS: usize = 3;
/// Fewest bits in a continuous run of bits (three bytes).
pub(crate) const MIN_BITS_RUN: usize = 24;

type Decoded = Vec<(Vec<View>, Mapped)>;

/// How the numbers of a list are written and what they stand for.
#[derive(Debug, Clone, Copy)]
enum Radix {
    /// Seven or eight binary digits a byte.
    Binary,
    /// Three octal digits a byte (`\`-less C octal).
    Octal,
    /// Decimal bytes or code points.
    Decimal,
    /// `U+` and four to six hex digits, a code point each.
    CodePoint,
}

impl Radix {
    fn parse(self, token: &str) -> Option<u32> {
        let all = |f: fn(&u8) -> bool| !token.is_empty() && token.as_bytes().iter().all(f);
        match self {
            Radix::Binary
                if (7..=8).contains(&token.len()) && all(|b| matches!(b, b'0' | b'1')) =>
            {
                u32::from_str_radix(token, 2).ok()
            }
            Radix::Octal if token.len() == 3 && all(|b| (b'0'..=b'7').contains(b)) => {
                u32::from_str_radix(token, 8).ok().filter(|v| *v <= 0xFF)
            }
            // Character codes are not written with leading zeros (`07700` is a phone
            // number's part).
            Radix::Decimal
                if token.len() <= 7
                    && all(u8::is_ascii_digit)
                    && (token == "0" || !token.starts_with('0')) =>
            {
                token.parse().ok().filter(|v| *v <= 0x10_FFFF)
            }
            Radix::CodePoint => {
                let hex = token
                    .strip_prefix("U+")
                    .or_else(|| token.strip_prefix("u+"))?;
                ((4..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then(|| u32::from_str_radix(hex, 16).ok())
                    .flatten()
            }
            _ => None,
        }
    }
}

/// The text a list of numbers stands for: bytes read as UTF-8 when every number is a
/// byte and they are valid UTF-8, else code points.
fn text_of(values: &[u32]) -> Option<String> {
    if values.iter().all(|v| *v <= 0xFF) {
        let bytes: Vec<u8> = values
            .iter()
            .filter_map(|v| u8::try_from(*v).ok())
            .collect();
        if let Some(s) = as_text(bytes) {
            return Some(s);
        }
    }
    let s: Option<String> = values.iter().map(|v| char::from_u32(*v)).collect();
    as_text(s?.into_bytes())
}

fn decoded(text: &Mapped, range: Range<usize>, s: &str) -> Mapped {
    let mut m = Mapped::with_capacity(s.len());
    m.push_str(s, text.source_span(range));
    m
}

/// What may close a sentence right after its last word.
const SENTENCE_END: &[char] = &['.', '!', '?', ')', ']', '"', '\'', ';'];

/// Runs of at least `min_items` numbers that `parse` reads, each token bounded by bytes
/// `separates` accepts, with one separator (and at most `max_gap` bytes, spaces
/// included) between two numbers: each run's byte range and values.
pub(super) fn number_runs(
    s: &str,
    separates: impl Fn(u8) -> bool,
    max_gap: usize,
    min_items: usize,
    parse: impl Fn(&str) -> Option<u32>,
) -> Vec<(Range<usize>, Vec<u32>)> {
    let mut out = Vec::new();
    let mut run: Vec<(Range<usize>, u32)> = Vec::new();
    let flush = |run: &mut Vec<(Range<usize>, u32)>, out: &mut Vec<(Range<usize>, Vec<u32>)>| {
        if run.len() >= min_items {
            if let (Some(a), Some(b)) = (run.first(), run.last()) {
                out.push((a.0.start..b.0.end, run.iter().map(|(_, v)| *v).collect()));
            }
        }
        run.clear();
    };
    for r in runs(s, |b| !(b.is_ascii_whitespace() || separates(b))) {
        let gap_ok = run.last().is_none_or(|(p, _)| {
            s.get(p.end..r.start)
                .is_some_and(|g| g.trim().len() <= 1 && g.len() <= max_gap)
        });
        if !gap_ok {
            flush(&mut run, &mut out);
        }
        let token = s.get(r.clone()).unwrap_or_default();
        if let Some(v) = parse(token) {
            run.push((r, v));
            continue;
        }
        // A sentence may end right after the last number (`... 6d 67.`): the number
        // counts, and the punctuation ends the run.
        let bare = token.trim_end_matches(SENTENCE_END);
        if let Some(v) = (!bare.is_empty() && bare.len() < token.len())
            .then(|| parse(bare))
            .flatten()
        {
            run.push((r.start..r.start + bare.len(), v));
        }
        flush(&mut run, &mut out);
    }
    flush(&mut run, &mut out);
    out
}

/// Lists of one radix in `text`, each decoded.
fn lists(text: &Mapped, radix: Radix) -> Decoded {
    let separates = |b: u8| matches!(b, b',' | b';' | b'.' | b'|' | b'[' | b']' | b'(' | b')');
    // One separator between two numbers, with spaces around it.
    number_runs(text.as_str(), separates, 3, MIN_ITEMS, |t| radix.parse(t))
        .into_iter()
        .filter_map(|(r, values)| Some((Vec::new(), decoded(text, r, &text_of(&values)?))))
        .collect()
}

/// Continuous runs of bits, eight to a byte.
fn bit_runs(text: &Mapped) -> Decoded {
    let s = text.as_str();
    runs(s, |b| matches!(b, b'0' | b'1'))
        .into_iter()
        .filter(|r| r.len() >= MIN_BITS_RUN && r.len() % 8 == 0)
        .filter_map(|r| {
            let bits = s.get(r.clone())?;
            let values: Vec<u32> = bits
                .as_bytes()
                .chunks(8)
                .filter_map(|c| u32::from_str_radix(std::str::from_utf8(c).ok()?, 2).ok())
                .collect();
            let t = text_of(&values)?;
            Some((Vec::new(), decoded(text, r, &t)))
        })
        .collect()
}

/// Binary byte lists and runs of bits.
pub(super) fn binary(text: &Mapped) -> Decoded {
    let mut out = lists(text, Radix::Binary);
    out.extend(bit_runs(text));
    out
}

/// Octal byte lists (three digits a byte).
pub(super) fn octal(text: &Mapped) -> Decoded {
    lists(text, Radix::Octal)
}

/// Decimal byte or code-point lists.
pub(super) fn decimal(text: &Mapped) -> Decoded {
    lists(text, Radix::Decimal)
}

/// `U+` code point lists.
pub(super) fn code_points(text: &Mapped) -> Decoded {
    lists(text, Radix::CodePoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(f: fn(&Mapped) -> Decoded, s: &str) -> Vec<String> {
        f(&Mapped::identity(s))
            .iter()
            .map(|(_, m)| m.as_str().to_owned())
            .collect()
    }

    #[test]
    fn number_lists_read_as_text() {
        let v = "PF-2291";
        let bin: Vec<String> = v.bytes().map(|b| format!("{b:08b}")).collect();
        assert_eq!(read(binary, &format!("bits: {}.", bin.join(" "))), vec![v]);
        assert_eq!(read(binary, &bin.concat()), vec![v]);
        let dec: Vec<String> = v.bytes().map(|b| b.to_string()).collect();
        assert_eq!(read(decimal, &format!("[{}]", dec.join(", "))), vec![v]);
        let oct: Vec<String> = v.bytes().map(|b| format!("{b:03o}")).collect();
        assert_eq!(read(octal, &oct.join(" ")), vec![v]);
        let cp: Vec<String> = "€45"
            .chars()
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert_eq!(read(code_points, &cp.join(" ")), vec!["€45"]);
        assert_eq!(read(decimal, "8364 52 53"), vec!["€45"]);
    }

    #[test]
    fn a_list_that_ends_a_sentence_reads_to_its_last_number() {
        let v = "PF-2291";
        let oct: Vec<String> = v.bytes().map(|b| format!("{b:03o}")).collect();
        let dec: Vec<String> = v.bytes().map(|b| b.to_string()).collect();
        for end in [".", "!", "?", ")", "\".", "';"] {
            assert_eq!(
                read(octal, &format!("it is {}{end}", oct.join(" "))),
                vec![v]
            );
            assert_eq!(
                read(decimal, &format!("(it is {}{end} ok", dec.join(" "))),
                vec![v]
            );
        }
    }

    #[test]
    fn ordinary_numbers_do_not_read_as_text() {
        for prose in [
            "Scores were 12 9 7 and 3 on the day.",
            "Call 07700 900412 or 01632 960001 before 10 30.",
            "10 11 01 were the bits we flipped",
        ] {
            for f in [binary, octal, decimal, code_points] {
                assert!(read(f, prose).is_empty(), "{prose}");
            }
        }
    }
}
