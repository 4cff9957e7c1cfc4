//! Character-level family members: ciphers, substitution classes, spellings, spacings.

use crate::canon::Needle;
use crate::render::{bits, MIN_BITS, MIN_LEET_BITS, MIN_ROT47_CHARS, MIN_SHIFT_BITS};

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
