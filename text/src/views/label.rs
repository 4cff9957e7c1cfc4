//! Names of the readings and renderings that find a value: `plain`, a decoding view
//! (`base64`), a container (`gzip`), a rendering family with its parameter
//! (`caesar(+3)`, `base32@2`, `spelled(fr)`), composed in the order the writer applied
//! them (`caesar(+3)>gzip>base64`).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Language codes of the spelled-digit tables, in table order (see `render::words`).
pub(crate) const LANGS: &[&str] = &[
    "en", "zh", "hi", "es", "fr", "ar", "bn", "pt", "ru", "ur", "id", "de", "ja", "it",
];

/// Block encodings searched at every alignment of the value inside a longer payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Block {
    /// Base64 (standard or URL-safe alphabet).
    Base64,
    /// Base32 (RFC 4648 alphabet).
    Base32,
    /// Ascii85.
    Ascii85,
}

impl Block {
    fn as_str(self) -> &'static str {
        match self {
            Block::Base64 => "base64",
            Block::Base32 => "base32",
            Block::Ascii85 => "ascii85",
        }
    }
}

/// One step of a reading: a decoding view, a container opened inside a decoded
/// payload, or the rendering family (with its parameter) the value was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// Base64 tokens, standard or URL-safe alphabet, padded or not.
    Base64,
    /// Base32 tokens (RFC 4648 and base32hex alphabets, any case, padded or not).
    Base32,
    /// Base58 tokens (Bitcoin alphabet).
    Base58,
    /// Ascii85 (`<~ ~>` or bare) and Z85 tokens.
    Ascii85,
    /// uuencoded lines.
    Uuencode,
    /// Hexadecimal tokens, and byte lists (`44 45`, `0x44,0x45`, `44:45`).
    Hex,
    /// Binary byte lists and runs of bits (`01101100 01100101`).
    Binary,
    /// Octal byte lists without backslashes (`154 145`).
    Octal,
    /// Decimal byte or code-point lists (`108, 101`).
    Decimal,
    /// `U+` code point lists (`U+006C U+0065`).
    CodePoints,
    /// Morse code read back as letters and digits.
    Morse,
    /// Percent-encoded tokens (`%20`).
    Percent,
    /// Quoted-printable (`=44=45`, soft line breaks).
    QuotedPrintable,
    /// HTML/XML character references and JSON/JS/C/Python/Rust string escapes.
    Escapes,
    /// ROT13 of the whole text.
    Rot13,
    /// The whole text reversed.
    Reversed,
    /// Text turned upside down, turned back.
    UpsideDown,
    /// English number words read as digits (`four one two`, `four hundred twelve`).
    SpelledNumbers,
    /// Markdown markup (table pipes, emphasis, headings, quotes) read as spaces.
    Markdown,
    /// JSON documents read as their string and number leaves, in order.
    Json,
    /// CSV records read as their cells.
    Csv,
    /// A gzip member inside decoded bytes.
    Gzip,
    /// A zlib stream inside decoded bytes.
    Zlib,
    /// A bzip2 stream inside decoded bytes.
    Bzip2,
    /// An xz stream inside decoded bytes.
    Xz,
    /// A zip archive's entries.
    Zip,
    /// A tar archive's entries.
    Tar,
    /// The value's letters and digits with anything but letters and digits between
    /// them (one a line, a dot after each, spaced, emoji between).
    Spaced,
    /// The value's letters and digits with up to this many other letters or digits
    /// between each two (a short word between characters).
    Filler(u8),
    /// Letters shifted by the first parameter, digits by the second.
    Caesar(u8, u8),
    /// Letters mirrored in the alphabet.
    Atbash,
    /// ROT47 of printable ASCII.
    Rot47,
    /// Letters written as look-alike digits and symbols (`l3v371r4c374m`).
    Leet,
    /// Letters spelled in the NATO alphabet, digits as words.
    Nato,
    /// Digits spelled in the language of [`LANGS`] at this index.
    Spelled(u8),
    /// The value's characters as the initials of consecutive words.
    Initials,
    /// Each word of the value spelled backwards, the words in order.
    WordsReversed,
    /// The words of the value in reverse order.
    WordOrder,
    /// The value inside a longer block-encoded payload, starting at this byte offset
    /// modulo the block size.
    At(Block, u8),
    /// The value cut into this many consecutive pieces, in that many outputs.
    Pieces(u8),
    /// The value's characters dealt round-robin over this many outputs.
    Interleave(u8),
}

const NAMED: &[(View, &str)] = &[
    (View::Base64, "base64"),
    (View::Base32, "base32"),
    (View::Base58, "base58"),
    (View::Ascii85, "ascii85"),
    (View::Uuencode, "uuencode"),
    (View::Hex, "hex"),
    (View::Binary, "binary"),
    (View::Octal, "octal"),
    (View::Decimal, "decimal"),
    (View::CodePoints, "code_points"),
    (View::Morse, "morse"),
    (View::Percent, "percent"),
    (View::QuotedPrintable, "quoted_printable"),
    (View::Escapes, "escapes"),
    (View::Rot13, "rot13"),
    (View::Reversed, "reversed"),
    (View::UpsideDown, "upside_down"),
    (View::SpelledNumbers, "spelled_numbers"),
    (View::Markdown, "markdown"),
    (View::Json, "json"),
    (View::Csv, "csv"),
    (View::Gzip, "gzip"),
    (View::Zlib, "zlib"),
    (View::Bzip2, "bzip2"),
    (View::Xz, "xz"),
    (View::Zip, "zip"),
    (View::Tar, "tar"),
    (View::Spaced, "spaced"),
    (View::Atbash, "atbash"),
    (View::Rot47, "rot47"),
    (View::Leet, "leet"),
    (View::Nato, "nato"),
    (View::Initials, "initials"),
    (View::WordsReversed, "words_reversed"),
    (View::WordOrder, "word_order"),
];

impl View {
    /// Whether applying the view twice gives back the text.
    pub(crate) fn is_involution(self) -> bool {
        matches!(self, View::Rot13 | View::Reversed)
    }

    /// Whether the step decodes an encoding (or opens a container), rather than
    /// rewriting the text it reads letter for letter or restructuring it (ROT13,
    /// reversal, markup, JSON, CSV, upside-down text).
    pub(crate) fn decodes(self) -> bool {
        !matches!(
            self,
            View::Rot13
                | View::Reversed
                | View::Markdown
                | View::Json
                | View::Csv
                | View::UpsideDown
        )
    }

    /// Whether the step opens a container inside decoded bytes (`gzip`, `tar`).
    pub(crate) fn is_container(self) -> bool {
        matches!(
            self,
            View::Gzip | View::Zlib | View::Bzip2 | View::Xz | View::Zip | View::Tar
        )
    }

    /// Whether the view decodes an encoding (radix, number lists, escapes): what it
    /// reads is encoder output, whose characters carry no text of their own. Views that
    /// rearrange or strip text (reversal, ROT13, markup, number words) do not.
    pub(crate) fn decodes_encoding(self) -> bool {
        matches!(
            self,
            View::Base64
                | View::Base32
                | View::Base58
                | View::Ascii85
                | View::Uuencode
                | View::Hex
                | View::Binary
                | View::Octal
                | View::Decimal
                | View::CodePoints
                | View::Percent
                | View::QuotedPrintable
                | View::Escapes
        )
    }

    /// The family name without its parameter (`caesar` for `caesar(+3)`).
    pub fn family(self) -> &'static str {
        match self {
            View::Filler(_) => "filler",
            View::Caesar(..) => "caesar",
            View::Spelled(_) => "spelled",
            View::At(b, _) => b.as_str(),
            View::Pieces(_) => "pieces",
            View::Interleave(_) => "interleave",
            v => NAMED
                .iter()
                .find(|(n, _)| *n == v)
                .map_or("unknown", |(_, s)| s),
        }
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            View::Filler(k) => write!(f, "filler({k})"),
            View::Caesar(l, 0) => write!(f, "caesar(+{l})"),
            View::Caesar(l, d) => write!(f, "caesar(+{l},+{d})"),
            View::Spelled(i) => write!(f, "spelled({})", LANGS.get(usize::from(i)).unwrap_or(&"?")),
            View::At(b, o) => write!(f, "{}@{o}", b.as_str()),
            View::Pieces(n) => write!(f, "pieces({n})"),
            View::Interleave(n) => write!(f, "interleave({n})"),
            v => f.write_str(v.family()),
        }
    }
}

fn number(s: &str) -> Option<u8> {
    s.trim().trim_start_matches('+').parse().ok()
}

impl std::str::FromStr for View {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some((_, v)) = NAMED.iter().find(|(_, n)| *n == s).map(|(v, n)| (n, *v)) {
            return Ok(v);
        }
        let bad = || format!("unknown view `{s}`");
        if let Some((name, off)) = s.split_once('@') {
            let o = number(off).ok_or_else(bad)?;
            let b = [Block::Base64, Block::Base32, Block::Ascii85]
                .into_iter()
                .find(|b| b.as_str() == name)
                .ok_or_else(bad)?;
            return Ok(View::At(b, o));
        }
        let (name, arg) = s
            .strip_suffix(')')
            .and_then(|r| r.split_once('('))
            .ok_or_else(bad)?;
        match name {
            "filler" => number(arg).map(View::Filler).ok_or_else(bad),
            "pieces" => number(arg).map(View::Pieces).ok_or_else(bad),
            "interleave" => number(arg).map(View::Interleave).ok_or_else(bad),
            "spelled" => LANGS
                .iter()
                .position(|l| *l == arg)
                .and_then(|i| u8::try_from(i).ok())
                .map(View::Spelled)
                .ok_or_else(bad),
            "caesar" => {
                let (l, d) = arg.split_once(',').unwrap_or((arg, "0"));
                Ok(View::Caesar(
                    number(l).ok_or_else(bad)?,
                    number(d).ok_or_else(bad)?,
                ))
            }
            _ => Err(bad()),
        }
    }
}

/// The steps of a reading in the order they were undone (decoded first, rendering
/// family last); empty for the plain canonical form. Written in the order the writer
/// applied them, joined by `>`: `plain`, `base64`, `reversed>base64`,
/// `caesar(+3)>gzip>base64`. The older `+`-joined spelling (`base64+reversed`, in
/// decoding order) is still read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ViewPath(pub Vec<View>);

impl ViewPath {
    /// The plain reading.
    pub fn plain() -> Self {
        ViewPath(Vec::new())
    }

    /// Whether this is the plain reading.
    pub fn is_plain(&self) -> bool {
        self.0.is_empty()
    }

    /// This path followed by `step`.
    pub fn then(&self, step: View) -> Self {
        let mut p = self.0.clone();
        p.push(step);
        ViewPath(p)
    }
}

impl fmt::Display for ViewPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("plain");
        }
        let names: Vec<String> = self.0.iter().rev().map(ToString::to_string).collect();
        f.write_str(&names.join(">"))
    }
}

impl std::str::FromStr for ViewPath {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "plain" {
            return Ok(ViewPath::plain());
        }
        let legacy = s.contains('+') && !s.contains('>') && !s.contains('(');
        let steps: Result<Vec<View>, String> = if !legacy {
            s.split('>').rev().map(str::parse).collect()
        } else {
            s.split('+').map(str::parse).collect()
        };
        steps.map(ViewPath)
    }
}

impl Serialize for ViewPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ViewPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for s in [
            "plain",
            "base64",
            "reversed>base64",
            "caesar(+3)>gzip>base64",
            "caesar(+0,+5)",
            "base32@2",
            "spelled(fr)",
            "filler(3)",
            "pieces(2)",
            "interleave(2)",
            "leet>hex",
        ] {
            let p: ViewPath = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        let old: ViewPath = "base64+reversed".parse().unwrap();
        assert_eq!(old.to_string(), "reversed>base64");
    }
}
