//! Random renderings of a value, for property tests of the matcher and of what uses it.
//!
//! A [`Rendering`] is an optional character-level member (a cipher, a substitution
//! class, a spelling or a spacing) followed by up to two encodings around the text
//! (radix encodings, escapes, compression), each with random parameters. The families
//! are written here independently of the matcher's own decoders and renderings (with
//! the encoding crates or by hand), so a test measures the matcher against encoders it
//! does not share code with. Enabled by the `generate` feature (a dev-dependency).

use crate::canon::Needle;
use crate::render::{bits, MIN_BITS, MIN_LEET_BITS, MIN_ROT47_CHARS, MIN_SHIFT_BITS};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::io::Write;

/// A character-level family member, applied to the value first.
#[derive(Debug, Clone)]
pub enum Inner {
    /// Letters shifted by the first amount, digits by the second.
    Caesar(u8, u8),
    /// Letters mirrored in the alphabet.
    Atbash,
    /// Printable ASCII rotated by 47.
    Rot47,
    /// Look-alike digits for letters, at the positions the bits choose.
    Leet(u64),
    /// NATO alphabet words for letters, English words for digits.
    Nato,
    /// Digits spelled in one of eight languages, letters kept.
    Spelled(usize),
    /// One filler (dot, newline, space, zero-width space, emoji...) between characters.
    Spaced(usize),
    /// Keycap digits and regional-indicator letters, or dingbat digits and squared
    /// letters.
    Glyphs(bool),
    /// Fullwidth forms of ASCII.
    Fullwidth,
    /// Mathematical bold letters and digits.
    MathBold,
    /// Cyrillic and Greek look-alikes for the Latin letters that have one.
    Homoglyphs,
    /// Letters upper- or lowercased at the positions the bits choose.
    Case(u64),
    /// International Morse code, letters apart by spaces, words by ` / `.
    Morse,
    /// Every word spelled backwards, the words in order.
    WordsReversed,
    /// Turned upside down: letters flipped, the order reversed.
    UpsideDown,
}

/// An encoding applied around the text.
#[derive(Debug, Clone)]
pub enum Outer {
    /// Base64 (URL-safe without padding when set) of the text after a short prefix.
    Base64(bool, usize),
    /// RFC 4648 base32, lowercase when set.
    Base32(bool),
    /// Base58 (Bitcoin alphabet).
    Base58,
    /// Hex, bytes separated by spaces when set.
    Hex(bool),
    /// HTML numeric character references, hexadecimal when set.
    Entities(bool),
    /// `\uXXXX` escapes of UTF-16 units.
    UEscape,
    /// `\xXX` escapes of bytes.
    XEscape,
    /// C octal escapes of bytes (`\101`).
    OctalEscape,
    /// Percent-encoding of every byte.
    Percent,
    /// Quoted-printable of every byte.
    QuotedPrintable,
    /// Ascii85 between `<~` and `~>`.
    Ascii85,
    /// A uuencoded file.
    Uuencode,
    /// gzip, zlib or xz, then base64.
    Compressed(u8),
    /// The text written backwards.
    Reversed,
    /// Bytes in binary, eight digits each, spaced when set.
    Binary(bool),
    /// Bytes in octal, three digits each, spaced.
    Octal,
    /// Character codes in decimal, comma-separated when set.
    Decimal(bool),
    /// `U+XXXX` code points, spaced.
    CodePoints,
}

/// One random rendering: an optional character-level member, then the encodings.
#[derive(Debug, Clone)]
pub struct Rendering {
    /// The character-level member, applied first.
    pub inner: Option<Inner>,
    /// The encodings, applied in order after it.
    pub outers: Vec<Outer>,
}

const NATO: [&str; 26] = [
    "Alfa", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett",
    "Kilo", "Lima", "Mike", "November", "Oscar", "Papa", "Quebec", "Romeo", "Sierra", "Tango",
    "Uniform", "Victor", "Whiskey", "Xray", "Yankee", "Zulu",
];

const DIGIT_WORDS: [[&str; 10]; 8] = [
    [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ],
    [
        "zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf",
    ],
    [
        "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve",
    ],
    [
        "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
    ],
    [
        "ноль",
        "один",
        "два",
        "три",
        "четыре",
        "пять",
        "шесть",
        "семь",
        "восемь",
        "девять",
    ],
    ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"],
    [
        "शून्य",
        "एक",
        "दो",
        "तीन",
        "चार",
        "पाँच",
        "छह",
        "सात",
        "आठ",
        "नौ",
    ],
    [
        "nol", "satu", "dua", "tiga", "empat", "lima", "enam", "tujuh", "delapan", "sembilan",
    ],
];

/// International Morse code of `a` to `z`, then `0` to `9`.
const MORSE: [&str; 36] = [
    ".-", "-...", "-.-.", "-..", ".", "..-.", "--.", "....", "..", ".---", "-.-", ".-..", "--",
    "-.", "---", ".--.", "--.-", ".-.", "...", "-", "..-", "...-", ".--", "-..-", "-.--", "--..",
    "-----", ".----", "..---", "...--", "....-", ".....", "-....", "--...", "---..", "----.",
];

/// Latin letters with a Cyrillic or Greek look-alike, and the look-alike.
const HOMOGLYPHS: [(char, char); 14] = [
    ('a', 'а'),
    ('c', 'с'),
    ('e', 'е'),
    ('o', 'о'),
    ('p', 'р'),
    ('x', 'х'),
    ('y', 'у'),
    ('A', 'А'),
    ('B', 'В'),
    ('E', 'Е'),
    ('H', 'Н'),
    ('K', 'К'),
    ('M', 'М'),
    ('T', 'Т'),
];

/// `c` turned upside down (as the common "flip text" tables write it).
fn upside_down(c: char) -> char {
    const LOWER: &str = "ɐqɔpǝɟƃɥıɾʞןɯuodbɹsʇnʌʍxʎz";
    const UPPER: &str = "∀qƆpƎℲ⅁HIſʞ˥WNOԀQᴚS⊥∩ΛMX⅄Z";
    const DIGITS: &str = "0ƖᄅƐㄣϛ9ㄥ86";
    let nth = |table: &str, k: u32| table.chars().nth(k as usize);
    match c {
        'a'..='z' => nth(LOWER, c as u32 - 'a' as u32),
        'A'..='Z' => nth(UPPER, c as u32 - 'A' as u32),
        '0'..='9' => nth(DIGITS, c as u32 - '0' as u32),
        '.' => Some('˙'),
        ',' => Some('\''),
        _ => None,
    }
    .unwrap_or(c)
}

fn shift(c: char, base: char, by: u8, modulo: u8) -> char {
    let offset = (c as u8).wrapping_sub(base as u8);
    char::from((base as u8).wrapping_add((offset + by % modulo) % modulo))
}

fn offset_char(base: u32, offset: u32) -> Option<char> {
    char::from_u32(base + offset)
}

impl Inner {
    /// The family's name in the tests' per-family tables.
    pub fn family(&self) -> &'static str {
        match self {
            Inner::Caesar(..) => "caesar",
            Inner::Atbash => "atbash",
            Inner::Rot47 => "rot47",
            Inner::Leet(_) => "leet",
            Inner::Nato => "nato",
            Inner::Spelled(_) => "spelled",
            Inner::Spaced(_) => "spaced",
            Inner::Glyphs(_) => "glyphs",
            Inner::Fullwidth => "fullwidth",
            Inner::MathBold => "math_bold",
            Inner::Homoglyphs => "homoglyphs",
            Inner::Case(_) => "case",
            Inner::Morse => "morse",
            Inner::WordsReversed => "words_reversed",
            Inner::UpsideDown => "upside_down",
        }
    }

    /// Whether the matcher promises to find `value` in this family: the value carries
    /// enough information to be told from ordinary text once rendered (the minimums of
    /// [`crate::render`]).
    pub fn eligible(&self, value: &str) -> bool {
        let Some(n) = Needle::new(value) else {
            return false;
        };
        let squeezed: String = value
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let b = bits(&squeezed);
        match self {
            Inner::Glyphs(_)
            | Inner::Fullwidth
            | Inner::MathBold
            | Inner::Homoglyphs
            | Inner::Case(_) => true,
            Inner::Caesar(..) => !n.is_strict() && b >= MIN_SHIFT_BITS,
            Inner::Leet(_) => {
                !n.is_strict()
                    && b >= MIN_LEET_BITS
                    && squeezed.chars().any(|c| c.is_ascii_alphabetic())
            }
            Inner::Rot47 => {
                !n.is_strict()
                    && b >= MIN_BITS
                    && value.chars().filter(|c| !c.is_whitespace()).count() >= MIN_ROT47_CHARS
            }
            _ => !n.is_strict() && b >= MIN_BITS,
        }
    }

    /// `value` rendered by this member.
    pub fn apply(&self, value: &str) -> String {
        let digit = |c: char| c.to_digit(10).and_then(|d| usize::try_from(d).ok());
        match *self {
            Inner::Caesar(l, d) => value
                .chars()
                .map(|c| match c {
                    'a'..='z' => shift(c, 'a', l, 26),
                    'A'..='Z' => shift(c, 'A', l, 26),
                    '0'..='9' => shift(c, '0', d, 10),
                    _ => c,
                })
                .collect(),
            Inner::Atbash => value
                .chars()
                .map(|c| match c {
                    'a'..='z' => char::from(b'z' - (c as u8 - b'a')),
                    'A'..='Z' => char::from(b'Z' - (c as u8 - b'A')),
                    _ => c,
                })
                .collect(),
            Inner::Rot47 => value
                .chars()
                .map(|c| match c {
                    '!'..='~' => shift(c, '!', 47, 94),
                    _ => c,
                })
                .collect(),
            Inner::Leet(seed) => value
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    let on = (seed >> (i % 64)) & 1 == 1 || i == 0;
                    let l = match c.to_ascii_lowercase() {
                        'a' => '4',
                        'e' => '3',
                        'i' | 'l' => '1',
                        'o' => '0',
                        's' => '5',
                        't' => '7',
                        'b' => '8',
                        'g' => '9',
                        _ => c,
                    };
                    if on {
                        l
                    } else {
                        c
                    }
                })
                .collect(),
            Inner::Nato => value
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .filter_map(|c| match digit(c) {
                    Some(d) => DIGIT_WORDS.first().and_then(|w| w.get(d)).copied(),
                    None => NATO
                        .get(usize::from(c.to_ascii_lowercase() as u8 - b'a'))
                        .copied(),
                })
                .collect::<Vec<_>>()
                .join(" "),
            Inner::Spelled(lang) => {
                let words = DIGIT_WORDS.get(lang % DIGIT_WORDS.len());
                value
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .map(|c| match digit(c).and_then(|d| words?.get(d)) {
                        Some(w) => (*w).to_owned(),
                        None => c.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            }
            Inner::Spaced(f) => {
                const FILLERS: [&str; 7] = [".", "\n", " ", "\u{200B}", " 🙂 ", "-", " · "];
                let filler = FILLERS.get(f % FILLERS.len()).copied().unwrap_or(" ");
                value
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .map(String::from)
                    .collect::<Vec<_>>()
                    .join(filler)
            }
            Inner::Glyphs(keycap) => value
                .chars()
                .map(|c| {
                    let letter = c.is_ascii_alphabetic();
                    match (digit(c), letter) {
                        (Some(d), _) if keycap => format!("{d}\u{FE0F}\u{20E3}"),
                        (Some(0), _) => "⓿".to_owned(),
                        (Some(d), _) => offset_char(0x2775, d as u32)
                            .map_or_else(|| c.to_string(), String::from),
                        (None, true) => {
                            let k = c.to_ascii_uppercase() as u32 - 'A' as u32;
                            let base = if keycap { 0x1F1E6 } else { 0x1F170 };
                            // A zero-width space keeps two indicators from forming a flag.
                            offset_char(base, k).map_or_else(|| c.to_string(), String::from)
                                + "\u{200B}"
                        }
                        _ => c.to_string(),
                    }
                })
                .collect(),
            Inner::Fullwidth => value
                .chars()
                .map(|c| match c {
                    '!'..='~' => offset_char(0xFF01, c as u32 - '!' as u32).unwrap_or(c),
                    ' ' => '\u{3000}',
                    _ => c,
                })
                .collect(),
            Inner::MathBold => value
                .chars()
                .map(|c| match c {
                    'A'..='Z' => offset_char(0x1D400, c as u32 - 'A' as u32).unwrap_or(c),
                    'a'..='z' => offset_char(0x1D41A, c as u32 - 'a' as u32).unwrap_or(c),
                    '0'..='9' => offset_char(0x1D7CE, c as u32 - '0' as u32).unwrap_or(c),
                    _ => c,
                })
                .collect(),
            Inner::Homoglyphs => value
                .chars()
                .map(|c| {
                    HOMOGLYPHS
                        .iter()
                        .find(|(latin, _)| *latin == c)
                        .map_or(c, |(_, look)| *look)
                })
                .collect(),
            Inner::Morse => value
                .split_whitespace()
                .map(|word| {
                    word.chars()
                        .filter_map(|c| {
                            let c = c.to_ascii_lowercase();
                            MORSE
                                .iter()
                                .zip(('a'..='z').chain('0'..='9'))
                                .find(|(_, k)| *k == c)
                                .map(|(m, _)| *m)
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" / "),
            Inner::WordsReversed => value
                .split(' ')
                .map(|w| w.chars().rev().collect::<String>())
                .collect::<Vec<_>>()
                .join(" "),
            Inner::UpsideDown => value.chars().rev().map(upside_down).collect(),
            Inner::Case(seed) => value
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if (seed >> (i % 64)) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect(),
        }
    }
}

fn compress(kind: u8, data: &[u8]) -> Vec<u8> {
    match kind % 3 {
        0 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)
                .ok()
                .and_then(|()| e.finish().ok())
                .unwrap_or_default()
        }
        1 => {
            let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data)
                .ok()
                .and_then(|()| e.finish().ok())
                .unwrap_or_default()
        }
        _ => {
            let mut out = Vec::new();
            match lzma_rs::xz_compress(&mut std::io::BufReader::new(data), &mut out) {
                Ok(()) => out,
                Err(_) => Vec::new(),
            }
        }
    }
}

fn ascii85(bytes: &[u8]) -> String {
    let mut out = String::from("<~");
    for g in bytes.chunks(4) {
        let mut w = [0u8; 4];
        for (slot, b) in w.iter_mut().zip(g) {
            *slot = *b;
        }
        let mut v = u32::from_be_bytes(w);
        let mut d = [0u8; 5];
        for x in d.iter_mut().rev() {
            *x = b'!' + (v % 85) as u8;
            v /= 85;
        }
        out.extend(d.iter().take(g.len() + 1).map(|&x| char::from(x)));
    }
    out + "~>"
}

fn uuencode(bytes: &[u8]) -> String {
    let mut out = String::from("begin 644 v.txt\n");
    for line in bytes.chunks(45) {
        out.push(char::from(32 + line.len() as u8));
        for g in line.chunks(3) {
            let mut w = [0u8; 3];
            for (slot, b) in w.iter_mut().zip(g) {
                *slot = *b;
            }
            let [a, b, c] = w;
            let v = u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c);
            for k in (0..4).rev() {
                let d = ((v >> (6 * k)) & 63) as u8;
                out.push(if d == 0 { '`' } else { char::from(32 + d) });
            }
        }
        out.push('\n');
    }
    out + "`\nend\n"
}

impl Outer {
    /// The family's name in the tests' per-family tables.
    pub fn family(&self) -> &'static str {
        match self {
            Outer::Base64(..) => "base64",
            Outer::Base32(_) => "base32",
            Outer::Base58 => "base58",
            Outer::Hex(_) => "hex",
            Outer::Entities(_) => "entities",
            Outer::UEscape => "u_escape",
            Outer::XEscape => "x_escape",
            Outer::OctalEscape => "octal_escape",
            Outer::Percent => "percent",
            Outer::QuotedPrintable => "quoted_printable",
            Outer::Ascii85 => "ascii85",
            Outer::Uuencode => "uuencode",
            Outer::Compressed(k) => match k % 3 {
                0 => "gzip",
                1 => "zlib",
                _ => "xz",
            },
            Outer::Reversed => "reversed",
            Outer::Binary(_) => "binary",
            Outer::Octal => "octal",
            Outer::Decimal(_) => "decimal",
            Outer::CodePoints => "code_points",
        }
    }

    /// `text` encoded by this member.
    pub fn apply(&self, text: &str) -> String {
        let b = text.as_bytes();
        match *self {
            Outer::Base64(url, pre) => {
                const PREFIXES: [&str; 6] = ["", "n ", "no ", "not ", "note ", "note: "];
                let prefix = PREFIXES.get(pre % PREFIXES.len()).copied().unwrap_or("");
                let payload = format!("{prefix}{text}");
                if url {
                    URL_SAFE_NO_PAD.encode(payload)
                } else {
                    STANDARD.encode(payload)
                }
            }
            Outer::Base32(lower) => {
                let e = data_encoding::BASE32.encode(b);
                if lower {
                    e.to_lowercase()
                } else {
                    e
                }
            }
            Outer::Base58 => bs58::encode(b).into_string(),
            Outer::Hex(spaced) => {
                if spaced {
                    b.iter()
                        .map(|x| format!("{x:02X}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                } else {
                    hex::encode(b)
                }
            }
            Outer::Entities(hexa) => text
                .chars()
                .map(|c| {
                    if hexa {
                        format!("&#x{:x};", c as u32)
                    } else {
                        format!("&#{};", c as u32)
                    }
                })
                .collect(),
            Outer::UEscape => text.encode_utf16().map(|u| format!("\\u{u:04x}")).collect(),
            Outer::XEscape => b.iter().map(|x| format!("\\x{x:02x}")).collect(),
            Outer::OctalEscape => b.iter().map(|x| format!("\\{x:03o}")).collect(),
            Outer::Percent => b.iter().map(|x| format!("%{x:02X}")).collect(),
            Outer::QuotedPrintable => b.iter().map(|x| format!("={x:02X}")).collect(),
            Outer::Ascii85 => ascii85(b),
            Outer::Uuencode => uuencode(b),
            Outer::Compressed(k) => STANDARD.encode(compress(k, b)),
            Outer::Reversed => text.chars().rev().collect(),
            Outer::Binary(spaced) => {
                let bits: Vec<String> = b.iter().map(|x| format!("{x:08b}")).collect();
                bits.join(if spaced { " " } else { "" })
            }
            Outer::Octal => b
                .iter()
                .map(|x| format!("{x:03o}"))
                .collect::<Vec<_>>()
                .join(" "),
            Outer::Decimal(commas) => text
                .chars()
                .map(|c| (c as u32).to_string())
                .collect::<Vec<_>>()
                .join(if commas { ", " } else { " " }),
            Outer::CodePoints => text
                .chars()
                .map(|c| format!("U+{:04X}", c as u32))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

impl Rendering {
    /// `value` rendered: the character-level member, then each encoding.
    pub fn apply(&self, value: &str) -> String {
        let mut text = self
            .inner
            .as_ref()
            .map_or_else(|| value.to_owned(), |i| i.apply(value));
        for o in &self.outers {
            text = o.apply(&text);
        }
        text
    }

    /// Whether the matcher promises to find `value` under this rendering.
    pub fn eligible(&self, value: &str) -> bool {
        self.inner.as_ref().is_none_or(|i| i.eligible(value))
    }

    /// The families of its members, in order.
    pub fn families(&self) -> Vec<&'static str> {
        self.inner
            .iter()
            .map(Inner::family)
            .chain(self.outers.iter().map(Outer::family))
            .collect()
    }
}

/// Any character-level member, with random parameters.
pub fn inner() -> impl Strategy<Value = Inner> {
    prop_oneof![
        (0u8..26, 0u8..10).prop_map(|(l, d)| Inner::Caesar(l, d)),
        Just(Inner::Atbash),
        Just(Inner::Rot47),
        any::<u64>().prop_map(Inner::Leet),
        Just(Inner::Nato),
        (0usize..8).prop_map(Inner::Spelled),
        (0usize..7).prop_map(Inner::Spaced),
        any::<bool>().prop_map(Inner::Glyphs),
        Just(Inner::Fullwidth),
        Just(Inner::MathBold),
        Just(Inner::Homoglyphs),
        any::<u64>().prop_map(Inner::Case),
        Just(Inner::Morse),
        Just(Inner::WordsReversed),
        Just(Inner::UpsideDown),
    ]
}

/// Any encoding, with random parameters.
pub fn outer() -> impl Strategy<Value = Outer> {
    prop_oneof![
        (any::<bool>(), 0usize..6).prop_map(|(u, p)| Outer::Base64(u, p)),
        any::<bool>().prop_map(Outer::Base32),
        Just(Outer::Base58),
        any::<bool>().prop_map(Outer::Hex),
        any::<bool>().prop_map(Outer::Entities),
        Just(Outer::UEscape),
        Just(Outer::XEscape),
        Just(Outer::OctalEscape),
        Just(Outer::Percent),
        Just(Outer::QuotedPrintable),
        Just(Outer::Ascii85),
        Just(Outer::Uuencode),
        (0u8..3).prop_map(Outer::Compressed),
        Just(Outer::Reversed),
        any::<bool>().prop_map(Outer::Binary),
        Just(Outer::Octal),
        any::<bool>().prop_map(Outer::Decimal),
        Just(Outer::CodePoints),
    ]
}

/// One to three members: an optional character-level one, then up to two encodings.
pub fn rendering() -> impl Strategy<Value = Rendering> {
    (
        proptest::option::of(inner()),
        proptest::collection::vec(outer(), 0..=2),
    )
        .prop_filter("at least one member", |(i, o)| i.is_some() || !o.is_empty())
        .prop_map(|(inner, outers)| Rendering { inner, outers })
}

/// Renderings drawn per value by the property tests: `COSEC_RENDERING_CASES`, default 4
/// (the long runs in BENCHMARKS.md use more).
pub fn cases_per_value() -> u32 {
    std::env::var("COSEC_RENDERING_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4)
}

/// A runner drawing `cases` renderings from a fixed seed: the same renderings on every
/// run, so a family's figure only moves when the code under test does.
pub fn seeded_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}
