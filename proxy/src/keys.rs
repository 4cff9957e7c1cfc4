//! Keeping API keys out of everything the proxy writes or answers.
//!
//! An upstream that rejects a key often echoes it, whole or masked in its own way
//! (`sk-SECRE...-123`, `sk-proj-****abcd`). [`scrub`] masks every token of a text that
//! shares five or more consecutive characters with a known key, every `sk-` token and
//! every `Bearer` credential, so that no more than four characters of a key survive in
//! a trace, a log, a result or a client's error.

use std::collections::HashSet;

/// What a masked token becomes.
pub const MASK: &str = "***";

/// The shortest run of a key's characters that counts as part of it.
const WINDOW: usize = 5;

/// Whether a character continues a credential-like token.
fn in_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '*' | '~' | '+' | '/' | '=')
}

/// `text` with every key of `keys` masked, whole or in part, and every `sk-` token and
/// `Bearer` credential masked too.
pub fn scrub(text: &str, keys: &[&str]) -> String {
    let keys: Vec<&str> = keys
        .iter()
        .map(|k| k.trim())
        .filter(|k| !k.is_empty())
        .collect();
    let mut text = text.to_owned();
    // Keys too short for a window are replaced where they occur whole.
    for key in keys.iter().filter(|k| k.chars().count() < WINDOW) {
        text = text.replace(key, MASK);
    }
    let windows: HashSet<Vec<char>> = keys
        .iter()
        .flat_map(|k| {
            let chars: Vec<char> = k.chars().collect();
            chars
                .windows(WINDOW)
                .map(<[char]>::to_vec)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut token = String::new();
    let mut after_bearer = false;
    let flush = |token: &mut String, out: &mut String, after_bearer: &mut bool| {
        if token.is_empty() {
            return;
        }
        let chars: Vec<char> = token.chars().collect();
        let secret = *after_bearer
            || token.starts_with("sk-")
            || chars.windows(WINDOW).any(|w| windows.contains(w));
        *after_bearer = token.eq_ignore_ascii_case("bearer");
        out.push_str(if secret { MASK } else { token.as_str() });
        token.clear();
    };
    for c in text.chars() {
        if in_token(c) {
            token.push(c);
        } else {
            flush(&mut token, &mut out, &mut after_bearer);
            // `Bearer <credential>`: only spaces may separate the two.
            if c != ' ' {
                after_bearer = false;
            }
            out.push(c);
        }
    }
    flush(&mut token, &mut out, &mut after_bearer);
    out
}

/// The credential of an `Authorization` header value (without `Bearer `).
pub fn credential(header: &str) -> &str {
    let header = header.trim();
    match header.split_once(' ') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("bearer") => rest.trim(),
        _ => header,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_masked_whole_and_in_part() {
        let key = "sk-Zq8vXw3TnR5yLp2M";
        let other = "Kx7Wq2Zr9Vb4Nm6Jt1Hs";
        let text = format!(
            "Incorrect API key provided: {key}. Also sk-Zq8vX...Lp2M, Kx7Wq2...t1Hs and \
             Authorization: Bearer {other}; the key ends in p2M."
        );
        let out = scrub(&text, &[key, other]);
        for k in [key, other] {
            let chars: Vec<char> = k.chars().collect();
            for w in chars.windows(WINDOW) {
                let w: String = w.iter().collect();
                assert!(!out.contains(&w), "{w} in {out}");
            }
        }
        // A trailing period is taken into the masked token.
        assert!(
            out.starts_with("Incorrect API key provided: *** Also"),
            "{out}"
        );
        assert!(out.contains("Bearer ***"), "{out}");
        assert!(out.ends_with("the key ends in p2M."), "{out}");
        // Unknown keys of the usual shapes are masked too.
        assert_eq!(
            scrub("bad key sk-proj-abc and Bearer xyz123", &[]),
            "bad key *** and Bearer ***"
        );
        assert_eq!(scrub("short k1 key", &["k1"]), "short *** key");
        assert_eq!(credential("Bearer sk-a"), "sk-a");
        assert_eq!(credential("sk-a"), "sk-a");
    }
}
