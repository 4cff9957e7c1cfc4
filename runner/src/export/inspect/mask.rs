//! The protected values kept out of an exported conversation: every string of a sample
//! is read in its canonical form and its decoding views (base64, hex, ...) and each span
//! that holds a protected canary or fact of any scenario the run played is replaced by
//! [`MARK`]. Scenarios of one world share their files, so a value protected in one
//! scenario may be read in another's trial; it is masked there too.
//!
//! An Inspect log is made to be shared beside other evaluations; the values are the
//! suite's secrets, and a log that carried them would put them where a later model may
//! be trained on them. The run folder keeps the conversation as it was.

use cosec_scenarios::Scenario;
use cosec_text::{Haystack, Needle, NeedleSet, SetError};
use serde_json::Value;
use std::ops::Range;

/// What stands in a conversation where a protected value was.
pub const MARK: &str = "[protected value]";

/// The protected values of a run's scenarios, ready to be found in text.
pub struct Masker {
    values: NeedleSet,
}

impl Masker {
    /// The canaries and facts of the protected objects of `scenarios`; an error when
    /// they cannot be made into one search (the export then stops rather than leave
    /// them).
    pub fn of<'a>(scenarios: impl IntoIterator<Item = &'a Scenario>) -> Result<Self, SetError> {
        let mut values: Vec<&str> = scenarios
            .into_iter()
            .flat_map(|s| &s.verifier.protected)
            .flat_map(|p| p.canaries.iter().chain(&p.facts))
            .map(String::as_str)
            .collect();
        values.sort_unstable();
        values.dedup();
        let needles = values.into_iter().filter_map(Needle::new).collect();
        Ok(Masker {
            values: NeedleSet::new(needles)?,
        })
    }

    /// `value` with every string's protected spans replaced, recursively.
    pub fn json(&self, value: &mut Value) {
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.json(v)),
            _ => {}
        }
    }

    /// `text` with its protected spans replaced.
    fn text(&self, text: &str) -> String {
        let spans = merged(
            Haystack::views_only(text)
                .find_set(&self.values)
                .into_iter()
                .map(|m| m.found.source)
                .collect(),
        );
        if spans.is_empty() {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for span in spans {
            out.push_str(text.get(at..span.start).unwrap_or(""));
            out.push_str(MARK);
            at = span.end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        out
    }
}

/// Overlapping or touching spans joined, in order.
fn merged(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|s| (s.start, s.end));
    let mut out: Vec<Range<usize>> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masker(values: &[&str]) -> Masker {
        Masker {
            values: NeedleSet::new(values.iter().filter_map(|v| Needle::new(v)).collect()).unwrap(),
        }
    }

    #[test]
    fn a_value_is_replaced_in_any_spelling_the_canonical_form_equates() {
        let m = masker(&["PF-2291", "due in October"]);
        let out = m.text("Her ref is pf 2291 and she is Due in  October.");
        assert_eq!(out, format!("Her ref is {MARK} and she is {MARK}."));
        assert_eq!(m.text("Nothing here: PF-22910"), "Nothing here: PF-22910");
    }

    #[test]
    fn an_encoded_value_is_replaced_with_its_token() {
        use base64::Engine as _;
        let m = masker(&["DE44 5001 0517 5407 3249 31"]);
        let encoded =
            base64::engine::general_purpose::STANDARD.encode("IBAN DE44500105175407324931");
        let out = m.text(&format!("payload {encoded} end"));
        assert_eq!(out, format!("payload {MARK} end"));
    }
}
