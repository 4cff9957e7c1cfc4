//! Views that flatten structured text (JSON, CSV) to the text of its cells.

use crate::mapped::Mapped;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::ops::Range;

/// The string and number leaves of a JSON document, in document order (object keys
/// are left out: they name cells, they are not cell text).
struct Leaves(Vec<String>);

impl<'de> Deserialize<'de> for Leaves {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LeafVisitor).map(Leaves)
    }
}

struct LeafVisitor;

impl<'de> Visitor<'de> for LeafVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(vec![v.to_owned()])
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(vec![v])
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(vec![v.to_string()])
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(vec![v.to_string()])
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(vec![v.to_string()])
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Leaves(mut l)) = seq.next_element()? {
            out.append(&mut l);
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(IgnoredAny) = map.next_key()? {
            let Leaves(mut l) = map.next_value()?;
            out.append(&mut l);
        }
        Ok(out)
    }
}

/// Candidate JSON documents: from each first `{` or `[` to the matching last `}` or `]`.
fn candidates(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for (open, close) in [('{', '}'), ('[', ']')] {
        if let (Some(a), Some(b)) = (s.find(open), s.rfind(close)) {
            if a < b {
                out.push(a..b + 1);
            }
        }
    }
    out
}

/// JSON documents in the text, each read as its leaves joined by spaces.
pub(super) fn json(text: &Mapped) -> Vec<Mapped> {
    let s = text.as_str();
    let mut out = Vec::new();
    for range in candidates(s) {
        let Ok(Leaves(leaves)) = serde_json::from_str::<Leaves>(&s[range.clone()]) else {
            continue;
        };
        if leaves.is_empty() {
            continue;
        }
        let mut m = Mapped::with_capacity(range.len());
        m.push_str(&leaves.join(" "), text.source_span(range));
        out.push(m);
    }
    out
}

/// CSV records read as their cells joined by spaces, one record a line; `None` unless
/// the text has quoted cells or more than one delimited record.
pub(super) fn csv(text: &Mapped) -> Option<Mapped> {
    let s = text.as_str();
    let delimiter = if s.matches(';').count() > s.matches(',').count() {
        b';'
    } else {
        b','
    };
    let lines_with_delimiter = s
        .lines()
        .filter(|l| l.as_bytes().contains(&delimiter))
        .count();
    if !s.contains('"') && lines_with_delimiter < 2 {
        return None;
    }
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(s.as_bytes());
    let mut out = Mapped::with_capacity(s.len());
    for record in reader.records() {
        let record = record.ok()?;
        let start = record.position().map_or(0, |p| p.byte() as usize);
        let end = s
            .get(start..)
            .and_then(|rest| rest.find('\n'))
            .map_or(s.len(), |n| start + n);
        let cells: Vec<&str> = record.iter().collect();
        out.push_str(&cells.join(" "), text.source_span(start..end));
        out.push('\n', text.span_of(end));
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_leaves_in_document_order() {
        let m = Mapped::identity(
            "Here: {\"medication\": \"metformin\", \"dose\": \"500 mg\", \"n\": 2} done",
        );
        let j = json(&m);
        assert_eq!(j.len(), 1);
        assert_eq!(j[0].as_str(), "metformin 500 mg 2");
        assert!(json(&Mapped::identity("no {json here")).is_empty());
    }

    #[test]
    fn csv_cells() {
        let m = Mapped::identity("drug,dose\n\"metformin\",\"500 mg\"\n");
        let c = csv(&m).unwrap();
        assert_eq!(c.as_str(), "drug dose\nmetformin 500 mg\n");
        assert!(csv(&Mapped::identity("plain, ordinary sentence")).is_none());
    }
}
