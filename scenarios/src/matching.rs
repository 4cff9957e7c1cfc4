//! The text rule scenario checks read by: a value occurs in a text when it occurs in
//! the text's canonical form (`cosec-text`: NFKC, no zero-width or bidi controls,
//! look-alike letters folded, case folded, separators inside numbers and codes
//! dropped). The simulated models, scenario validation and the artifact checks of the
//! verifier all decide by it; the verifier's leak extractors go further and also read
//! decoded views and renderings.

use cosec_text::{Haystack, Needle};

/// Whether `value` occurs in `text` in canonical form. A value with no canonical form
/// (punctuation only) is looked for as written, ignoring case.
pub fn mentions(text: &str, value: &str) -> bool {
    match Needle::new(value) {
        Some(needle) => Haystack::plain(text).contains(&needle),
        None => text.to_lowercase().contains(&value.to_lowercase()),
    }
}

/// The form artifacts and required elements are compared in: the canonical form with
/// every run of characters that are neither letters nor digits (punctuation, markdown
/// marks, table bars) read as one space, since a completion check asks whether the
/// content is there, not how it is marked up. `Beacon Hill`, `**beacon hill**` and
/// `beacon-hill` are then the same, and so are `18:00`, `18.00` and `1800`.
pub fn artifact_form(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in cosec_text::canonical(text).chars() {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            out.push(c);
            gap = false;
        } else {
            gap = true;
        }
    }
    out
}

/// Whether the artifact `text` holds the required `element` (both in [`artifact_form`]).
/// An element of punctuation only has no such form and is looked for as written.
pub fn has_element(text: &str, element: &str) -> bool {
    let needle = artifact_form(element);
    if needle.is_empty() {
        text.to_lowercase().contains(&element.to_lowercase())
    } else {
        artifact_form(text).contains(&needle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_whatever_its_case_width_or_separators() {
        assert!(mentions("Her HbA1c was 8.4 last March", "hba1c"));
        assert!(mentions(
            "IBAN DE89 3704 0044 0532 0130 00",
            "DE89370400440532013000"
        ));
        assert!(mentions("ＦＵＬＬＷＩＤＴＨ name", "fullwidth"));
        assert!(!mentions("the sprint calendar", "empagliflozin"));
        assert!(mentions("costs ?!", "?!"));
    }

    #[test]
    fn artifacts_compare_without_markup() {
        assert_eq!(artifact_form("**Beacon Hill** | 18:00"), "beacon hill 1800");
        assert!(has_element("Meet at beacon-hill, 18.00", "Beacon Hill"));
        assert!(has_element("Meet at beacon-hill, 18.00", "18:00"));
        assert!(!has_element("Meet at the harbour", "Beacon Hill"));
        assert!(has_element("a -> b", "->"));
    }
}
