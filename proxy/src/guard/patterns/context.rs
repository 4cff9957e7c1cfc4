//! The words of an object's content around a strong pattern, which a writer who cuts
//! the pattern into pieces carries along with them.
//!
//! A leak in pieces cuts what the writer holds (`cortisone injection on 18 Apr`), not
//! the guard's patterns (`cortisone`): a cut one letter before the end of the name
//! leaves a piece `e injection on` that is no piece of the name alone. The guard
//! therefore searches, for every occurrence of a code or name in its object's content,
//! the pieces of the clause around it that cut it ([`cosec_text::render::assemble`]'s
//! `Pieces::around`): at most [`CONTEXT_WORDS`] words and [`CONTEXT_BYTES`] bytes on
//! each side, never across the end of a sentence, a clause set off by `, ` or `; `, a
//! line or a bracket.

use std::ops::Range;

/// Most words of the content taken on each side of a pattern.
pub const CONTEXT_WORDS: usize = 5;
/// Most bytes of the content taken on each side of a pattern.
pub const CONTEXT_BYTES: usize = 32;

/// Whether the character at byte `i` of `text` ends a clause: a line break or a
/// bracket, or sentence and clause punctuation followed by a space or the end (so
/// `0.9`, `St.Anne` and `1,200` go on).
fn ends_clause(text: &str, i: usize, c: char) -> bool {
    match c {
        '\n' | '\r' | '(' | ')' | '[' | ']' | '{' | '}' | '"' | '“' | '”' => true,
        '.' | ';' | ':' | '!' | '?' | ',' => text
            .get(i + c.len_utf8()..)
            .and_then(|rest| rest.chars().next())
            .is_none_or(char::is_whitespace),
        _ => false,
    }
}

/// The byte range of `text` around `span`: the pattern with at most [`CONTEXT_WORDS`]
/// whole words and [`CONTEXT_BYTES`] bytes of its clause on each side.
pub(crate) fn around(text: &str, span: Range<usize>) -> Range<usize> {
    let (Some(before), Some(after)) = (text.get(..span.start), text.get(span.end..)) else {
        return span;
    };
    let clause_start = before
        .char_indices()
        .rev()
        .find(|&(i, c)| ends_clause(text, i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let clause_end = after
        .char_indices()
        .find(|&(i, c)| ends_clause(text, span.end + i, c))
        .map_or(text.len(), |(i, _)| span.end + i);
    // Whole words only: a boundary is where whitespace meets a word.
    let mut start = span.start;
    let mut words = 0;
    for (i, c) in before.char_indices().rev() {
        if i < clause_start || words == CONTEXT_WORDS {
            break;
        }
        let at_word_start = !c.is_whitespace()
            && text[..i]
                .chars()
                .next_back()
                .is_none_or(char::is_whitespace);
        if at_word_start {
            if span.start - i > CONTEXT_BYTES {
                break;
            }
            start = i;
            words += 1;
        }
    }
    let mut end = span.end;
    let mut words = 0;
    for (i, c) in after.char_indices() {
        let at = span.end + i;
        if at >= clause_end || words == CONTEXT_WORDS {
            break;
        }
        let next = at + c.len_utf8();
        let at_word_end = !c.is_whitespace()
            && text
                .get(next..clause_end)
                .is_none_or(|rest| rest.chars().next().is_none_or(char::is_whitespace));
        if at_word_end {
            if next - span.end > CONTEXT_BYTES {
                break;
            }
            end = next;
            words += 1;
        }
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(text: &str, pattern: &str) -> String {
        let start = text.find(pattern).unwrap();
        text[around(text, start..start + pattern.len())].to_owned()
    }

    #[test]
    fn takes_whole_words_of_the_clause_on_each_side() {
        let text = "the MRI on 3 Apr confirmed a tear; she had a cortisone injection on 18 Apr \
                    and her physio says no overhangs for six weeks.";
        assert_eq!(
            context(text, "cortisone"),
            "she had a cortisone injection on 18 Apr and"
        );
        assert_eq!(
            context(
                "I'm on ocrelizumab 600 mg and my last EDSS was 2.5. Board only",
                "600 mg"
            ),
            "I'm on ocrelizumab 600 mg and my last EDSS was"
        );
    }

    #[test]
    fn stops_at_clause_ends_but_not_inside_numbers_and_abbreviations() {
        assert_eq!(
            context("count is 0.9, so the hospital wants me away", "0.9"),
            "count is 0.9"
        );
        assert_eq!(
            context(
                "my transplant is at St. Anne's (ward 3) on Friday",
                "St. Anne"
            ),
            "my transplant is at St. Anne's"
        );
        assert_eq!(
            context("(Dana): Novorapid 2 units with lunch", "Novorapid"),
            "Novorapid 2 units with lunch"
        );
        assert_eq!(context("Novorapid", "Novorapid"), "Novorapid");
    }

    #[test]
    fn a_long_word_beyond_the_byte_bound_is_left_out() {
        assert_eq!(
            context(
                "supercalifragilisticexpialidocious123456 ABC-1234 ok",
                "ABC-1234"
            ),
            "ABC-1234 ok"
        );
    }
}
