//! Decoding views: the readings of a text an agent can produce without tools.
//!
//! Each view turns a prepared text (see [`crate::prepare`]) into zero or more derived
//! texts, each mapped to the original bytes it came from. A view that finds nothing to
//! decode yields nothing, so an ordinary text has few readings.

mod spelled;
mod structure;
mod tokens;
mod transform;

use crate::canon::prepare;
use crate::mapped::Mapped;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;

/// One way of reading a text besides its plain canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Base64 tokens, standard or URL-safe alphabet, padded or not.
    Base64,
    /// Hexadecimal tokens.
    Hex,
    /// Percent-encoded tokens (`%20`).
    Percent,
    /// ROT13 of the whole text.
    Rot13,
    /// The whole text reversed.
    Reversed,
    /// English number words read as digits (`four one two`, `four hundred twelve`).
    SpelledNumbers,
    /// Markdown markup (table pipes, emphasis, headings, quotes) read as spaces.
    Markdown,
    /// JSON documents read as their string and number leaves, in order.
    Json,
    /// CSV records read as their cells.
    Csv,
}

impl View {
    /// Every view, in the order readings are tried.
    pub const ALL: &'static [View] = &[
        View::Markdown,
        View::Json,
        View::Csv,
        View::SpelledNumbers,
        View::Base64,
        View::Hex,
        View::Percent,
        View::Rot13,
        View::Reversed,
    ];

    /// Canonical spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Base64 => "base64",
            View::Hex => "hex",
            View::Percent => "percent",
            View::Rot13 => "rot13",
            View::Reversed => "reversed",
            View::SpelledNumbers => "spelled_numbers",
            View::Markdown => "markdown",
            View::Json => "json",
            View::Csv => "csv",
        }
    }

    /// The texts this view derives from a prepared text. Decoded tokens are read
    /// together, joined directly and joined by a space, so a value whose halves were
    /// encoded separately is read whole.
    pub fn apply(self, text: &Mapped) -> Vec<Mapped> {
        match self {
            View::Base64 => joined(tokens::base64(text)),
            View::Hex => joined(tokens::hex(text)),
            View::Percent => joined(tokens::percent(text)),
            View::Rot13 => transform::rot13(text).into_iter().collect(),
            View::Reversed => transform::reversed(text).into_iter().collect(),
            View::SpelledNumbers => spelled::digits(text).into_iter().collect(),
            View::Markdown => transform::markdown(text).into_iter().collect(),
            View::Json => structure::json(text),
            View::Csv => structure::csv(text).into_iter().collect(),
        }
    }

    /// Whether applying the view twice gives back the text.
    fn is_involution(self) -> bool {
        matches!(self, View::Rot13 | View::Reversed)
    }
}

/// One token as it is; several read as one text joined directly and joined by spaces.
fn joined(tokens: Vec<Mapped>) -> Vec<Mapped> {
    if tokens.len() < 2 {
        return tokens;
    }
    let mut direct = Mapped::default();
    let mut spaced = Mapped::default();
    for (k, t) in tokens.iter().enumerate() {
        if k > 0 {
            let at = spaced.span_of(spaced.as_str().len());
            spaced.push(' ', at);
        }
        direct.append(t);
        spaced.append(t);
    }
    vec![direct, spaced]
}

/// The views a reading went through, in the order they were applied; empty for the
/// plain canonical form. Serialised as `plain` or e.g. `base64+reversed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ViewPath(pub Vec<View>);

impl ViewPath {
    /// The plain reading.
    pub fn plain() -> Self {
        ViewPath(Vec::new())
    }

    /// Whether this is the plain reading.
    pub fn is_plain(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for ViewPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("plain");
        }
        let names: Vec<&str> = self.0.iter().map(|v| v.as_str()).collect();
        f.write_str(&names.join("+"))
    }
}

impl std::str::FromStr for ViewPath {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "plain" {
            return Ok(ViewPath::plain());
        }
        s.split('+')
            .map(|name| {
                View::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str() == name)
                    .ok_or_else(|| format!("unknown view `{name}`"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(ViewPath)
    }
}

impl Serialize for ViewPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ViewPath {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Every reading of `source`: the prepared text itself, then each view of it, then each
/// view of those (two views deep), skipping readings whose text was already read.
pub fn readings(source: &Mapped) -> Vec<(ViewPath, Mapped)> {
    let plain = prepare(source);
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(plain.as_str().to_owned());
    let mut out = vec![(ViewPath::plain(), plain)];
    let mut level = 0..1;
    for _depth in 0..2 {
        let mut next = Vec::new();
        for i in level.clone() {
            let Some((path, text)) = out.get(i) else {
                continue;
            };
            for &view in View::ALL {
                if path
                    .0
                    .last()
                    .is_some_and(|&v| v == view && v.is_involution())
                {
                    continue;
                }
                for derived in view.apply(text) {
                    let derived = prepare(&derived);
                    if derived.is_empty() || !seen.insert(derived.as_str().to_owned()) {
                        continue;
                    }
                    let mut p = path.0.clone();
                    p.push(view);
                    next.push((ViewPath(p), derived));
                }
            }
        }
        let start = out.len();
        out.extend(next);
        level = start..out.len();
    }
    out
}
