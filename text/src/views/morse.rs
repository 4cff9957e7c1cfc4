//! Morse code read back as letters and digits: letters separated by spaces, words by
//! `/`, `|` or several spaces; dots written `.`, `·` or `•`, dashes `-`, `_`, `–` or `−`.
//! The rendering families search the values in this reading of every reading (a
//! projection, so it applies under any depth of decoding views).

use crate::mapped::Mapped;

/// Fewest Morse letters in a run read back (a shorter run is any dotted line).
const MIN_LETTERS: usize = 3;

/// International Morse code of `a` to `z`, then `0` to `9`.
const CODES: [(&str, char); 36] = [
    (".-", 'a'),
    ("-...", 'b'),
    ("-.-.", 'c'),
    ("-..", 'd'),
    (".", 'e'),
    ("..-.", 'f'),
    ("--.", 'g'),
    ("....", 'h'),
    ("..", 'i'),
    (".---", 'j'),
    ("-.-", 'k'),
    (".-..", 'l'),
    ("--", 'm'),
    ("-.", 'n'),
    ("---", 'o'),
    (".--.", 'p'),
    ("--.-", 'q'),
    (".-.", 'r'),
    ("...", 's'),
    ("-", 't'),
    ("..-", 'u'),
    ("...-", 'v'),
    (".--", 'w'),
    ("-..-", 'x'),
    ("-.--", 'y'),
    ("--..", 'z'),
    ("-----", '0'),
    (".----", '1'),
    ("..---", '2'),
    ("...--", '3'),
    ("....-", '4'),
    (".....", '5'),
    ("-....", '6'),
    ("--...", '7'),
    ("---..", '8'),
    ("----.", '9'),
];

fn symbol(c: char) -> Option<char> {
    match c {
        '.' | '·' | '•' | '∙' => Some('.'),
        '-' | '_' | '–' | '−' | '—' => Some('-'),
        _ => None,
    }
}

fn letter(code: &str) -> Option<char> {
    CODES.iter().find(|(m, _)| *m == code).map(|(_, c)| *c)
}

/// The text with every run of Morse letters read back; `None` when there is none.
pub(crate) fn morse(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    if !s.contains(['.', '-', '·', '•', '_', '–', '−', '—', '∙']) {
        return None;
    }
    // Tokens: maximal runs of dots and dashes, with their byte ranges.
    let mut tokens: Vec<(usize, usize, String)> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    for (i, c) in s.char_indices() {
        match (symbol(c), &mut cur) {
            (Some(m), Some((_, code))) => code.push(m),
            (Some(m), None) => cur = Some((i, m.to_string())),
            (None, Some(_)) => {
                if let Some((start, code)) = cur.take() {
                    tokens.push((start, i, code));
                }
            }
            (None, None) => {}
        }
    }
    if let Some((start, code)) = cur.take() {
        tokens.push((start, s.len(), code));
    }
    // Runs of consecutive letters: between two tokens only spaces, or a word break.
    let mut out = Mapped::with_capacity(s.len());
    let mut copied = 0;
    let mut found = false;
    let mut k = 0;
    while k < tokens.len() {
        let mut run: Vec<(usize, usize, char, bool)> = Vec::new();
        let mut j = k;
        while let Some((start, end, code)) = tokens.get(j) {
            let Some(c) = letter(code) else { break };
            let word_break = run.last().is_some_and(|(_, prev_end, _, _)| {
                let gap = s.get(*prev_end..*start).unwrap_or("");
                gap.contains(['/', '|']) || gap.len() >= 3
            });
            if let Some((_, prev_end, _, _)) = run.last() {
                let gap = s.get(*prev_end..*start).unwrap_or("x");
                let joined = gap.chars().all(|g| g == ' ' || g == '/' || g == '|');
                if !joined || gap.is_empty() {
                    break;
                }
            }
            run.push((*start, *end, c, word_break));
            j += 1;
        }
        if run.len() >= MIN_LETTERS {
            if let (Some(first), Some(last)) = (run.first(), run.last()) {
                out.append(&slice(text, copied, first.0));
                for (start, end, c, word_break) in &run {
                    if *word_break {
                        out.push(' ', text.source_span(*start..*start));
                    }
                    out.push(*c, text.source_span(*start..*end));
                }
                copied = last.1;
                found = true;
            }
            k = j;
        } else {
            k += 1;
        }
    }
    if !found {
        return None;
    }
    out.append(&slice(text, copied, s.len()));
    Some(out)
}

/// Bytes `from..to` of `text`, keeping their spans.
fn slice(text: &Mapped, from: usize, to: usize) -> Mapped {
    let s = text.as_str();
    let mut m = Mapped::with_capacity(to.saturating_sub(from));
    if let Some(part) = s.get(from..to) {
        for (i, c) in part.char_indices() {
            m.push(c, text.span_of(from + i));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<String> {
        morse(&Mapped::identity(s)).map(|m| m.as_str().to_owned())
    }

    #[test]
    fn morse_reads_back() {
        assert_eq!(
            read("Code: .--. ..-. / ..--- ..--- ----. .---- done").as_deref(),
            Some("Code: pf 2291 done")
        );
        assert_eq!(read("·–· · –··").as_deref(), Some("red"));
        assert_eq!(read("Meet at 10.30 - bring a map..."), None);
        assert_eq!(read("a - b - c"), None);
    }
}
