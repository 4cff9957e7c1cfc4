//! Letter and digit glyphs that NFKC leaves alone: negative and sans-serif circled
//! digits, negative circled and squared letters, regional indicator letters, keycap
//! marks, small capitals and the decimal digits of other scripts. [`crate::prepare`]
//! reads them as the ASCII letters and digits they show.

/// Small capitals, `a` to `z` (`x` has none; the ASCII letter stands in).
const SMALL_CAPS: [char; 26] = [
    'ᴀ', 'ʙ', 'ᴄ', 'ᴅ', 'ᴇ', 'ꜰ', 'ɢ', 'ʜ', 'ɪ', 'ᴊ', 'ᴋ', 'ʟ', 'ᴍ', 'ɴ', 'ᴏ', 'ᴘ', 'ǫ', 'ʀ', 'ꜱ',
    'ᴛ', 'ᴜ', 'ᴠ', 'ᴡ', 'x', 'ʏ', 'ᴢ',
];

/// First code point of each run of ten decimal digits (zero to nine) of other scripts.
const DIGIT_ZEROS: &[u32] = &[
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0xA620, 0xA8D0,
    0xA900, 0xA9D0, 0xAA50, 0xABF0,
];

const NUMBERS: [&str; 21] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
    "17", "18", "19", "20",
];

fn number(n: u32) -> Option<&'static str> {
    NUMBERS.get(usize::try_from(n).ok()?).copied()
}

fn letter(offset: u32) -> Option<&'static str> {
    const LETTERS: [&str; 26] = [
        "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R",
        "S", "T", "U", "V", "W", "X", "Y", "Z",
    ];
    LETTERS.get(usize::try_from(offset).ok()?).copied()
}

/// What the glyph `c` shows, when NFKC does not say: `Some("")` for marks that only
/// decorate (the keycap).
pub(crate) fn fold(c: char) -> Option<&'static str> {
    let u = u32::from(c);
    let lower_letter = |i: usize| -> Option<&'static str> {
        const L: [&str; 26] = [
            "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q",
            "r", "s", "t", "u", "v", "w", "x", "y", "z",
        ];
        L.get(i).copied()
    };
    match u {
        0x20E3 | 0xFE0E | 0xFE0F => Some(""),
        0x2776..=0x277F => number(u - 0x2776 + 1),
        0x2780..=0x2789 => number(u - 0x2780 + 1),
        0x278A..=0x2793 => number(u - 0x278A + 1),
        0x24EB..=0x24F4 => number(u - 0x24EB + 11),
        0x24F5..=0x24FE => number(u - 0x24F5 + 1),
        0x24FF | 0x1F10B | 0x1F10C => Some("0"),
        0x1F51F => Some("10"),
        0x1F150..=0x1F169 => letter(u - 0x1F150),
        0x1F170..=0x1F189 => letter(u - 0x1F170),
        0x1F1E6..=0x1F1FF => letter(u - 0x1F1E6),
        _ => {
            if let Some(i) = SMALL_CAPS.iter().position(|&s| s == c && s != 'x') {
                return lower_letter(i);
            }
            DIGIT_ZEROS
                .iter()
                .find(|&&z| (z..z + 10).contains(&u))
                .and_then(|&z| number(u - z))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glyphs_read_as_ascii() {
        let table = [
            ("❶❷➌", "123"),
            ("4\u{FE0F}\u{20E3}1\u{20E3}", "41"),
            ("🅿🅵 🇵🇫", "PF PF"),
            ("ᴘꜰ-٢٢٩١", "pf-2291"),
            ("२२९१ ২২৯১", "2291 2291"),
        ];
        for (w, want) in table {
            let got = crate::prepare(&crate::Mapped::identity(w));
            assert_eq!(got.as_str(), want, "{w}");
        }
    }
}
