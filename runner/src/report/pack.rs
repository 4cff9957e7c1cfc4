//! The compact form of the trace viewer's data. A matrix of runs repeats the same texts
//! in every run (the same deliveries, prompts and replies), and every event repeats its
//! field names, so the page stores each distinct string once in a shared table and each
//! event as an array in its type's field order; the page script expands a trial only when
//! its trace is opened.
//!
//! Encoding: a string value is written as `"@N"` (entry N of the string table) unless it
//! is shorter than [`MIN_INTERNED`] characters and does not start with `@`, in which case
//! it is written as itself; so a string starting with `@` in the page is always a
//! reference. An event `{"type": T, k1: v1, ...}` is written `[T, v1, ...]` with the
//! values in the order of `layouts[T]`, trailing nulls left out. Numbers, booleans and
//! nulls are written as themselves; nested objects keep their keys.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Strings shorter than this are cheaper written out than referenced.
const MIN_INTERNED: usize = 4;

/// The layout name of the verdict part of a trial.
const VERDICT: &str = "verdict";

/// The prefix of a reference into the string table.
const REF: char = '@';

/// Builds the shared string table and field layouts while packing trials.
#[derive(Default)]
pub struct Packer {
    strings: Vec<String>,
    ids: HashMap<String, usize>,
    layouts: BTreeMap<String, Vec<String>>,
}

impl Packer {
    /// One trial as the JSON text of `[verdict, events, problems]`; the verdict is an
    /// array in the order of `layouts.verdict`.
    pub fn trial(&mut self, verdict: &Value, events: &[Value], problems: &[String]) -> String {
        let verdict = match verdict {
            Value::Object(map) => Value::Array(self.record(VERDICT, map)),
            other => self.value(other),
        };
        let events: Vec<Value> = events.iter().map(|e| self.event(e)).collect();
        let problems: Vec<Value> = problems.iter().map(|p| self.string(p)).collect();
        Value::Array(vec![verdict, Value::Array(events), Value::Array(problems)]).to_string()
    }

    /// The string table, as JSON text.
    pub fn strings_json(&self) -> String {
        Value::from(self.strings.clone()).to_string()
    }

    /// The field order of each event type, as JSON text.
    pub fn layouts_json(&self) -> String {
        serde_json::json!(self.layouts).to_string()
    }

    fn string(&mut self, text: &str) -> Value {
        if text.chars().count() < MIN_INTERNED && !text.starts_with(REF) {
            return Value::String(text.to_owned());
        }
        let next = self.strings.len();
        let id = *self.ids.entry(text.to_owned()).or_insert(next);
        if id == next {
            self.strings.push(text.to_owned());
        }
        Value::String(format!("{REF}{id}"))
    }

    fn value(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => self.string(s),
            Value::Array(items) => Value::Array(items.iter().map(|x| self.value(x)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, x)| (k.clone(), self.value(x)))
                    .collect::<Map<_, _>>(),
            ),
            other => other.clone(),
        }
    }

    fn event(&mut self, event: &Value) -> Value {
        let Value::Object(map) = event else {
            return self.value(event);
        };
        let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
        let mut out = vec![self.string(kind)];
        out.extend(self.record(kind, map));
        Value::Array(out)
    }

    /// The values of `map` (but its `type`) in the order of `layouts[kind]`, which grows
    /// by the keys not seen before; trailing nulls are left out.
    fn record(&mut self, kind: &str, map: &Map<String, Value>) -> Vec<Value> {
        let layout = self.layouts.entry(kind.to_owned()).or_default();
        for key in map.keys().filter(|k| *k != "type") {
            if !layout.contains(key) {
                layout.push(key.clone());
            }
        }
        let fields: Vec<Value> = layout
            .iter()
            .map(|k| map.get(k).cloned().unwrap_or(Value::Null))
            .collect();
        let mut out: Vec<Value> = fields.iter().map(|f| self.value(f)).collect();
        while out.last() == Some(&Value::Null) {
            out.pop();
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The page script's expansion, written again here to check that packing loses
    /// nothing.
    fn expand(v: &Value, strings: &[Value]) -> Value {
        match v {
            Value::String(s) => match s.strip_prefix(REF) {
                Some(n) => strings[n.parse::<usize>().unwrap()].clone(),
                None => v.clone(),
            },
            Value::Array(items) => Value::Array(items.iter().map(|x| expand(x, strings)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, x)| (k.clone(), expand(x, strings)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    #[test]
    fn packed_trials_expand_to_the_same_events_and_share_their_texts() {
        let text = "the same delivery text in every run of the matrix";
        let events = vec![
            json!({"type": "delivery", "turn": 1, "ms": 5, "text": text, "speaker": null}),
            json!({"type": "reply", "turn": 1, "ms": 9, "text": "@alice: ok", "community": "c1"}),
            json!({"type": "delivery", "turn": 2, "ms": 12, "text": text, "notice": true}),
        ];
        let verdict =
            json!({"class": "violation", "violations": [{"canary": "SECRET-42", "turn": 1}]});
        let mut packer = Packer::default();
        let first = packer.trial(&verdict, &events, &["a problem".to_owned()]);
        let second = packer.trial(&verdict, &events, &[]);
        assert_eq!(first.matches('@').count(), second.matches('@').count() + 1);
        assert!(!first.contains(text), "texts live in the table only");

        let strings: Vec<Value> = serde_json::from_str(&packer.strings_json()).unwrap();
        assert_eq!(strings.iter().filter(|s| *s == text).count(), 1);
        let layouts: Value = serde_json::from_str(&packer.layouts_json()).unwrap();
        let packed: Value = serde_json::from_str(&first).unwrap();
        let verdict_keys = layouts[VERDICT].as_array().unwrap();
        let expanded: Map<String, Value> = verdict_keys
            .iter()
            .zip(packed[0].as_array().unwrap())
            .map(|(k, v)| (k.as_str().unwrap().to_owned(), expand(v, &strings)))
            .collect();
        assert_eq!(Value::Object(expanded), verdict);
        assert_eq!(expand(&packed[2], &strings), json!(["a problem"]));
        for (array, original) in packed[1].as_array().unwrap().iter().zip(&events) {
            let array = array.as_array().unwrap();
            let kind = expand(&array[0], &strings);
            let mut event = Map::new();
            event.insert("type".to_owned(), kind.clone());
            for (i, key) in layouts[kind.as_str().unwrap()]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                let value = array
                    .get(i + 1)
                    .map_or(Value::Null, |v| expand(v, &strings));
                if original.get(key.as_str().unwrap()).is_some() {
                    event.insert(key.as_str().unwrap().to_owned(), value);
                } else {
                    assert_eq!(value, Value::Null, "{key} is not in {original}");
                }
            }
            assert_eq!(&Value::Object(event), original);
        }
    }
}
