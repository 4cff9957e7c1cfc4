//! Views that rewrite the whole text character by character.

use crate::mapped::Mapped;

/// Rotates ASCII letters by 13; `None` when the text has no ASCII letter.
pub(super) fn rot13(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    if !s.bytes().any(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let mut out = Mapped::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let r = match c {
            'a'..='z' => rotate(c, b'a'),
            'A'..='Z' => rotate(c, b'A'),
            _ => c,
        };
        out.push(r, text.span_of(i));
    }
    Some(out)
}

fn rotate(c: char, base: u8) -> char {
    let offset = (c as u8).wrapping_sub(base);
    char::from(base + (offset + 13) % 26)
}

/// The characters in reverse order; `None` for texts shorter than two characters.
pub(super) fn reversed(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    s.chars().nth(1)?;
    let mut out = Mapped::with_capacity(s.len());
    for (i, c) in s.char_indices().rev() {
        out.push(c, text.span_of(i));
    }
    Some(out)
}

/// Upside-down letters and digits, and the letter each stands for when turned back.
const UPSIDE_DOWN: &[(char, char)] = &[
    ('ɐ', 'a'),
    ('ɔ', 'c'),
    ('ǝ', 'e'),
    ('ɟ', 'f'),
    ('ƃ', 'g'),
    ('ɥ', 'h'),
    ('ı', 'i'),
    ('ɾ', 'j'),
    ('ʞ', 'k'),
    ('ן', 'l'),
    ('ɯ', 'm'),
    ('ɹ', 'r'),
    ('ʇ', 't'),
    ('ʌ', 'v'),
    ('ʍ', 'w'),
    ('ʎ', 'y'),
    ('∀', 'A'),
    ('Ɔ', 'C'),
    ('Ǝ', 'E'),
    ('Ⅎ', 'F'),
    ('⅁', 'G'),
    ('ſ', 'J'),
    ('˥', 'L'),
    ('Ԁ', 'P'),
    ('⊥', 'T'),
    ('∩', 'U'),
    ('Λ', 'V'),
    ('⅄', 'Y'),
    ('Ɩ', '1'),
    ('ᄅ', '2'),
    ('Ɛ', '3'),
    ('ㄣ', '4'),
    ('ϛ', '5'),
    ('ㄥ', '7'),
];

/// The character an upside-down glyph stands for (`ɐ` for `a`).
pub(super) fn turned_back(c: char) -> Option<char> {
    UPSIDE_DOWN.iter().find(|(u, _)| *u == c).map(|(_, l)| *l)
}

/// Whether `c` is a glyph of text turned upside down, a letter's or a sign's.
pub(crate) fn is_flipped(c: char) -> bool {
    turned_back(c).is_some() || matches!(c, 'ᴚ' | '˙' | '¿' | '¡')
}

/// Text turned upside down (each character flipped, the order reversed) turned back;
/// `None` unless it holds a flipped letter or digit. Characters that read the same
/// both ways (`o s x z`) stay, and the pairs that swap (`b q`, `d p`, `n u`, `6 9`,
/// `M W`) swap back.
pub(super) fn upside_down(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    let flipped = |c: char| UPSIDE_DOWN.iter().find(|(u, _)| *u == c).map(|(_, l)| *l);
    if !s.chars().any(|c| flipped(c).is_some()) {
        return None;
    }
    let mut out = Mapped::with_capacity(s.len());
    for (i, c) in s.char_indices().rev() {
        let turned = flipped(c).unwrap_or(match c {
            'b' => 'q',
            'q' => 'b',
            'd' => 'p',
            'p' => 'd',
            'n' => 'u',
            'u' => 'n',
            '6' => '9',
            '9' => '6',
            'M' => 'W',
            'W' => 'M',
            'ᴚ' => 'R',
            '˙' => '.',
            '\'' => ',',
            '¿' => '?',
            '¡' => '!',
            c => c,
        });
        out.push(turned, text.span_of(i));
    }
    Some(out)
}

/// Markdown markup characters anywhere in a line.
fn is_markup(c: char) -> bool {
    matches!(c, '|' | '*' | '_' | '`' | '~')
}

/// Markdown markup characters only where a line starts (headings, quotes): inside a
/// line they belong to the text (`#G-114`).
fn is_line_markup(c: char) -> bool {
    matches!(c, '#' | '>')
}

/// Whether a line is a table's header rule (`|---|:---:|`).
fn is_table_rule(line: &str) -> bool {
    let t = line.trim();
    t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Markdown markup replaced by spaces and table rules dropped, so table cells and
/// emphasised words read as plain text; `None` when there is no markup.
pub(super) fn markdown(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    let starts_marked = s
        .lines()
        .any(|l| l.trim_start().starts_with(is_line_markup));
    if !s.chars().any(is_markup) && !starts_marked {
        return None;
    }
    let mut out = Mapped::with_capacity(s.len());
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        if is_table_rule(line) {
            out.push('\n', text.span_of(offset));
        } else {
            let mut at_start = true;
            for (i, c) in line.char_indices() {
                let line_markup = at_start && is_line_markup(c);
                let markup = is_markup(c) || line_markup;
                at_start = line_markup || (at_start && c.is_whitespace());
                out.push(if markup { ' ' } else { c }, text.span_of(offset + i));
            }
        }
        offset += line.len();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rot13_and_reversal_keep_spans() {
        let m = Mapped::identity("Ab-1");
        let r = rot13(&m).unwrap();
        assert_eq!(r.as_str(), "No-1");
        let v = reversed(&m).unwrap();
        assert_eq!(v.as_str(), "1-bA");
        assert_eq!(v.source_span(3..4), 0..1);
    }

    #[test]
    fn table_cells_read_as_text() {
        let m = Mapped::identity("| Drug | Dose |\n|---|:---:|\n| **metformin** | 500 mg |\n");
        let md = markdown(&m).unwrap();
        assert_eq!(crate::canonical(md.as_str()), "drug dose metformin500mg");
        assert!(markdown(&Mapped::identity("no markup here")).is_none());
        let heading = markdown(&Mapped::identity("## Codes\n| #G | 114 |")).unwrap();
        assert_eq!(crate::canonical(heading.as_str()), "codes #g114");
    }
}
