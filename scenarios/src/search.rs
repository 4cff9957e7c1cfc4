//! The rules of the tool shim's `search` and seeded lookup tools: which paragraphs a
//! query finds, how they rank and how much of each is shown, and which observations a
//! lookup's argument triggers. The shim serves by these rules and scenario validation
//! replays them, so both agree on what a search or lookup hands the agent.
//!
//! Search is a case-insensitive word search over paragraphs (blank-line separated).
//! Paragraphs are ranked by how many distinct query words they contain.

/// At most this many hits are returned.
pub const MAX_HITS: usize = 20;
/// Snippets longer than this many characters are cut.
pub const MAX_SNIPPET: usize = 600;
/// Words too common to search for on their own.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "me", "my",
    "of", "on", "or", "our", "the", "to", "was", "what", "with", "you", "your",
];

/// Lower-cased alphanumeric words of a text.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The words of a query worth searching for (all of them if every word is common).
pub fn query_words(query: &str) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for w in words(query) {
        if !unique.contains(&w) {
            unique.push(w);
        }
    }
    let kept: Vec<String> = unique
        .iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    if kept.is_empty() {
        unique
    } else {
        kept
    }
}

/// A text word matches a query word when equal, or when it starts with a query word of
/// four letters or more (so `allerg` finds `allergy`, `invoice` finds `invoices`).
fn word_matches(text_word: &str, query_word: &str) -> bool {
    text_word == query_word
        || (query_word.chars().count() >= 4 && text_word.starts_with(query_word))
}

/// The non-empty paragraphs of a text, in order.
pub fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    text.split("\n\n").filter(|p| !p.trim().is_empty())
}

/// How many of `query_words` a paragraph contains; 0 means it is not a hit.
pub fn score(paragraph: &str, query_words: &[String]) -> usize {
    let pwords = words(paragraph);
    query_words
        .iter()
        .filter(|q| pwords.iter().any(|w| word_matches(w, q)))
        .count()
}

/// The part of a paragraph a hit shows: trimmed, cut to [`MAX_SNIPPET`] characters.
pub fn snippet(paragraph: &str) -> String {
    let t = paragraph.trim();
    if t.chars().count() <= MAX_SNIPPET {
        return t.to_owned();
    }
    let mut s: String = t.chars().take(MAX_SNIPPET).collect();
    s.push_str(" ...");
    s
}

/// One paragraph a search finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit<'a> {
    /// Index of the file it is in, among the files searched.
    pub file: usize,
    /// How many distinct query words it contains.
    pub score: usize,
    /// The whole paragraph (the agent is shown its [`snippet`]).
    pub paragraph: &'a str,
}

/// Every paragraph of `files` that `query_words` find, best first; among equal scores,
/// files keep their order and paragraphs theirs. The caller shows at most [`MAX_HITS`].
pub fn ranked<'a>(files: &[&'a str], query_words: &[String]) -> Vec<Hit<'a>> {
    let mut hits: Vec<Hit<'a>> = Vec::new();
    for (file, text) in files.iter().enumerate() {
        for paragraph in paragraphs(text) {
            let score = score(paragraph, query_words);
            if score > 0 {
                hits.push(Hit {
                    file,
                    score,
                    paragraph,
                });
            }
        }
    }
    // A stable sort keeps the file and paragraph order among equal scores.
    hits.sort_by_key(|h| std::cmp::Reverse(h.score));
    hits
}

/// Whether a lookup with `argument` returns the observation seeded under `trigger`: the
/// trigger occurs in the argument, case-insensitively; an empty trigger never fires.
pub fn triggers(trigger: &str, argument: &str) -> bool {
    !trigger.is_empty() && argument.to_lowercase().contains(&trigger.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_are_dropped_unless_nothing_else_is_left() {
        assert_eq!(query_words("What is my allergy plan"), ["allergy", "plan"]);
        assert_eq!(query_words("what is it"), ["what", "is", "it"]);
    }

    #[test]
    fn paragraphs_rank_by_distinct_query_words_with_prefixes_from_four_letters() {
        let q = query_words("allerg plan");
        assert_eq!(score("Allergy PLAN for Leo", &q), 2);
        assert_eq!(score("allergies only", &q), 1);
        assert_eq!(score("plans", &query_words("pla")), 0);
        assert_eq!(score("cart", &query_words("car")), 0);
        assert_eq!(score("car", &query_words("car")), 1);
        assert_eq!(paragraphs("a\n\n \n\nb").collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn hits_rank_best_first_and_keep_file_order_among_equals() {
        let files = ["plan for Leo\n\nallergy plan", "allergy notes"];
        let hits = ranked(&files, &query_words("allergy plan"));
        let found: Vec<(usize, usize, &str)> = hits
            .iter()
            .map(|h| (h.file, h.score, h.paragraph))
            .collect();
        assert_eq!(
            found,
            [
                (0, 2, "allergy plan"),
                (0, 1, "plan for Leo"),
                (1, 1, "allergy notes")
            ]
        );
    }

    #[test]
    fn a_lookup_fires_on_its_trigger_anywhere_in_the_argument_in_any_case() {
        assert!(triggers(
            "Release-Signing Key",
            "rotate the release-signing KEY now"
        ));
        assert!(!triggers("signing key", "rotation dates"));
        assert!(!triggers("", "anything"));
    }

    #[test]
    fn long_paragraphs_are_cut() {
        let long = "x".repeat(MAX_SNIPPET + 5);
        let cut = snippet(&long);
        assert!(cut.ends_with(" ..."));
        assert_eq!(cut.chars().count(), MAX_SNIPPET + 4);
        assert_eq!(snippet("  short  "), "short");
    }
}
