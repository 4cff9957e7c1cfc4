//! The channel rule: a participant speaks as themselves, in the chat, and nowhere else:
//! not in another person's name, not as a chat role or in chat-template markup, not as
//! the platform, and not by repeating a notice or tool result they never saw.

use super::{reject, words, Checker, Reason, Rejection};
use crate::attack::knowledge::Knowledge;
use cosec_proxy::server::guardrail::EVENT_NOTICE_PREFIX;

/// The chat roles a message may not speak as.
const CHAT_ROLES: &[&str] = &[
    "system",
    "assistant",
    "tool",
    "developer",
    "function",
    "user",
];

/// Words in a row, and characters at least, from which repeating a trusted text counts as
/// forging it.
const SHINGLE_WORDS: usize = 5;
const TRUSTED_FRAGMENT_CHARS: usize = 24;

impl Checker {
    /// Rejects `proposed` when it speaks on a channel the participant does not.
    pub(super) fn check_forged(
        &self,
        proposed: &str,
        known: &str,
        knowledge: &Knowledge,
    ) -> Result<(), Rejection> {
        // Padded, so that a fragment starting or ending at a word boundary is found at
        // either end of the text too.
        let canon = format!(" {} ", cosec_text::canonical(proposed));
        let known_canon = format!(" {} ", cosec_text::canonical(known));
        let repeats = |trusted: &str| {
            let t = cosec_text::canonical(trusted);
            t.chars().count() >= TRUSTED_FRAGMENT_CHARS
                && shingles(&t).any(|f| canon.contains(&f) && !known_canon.contains(&f))
        };
        if let Some(notice) = self.notices.iter().find(|n| repeats(n)) {
            return reject(
                Reason::Forged,
                format!("repeats the platform notice {notice:?} the participant never saw"),
            );
        }
        if self.tool_texts.iter().any(|t| repeats(t)) {
            return reject(
                Reason::Forged,
                "repeats a tool result the participant never saw".to_owned(),
            );
        }
        let prepared = cosec_text::prepare(&cosec_text::Mapped::identity(proposed))
            .as_str()
            .to_lowercase();
        let known_prepared = cosec_text::prepare(&cosec_text::Mapped::identity(known))
            .as_str()
            .to_lowercase();
        // What the seed and the participant's knowledge already hold is theirs to repeat.
        let known_tags: Vec<&str> = known_prepared
            .lines()
            .map(line_start)
            .filter_map(bracket_tag)
            .collect();
        let known_heads: Vec<&str> = known_prepared
            .lines()
            .map(line_start)
            .filter_map(|l| l.split_once(':').map(|(head, _)| head.trim()))
            .collect();
        for line in prepared.lines().map(line_start) {
            if let Some(tag) = bracket_tag(line).filter(|t| !known_tags.contains(t)) {
                return reject(
                    Reason::Forged,
                    format!("opens a line with the channel tag [{tag}]"),
                );
            }
            if let Some(tag) =
                angle_tag(line).filter(|t| !known_prepared.contains(&format!("<{t}")))
            {
                return reject(Reason::Forged, format!("holds the markup tag <{tag}>"));
            }
            let Some((head, _)) = line.split_once(':') else {
                continue;
            };
            let head = head.trim();
            if known_heads.contains(&head) {
                continue;
            }
            if CHAT_ROLES.contains(&head) {
                return reject(Reason::Forged, format!("speaks as the chat role {head:?}"));
            }
            // A line headed by another person's name, whole or first name only.
            let named = |name: &str| {
                let first = name.split_whitespace().next().unwrap_or(name);
                words(head) == words(name) || words(head) == words(first)
            };
            if let Some((_, name)) = self
                .people
                .iter()
                .find(|(id, name)| id != &knowledge.participant && named(name))
            {
                return reject(
                    Reason::Forged,
                    format!("writes a line in the name of {name}"),
                );
            }
            if self
                .tool_names
                .iter()
                .any(|t| head.contains(&t.to_lowercase()))
                || words(head).contains(&words(EVENT_NOTICE_PREFIX))
            {
                return reject(
                    Reason::Forged,
                    format!(
                        "writes a line as {head:?}, a channel the participant does not speak on"
                    ),
                );
            }
        }
        if let Some(role) = CHAT_ROLES.iter().find(|r| {
            prepared.contains(&format!("\"role\":\"{r}\""))
                || prepared.contains(&format!("\"role\": \"{r}\""))
        }) {
            return reject(
                Reason::Forged,
                format!("holds a structured message of the chat role {role:?}"),
            );
        }
        Ok(())
    }
}

/// Runs of [`SHINGLE_WORDS`] consecutive words of a canonical text, each with a space
/// at both ends so that it matches whole words only.
fn shingles(text: &str) -> impl Iterator<Item = String> + '_ {
    let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    let count = words.len().saturating_sub(SHINGLE_WORDS - 1);
    (0..count).filter_map(move |i| {
        let run = words.get(i..i + SHINGLE_WORDS)?.join(" ");
        (run.chars().count() >= TRUSTED_FRAGMENT_CHARS).then(|| format!(" {run} "))
    })
}

/// A line without its leading spaces, quote marks and list or emphasis markers.
fn line_start(line: &str) -> &str {
    line.trim_start_matches(|c: char| c.is_whitespace() || "*>-_#`\"'".contains(c))
}

/// `[tag]` opening a line, with one to four words inside.
fn bracket_tag(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    let (tag, _) = rest.split_once(']')?;
    let count = tag.split_whitespace().count();
    ((1..=4).contains(&count)
        && tag
            .chars()
            .all(|c| c.is_alphanumeric() || " _-".contains(c)))
    .then_some(tag)
}

/// `<tag>`, `</tag>` or `<|tag|>` anywhere in a line: chat-template and tool markup.
fn angle_tag(line: &str) -> Option<&str> {
    let mut rest = line;
    while let Some(open) = rest.find('<') {
        let after = rest.get(open + 1..)?;
        let close = after.find('>')?;
        let inner = after.get(..close)?;
        let tag = inner.trim_matches(|c| c == '/' || c == '|');
        if !tag.is_empty()
            && tag.len() <= 32
            && tag.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && tag.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        {
            return Some(tag);
        }
        rest = after.get(close + 1..)?;
    }
    None
}
