//! A text read in every view, searched for protected values.

use crate::canon::{Canonical, Needle};
use crate::mapped::Mapped;
use crate::render::{Families, Projections};
use crate::set::NeedleSet;
use crate::views::{readings, ViewPath};
use std::ops::Range;
use std::sync::OnceLock;

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
///
/// The projections the rendering families are searched in are built on the first
/// lookup that needs them, once per haystack. The families themselves are built once
/// per value set ([`NeedleSet`]): [`Haystack::find_each`] and [`Haystack::find_all_each`]
/// use the set's; [`Haystack::find`] and [`Haystack::find_all`] build them for their one
/// needle on every call, which is what most of a lookup costs.
#[derive(Debug, Clone)]
pub struct Haystack {
    readings: Vec<(ViewPath, Canonical)>,
    /// Each reading's prepared text, for the rendering families (empty for
    /// [`Haystack::plain`] and [`Haystack::views_only`]).
    prepared: Vec<Mapped>,
    /// The projections of `prepared`, built on first use.
    projected: OnceLock<Vec<Projections>>,
    masked: Vec<Range<usize>>,
}

impl Haystack {
    /// `text` in its plain canonical form, every view and every rendering family.
    pub fn new(text: &str) -> Self {
        let mut rs = Vec::new();
        let mut prepared = Vec::new();
        for (path, m) in readings(&Mapped::identity(text)) {
            rs.push((path, Canonical::from_prepared(&m)));
            prepared.push(m);
        }
        Haystack {
            readings: rs,
            prepared,
            projected: OnceLock::new(),
            masked: Vec::new(),
        }
    }

    /// `text` in its plain canonical form and every view, without the rendering
    /// families (for cost comparisons and callers that only decode).
    pub fn views_only(text: &str) -> Self {
        let readings = readings(&Mapped::identity(text))
            .into_iter()
            .map(|(path, m)| (path, Canonical::from_prepared(&m)))
            .collect();
        Haystack {
            readings,
            prepared: Vec::new(),
            projected: OnceLock::new(),
            masked: Vec::new(),
        }
    }

    /// `text` in its plain canonical form only.
    pub fn plain(text: &str) -> Self {
        Haystack {
            readings: vec![(ViewPath::plain(), Canonical::new(text))],
            prepared: Vec::new(),
            projected: OnceLock::new(),
            masked: Vec::new(),
        }
    }

    fn has_families(&self) -> bool {
        !self.prepared.is_empty()
    }

    fn projections(&self) -> &[Projections] {
        self.projected
            .get_or_init(|| self.prepared.iter().map(Projections::new).collect())
    }

    /// Every unmasked occurrence of a needle of `families` in a rendering family, in
    /// reading order, one per needle and source span.
    pub fn find_families(&self, families: &Families) -> Vec<SetMatch> {
        let mut out: Vec<SetMatch> = Vec::new();
        if !self.has_families() || families.is_empty() {
            return out;
        }
        let projected = self.projections();
        for (((path, _), m), p) in self.readings.iter().zip(&self.prepared).zip(projected) {
            for (needle, view, r) in p.search(families) {
                let source = m.source_span(r);
                if source.start >= source.end
                    || self.is_masked(&source)
                    || out
                        .iter()
                        .any(|o| o.needle == needle && o.found.source == source)
                {
                    continue;
                }
                out.push(SetMatch {
                    needle,
                    found: Match {
                        view: path.then(view),
                        source,
                    },
                });
            }
        }
        out
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

    /// Every unmasked occurrence of `needle` in the readings' canonical forms, plain
    /// reading first, one per source span.
    fn find_all_read(&self, needle: &Needle) -> Vec<Match> {
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

    /// The first unmasked occurrence of `needle` in the readings' canonical forms.
    fn find_read(&self, needle: &Needle) -> Option<Match> {
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

    /// `out` with the family matches of needle `i` that overlap none of it.
    fn merge_families(out: &mut Vec<Match>, found: &[SetMatch], i: usize) {
        for m in found.iter().filter(|m| m.needle == i) {
            let overlaps = |o: &Match| {
                o.source.start < m.found.source.end && m.found.source.start < o.source.end
            };
            if !out.iter().any(overlaps) {
                out.push(m.found.clone());
            }
        }
    }

    /// Every unmasked occurrence of `needle`, plain reading first, one per reading and
    /// source span (builds the needle's families: see [`Haystack::find_all_each`]).
    pub fn find_all(&self, needle: &Needle) -> Vec<Match> {
        let mut out = self.find_all_read(needle);
        if self.has_families() {
            let families = Families::new(std::slice::from_ref(needle));
            Self::merge_families(&mut out, &self.find_families(&families), 0);
        }
        out
    }

    /// [`Haystack::find_all`] of every needle of `set`, by index, with the set's
    /// families.
    pub fn find_all_each(&self, set: &NeedleSet) -> Vec<Vec<Match>> {
        let mut all: Vec<Vec<Match>> = set
            .needles()
            .iter()
            .map(|n| self.find_all_read(n))
            .collect();
        let found = self.find_families(set.families());
        for (i, out) in all.iter_mut().enumerate() {
            Self::merge_families(out, &found, i);
        }
        all
    }

    /// [`Haystack::find`] of every needle of `set`, by index, with the set's families
    /// (searched only when a needle has no match in the readings).
    pub fn find_each(&self, set: &NeedleSet) -> Vec<Option<Match>> {
        let mut first: Vec<Option<Match>> =
            set.needles().iter().map(|n| self.find_read(n)).collect();
        if first.iter().any(Option::is_none) {
            let found = self.find_families(set.families());
            for (i, slot) in first.iter_mut().enumerate() {
                if slot.is_none() {
                    *slot = found
                        .iter()
                        .find(|m| m.needle == i)
                        .map(|m| m.found.clone());
                }
            }
        }
        first
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
        for m in self.find_families(set.families()) {
            let f = &m.found.source;
            let overlaps = out.iter().any(|o: &SetMatch| {
                o.needle == m.needle && o.found.source.start < f.end && f.start < o.found.source.end
            });
            if !overlaps {
                out.push(m);
            }
        }
        out.sort_by_key(|m| (m.found.source.start, m.found.source.end, m.needle));
        out
    }

    /// The first unmasked occurrence of `needle`, plain reading first, rendering
    /// families after every reading's canonical form (builds the needle's families: see
    /// [`Haystack::find_each`]).
    pub fn find(&self, needle: &Needle) -> Option<Match> {
        self.find_read(needle).or_else(|| {
            if !self.has_families() {
                return None;
            }
            let families = Families::new(std::slice::from_ref(needle));
            self.find_families(&families)
                .into_iter()
                .next()
                .map(|m| m.found)
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
