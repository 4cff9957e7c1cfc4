//! Checks on policy text made before Cedar sees it: Cedar's parser recurses once per
//! level of nesting, so a deeply nested expression would overflow the stack and abort
//! the process instead of being reported.

use crate::diagnostic::{line_col, Diagnostic, Severity};
use std::path::Path;

/// Deepest nesting of `(`, `[` and `{` accepted in a policy file. Real policies stay
/// far below (the built-in ones reach 4); Cedar's parser needs a few kilobytes of stack
/// per level in a debug build, so this stays safe on a 2 MiB thread.
pub const MAX_NESTING: usize = 64;

/// Most `if` keywords in one policy file: `if a then b else if ...` nests without any
/// bracket, and each `if` is one more level of Cedar's recursion.
pub const MAX_CONDITIONALS: usize = 256;

/// Most arithmetic operators (`+`, `-`, `*`) in one policy file: `1 + 1 + ...` is
/// parsed as one more level of recursion per operator.
pub const MAX_ARITHMETIC: usize = 1024;

/// The first place where `src` nests deeper than [`MAX_NESTING`] (or holds more than
/// [`MAX_CONDITIONALS`] `if` expressions or [`MAX_ARITHMETIC`] arithmetic operators),
/// as an error diagnostic; strings and `//` comments are skipped.
pub(crate) fn too_deep(file: &Path, src: &str) -> Option<Diagnostic> {
    let mut depth = 0usize;
    let mut conditionals = 0usize;
    let mut arithmetic = 0usize;
    let mut chars = src.char_indices().peekable();
    let mut previous_is_word = false;
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                skip_string(&mut chars);
                previous_is_word = false;
                continue;
            }
            '/' if chars.peek().map(|&(_, n)| n) == Some('/') => {
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                }
                previous_is_word = false;
                continue;
            }
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(error(
                        file,
                        src,
                        at,
                        format!("brackets nest deeper than {MAX_NESTING} levels"),
                        "split the condition into several `when` clauses or policies, \
                         or remove redundant parentheses",
                    ));
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '+' | '-' | '*' => {
                arithmetic += 1;
                if arithmetic > MAX_ARITHMETIC {
                    return Some(error(
                        file,
                        src,
                        at,
                        format!("more than {MAX_ARITHMETIC} arithmetic operators in one file"),
                        "compute such values outside the policy and compare with the result",
                    ));
                }
            }
            'i' if !previous_is_word && is_if_keyword(src, at) => {
                conditionals += 1;
                if conditionals > MAX_CONDITIONALS {
                    return Some(error(
                        file,
                        src,
                        at,
                        format!("more than {MAX_CONDITIONALS} `if` expressions in one file"),
                        "replace chains of `if ... then ... else` with `&&`/`||` conditions \
                         or several policies",
                    ));
                }
            }
            _ => {}
        }
        previous_is_word = c.is_alphanumeric() || c == '_';
    }
    None
}

/// Moves past a string literal whose opening quote was just read (backslash escapes
/// included); an unterminated string runs to the end, where Cedar reports it.
fn skip_string(chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>) {
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return,
            _ => {}
        }
    }
}

/// Whether the word starting at byte `at` is exactly `if`.
fn is_if_keyword(src: &str, at: usize) -> bool {
    let rest = src.get(at..).unwrap_or_default();
    rest.starts_with("if")
        && !rest
            .get(2..)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

fn error(file: &Path, src: &str, at: usize, message: String, help: &str) -> Diagnostic {
    let (line, column) = line_col(src, at);
    Diagnostic {
        file: file.to_owned(),
        policy_id: None,
        line: Some(line),
        column: Some(column),
        severity: Severity::Error,
        message,
        help: Some(help.to_owned()),
    }
}

/// Whether `src` holds nothing but whitespace and `//` comments.
pub(crate) fn is_blank(src: &str) -> bool {
    src.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with("//")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(src: &str) -> Option<Diagnostic> {
        too_deep(Path::new("p.cedar"), src)
    }

    #[test]
    fn reports_the_first_bracket_past_the_limit_with_its_location() {
        let src = format!(
            "permit(principal, action, resource)\nwhen {{ {} }};",
            "(".repeat(70)
        );
        let d = check(&src).expect("too deep");
        // `{` is level 1, so the 64th `(` is level 65.
        assert_eq!((d.line, d.column), (Some(2), Some(8 + 63)));
        assert!(d.to_string().contains("64"), "{d}");
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let deep = "(".repeat(500);
        let src = format!(
            "// {deep}\npermit(principal, action, resource) when {{ resource.name == \"{deep}\\\"{deep}\" }};"
        );
        assert_eq!(check(&src), None);
    }

    #[test]
    fn long_if_chains_are_refused_but_words_containing_if_are_not() {
        let chain = "if true then true else ".repeat(300);
        assert!(check(&format!(
            "permit(principal, action, resource) when {{ {chain} true }};"
        ))
        .is_some());
        let words = "principal.ifx == principal.gif && ".repeat(300);
        assert_eq!(
            check(&format!(
                "permit(principal, action, resource) when {{ {words} true }};"
            )),
            None
        );
    }

    #[test]
    fn blank_means_only_whitespace_and_comments() {
        assert!(is_blank(""));
        assert!(is_blank("  \n// nothing here\n\t// still nothing\n"));
        assert!(!is_blank("// a rule\nforbid(principal, action, resource);"));
    }

    #[test]
    fn long_arithmetic_chains_are_refused() {
        let chain = " + 1".repeat(MAX_ARITHMETIC + 1);
        let d = check(&format!(
            "permit(principal, action, resource) when {{ 1{chain} == 2 }};"
        ));
        assert!(d.is_some_and(|d| d.message.contains("arithmetic")));
        let chain = " + 1".repeat(MAX_ARITHMETIC);
        assert_eq!(
            check(&format!(
                "permit(principal, action, resource) when {{ 1{chain} == 2 }};"
            )),
            None
        );
    }

    proptest! {
        /// Nesting at or under the limit passes; one level more is caught at the
        /// bracket that crosses it.
        #[test]
        fn the_limit_is_exact(depth in 1usize..=MAX_NESTING + 8, noise in "[a-z \n]{0,20}") {
            let src = format!("{noise}{}x{}", "(".repeat(depth), ")".repeat(depth));
            let found = check(&src);
            prop_assert_eq!(found.is_some(), depth > MAX_NESTING);
        }
    }
}
