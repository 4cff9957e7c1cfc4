//! The distinctive parts of an object's own content, as spans of its text that the
//! detector matches through the shared canonical form and decoding views
//! (`cosec-text`).
//!
//! Kinds, strongest first:
//! - [`PatternKind::Passage`]: a whole line or sentence of the content (at least
//!   [`MIN_PASSAGE_CHARS`] letters and digits), so that content copied into a context
//!   or an output is found as a whole.
//! - [`PatternKind::Code`]: a token with a digit (numbers, amounts, dates, codes,
//!   IBAN-like strings, ids). A *group* joins alphanumeric runs across one separator
//!   (`- . / _ , :`) or one space between two digits (`07700 900412`, `LAB-2025-0417`,
//!   `8.1%`); a group is also taken with the unit after it (written like an
//!   abbreviation: `96 bpm`, `3.2 mmol/L`; not `46 red`) or the label before it
//!   (`EDSS 2.5`), because short numbers are only distinctive with them. A *chain* joins code-like runs across one separator or space, trimmed
//!   to its runs with digits (an IBAN with or without its spaces). A digits-only token
//!   needs [`MIN_NUMBER_DIGITS`] digits.
//! - [`PatternKind::Name`]: a word or run of words shaped like a name, a drug or an
//!   abbreviation: an upper-case letter inside the word (`EpiPen`), four or more
//!   capitals (`ABVD`; not `EUR`), a run of two or more capitalised words not counting
//!   a sentence's first (`Keel Street Clinic`), or a long word that does not end like
//!   an ordinary English word (`levetiracetam`, `Halvorsen`; not `emergency`,
//!   `availability`).
//! - [`PatternKind::ShortCode`] (weak): a code of two letters and digits (`7B`, `Q1`).
//! - [`PatternKind::Phrase`] (weak): two content words in a row, possibly with one
//!   stop word between them (`home oxygen`, `due in October`), or a content word and a
//!   number, possibly with one stop word between them (`ferritin 9`, `14 weeks`,
//!   `EDSS is 2.5`).
//!
//! A weak pattern alone decides nothing: it is acted on only where a strong pattern of
//! the same object was denied in the same text or earlier to the same destination (see
//! [`super::redact`]). Percentages and amounts (`8.1%`, `£45`) are codes from two
//! digits; other numbers need four.
//!
//! Which patterns are kept is decided across the scenario's whole platform corpus by
//! [`super::detect::PatternLibrary`]: a pattern that also occurs in any text that is
//! not protected content is not distinctive and is dropped. What participants say in
//! their messages is not part of that corpus, so naming a thing never switches its
//! protection off.

use std::collections::BTreeMap;

pub(crate) mod context;

/// Fewest digits in a code token made of digits only (`999` and `250` are too common).
pub const MIN_NUMBER_DIGITS: usize = 4;
/// Fewest letters and digits in a code token.
pub const MIN_CODE_CHARS: usize = 3;
/// Letters in a word that may be distinctive on its own.
pub const LONG_WORD_CHARS: usize = 9;
/// Fewest letters and digits in a passage.
pub const MIN_PASSAGE_CHARS: usize = 24;
/// Currency signs that make a short number an amount.
const CURRENCY: &[char] = &['£', '€', '$', '¥'];
/// Titles that join the name after them across a full stop (`Dr. Halvorsen`).
const TITLES: &[&str] = &["Dr", "St", "Mt", "Mr", "Mrs", "Ms", "Prof"];
/// Separators that join two runs into one code token.
const JOINERS: &[char] = &['-', '.', '/', '_', ',', ':'];

/// Words too common to make a phrase distinctive.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "but", "by", "can", "could", "d", "did", "do", "does", "for", "from", "get",
    "go", "had", "has", "have", "he", "her", "here", "him", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "ll", "m", "me", "my", "no", "not", "of", "on", "or", "our", "out",
    "re", "s", "she", "so", "some", "t", "than", "that", "the", "their", "them", "then", "there",
    "they", "this", "to", "up", "us", "ve", "was", "we", "were", "what", "when", "which", "who",
    "will", "with", "would", "you", "your",
];

/// Endings of ordinary English words: a long word ending so is not a name.
const ORDINARY_ENDINGS: &[&str] = &[
    "tion", "sion", "ment", "ness", "ity", "ency", "ancy", "ance", "ence", "ing", "able", "ible",
    "ive", "ous", "ful", "less", "ers", "er", "ors", "ship", "ly", "ed", "ise", "ize", "ised",
    "ized",
];

/// Capitalised words that are not names (calendar words).
const CALENDAR_WORDS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// What kind of distinctive part a pattern is (recorded in the trace).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum PatternKind {
    /// A whole line or sentence of the object's content.
    Passage,
    /// A token with a digit.
    Code,
    /// A name, drug or abbreviation.
    Name,
    /// A code of two letters and digits (`7B`; weak).
    ShortCode,
    /// Two content words, or a word and a number (weak).
    Phrase,
}

impl PatternKind {
    /// Whether a match alone is enough to decide; weak kinds ([`PatternKind::ShortCode`],
    /// [`PatternKind::Phrase`]) are acted on only next to a strong match of their object.
    pub fn is_strong(self) -> bool {
        !matches!(self, PatternKind::ShortCode | PatternKind::Phrase)
    }
}

/// One alphanumeric run of the original text.
struct Run<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || c == '%'
}

fn runs(text: &str) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (is_token_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(Run {
                    text: &text[s..i],
                    start: s,
                    end: i,
                });
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Run {
            text: &text[s..],
            start: s,
            end: text.len(),
        });
    }
    out
}

fn is_stop(word: &str) -> bool {
    STOP_WORDS.contains(&word.to_lowercase().as_str())
}

/// Short calendar words, which follow numbers without making them distinctive.
const CALENDAR_SHORT: &[&str] = &[
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    "mon", "tue", "tues", "wed", "thu", "thur", "fri", "sat", "sun", "am", "pm",
];

/// Base units a metric prefix may precede (`mol` in `mmol`, `g` in `mg`).
const BASE_UNITS: &[&str] = &["g", "l", "m", "s", "mol", "eq", "iu", "hz", "pa"];

/// A unit after a number: a short run of letters written like an abbreviation, with no
/// vowel (`bpm`, `mmHg`), of one or two letters (`mg`, `km`), or a base unit with a
/// metric prefix (`mmol`, `mEq`). A short ordinary word (`46 red`, `30 blue`) is not
/// one, so a count in a restricted note is not taken for a measurement.
fn is_unit(run: &str) -> bool {
    let lower = run.to_lowercase();
    let abbreviation = run.chars().count() <= 2
        || !lower.contains(['a', 'e', 'i', 'o', 'u'])
        || ["", "m", "mm", "k", "c", "d", "n", "u", "µ", "mc"]
            .iter()
            .any(|p| {
                lower
                    .strip_prefix(p)
                    .is_some_and(|b| BASE_UNITS.contains(&b))
            });
    (1..=5).contains(&run.chars().count())
        && run.chars().all(char::is_alphabetic)
        && abbreviation
        && !is_stop(run)
        && !CALENDAR_SHORT.contains(&lower.as_str())
}

/// A label before a number: a short abbreviation (`EDSS`, `eGFR`, `HR`).
fn is_label(run: &str) -> bool {
    (2..=6).contains(&run.chars().count())
        && run.chars().all(char::is_alphabetic)
        && run.chars().filter(|c| c.is_uppercase()).count() >= 2
}

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_numeric())
}

fn code_like(run: &str) -> bool {
    has_digit(run) || (run.chars().count() >= 2 && run.chars().all(|c| c.is_uppercase()))
}

/// A word shaped like a name, drug or abbreviation wherever it stands.
fn is_name_shaped(word: &str) -> bool {
    let n = word.chars().count();
    let letters = word.chars().all(char::is_alphabetic);
    let upper = word.chars().filter(|c| c.is_uppercase()).count();
    let inner_upper = word.chars().skip(1).any(char::is_uppercase);
    let lower = word.to_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    let ordinary = ORDINARY_ENDINGS
        .iter()
        .any(|e| lower.ends_with(e) || singular.ends_with(e));
    letters
        && !is_stop(word)
        && ((n >= 3 && inner_upper && upper < n)
            || (n >= 4 && upper == n)
            || (n >= LONG_WORD_CHARS && !ordinary))
}

/// A capitalised word that names something (not a calendar word).
fn is_capitalised(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 3
        && word.chars().all(char::is_alphabetic)
        && !CALENDAR_WORDS.contains(&word.to_lowercase().as_str())
        && !is_stop(word)
}

/// Whether a run starts a sentence (nothing before it but space, or a sentence end).
fn starts_sentence(text: &str, run: &Run<'_>) -> bool {
    let before = text[..run.start].trim_end_matches(|c: char| c.is_whitespace() || c == '"');
    before.is_empty() || before.ends_with(['.', '!', '?', ':', '\n', '-', '*', '#'])
}

/// A clock time or a range of them (`9:30`, `10:00-13:00`).
fn is_clock_time(s: &str) -> bool {
    s.split(['-', '–']).all(|t| {
        let t = t.trim();
        let parts: Vec<&str> = t.split(':').collect();
        parts.len() == 2
            && parts
                .iter()
                .all(|p| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
    })
}

/// Whether two runs with `sep` between them belong to one group.
fn joins_group(sep: &str, left: &str, right: &str) -> bool {
    let mut chars = sep.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if JOINERS.contains(&c) => true,
        (Some(' '), None) => {
            left.chars().last().is_some_and(|c| c.is_numeric())
                && right.chars().next().is_some_and(|c| c.is_numeric())
        }
        _ => false,
    }
}

/// Whether two runs with `sep` between them belong to one chain.
fn joins_chain(sep: &str, left: &str, right: &str) -> bool {
    let mut chars = sep.chars();
    let single =
        matches!((chars.next(), chars.next()), (Some(c), None) if c == ' ' || JOINERS.contains(&c));
    single && code_like(left) && code_like(right)
}

/// The patterns found so far: original span text to kind (the strongest kind wins).
#[derive(Default)]
struct Found(BTreeMap<String, PatternKind>);

impl Found {
    fn add(&mut self, text: &str, kind: PatternKind) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let entry = self.0.entry(text.to_owned()).or_insert(kind);
        *entry = (*entry).min(kind);
    }

    fn add_code(&mut self, text: &str) {
        let alnum: Vec<char> = text.chars().filter(|c| c.is_alphanumeric()).collect();
        if !alnum.iter().any(|c| c.is_numeric()) {
            return;
        }
        let numeric = alnum.iter().all(|c| c.is_numeric());
        // A percentage or an amount is a number with its unit (`8.1%`, `£45`).
        let with_unit = text.ends_with('%') || text.starts_with(CURRENCY);
        let kind = match (numeric, alnum.len()) {
            (true, n) if n >= MIN_NUMBER_DIGITS || (with_unit && n >= 2) => PatternKind::Code,
            (true, _) => return,
            (false, n) if n >= MIN_CODE_CHARS => PatternKind::Code,
            (false, 2) => PatternKind::ShortCode,
            (false, _) => return,
        };
        self.add(text, kind);
    }
}

/// Splits runs into maximal sequences where each neighbour pair satisfies `joins`, and
/// adds each sequence that qualifies as a code token; a `chain` is trimmed to its runs
/// with digits and needs more than one run.
fn add_sequences(
    text: &str,
    runs: &[Run<'_>],
    joins: impl Fn(&str, &str, &str) -> bool,
    chain: bool,
    out: &mut Found,
) {
    let mut i = 0;
    while i < runs.len() {
        let mut j = i;
        while let (Some(a), Some(b)) = (runs.get(j), runs.get(j + 1)) {
            if !joins(&text[a.end..b.start], a.text, b.text) {
                break;
            }
            j += 1;
        }
        let mut lo = i;
        let mut hi = j;
        if chain {
            while lo < hi && !runs.get(lo).is_some_and(|r| has_digit(r.text)) {
                lo += 1;
            }
            while hi > lo && !runs.get(hi).is_some_and(|r| has_digit(r.text)) {
                hi -= 1;
            }
        }
        let seq = runs.get(lo..=hi).unwrap_or_default();
        let keep = !chain || (seq.len() > 1 && seq.iter().all(|r| code_like(r.text)));
        // Clock times and ranges of them (`10:30`, `10:00-13:00`) say nothing alone.
        let keep = keep
            && !seq
                .first()
                .zip(seq.last())
                .is_some_and(|(a, b)| is_clock_time(&text[a.start..b.end]));
        if let (true, Some(first), Some(last)) = (keep, seq.first(), seq.last()) {
            let start = text[..first.start]
                .strip_suffix(CURRENCY)
                .map_or(first.start, str::len);
            out.add_code(&text[start..last.end]);
            if !chain {
                let unit = runs.get(j + 1).filter(|u| {
                    &text[last.end..u.start] == " "
                        && last.text.ends_with(|c: char| c.is_numeric())
                        && is_unit(u.text)
                });
                if let Some(u) = unit {
                    let end = runs
                        .get(j + 2)
                        .filter(|v| &text[u.end..v.start] == "/" && is_unit(v.text))
                        .map_or(u.end, |v| v.end);
                    out.add_code(&text[first.start..end]);
                }
                let label = i.checked_sub(1).and_then(|k| runs.get(k)).filter(|l| {
                    &text[l.end..first.start] == " "
                        && first.text.starts_with(|c: char| c.is_numeric())
                        && is_label(l.text)
                });
                if let Some(l) = label {
                    out.add_code(&text[l.start..last.end]);
                }
                // A short code is distinctive with the word naming it (`ward 7B`).
                let short = text[start..last.end]
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .count()
                    == 2
                    && text[start..last.end].chars().any(char::is_alphabetic)
                    && has_digit(&text[start..last.end]);
                let named = i.checked_sub(1).and_then(|k| runs.get(k)).filter(|w| {
                    short
                        && &text[w.end..first.start] == " "
                        && w.text.chars().count() >= 3
                        && w.text.chars().all(char::is_alphabetic)
                        && !is_stop(w.text)
                });
                if let Some(w) = named {
                    out.add(&text[w.start..last.end], PatternKind::Code);
                }
            }
        }
        i = j + 1;
    }
    for run in runs {
        if run.text.chars().filter(|c| c.is_numeric()).count() >= 6 {
            out.add_code(run.text);
        }
    }
}

/// Names: name-shaped words, and runs of capitalised words not opening a sentence
/// (`Keel Street Clinic`), joined across single spaces.
fn add_names(text: &str, runs: &[Run<'_>], out: &mut Found) {
    let mut i = 0;
    while let Some(run) = runs.get(i) {
        if is_name_shaped(run.text) {
            out.add(run.text, PatternKind::Name);
        }
        if let Some(next) = runs.get(i + 1).filter(|n| {
            TITLES.contains(&run.text) && &text[run.end..n.start] == ". " && is_capitalised(n.text)
        }) {
            out.add(&text[run.start..next.end], PatternKind::Name);
        }
        if !is_capitalised(run.text) {
            i += 1;
            continue;
        }
        let mut j = i;
        while let (Some(a), Some(b)) = (runs.get(j), runs.get(j + 1)) {
            if &text[a.end..b.start] != " " || !is_capitalised(b.text) {
                break;
            }
            j += 1;
        }
        let opens = starts_sentence(text, run);
        // A sentence's first word is capitalised anyway, and a single capitalised word
        // is mostly a person's first name, which replies use freely: a name is a run
        // of at least two capitalised words not counting a sentence's first.
        let from = if opens { i + 1 } else { i };
        if from < j {
            if let (Some(a), Some(b)) = (runs.get(from), runs.get(j)) {
                out.add(&text[a.start..b.end], PatternKind::Name);
            }
        }
        i = j + 1;
    }
}

/// Phrases: two content words in a row, or with one stop word between them, or a
/// content word and a number next to each other (`ferritin 9`, `14 weeks`).
fn add_phrases(text: &str, runs: &[Run<'_>], out: &mut Found) {
    for pair in runs.windows(2) {
        let [a, b] = pair else { continue };
        if &text[a.end..b.start] != " " {
            continue;
        }
        let word = |r: &Run<'_>| {
            r.text.chars().count() >= 4
                && r.text.chars().all(char::is_alphabetic)
                && !is_stop(r.text)
        };
        let number = |r: &Run<'_>| r.text.chars().all(|c| c.is_ascii_digit());
        if (word(a) && number(b)) || (number(a) && word(b)) {
            out.add(&text[a.start..b.end], PatternKind::Phrase);
        }
    }
    // A content word, a stop word, then a number with its decimals (`EDSS is 2.5`,
    // `ferritin was 9`): the measure and its value read as one phrase.
    for triple in runs.windows(3) {
        let [a, b, c] = triple else { continue };
        let spaced = |x: &Run<'_>, y: &Run<'_>| text.get(x.end..y.start) == Some(" ");
        let word = a.text.chars().count() >= 4
            && a.text.chars().all(char::is_alphabetic)
            && !is_stop(a.text);
        if !(word
            && is_stop(b.text)
            && c.text.chars().all(|ch| ch.is_ascii_digit())
            && spaced(a, b)
            && spaced(b, c))
        {
            continue;
        }
        let rest = text.get(c.end..).unwrap_or("");
        let decimals = rest
            .strip_prefix(['.', ','])
            .map(|r| r.chars().take_while(char::is_ascii_digit).count())
            .filter(|n| *n > 0)
            .map_or(0, |n| n + 1);
        if let Some(phrase) = text.get(a.start..c.end + decimals) {
            out.add(phrase, PatternKind::Phrase);
        }
    }
    let words: Vec<&Run<'_>> = runs
        .iter()
        .filter(|r| r.text.chars().all(char::is_alphabetic))
        .collect();
    let adjacent = |a: &Run<'_>, b: &Run<'_>| {
        let sep = &text[a.end..b.start];
        !sep.is_empty() && sep.chars().all(|c| c == ' ' || c == '-')
    };
    for (k, a) in words.iter().enumerate() {
        if is_stop(a.text) || a.text.chars().count() < 3 {
            continue;
        }
        let Some(b) = words.get(k + 1) else {
            continue;
        };
        if !adjacent(a, b) {
            continue;
        }
        if !is_stop(b.text) && b.text.chars().count() >= 3 {
            out.add(&text[a.start..b.end], PatternKind::Phrase);
        } else if let Some(c) = words.get(k + 2) {
            if adjacent(b, c) && !is_stop(c.text) && c.text.chars().count() >= 3 {
                out.add(&text[a.start..c.end], PatternKind::Phrase);
            }
        }
    }
}

/// Passages: the lines of the content, and the sentences of long lines.
fn add_passages(text: &str, out: &mut Found) {
    let long = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_PASSAGE_CHARS;
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['-', '*', '#', '>']).trim();
        if long(line) {
            out.add(line, PatternKind::Passage);
        }
        for sentence in line.split_inclusive(['.', '!', '?', ';']) {
            if long(sentence) && sentence.len() < line.len() {
                out.add(sentence, PatternKind::Passage);
            }
        }
    }
}

/// Every pattern of a text: its original spelling and its kind.
pub(crate) fn text_patterns(text: &str) -> BTreeMap<String, PatternKind> {
    let runs = runs(text);
    let mut out = Found::default();
    add_passages(text, &mut out);
    add_sequences(text, &runs, joins_group, false, &mut out);
    add_sequences(text, &runs, joins_chain, true, &mut out);
    add_names(text, &runs, &mut out);
    add_phrases(text, &runs, &mut out);
    out.0
}

#[cfg(test)]
mod tests;
