//! `search(query)` over the agent half and the scenario's seeded lookup tools.
//!
//! Search is a case-insensitive word search over paragraphs (blank-line separated) of
//! every file the agent may reach, private memory included. Paragraphs are ranked by how
//! many distinct query words they contain; each hit names its file.

use super::files::{all_files, MAX_FILE_BYTES};
use super::{Call, Outcome};
use cosec_scenarios::agent::SeededTool;
use cosec_scenarios::ObjectId;

/// At most this many hits are returned.
const MAX_HITS: usize = 20;
/// Snippets longer than this are cut.
const MAX_SNIPPET: usize = 600;
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
fn query_words(query: &str) -> Vec<String> {
    let all = words(query);
    let mut unique: Vec<String> = Vec::new();
    for w in all {
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

struct Hit {
    score: usize,
    path: String,
    snippet: String,
    objects: Vec<ObjectId>,
}

fn cut(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() <= MAX_SNIPPET {
        return t.to_owned();
    }
    let mut s: String = t.chars().take(MAX_SNIPPET).collect();
    s.push_str(" ...");
    s
}

/// `search(query)`.
pub(crate) fn search(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let query = call.arg("query")?;
    let qwords = query_words(&query);
    if qwords.is_empty() {
        return Err("the query has no words to search for".to_owned());
    }
    let mut hits: Vec<Hit> = Vec::new();
    for (key, full) in all_files(&call.trial.agent_root) {
        let too_big = std::fs::metadata(&full).map_or(true, |m| m.len() > MAX_FILE_BYTES);
        if too_big {
            continue;
        }
        let Ok(bytes) = std::fs::read(&full) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for paragraph in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
            let pwords = words(paragraph);
            let score = qwords
                .iter()
                .filter(|q| pwords.iter().any(|w| word_matches(w, q)))
                .count();
            if score == 0 {
                continue;
            }
            let snippet = cut(paragraph);
            // Whether or not it was cut, the snippet hands out part of the paragraph.
            let objects = call.index.objects_in(Some(&key), paragraph, true);
            hits.push(Hit {
                score,
                path: key.clone(),
                snippet,
                objects,
            });
        }
    }
    if hits.is_empty() {
        return Ok(format!("No matches for \"{query}\"."));
    }
    // Stable sort keeps the path order among equal scores.
    hits.sort_by_key(|h| std::cmp::Reverse(h.score));
    let total = hits.len();
    let shown: Vec<Hit> = hits.into_iter().take(MAX_HITS).collect();
    let mut text = if total > MAX_HITS {
        format!("{total} matches for \"{query}\" (showing the best {MAX_HITS}):")
    } else {
        format!(
            "{total} match{} for \"{query}\":",
            if total == 1 { "" } else { "es" }
        )
    };
    for hit in shown {
        text.push_str(&format!("\n\n[{}]\n{}", hit.path, hit.snippet));
        out.served(hit.objects);
    }
    Ok(text)
}

/// A seeded lookup tool: every observation whose trigger occurs in the argument
/// (case-insensitively), else the tool's empty result.
pub(crate) fn seeded_tool(
    call: &Call<'_>,
    tool: &SeededTool,
    out: &mut Outcome,
) -> Result<String, String> {
    let value = match call.arg(&tool.argument) {
        Ok(v) => v,
        // Models sometimes rename the single argument; accept one lone string under any name.
        Err(missing) => {
            let strings: Vec<&str> = call
                .args
                .as_object()
                .map(|m| m.values().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            match strings.as_slice() {
                [only] => (*only).to_owned(),
                _ => return Err(missing),
            }
        }
    };
    let needle = value.to_lowercase();
    let matches: Vec<_> = call
        .index
        .observations
        .get(&tool.name)
        .map(|obs| {
            obs.iter()
                .filter(|o| !o.trigger.is_empty() && needle.contains(&o.trigger))
                .collect()
        })
        .unwrap_or_default();
    if matches.is_empty() {
        return Ok(tool.empty_result.clone());
    }
    out.served(matches.iter().map(|o| o.object.clone()));
    Ok(matches
        .iter()
        .map(|o| o.content.as_str())
        .collect::<Vec<_>>()
        .join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_drop_common_words_unless_nothing_else_is_left() {
        assert_eq!(
            query_words("What is my Allergy plan?"),
            vec!["allergy", "plan"]
        );
        assert_eq!(query_words("the"), vec!["the"]);
    }

    #[test]
    fn long_query_words_match_as_prefixes_short_ones_exactly() {
        assert!(word_matches("allergy", "allerg"));
        assert!(!word_matches("cart", "car"));
        assert!(word_matches("car", "car"));
    }
}
