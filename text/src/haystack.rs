//! A text read in every view, searched for protected values.

use crate::canon::{Canonical, Needle};
use crate::mapped::Mapped;
use crate::set::NeedleSet;
use crate::views::{readings, ViewPath};
use std::ops::Range;

/// Where a value was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The reading that found it.
    pub view: ViewPath,
    /// The byte span of the original text it was found in (a whole token for a
    /// decoded token).
    pub source: Range<usize>,
}

/// Where a needle of a [`NeedleSet`] was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetMatch {
    /// Index of the needle in its set.
    pub needle: usize,
    /// The reading and the original span.
    pub found: Match,
}

/// A text prepared for lookups: its plain canonical form and, unless built with
/// [`Haystack::plain`], every reading through the views, with masked spans (text the
/// writer quoted from someone else) that no match may touch.
#[derive(Debug, Clone)]
pub struct Haystack {
    readings: Vec<(ViewPath, Canonical)>,
    masked: Vec<Range<usize>>,
}

impl Haystack {
    /// `text` in its plain canonical form and every view.
    pub fn new(text: &str) -> Self {
        let readings = readings(&Mapped::identity(text))
            .into_iter()
            .map(|(path, m)| (path, Canonical::from_prepared(&m)))
            .collect();
        Haystack {
            readings,
            masked: Vec::new(),
        }
    }

    /// `text` in its plain canonical form only.
    pub fn plain(text: &str) -> Self {
        Haystack {
            readings: vec![(ViewPath::plain(), Canonical::new(text))],
            masked: Vec::new(),
        }
    }

    /// Masks every plain occurrence of `span`: matches touching it do not count.
    pub fn mask(&mut self, span: &Needle) {
        if let Some((_, plain)) = self.readings.first() {
            let found: Vec<Range<usize>> = plain
                .find_iter(span)
                .map(|r| plain.source_span(r))
                .collect();
            self.masked.extend(found);
        }
    }

    fn is_masked(&self, r: &Range<usize>) -> bool {
        self.masked
            .iter()
            .any(|m| m.start < r.end.max(r.start + 1) && r.start < m.end)
    }

    /// Every unmasked occurrence of `needle`, plain reading first, one per reading and
    /// source span.
    pub fn find_all(&self, needle: &Needle) -> Vec<Match> {
        let mut out: Vec<Match> = Vec::new();
        for (path, canon) in &self.readings {
            for r in canon.find_iter(needle) {
                let source = canon.source_span(r);
                if self.is_masked(&source) || out.iter().any(|m| m.source == source) {
                    continue;
                }
                out.push(Match {
                    view: path.clone(),
                    source,
                });
            }
        }
        out
    }

    /// Every unmasked occurrence of every needle of `set`, plain reading first, one per
    /// needle and source span, in order of source start.
    pub fn find_set(&self, set: &NeedleSet) -> Vec<SetMatch> {
        let Some((automaton, needles)) = set.parts() else {
            return Vec::new();
        };
        let mut seen: std::collections::HashSet<(usize, usize, usize)> =
            std::collections::HashSet::new();
        let mut out = Vec::new();
        for (path, canon) in &self.readings {
            for m in automaton.find_overlapping_iter(canon.as_str()) {
                let i = m.pattern().as_usize();
                let Some(needle) = needles.get(i) else {
                    continue;
                };
                if !canon.accepts(needle, &m.range()) {
                    continue;
                }
                let source = canon.source_span(m.range());
                if self.is_masked(&source) || !seen.insert((i, source.start, source.end)) {
                    continue;
                }
                out.push(SetMatch {
                    needle: i,
                    found: Match {
                        view: path.clone(),
                        source,
                    },
                });
            }
        }
        out.sort_by_key(|m| (m.found.source.start, m.found.source.end, m.needle));
        out
    }

    /// The first unmasked occurrence of `needle`, plain reading first.
    pub fn find(&self, needle: &Needle) -> Option<Match> {
        self.readings.iter().find_map(|(path, canon)| {
            canon
                .find_iter(needle)
                .map(|r| canon.source_span(r))
                .find(|source| !self.is_masked(source))
                .map(|source| Match {
                    view: path.clone(),
                    source,
                })
        })
    }

    /// Whether `needle` occurs unmasked in any reading.
    pub fn contains(&self, needle: &Needle) -> bool {
        self.find(needle).is_some()
    }

    /// The readings, plain first (for diagnostics).
    pub fn readings(&self) -> impl Iterator<Item = (&ViewPath, &str)> {
        self.readings.iter().map(|(p, c)| (p, c.as_str()))
    }
}

#[cfg(test)]
mod tests;
