//! Radix views beyond base64 and hex: base32, base58, Ascii85/Z85, uuencode and hex
//! byte lists. As with base64, only plausible tokens are decoded and only decodings that
//! read as text (or open as a container holding text) are kept.

use super::lists::number_runs;
use super::tokens::{payload, runs};
use super::View;
use crate::mapped::Mapped;
use std::ops::Range;

/// Shortest unpadded base32 token decoded (five bytes). A padded one may be shorter:
/// its padding already marks it as base32.
const MIN_BASE32_LEN: usize = 8;
/// Shortest base58 token decoded (about three bytes).
const MIN_BASE58_LEN: usize = 4;
/// Shortest bare Ascii85/Z85 token decoded (eight bytes).
const MIN_ASCII85_LEN: usize = 10;
/// Fewest bytes in a hex byte list.
const MIN_HEX_BYTES: usize = 3;

type Decoded = Vec<(Vec<View>, Mapped)>;

/// Base32 tokens: RFC 4648 or base32hex alphabet, any single case, padded or not. An
/// ordinary word that happens to decode is dropped by the text test on its bytes, so
/// tokens are not required to look unlike words: a payload often encodes without a
/// digit (`L A B - 2 0 2 5` does).
pub(super) fn base32(text: &Mapped) -> Decoded {
    let s = text.as_str();
    let mut out = Vec::new();
    for r in runs(s, |b| b.is_ascii_alphanumeric() || b == b'=') {
        let token = &s[r.clone()];
        let body = token.trim_end_matches('=');
        let padded = body.len() < token.len() && token.len().is_multiple_of(8);
        if body.len() < if padded { 2 } else { MIN_BASE32_LEN } || body.contains('=') {
            continue;
        }
        let upper = body.to_ascii_uppercase();
        if body != upper && body != body.to_ascii_lowercase() {
            continue;
        }
        let decoders = [
            &data_encoding::BASE32_NOPAD,
            &data_encoding::BASE32HEX_NOPAD,
        ];
        if let Some(bytes) = decoders
            .iter()
            .find_map(|d| d.decode(upper.as_bytes()).ok())
        {
            out.extend(payload(text, r, bytes));
        }
    }
    out
}

/// Base58 tokens (Bitcoin alphabet) holding at least two of digits, capitals and small
/// letters, with a digit or a capital after the first character: a short value encodes
/// to a few characters, not always with a digit, while capitalised words (most mixed-case
/// words of ordinary text) are not decoded.
pub(super) fn base58(text: &Mapped) -> Decoded {
    let s = text.as_str();
    let mut out = Vec::new();
    for r in runs(s, |b| b.is_ascii_alphanumeric()) {
        let token = &s[r.clone()];
        let has = |f: fn(&u8) -> bool| token.as_bytes().iter().any(f);
        let classes = [
            u8::is_ascii_digit,
            u8::is_ascii_uppercase,
            u8::is_ascii_lowercase,
        ]
        .into_iter()
        .filter(|f| has(*f))
        .count();
        let inner_capital = token.bytes().skip(1).any(|b| b.is_ascii_uppercase());
        if token.len() < MIN_BASE58_LEN
            || classes < 2
            || !(has(u8::is_ascii_digit) || inner_capital)
        {
            continue;
        }
        if let Ok(bytes) = bs58::decode(token).into_vec() {
            out.extend(payload(text, r, bytes));
        }
    }
    out
}

fn ascii85_decode(body: &str, z85: bool) -> Option<Vec<u8>> {
    const Z85: &[u8] =
        b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    let mut out = Vec::new();
    let mut group: Vec<u32> = Vec::with_capacity(5);
    let digit = |c: u8| -> Option<u32> {
        if z85 {
            Z85.iter()
                .position(|&z| z == c)
                .and_then(|p| u32::try_from(p).ok())
        } else {
            (b'!'..=b'u').contains(&c).then(|| u32::from(c - b'!'))
        }
    };
    let flush = |group: &mut Vec<u32>, out: &mut Vec<u8>| -> Option<()> {
        let n = group.len();
        if n == 0 {
            return Some(());
        }
        if n == 1 {
            return None;
        }
        group.resize(5, 84);
        let mut v: u64 = 0;
        for d in group.iter() {
            v = v * 85 + u64::from(*d);
        }
        let v = u32::try_from(v).ok()?;
        out.extend_from_slice(v.to_be_bytes().get(..n - 1)?);
        group.clear();
        Some(())
    };
    for c in body.bytes() {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'z' && !z85 && group.is_empty() {
            out.extend_from_slice(&[0; 4]);
            continue;
        }
        group.push(digit(c)?);
        if group.len() == 5 {
            flush(&mut group, &mut out)?;
        }
    }
    flush(&mut group, &mut out)?;
    Some(out)
}

/// Ascii85 between `<~` and `~>`, and bare Ascii85 or Z85 tokens holding a digit and a
/// symbol.
pub(super) fn ascii85(text: &Mapped) -> Decoded {
    let s = text.as_str();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = s.get(from..).and_then(|r| r.find("<~")) {
        let start = from + open + 2;
        let Some(close) = s.get(start..).and_then(|r| r.find("~>")) else {
            break;
        };
        let r: Range<usize> = start - 2..start + close + 2;
        if let Some(bytes) = s
            .get(start..start + close)
            .and_then(|b| ascii85_decode(b, false))
        {
            out.extend(payload(text, r, bytes));
        }
        from = start + close + 2;
    }
    for r in runs(s, |b| b.is_ascii_graphic()) {
        let token = &s[r.clone()];
        let has = |f: fn(&u8) -> bool| token.as_bytes().iter().any(f);
        if token.len() < MIN_ASCII85_LEN
            || token.starts_with("<~")
            || !has(u8::is_ascii_digit)
            || !has(u8::is_ascii_punctuation)
        {
            continue;
        }
        let decoded = ascii85_decode(token, false)
            .and_then(|b| payload(text, r.clone(), b))
            .or_else(|| {
                token
                    .len()
                    .is_multiple_of(5)
                    .then(|| ascii85_decode(token, true))
                    .flatten()
                    .and_then(|b| payload(text, r.clone(), b))
            });
        out.extend(decoded);
    }
    out
}

/// uuencoded lines: a length character, then groups of four characters for three
/// bytes; a line is kept when its length agrees with its length character.
pub(super) fn uuencode(text: &Mapped) -> Decoded {
    let s = text.as_str();
    let mut out = Vec::new();
    let mut bytes = Vec::new();
    let mut block: Option<Range<usize>> = None;
    let mut offset = 0;
    let finish = |block: &mut Option<Range<usize>>, bytes: &mut Vec<u8>, out: &mut Decoded| {
        if let Some(r) = block.take() {
            if bytes.len() >= MIN_HEX_BYTES {
                out.extend(payload(text, r, std::mem::take(bytes)));
            }
        }
        bytes.clear();
    };
    for line in s.split_inclusive('\n') {
        let body = line.trim_end_matches(['\r', '\n']);
        let range = offset..offset + body.len();
        offset += line.len();
        let Some(&first) = body.as_bytes().first() else {
            finish(&mut block, &mut bytes, &mut out);
            continue;
        };
        let n = usize::from(first.wrapping_sub(b' ') & 63);
        let chars = body.len() - 1;
        let valid = n > 0
            && body.bytes().all(|b| (b' '..=b'`').contains(&b))
            && (chars == n.div_ceil(3) * 4 || chars == (n * 4).div_ceil(3));
        if !valid {
            finish(&mut block, &mut bytes, &mut out);
            continue;
        }
        let digits: Vec<u8> = body
            .bytes()
            .skip(1)
            .map(|b| b.wrapping_sub(b' ') & 63)
            .collect();
        let mut line_bytes = Vec::with_capacity(n + 2);
        for g in digits.chunks(4) {
            let v = g
                .iter()
                .chain(std::iter::repeat(&0))
                .take(4)
                .fold(0u32, |a, &d| a << 6 | u32::from(d));
            line_bytes.extend_from_slice(&v.to_be_bytes()[1..]);
        }
        line_bytes.truncate(n);
        bytes.extend(line_bytes);
        block = Some(block.map_or(range.clone(), |b| b.start..range.end));
    }
    finish(&mut block, &mut bytes, &mut out);
    out
}

/// Hex byte lists: three or more two-digit hex bytes (optional `0x`), each followed by
/// one separator (`44 45 34`, `0x44, 0x45`, `44:45:34`).
pub(super) fn hex_bytes(text: &Mapped) -> Decoded {
    let pair = |t: &str| -> Option<u32> {
        let d = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        (d.len() == 2)
            .then(|| u32::from_str_radix(d, 16).ok())
            .flatten()
    };
    let separates = |b: u8| matches!(b, b',' | b':' | b';' | b'-');
    number_runs(text.as_str(), separates, 2, MIN_HEX_BYTES, pair)
        .into_iter()
        .filter_map(|(r, values)| {
            let bytes = values
                .iter()
                .filter_map(|v| u8::try_from(*v).ok())
                .collect();
            payload(text, r, bytes)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: Decoded) -> Vec<String> {
        v.iter().map(|(_, m)| m.as_str().to_owned()).collect()
    }

    #[test]
    fn radix_tokens_decode() {
        let v = "PF-2291 ok";
        let b32 = data_encoding::BASE32.encode(v.as_bytes());
        assert_eq!(
            texts(base32(&Mapped::identity(&format!("x {b32} y")))),
            vec![v]
        );
        let low = data_encoding::BASE32_NOPAD
            .encode(v.as_bytes())
            .to_lowercase();
        assert_eq!(texts(base32(&Mapped::identity(&low))), vec![v]);
        let b58 = bs58::encode(v).into_string();
        assert_eq!(
            texts(base58(&Mapped::identity(&format!("x {b58} y")))),
            vec![v]
        );
        assert_eq!(
            texts(ascii85(&Mapped::identity("<~87cURD]i,\"Ebo7~>"))),
            vec!["Hello World"]
        );
        assert_eq!(
            texts(uuencode(&Mapped::identity(
                "begin 644 f\n*4$8M,C(Y,2!O:P``\n`\nend\n"
            ))),
            vec![v]
        );
        assert_eq!(
            texts(hex_bytes(&Mapped::identity(
                "bytes 50 46 2d 32 32 39 31 done"
            ))),
            vec!["PF-2291"]
        );
        assert_eq!(
            texts(hex_bytes(&Mapped::identity("0x50, 0x46, 0x2D, 0x32"))),
            vec!["PF-2"]
        );
        assert_eq!(
            texts(hex_bytes(&Mapped::identity("it is 50 46 2d 32 32 39 31."))),
            vec!["PF-2291"]
        );
    }

    #[test]
    fn ordinary_words_do_not_decode() {
        let prose = "Please confirm whether Thursday afternoon works for everyone before \
                     Friday; the quarterly budget review is 2024-04-17 and costs 1,240.50 EUR. \
                     Ticket ABC-12345, room B2, call at 10:30, see item 3a.";
        let m = Mapped::identity(prose);
        for (name, d) in [
            ("b32", base32(&m)),
            ("b58", base58(&m)),
            ("a85", ascii85(&m)),
            ("uu", uuencode(&m)),
            ("hex", hex_bytes(&m)),
        ] {
            assert!(d.is_empty(), "{name}: {:?}", texts(d));
        }
    }
}
