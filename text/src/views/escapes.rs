//! Escape views: HTML/XML character references, string-literal escapes of JSON, JS,
//! C, Python and Rust, and quoted-printable. Each rewrites the escapes of the whole
//! text in place, so the words around them stay where they were.

use crate::mapped::Mapped;
use std::ops::Range;

/// What one escape stands for.
enum Piece {
    Char(char),
    Byte(u8),
}

/// Named character references read (those that stand for ASCII punctuation).
const NAMED: &[(&str, char)] = &[
    ("amp", '&'),
    ("lt", '<'),
    ("gt", '>'),
    ("quot", '"'),
    ("apos", '\''),
    ("nbsp", ' '),
    ("hyphen", '-'),
    ("dash", '-'),
    ("period", '.'),
    ("comma", ','),
    ("colon", ':'),
    ("sol", '/'),
    ("lowbar", '_'),
    ("num", '#'),
    ("percnt", '%'),
    ("plus", '+'),
    ("commat", '@'),
    ("excl", '!'),
    ("quest", '?'),
    ("lpar", '('),
    ("rpar", ')'),
];

fn hex_value(s: &str) -> Option<u32> {
    u32::from_str_radix(s, 16).ok()
}

fn take_while(s: &str, max: usize, f: impl Fn(u8) -> bool) -> &str {
    let n = s.bytes().take(max).take_while(|&b| f(b)).count();
    &s[..n]
}

/// The escape starting at the start of `rest`: its length and what it stands for.
fn escape(rest: &str) -> Option<(usize, Piece)> {
    if let Some(r) = rest.strip_prefix("&#") {
        let (digits, radix, skip) = match r.strip_prefix(['x', 'X']) {
            Some(h) => (take_while(h, 8, |b| b.is_ascii_hexdigit()), 16, 3),
            None => (take_while(r, 8, |b| b.is_ascii_digit()), 10, 2),
        };
        let v = u32::from_str_radix(digits, radix).ok()?;
        let semi = usize::from(rest.as_bytes().get(skip + digits.len()) == Some(&b';'));
        return Some((skip + digits.len() + semi, Piece::Char(char::from_u32(v)?)));
    }
    if let Some(r) = rest.strip_prefix('&') {
        let name = take_while(r, 8, |b| b.is_ascii_alphabetic());
        let end = r.as_bytes().get(name.len()) == Some(&b';');
        let (_, c) = NAMED.iter().find(|(n, _)| *n == name)?;
        return end.then_some((name.len() + 2, Piece::Char(*c)));
    }
    let r = rest.strip_prefix('\\')?;
    let first = *r.as_bytes().first()?;
    match first {
        b'x' => {
            let d = take_while(&r[1..], 2, |b| b.is_ascii_hexdigit());
            (d.len() == 2).then(|| (4, Piece::Byte(u8::from_str_radix(d, 16).unwrap_or(0))))
        }
        b'u' if r.as_bytes().get(1) == Some(&b'{') => {
            let d = take_while(&r[2..], 6, |b| b.is_ascii_hexdigit());
            let close = r.as_bytes().get(2 + d.len()) == Some(&b'}');
            let c = char::from_u32(hex_value(d)?)?;
            close.then_some((d.len() + 4, Piece::Char(c)))
        }
        b'u' | b'U' => {
            let want = if first == b'u' { 4 } else { 8 };
            let d = take_while(&r[1..], want, |b| b.is_ascii_hexdigit());
            if d.len() != want {
                return None;
            }
            let v = hex_value(d)?;
            if (0xD800..0xDC00).contains(&v) {
                let low = r.get(1 + want..)?.strip_prefix("\\u")?;
                let l = hex_value(take_while(low, 4, |b| b.is_ascii_hexdigit()))?;
                let c = char::from_u32(0x10000 + ((v - 0xD800) << 10) + (l.checked_sub(0xDC00)?))?;
                return Some((12, Piece::Char(c)));
            }
            Some((want + 2, Piece::Char(char::from_u32(v)?)))
        }
        b'0'..=b'7' => {
            let d = take_while(r, 3, |b| (b'0'..=b'7').contains(&b));
            let v = u8::try_from(u32::from_str_radix(d, 8).ok()?).ok()?;
            Some((d.len() + 1, Piece::Byte(v)))
        }
        _ => None,
    }
}

/// Rewrites every escape `parse` recognises; `None` when there is none. Runs of bytes
/// are read as UTF-8 (only their ASCII bytes kept when they are not).
fn rewrite(
    text: &Mapped,
    min: usize,
    parse: impl Fn(&str) -> Option<(usize, Piece)>,
) -> Option<Mapped> {
    let s = text.as_str();
    let mut out = Mapped::with_capacity(s.len());
    let mut bytes: Vec<(u8, Range<usize>)> = Vec::new();
    let flush = |bytes: &mut Vec<(u8, Range<usize>)>, out: &mut Mapped| {
        if bytes.is_empty() {
            return;
        }
        let raw: Vec<u8> = bytes.iter().map(|(b, _)| *b).collect();
        // The smallest span covering them all: in a reversed reading the first byte
        // comes from later in the original than the last.
        let start = bytes.iter().map(|b| b.1.start).min().unwrap_or(0);
        let end = bytes.iter().map(|b| b.1.end).max().unwrap_or(start);
        let span = start..end;
        match String::from_utf8(raw) {
            Ok(t) => out.push_str(&t, span),
            Err(_) => {
                for (b, r) in bytes.iter().filter(|(b, _)| b.is_ascii()) {
                    out.push(char::from(*b), r.clone());
                }
            }
        }
        bytes.clear();
    };
    let mut found = 0;
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let parsed = matches!(rest.as_bytes().first(), Some(b'\\' | b'&' | b'='))
            .then(|| parse(rest))
            .flatten();
        match parsed {
            Some((len, piece)) => {
                found += 1;
                let span = text.source_span(i..i + len);
                match piece {
                    Piece::Byte(b) => bytes.push((b, span)),
                    Piece::Char(c) => {
                        flush(&mut bytes, &mut out);
                        out.push(c, span);
                    }
                }
                i += len;
            }
            None => {
                flush(&mut bytes, &mut out);
                let c = rest.chars().next()?;
                out.push(c, text.span_of(i));
                i += c.len_utf8();
            }
        }
    }
    flush(&mut bytes, &mut out);
    (found >= min).then_some(out)
}

/// Character references and string escapes rewritten to what they stand for.
pub(super) fn escapes(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    if !s.contains('\\') && !s.contains('&') {
        return None;
    }
    rewrite(text, 1, escape)
}

/// Quoted-printable: `=XX` bytes and `=` soft line breaks; at least two escapes.
pub(super) fn quoted_printable(text: &Mapped) -> Option<Mapped> {
    if !text.as_str().contains('=') {
        return None;
    }
    rewrite(text, 2, |rest| {
        let r = rest.strip_prefix('=')?;
        if let Some(n) = r
            .strip_prefix("\r\n")
            .map(|_| 3)
            .or_else(|| r.strip_prefix('\n').map(|_| 2))
        {
            return Some((n, Piece::Char('\u{200B}')));
        }
        let d = take_while(r, 2, |b| b.is_ascii_hexdigit());
        (d.len() == 2).then(|| (3, Piece::Byte(u8::from_str_radix(d, 16).unwrap_or(0))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(f: fn(&Mapped) -> Option<Mapped>, s: &str) -> Option<String> {
        f(&Mapped::identity(s)).map(|m| m.as_str().to_owned())
    }

    #[test]
    fn escapes_table() {
        let table = [
            ("&#80;&#70;&#45;&#50;", "PF-2"),
            ("&#x50;&#X46;&#x2d;2", "PF-2"),
            ("a &amp; b", "a & b"),
            ("\\x50\\x46 \\u0032\\u{32} \\U00000039", "PF 22 9"),
            ("\\120\\106", "PF"),
            ("caf\\xc3\\xa9", "café"),
            ("\\ud83d\\ude00", "😀"),
        ];
        for (w, want) in table {
            assert_eq!(read(escapes, w).as_deref(), Some(want), "{w}");
        }
        assert_eq!(read(escapes, "no escapes & here"), None);
        assert_eq!(
            read(quoted_printable, "=50=46-22=\n91").as_deref(),
            Some("PF-22\u{200B}91")
        );
        assert_eq!(read(quoted_printable, "a = b"), None);
    }
}
