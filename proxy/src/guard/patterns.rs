//! The distinctive parts of an object's own content: code tokens, word shingles and
//! rare words.
//!
//! *Code tokens* are tokens containing a digit (numbers, amounts, dates, codes,
//! IBAN-like strings, ids), compacted to their letters and digits (at least
//! [`MIN_CODE_CHARS`], or [`MIN_NUMBER_DIGITS`] for digits only), matched on the
//! compact view. A *group* joins alphanumeric runs across one separator
//! (`- . / _ , :`) or one space between two digits (`07700 900412`, `LAB-2025-0417`,
//! `1,240.50`, `8.1%`); a group is also taken with the unit after it or the label
//! before it (`96 bpm`, `3.2 mmol/L`, `EDSS 2.5`). A *chain* joins code-like runs
//! (with a digit, or upper-case) across one separator or space and is trimmed to its
//! runs with digits (`IBAN GB29 NWBK 6016 1331 9268 19` gives `gb29nwbk6016...`, so
//! the IBAN is found with or without its spaces). A *long number* is any run of at
//! least [`LONG_NUMBER_DIGITS`] digits on its own.
//! *Shingles* are [`SHINGLE_WORDS`] consecutive words (all of a shorter object, from
//! three words), kept only with at least two words that are not stop words; *rare
//! words* are single words of at least [`RARE_WORD_CHARS`] letters or shaped like a
//! name or abbreviation (`EpiPen`, `ABVD`). Both are matched on the word view.
//! Patterns also found in the trial's non-sensitive text are dropped by the library.

use super::normalize::{compact, is_token_char, words};
use std::collections::BTreeSet;

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 3;
/// Shortest object (in words) that still yields one shingle of all its words.
const MIN_SHINGLE_WORDS: usize = 3;
/// Letters in a word that is distinctive on its own.
pub const RARE_WORD_CHARS: usize = 9;
/// Fewest digits in a code token made of digits only (`999` and `250` are too common).
pub const MIN_NUMBER_DIGITS: usize = 4;
/// Fewest letters and digits in a code token.
pub const MIN_CODE_CHARS: usize = 2;
/// Digits in a run that is distinctive on its own.
pub const LONG_NUMBER_DIGITS: usize = 6;
/// Separators that join two runs into one code token.
const JOINERS: &[char] = &['-', '.', '/', '_', ',', ':'];

/// Words too common to make a shingle distinctive on their own.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "but", "by", "can", "could", "d", "did", "do", "does", "for", "from", "get",
    "go", "had", "has", "have", "he", "her", "here", "him", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "ll", "m", "me", "my", "no", "not", "of", "on", "or", "our", "out",
    "re", "s", "she", "so", "some", "t", "than", "that", "the", "their", "them", "then", "there",
    "they", "this", "to", "up", "us", "ve", "was", "we", "were", "what", "when", "which", "who",
    "will", "with", "would", "you", "your",
];

/// The patterns of one text, in normalised form.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TextPatterns {
    /// Word shingles, padded (` w1 w2 w3 w4 w5 `).
    pub shingles: BTreeSet<String>,
    /// Code tokens, compacted.
    pub codes: BTreeSet<String>,
}

/// One alphanumeric run of the original text.
struct Run<'a> {
    text: &'a str,
    start: usize,
    end: usize,
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

/// A unit after a number: a short run of letters (`mg`, `bpm`, `mmol`, `km`).
fn is_unit(run: &str) -> bool {
    (1..=4).contains(&run.chars().count())
        && run.chars().all(char::is_alphabetic)
        && !STOP_WORDS.contains(&run.to_lowercase().as_str())
}

/// A label before a number: a short abbreviation (`EDSS`, `eGFR`, `HR`).
fn is_label(run: &str) -> bool {
    (2..=6).contains(&run.chars().count())
        && run.chars().all(char::is_alphabetic)
        && run.chars().filter(|c| c.is_uppercase()).count() >= 2
}

/// A word distinctive on its own: long, or shaped like a name or an abbreviation
/// (`belimumab`, `EpiPen`, `ABVD`); those also found in non-sensitive text are dropped
/// later with every other common pattern.
fn is_rare_word(run: &str) -> bool {
    let n = run.chars().count();
    let upper = run.chars().filter(|c| c.is_uppercase()).count();
    let inner_upper = run.chars().skip(1).any(char::is_uppercase);
    let mixed = inner_upper && upper < n;
    run.chars().all(char::is_alphabetic)
        && !STOP_WORDS.contains(&run.to_lowercase().as_str())
        && (n >= RARE_WORD_CHARS || (n >= 3 && mixed) || (n >= 4 && upper == n))
}

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_numeric())
}

fn code_like(run: &str) -> bool {
    has_digit(run) || (run.chars().count() >= 2 && run.chars().all(|c| c.is_uppercase()))
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

/// Splits runs into maximal sequences where each neighbour pair satisfies `joins`, and
/// adds the compact form of each sequence that qualifies as a code token; a `chain`
/// is trimmed to its runs with digits and needs more than one run.
fn add_sequences(
    text: &str,
    runs: &[Run<'_>],
    joins: impl Fn(&str, &str, &str) -> bool,
    chain: bool,
    out: &mut BTreeSet<String>,
) {
    let mut i = 0;
    while i < runs.len() {
        let mut j = i;
        while j + 1 < runs.len()
            && joins(
                &text[runs[j].end..runs[j + 1].start],
                runs[j].text,
                runs[j + 1].text,
            )
        {
            j += 1;
        }
        let mut seq = &runs[i..=j];
        // A chain starts and ends on runs with digits (`IBAN GB29 ...` is `GB29 ...`).
        while chain && seq.len() > 1 && !has_digit(seq[0].text) {
            seq = &seq[1..];
        }
        while chain && seq.len() > 1 && !has_digit(seq[seq.len() - 1].text) {
            seq = &seq[..seq.len() - 1];
        }
        let keep = !chain || (seq.len() > 1 && seq.iter().all(|r| code_like(r.text)));
        if keep {
            let (first, last) = (&seq[0], &seq[seq.len() - 1]);
            let mut add = |start: usize, end: usize| {
                let token = compact(&text[start..end]);
                let numeric = token.chars().all(|c| c.is_numeric());
                let min = if numeric {
                    MIN_NUMBER_DIGITS
                } else {
                    MIN_CODE_CHARS
                };
                if token.chars().count() >= min && has_digit(&token) {
                    out.insert(token);
                }
            };
            add(first.start, last.end);
            if !chain {
                // A number with its unit (`96 bpm`, `3.2 mmol/L`) or its label
                // (`EDSS 2.5`): short numbers are only distinctive together with them.
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
                    add(first.start, end);
                }
                let label = i.checked_sub(1).and_then(|k| runs.get(k)).filter(|l| {
                    &text[l.end..first.start] == " "
                        && first.text.starts_with(|c: char| c.is_numeric())
                        && is_label(l.text)
                });
                if let Some(l) = label {
                    add(l.start, last.end);
                }
            }
        }
        i = j + 1;
    }
}

/// The code tokens of a text.
pub(crate) fn code_tokens(text: &str) -> BTreeSet<String> {
    let runs = runs(text);
    let mut out = BTreeSet::new();
    add_sequences(text, &runs, joins_group, false, &mut out);
    add_sequences(text, &runs, joins_chain, true, &mut out);
    for run in &runs {
        if run.text.chars().filter(|c| c.is_numeric()).count() >= LONG_NUMBER_DIGITS {
            out.insert(compact(run.text));
        }
    }
    out
}

fn distinctive(window: &[String]) -> bool {
    window
        .iter()
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .count()
        >= 2
}

/// The word shingles of a text, padded with a space on each side.
pub(crate) fn shingles(text: &str) -> BTreeSet<String> {
    let words = words(text);
    let mut out: BTreeSet<String> = runs(text)
        .iter()
        .filter(|run| is_rare_word(run.text))
        .map(|run| format!(" {} ", run.text.to_lowercase()))
        .collect();
    let mut add = |window: &[String]| {
        if distinctive(window) {
            out.insert(format!(" {} ", window.join(" ")));
        }
    };
    if words.len() < SHINGLE_WORDS {
        if words.len() >= MIN_SHINGLE_WORDS {
            add(&words);
        }
    } else {
        for window in words.windows(SHINGLE_WORDS) {
            add(window);
        }
    }
    out
}

/// Every pattern of a text.
pub(crate) fn text_patterns(text: &str) -> TextPatterns {
    TextPatterns {
        shingles: shingles(text),
        codes: code_tokens(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<String> {
        code_tokens(text).into_iter().collect()
    }

    #[test]
    fn groups_join_separators_and_digit_spaces() {
        let c =
            codes("Ingrid's number is 07700 900412. Ref LAB-2025-0417, paid 1,240.50 on 2 Jan.");
        assert!(c.contains(&"07700900412".to_owned()), "{c:?}");
        assert!(c.contains(&"lab20250417".to_owned()), "{c:?}");
        assert!(c.contains(&"124050".to_owned()), "{c:?}");
        assert!(c.contains(&"900412".to_owned()), "{c:?}");
        // Single digits and plain words are not code tokens.
        assert!(
            !c.iter().any(|t| t == "2" || t == "jan" || t == "ref"),
            "{c:?}"
        );
    }

    #[test]
    fn short_numbers_keep_their_units_and_labels() {
        let c = codes("resting HR 96 bpm, glucose 3.2 mmol/L, EDSS 2.5 since May");
        for t in ["96bpm", "32mmoll", "edss25"] {
            assert!(c.contains(&t.to_owned()), "{t}: {c:?}");
        }
        assert!(!c.contains(&"96".to_owned()));
    }

    #[test]
    fn iban_chain_is_one_token_too() {
        let c = codes("paid to IBAN GB29 NWBK 6016 1331 9268 19 today");
        assert!(c.contains(&"gb29nwbk60161331926819".to_owned()), "{c:?}");
        assert!(c.contains(&"gb29".to_owned()), "{c:?}");
        assert!(c.contains(&"60161331926819".to_owned()), "{c:?}");
    }

    #[test]
    fn shingles_need_two_content_words() {
        let s = shingles("and it is in the garden shed behind the old mill");
        assert!(!s.contains(" and it is "));
        assert!(s.contains(" garden shed behind "));
        let short = shingles("kidney transplant scheduled");
        assert!(
            short.contains(" kidney transplant scheduled ") && short.contains(" transplant "),
            "{short:?}"
        );
        assert!(shingles("given EpiPen and ABVD").contains(" epipen "));
        assert!(!shingles("paid in EUR").contains(" eur "));
        assert!(shingles("at the").is_empty());
    }
}
