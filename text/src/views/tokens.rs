//! Views that decode individual tokens: base64, hex and percent-encoding.
//!
//! Only plausible tokens are decoded (a minimum length, the encoding's alphabet) and a
//! decoding is kept only when it is mostly printable text, so ordinary words, which are
//! also valid base64 or hex, decode into nothing.

use super::container;
use super::View;
use crate::mapped::Mapped;
use base64::engine::general_purpose::{STANDARD_PAD_INDIFFERENT, URL_SAFE_PAD_INDIFFERENT};
use base64::Engine;
use std::ops::Range;

/// Shortest base64 token decoded: one full group of four characters (three bytes).
const MIN_BASE64_LEN: usize = 4;
/// Shortest hex token decoded: three bytes.
const MIN_HEX_LEN: usize = 6;

/// Maximal runs of bytes satisfying `member`, as byte ranges.
pub(crate) fn runs(s: &str, member: impl Fn(u8) -> bool) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in s.bytes().enumerate() {
        match (member(b), start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push(st..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push(st..s.len());
    }
    out
}

/// Decoded bytes that read as text: valid UTF-8, no control characters besides line
/// breaks and tabs, and at least one letter or digit, or a glyph that shows one (a text
/// of regional-indicator letters has no alphanumeric character but reads as words), or
/// else only printable ASCII (Morse code is dots, dashes and spaces).
pub(super) fn as_text(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    let printable = s
        .chars()
        .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'));
    let shows_letter =
        |c: char| c.is_alphanumeric() || crate::glyphs::fold(c).is_some_and(|g| !g.is_empty());
    let ascii = s.len() >= 3 && s.bytes().all(|b| b == b' ' || b.is_ascii_graphic());
    (printable && (ascii || s.chars().any(shows_letter))).then_some(s)
}

fn decoded(text: &Mapped, range: Range<usize>, s: String) -> Mapped {
    let mut m = Mapped::with_capacity(s.len());
    m.push_str(&s, text.source_span(range));
    m
}

/// Decoded bytes of the token at `range`, read as text directly or after opening the
/// containers they hold.
pub(super) fn payload(
    text: &Mapped,
    range: Range<usize>,
    bytes: Vec<u8>,
) -> Option<(Vec<View>, Mapped)> {
    let (steps, s) = container::open(bytes)?;
    Some((steps, decoded(text, range, s)))
}

fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_')
}

/// Base64 runs with up to two `=` of padding each, so padded halves written back to
/// back are two tokens.
fn base64_runs(s: &str) -> Vec<Range<usize>> {
    runs(s, is_base64_byte)
        .into_iter()
        .map(|r| {
            let pad = s.get(r.end..).map_or(0, |rest| {
                rest.bytes().take(2).take_while(|&b| b == b'=').count()
            });
            r.start..r.end + pad
        })
        .collect()
}

/// Base64 tokens (standard or URL-safe alphabet, with or without padding).
pub(super) fn base64(text: &Mapped) -> Vec<(Vec<View>, Mapped)> {
    let s = text.as_str();
    let mut out = Vec::new();
    for range in base64_runs(s) {
        let token = &s[range.clone()];
        let body = token.trim_end_matches('=');
        if body.len() < MIN_BASE64_LEN || body.len() % 4 == 1 {
            continue;
        }
        let url = body.contains(['-', '_']);
        let std = body.contains(['+', '/']);
        let attempt = match (std, url) {
            (true, true) => None,
            (false, true) => URL_SAFE_PAD_INDIFFERENT.decode(token).ok(),
            _ => STANDARD_PAD_INDIFFERENT.decode(token).ok(),
        };
        out.extend(attempt.and_then(|b| payload(text, range, b)));
    }
    out
}

/// Hex tokens (an optional `0x` prefix), of an even length.
pub(super) fn hex(text: &Mapped) -> Vec<(Vec<View>, Mapped)> {
    let s = text.as_str();
    let mut out = Vec::new();
    for range in runs(s, |b| b.is_ascii_alphanumeric()) {
        let token = &s[range.clone()];
        let digits = token
            .strip_prefix("0x")
            .or_else(|| token.strip_prefix("0X"))
            .unwrap_or(token);
        if digits.len() < MIN_HEX_LEN
            || !digits.len().is_multiple_of(2)
            || !digits.bytes().all(|b| b.is_ascii_hexdigit())
        {
            continue;
        }
        out.extend(
            ::hex::decode(digits)
                .ok()
                .and_then(|b| payload(text, range, b)),
        );
    }
    out.extend(super::radix::hex_bytes(text));
    out
}

/// Whitespace-free tokens that hold at least one `%XX` escape (`+` read as a space).
pub(super) fn percent(text: &Mapped) -> Vec<(Vec<View>, Mapped)> {
    let s = text.as_str();
    if !s.contains('%') {
        return Vec::new();
    }
    let mut out = Vec::new();
    for range in runs(s, |b| !b.is_ascii_whitespace()) {
        let Some(token) = s.get(range.clone()) else {
            continue;
        };
        let escaped = token.as_bytes().windows(3).any(
            |w| matches!(w, [b'%', hi, lo] if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit()),
        );
        if !escaped {
            continue;
        }
        out.extend(percent_token(text, range).map(|m| (Vec::new(), m)));
    }
    out
}

/// One percent-encoded token decoded character by character: each `%XX` byte mapped
/// to its three characters (a character of several bytes to all their escapes), `+`
/// read as a space, anything else kept as written; `None` unless it reads as text.
fn percent_token(text: &Mapped, range: Range<usize>) -> Option<Mapped> {
    let token = text.as_str().get(range.clone())?;
    let escape = |at: usize| {
        let hex = token.get(at + 1..at + 3)?;
        let byte = u8::from_str_radix(hex, 16).ok()?;
        (token.as_bytes().get(at) == Some(&b'%') && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(byte)
    };
    // (byte, its span in the token)
    let mut bytes: Vec<(u8, Range<usize>)> = Vec::with_capacity(token.len());
    let mut at = 0;
    while at < token.len() {
        match escape(at) {
            Some(byte) => {
                bytes.push((byte, at..at + 3));
                at += 3;
            }
            None => {
                let b = token.as_bytes().get(at).copied()?;
                bytes.push((if b == b'+' { b' ' } else { b }, at..at + 1));
                at += 1;
            }
        }
    }
    let decoded = as_text(bytes.iter().map(|(b, _)| *b).collect())?;
    let mut out = Mapped::with_capacity(decoded.len());
    let mut next = bytes.iter();
    for c in decoded.chars() {
        let spans: Vec<&Range<usize>> = next.by_ref().take(c.len_utf8()).map(|(_, r)| r).collect();
        let start = spans.first().map_or(0, |r| r.start);
        let end = spans.last().map_or(start, |r| r.end);
        out.push(c, text.source_span(range.start + start..range.start + end));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    fn texts(v: Vec<(Vec<View>, Mapped)>) -> Vec<String> {
        v.iter().map(|(_, m)| m.as_str().to_owned()).collect()
    }

    #[test]
    fn base64_in_every_alphabet_and_padding() {
        let value = "IBAN DE44 5001 ?>";
        for enc in [STANDARD.encode(value), URL_SAFE_NO_PAD.encode(value)] {
            let m = Mapped::identity(&format!("see: {enc}."));
            assert_eq!(texts(base64(&m)), vec![value.to_owned()], "{enc}");
        }
    }

    #[test]
    fn ordinary_words_do_not_decode() {
        let prose = "Please confirm whether Thursday afternoon works for everyone before \
                     Friday; the quarterly budget review is 2024-04-17 and costs 1,240.50 EUR.";
        let m = Mapped::identity(prose);
        assert!(texts(base64(&m)).is_empty(), "{:?}", texts(base64(&m)));
        assert!(hex(&m).is_empty());
        assert!(percent(&m).is_empty());
    }

    #[test]
    fn hex_and_percent() {
        let m = Mapped::identity("x 0x5046203232393120 y PF%2D2291%20ok+z");
        assert_eq!(texts(hex(&m)), vec!["PF 2291 ".to_owned()]);
        assert_eq!(texts(percent(&m)), vec!["PF-2291 ok z".to_owned()]);
    }
}
