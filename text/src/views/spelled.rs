//! English number words read as digits.
//!
//! A run of number words (joined by spaces, hyphens or `and`) becomes digits. Within a
//! run, words compose into one number where English composes them (`twenty five` is
//! 25, `four hundred twelve` is 412, `one thousand nine hundred` is 1900) and otherwise
//! start the next group of digits, which is written right after the previous one
//! (`four one two` is 412, `nineteen forty four` is 1944, `seventy three oh five` is
//! 7305). `oh` is a zero only next to another number word; `point` is a decimal point.

use crate::mapped::Mapped;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Zero,
    /// `oh`: a zero only inside a run.
    Oh,
    Unit(u64),
    Teen(u64),
    Tens(u64),
    Hundred,
    Thousand,
    Point,
}

fn word(w: &str) -> Option<Word> {
    const UNITS: [&str; 10] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    const TEENS: [&str; 10] = [
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let lower = w.to_ascii_lowercase();
    let l = lower.as_str();
    if l == "zero" || l == "nought" {
        return Some(Word::Zero);
    }
    if let Some(i) = UNITS.iter().position(|u| *u == l) {
        return Some(Word::Unit(i as u64));
    }
    if let Some(i) = TEENS.iter().position(|u| *u == l) {
        return Some(Word::Teen(10 + i as u64));
    }
    if let Some(i) = TENS.iter().position(|u| *u == l) {
        return Some(Word::Tens(20 + 10 * i as u64));
    }
    match l {
        "oh" => Some(Word::Oh),
        "hundred" => Some(Word::Hundred),
        "thousand" => Some(Word::Thousand),
        "point" => Some(Word::Point),
        _ => None,
    }
}

/// Whether `w` is a number word this view reads (any case).
pub(crate) fn is_number_word(w: &str) -> bool {
    word(w).is_some()
}

/// Composes a run of number words into digits.
#[derive(Default)]
struct Composer {
    out: String,
    high: u64,
    low: u64,
    open: bool,
    last: Option<Word>,
}

impl Composer {
    fn flush(&mut self) {
        if self.open {
            self.out.push_str(&(self.high + self.low).to_string());
        }
        self.high = 0;
        self.low = 0;
        self.open = false;
    }

    fn start(&mut self, low: u64) {
        self.flush();
        self.low = low;
        self.open = true;
    }

    fn after_scale(&self) -> bool {
        matches!(self.last, Some(Word::Hundred | Word::Thousand))
    }

    fn add(&mut self, w: Word) {
        match w {
            Word::Zero | Word::Oh => {
                self.flush();
                self.out.push('0');
            }
            Word::Unit(u) => {
                if self.open && (matches!(self.last, Some(Word::Tens(_))) || self.after_scale()) {
                    self.low += u;
                } else {
                    self.start(u);
                }
            }
            Word::Teen(v) | Word::Tens(v) => {
                if self.open && self.after_scale() {
                    self.low += v;
                } else {
                    self.start(v);
                }
            }
            Word::Hundred => {
                let composes = matches!(
                    self.last,
                    Some(Word::Unit(_) | Word::Teen(_) | Word::Tens(_))
                );
                if self.open && composes && self.low < 100 {
                    self.low *= 100;
                } else {
                    self.start(100);
                }
            }
            Word::Thousand => {
                if self.open && self.high == 0 && self.low > 0 {
                    self.high = self.low * 1000;
                    self.low = 0;
                } else {
                    self.start(0);
                    self.high = 1000;
                }
            }
            Word::Point => {
                self.flush();
                self.out.push('.');
            }
        }
        self.last = Some(w);
    }
}

/// Words of `s` (ASCII letter runs) with their byte ranges.
fn words(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in s.bytes().enumerate() {
        match (b.is_ascii_alphabetic(), start) {
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

/// Whether only spaces and hyphens lie between two words.
fn adjacent(s: &str, gap: Range<usize>) -> bool {
    s.get(gap)
        .is_some_and(|g| g.bytes().all(|b| b == b' ' || b == b'-'))
}

/// The text with every run of number words replaced by its digits; `None` when there
/// is no number word.
pub(super) fn digits(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    // Every ASCII word with its byte range and the number word it is, if any.
    let ws: Vec<(Range<usize>, Option<Word>)> = words(s)
        .into_iter()
        .map(|r| {
            let w = s.get(r.clone()).and_then(word);
            (r, w)
        })
        .collect();
    let is_number = |k: usize| ws.get(k).is_some_and(|(_, w)| w.is_some());
    let joined = |a: usize, b: usize| match (ws.get(a), ws.get(b)) {
        (Some((x, _)), Some((y, _))) => adjacent(s, x.end..y.start),
        _ => false,
    };
    let is_and = |k: usize| {
        ws.get(k)
            .and_then(|(r, _)| s.get(r.clone()))
            .is_some_and(|t| t.eq_ignore_ascii_case("and"))
    };
    // Runs of word indices: consecutive number words, `and` allowed between two.
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        if !is_number(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        while end < ws.len() && joined(end - 1, end) {
            if is_number(end) {
                end += 1;
            } else if is_and(end) && is_number(end + 1) && joined(end, end + 1) {
                end += 2;
            } else {
                break;
            }
        }
        runs.push(start..end);
        i = end;
    }
    let mut out = Mapped::with_capacity(s.len());
    let mut copied = 0;
    let mut any = false;
    for run in runs {
        let Some(run_words) = ws.get(run) else {
            continue;
        };
        let number_words: Vec<Word> = run_words.iter().filter_map(|(_, w)| *w).collect();
        if matches!(number_words.as_slice(), [Word::Oh | Word::Point]) {
            continue;
        }
        let (Some((first, _)), Some((last, _))) = (run_words.first(), run_words.last()) else {
            continue;
        };
        let span = first.start..last.end;
        let Some(before) = s.get(copied..span.start) else {
            continue;
        };
        let mut c = Composer::default();
        for w in number_words {
            c.add(w);
        }
        c.flush();
        for (i, ch) in before.char_indices() {
            out.push(ch, text.span_of(copied + i));
        }
        out.push_str(&c.out, text.source_span(span.clone()));
        copied = span.end;
        any = true;
    }
    if !any {
        return None;
    }
    for (i, ch) in s.get(copied..).unwrap_or_default().char_indices() {
        out.push(ch, text.span_of(copied + i));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> String {
        digits(&Mapped::identity(s))
            .map(|m| m.as_str().to_owned())
            .unwrap_or_else(|| s.to_owned())
    }

    #[test]
    fn number_words_table() {
        let table = [
            ("four one two", "412"),
            ("four hundred twelve", "412"),
            ("four hundred and twelve", "412"),
            ("Four-One-Two", "412"),
            ("nineteen forty four", "1944"),
            ("nineteen forty-four", "1944"),
            ("one thousand nine hundred forty four", "1944"),
            ("seventy three oh five", "7305"),
            ("twenty twenty four", "2024"),
            ("five thousand one", "5001"),
            ("eight point four", "8.4"),
            ("zero seven seven zero zero", "07700"),
            ("PF two two nine one", "PF 2291"),
            ("oh well", "oh well"),
            ("this one and that", "this 1 and that"),
            ("no numbers", "no numbers"),
        ];
        for (written, want) in table {
            assert_eq!(read(written), want, "{written:?}");
        }
    }

    #[test]
    fn digits_map_back_to_their_words() {
        let m = digits(&Mapped::identity("code: four one two.")).unwrap();
        assert_eq!(m.as_str(), "code: 412.");
        assert_eq!(m.source_span(6..9), 6..18);
    }
}
