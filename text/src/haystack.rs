//! A text read in every view, searched for protected values.

use crate::canon::{Canonical, Needle};
use crate::locate::{orientation, Turns, EVERY_READING, TRIGGER};
use crate::mapped::Mapped;
use crate::render::{Families, Projections};
use crate::set::NeedleSet;
use crate::views::{encoded_runs_in, readings, Run, View, ViewPath};
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
    /// Each reading's prepared text.
    prepared: Vec<Mapped>,
    /// Whether the rendering families are searched (not for [`Haystack::plain`] and
    /// [`Haystack::views_only`]).
    families: bool,
    /// The readings the families are searched in ([`Haystack::in_window`]).
    families_for: Turns,
    /// Each reading in its own coordinates, built when a match that may be chance (a
    /// faint value, a rendering family) is first found in it or a reading from it.
    local: Vec<OnceLock<Local>>,
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
            local: rs.iter().map(|_| OnceLock::new()).collect(),
            readings: rs,
            prepared,
            families: true,
            families_for: EVERY_READING,
            projected: OnceLock::new(),
            masked: Vec::new(),
        }
    }

    /// `text` in its plain canonical form and every view, without the rendering
    /// families (for cost comparisons and callers that only decode).
    pub fn views_only(text: &str) -> Self {
        let mut haystack = Haystack::new(text);
        haystack.families = false;
        haystack
    }

    /// `text` in its plain canonical form only.
    pub fn plain(text: &str) -> Self {
        let prepared = crate::canon::prepare_owned(Mapped::identity(text));
        Haystack {
            readings: vec![(ViewPath::plain(), Canonical::from_prepared(&prepared))],
            prepared: vec![prepared],
            families: false,
            families_for: EVERY_READING,
            local: vec![OnceLock::new()],
            projected: OnceLock::new(),
            masked: Vec::new(),
        }
    }

    /// A run of tokens that a token decoder reads as text, and nothing else that can
    /// hold a value (see [`crate::locate`]): every view, but the rendering families
    /// only in readings that decoded something. What the families find in the tokens
    /// as written, reversed, rotated or restructured is a form of a value in the
    /// locating projections of the text, which makes the run part of a window with
    /// context; without one, searching those readings finds nothing.
    pub(crate) fn decoded_tokens(text: &str) -> Self {
        Haystack::in_window(text, TRIGGER)
    }

    /// A window of a long text that the locating pass found places in, standing for
    /// `turns` ([`crate::locate::Turns`]): every view, and the rendering families in the
    /// readings those places stand for. A reading that only turns the text (ROT13,
    /// reversal) or restructures it (markup, JSON, CSV) is searched where a place
    /// stands for its orientation; a reading through a decoding view where a trigger
    /// is (or a place of its orientation). Elsewhere the families find nothing: each
    /// match of theirs is a form of a value in the locating projections, turned as the
    /// reading turns the text.
    pub(crate) fn in_window(text: &str, turns: Turns) -> Self {
        let mut haystack = Haystack::new(text);
        haystack.families_for = turns;
        haystack
    }

    fn has_families(&self) -> bool {
        self.families
    }

    /// Whether the families are searched in a reading along `path`.
    fn families_read(&self, path: &ViewPath) -> bool {
        let turns = self.families_for;
        if turns == EVERY_READING {
            return true;
        }
        let oriented = orientation(&path.0);
        if path.0.iter().any(|v| v.decodes()) {
            turns & (TRIGGER | oriented) != 0
        } else {
            turns & oriented != 0
        }
    }

    /// Reading `k` in its own coordinates.
    fn local(&self, k: usize) -> Option<&Local> {
        let (cell, text) = (self.local.get(k)?, self.prepared.get(k)?);
        Some(cell.get_or_init(|| Local {
            canon: Canonical::from_prepared(&Mapped::identity(text.as_str())),
            runs: encoded_runs_in(text.as_str()),
        }))
    }

    /// Whether `at` (bytes of reading `k`'s prepared text) lies strictly inside a run of
    /// that reading which decodes to written text. Such characters are an encoder's
    /// output (`%48` backwards reads `84%`, the hex of `01` is `30 31`); what the run
    /// stands for is another reading, searched too.
    fn in_encoder_output(&self, k: usize, at: &Range<usize>) -> bool {
        self.local(k).is_some_and(|l| {
            l.runs.iter().filter(|r| r.textual).any(|r| {
                let r = &r.span;
                r.start <= at.start && at.end <= r.end && r.len() > at.len()
            })
        })
    }

    /// Whether an occurrence of `needle` at canonical bytes `range` of reading `k` does
    /// not count: a faint value (too little information to be told from chance) in an
    /// encoder's output ([`Haystack::in_encoder_output`],
    /// [`Haystack::reads_altered_encoding`]). A value with more information is no
    /// coincidence wherever it is.
    fn read_in_encoder_output(&self, k: usize, needle: &Needle, range: &Range<usize>) -> bool {
        if !needle.is_faint() {
            return false;
        }
        let (Some(l), Some((_, canon))) = (self.local(k), self.readings.get(k)) else {
            return false;
        };
        self.in_encoder_output(k, &l.canon.source_span(range.clone()))
            || self.reads_altered_encoding(k, &canon.source_span(range.clone()))
    }

    /// Whether reading `k` came from a decoded reading that is itself mostly an encoding
    /// of written text by a step that does not decode that encoding (markup stripped,
    /// reversed, stray escapes decoded): what it holds is an encoder's output altered.
    /// (A decoded reading maps every character to the whole token it came from, so its
    /// runs are placed no more precisely than the reading.)
    fn alters_an_encoding(&self, k: usize) -> bool {
        let Some((path, _)) = self.readings.get(k) else {
            return false;
        };
        for (cut, step) in path.0.iter().enumerate().skip(1) {
            if step.is_container() {
                continue;
            }
            let Some(before) = path.0.get(..cut) else {
                continue;
            };
            let Some(q) = self.readings.iter().position(|(p, _)| p.0 == before) else {
                continue;
            };
            let (Some(l), Some(text)) = (self.local(q), self.prepared.get(q)) else {
                continue;
            };
            // Any decoding of the reading by the step opens it, written text or not.
            let opened = l.runs.iter().any(|r| r.opened_by.contains(step));
            if !opened && covered(&l.runs) * 2 >= text.as_str().len() {
                return true;
            }
        }
        false
    }

    /// Whether reading `k` did not start by decoding the encoded run of the text as
    /// written that holds `source` (original bytes), but altered that run (reversed it,
    /// stripped markup, decoded stray escapes inside it) or read it raw: an encoder's
    /// output so treated holds chance characters, and the run's own decoding is another
    /// reading.
    fn reads_altered_encoding(&self, k: usize, source: &Range<usize>) -> bool {
        let Some((path, _)) = self.readings.get(k) else {
            return false;
        };
        if self.alters_an_encoding(k) {
            return true;
        }
        let (Some(plain), Some(prepared)) = (self.local(0), self.prepared.first()) else {
            return false;
        };
        let mut holding = plain
            .runs
            .iter()
            .filter(|r| r.textual)
            .filter(|r| {
                let r = prepared.source_span(r.span.clone());
                r.start <= source.start && source.end <= r.end
            })
            .peekable();
        holding.peek().is_some()
            && !holding.any(|r| path.0.first().is_some_and(|v| r.opened_by.contains(v)))
    }

    fn projections(&self) -> &[Projections] {
        self.projected.get_or_init(|| {
            let skipped = Mapped::default();
            self.readings
                .iter()
                .zip(&self.prepared)
                .map(|((path, _), m)| {
                    Projections::new(if self.families_read(path) {
                        m
                    } else {
                        &skipped
                    })
                })
                .collect()
        })
    }

    /// Every unmasked occurrence of a needle of `families` in a rendering family, in
    /// reading order, one per needle and source span.
    ///
    /// Inside an encoder's output only a block alignment counts, which reads encoded
    /// runs on purpose: the other families try many renderings of each value, and an
    /// encoder writes many chance strings (see `in_encoder_output`).
    pub fn find_families(&self, families: &Families) -> Vec<SetMatch> {
        let mut out: Vec<SetMatch> = Vec::new();
        if !self.has_families() || families.is_empty() {
            return out;
        }
        let projected = self.projections();
        let readings = self.readings.iter().zip(&self.prepared).zip(projected);
        for (k, (((path, _), m), p)) in readings.enumerate() {
            for (needle, view, r) in p.search(families) {
                let source = m.source_span(r.clone());
                let chance = !matches!(view, View::At(..))
                    && (self.in_encoder_output(k, &r) || self.reads_altered_encoding(k, &source));
                if source.start >= source.end
                    || chance
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
        for (k, (path, canon)) in self.readings.iter().enumerate() {
            for r in canon.find_iter(needle) {
                let source = canon.source_span(r.clone());
                if self.is_masked(&source)
                    || out.iter().any(|m| m.source == source)
                    || self.read_in_encoder_output(k, needle, &r)
                {
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
        self.readings
            .iter()
            .enumerate()
            .find_map(|(k, (path, canon))| {
                canon
                    .find_iter(needle)
                    .filter(|r| !self.read_in_encoder_output(k, needle, r))
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
        let mut out = self.find_set_read(set, false).0;
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

    /// The matches of `set` in the readings' canonical forms, one per needle and source
    /// span; with `defer_faint`, the plain reading's matches of faint values come apart,
    /// not yet checked against the encoded runs around them (the check reads the whole
    /// text's encodings, which a caller may rather do around each match).
    fn find_set_read(&self, set: &NeedleSet, defer_faint: bool) -> (Vec<SetMatch>, Vec<SetMatch>) {
        let Some((automaton, needles)) = set.parts() else {
            return (Vec::new(), Vec::new());
        };
        let mut seen: std::collections::HashSet<(usize, usize, usize)> =
            std::collections::HashSet::new();
        let (mut out, mut faint) = (Vec::new(), Vec::new());
        for (k, (path, canon)) in self.readings.iter().enumerate() {
            for m in automaton.find_overlapping_iter(canon.as_str()) {
                let i = m.pattern().as_usize();
                let Some(needle) = needles.get(i) else {
                    continue;
                };
                if !canon.accepts(needle, &m.range()) {
                    continue;
                }
                let source = canon.source_span(m.range());
                let deferred = defer_faint && k == 0 && needle.is_faint();
                if self.is_masked(&source)
                    || (!deferred && self.read_in_encoder_output(k, needle, &m.range()))
                    || !seen.insert((i, source.start, source.end))
                {
                    continue;
                }
                let found = SetMatch {
                    needle: i,
                    found: Match {
                        view: path.clone(),
                        source,
                    },
                };
                if deferred {
                    faint.push(found);
                } else {
                    out.push(found);
                }
            }
        }
        (out, faint)
    }

    /// The plain matches of faint values in `faint` that the plain reading of the text
    /// around each (the located reading's window around it) keeps: those not inside a run
    /// of an encoding that decodes to written text. Reading the encodings of a whole long
    /// text for a few short values would cost more than the rest of its plain reading.
    fn outside_encodings(text: &str, set: &NeedleSet, faint: Vec<SetMatch>) -> Vec<SetMatch> {
        if faint.is_empty() {
            return faint;
        }
        let around = crate::locate::around(text, faint.iter().map(|m| m.found.source.clone()));
        let mut kept = Vec::new();
        for near in around {
            let Some(part) = text.get(near.clone()) else {
                continue;
            };
            let found = Haystack::plain(part).find_set(set);
            kept.extend(
                faint
                    .iter()
                    .filter(|m| {
                        let r = &m.found.source;
                        near.start <= r.start
                            && r.end <= near.end
                            && found.iter().any(|f| {
                                f.needle == m.needle
                                    && f.found.source.start + near.start == r.start
                                    && f.found.source.end + near.start == r.end
                            })
                    })
                    .cloned(),
            );
        }
        kept
    }

    /// [`Haystack::find_set`] of `text` read in full (every view and rendering family),
    /// but only where it can hold a value of `set`: a long text is read plainly whole,
    /// then searched in one pass for the forms of the values and for what a view may
    /// decode (see the crate's `locate` module), and only windows around those places
    /// are read in full. A form that lies inside a plain occurrence of a value is that
    /// occurrence, found already, and opens no window. Short texts, and texts whose
    /// windows cover most of them, are read whole.
    pub fn find_set_located(text: &str, set: &NeedleSet) -> Vec<SetMatch> {
        if set.is_empty() {
            return Vec::new();
        }
        if text.len() < crate::locate::MIN_LOCATED {
            return Haystack::new(text).find_set(set);
        }
        let (mut plain, faint) = Haystack::plain(text).find_set_read(set, true);
        plain.extend(Self::outside_encodings(text, set, faint));
        let Some(windows) = set.locator().windows(text, &plain) else {
            return Haystack::new(text).find_set(set);
        };
        let mut out = plain;
        for w in windows {
            let Some(part) = text.get(w.range.clone()) else {
                continue;
            };
            let found = if w.wide {
                Haystack::in_window(part, w.turns).find_set(set)
            } else {
                set.find_in_tokens(part)
            };
            for mut m in found {
                let at = w.range.start;
                m.found.source = m.found.source.start + at..m.found.source.end + at;
                out.push(m);
            }
        }
        out.sort_by_key(|m| (m.found.source.start, m.found.source.end, m.needle));
        out.dedup_by(|a, b| a.needle == b.needle && a.found.source == b.found.source);
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

/// How many bytes the runs of `runs` that decode to written text cover together.
fn covered(runs: &[Run]) -> usize {
    let mut spans: Vec<&Range<usize>> =
        runs.iter().filter(|r| r.textual).map(|r| &r.span).collect();
    spans.sort_by_key(|r| (r.start, r.end));
    let (mut total, mut end) = (0usize, 0usize);
    for r in spans {
        total += r.end.saturating_sub(r.start.max(end));
        end = end.max(r.end);
    }
    total
}

/// A reading in its own coordinates.
#[derive(Debug, Clone)]
struct Local {
    /// The reading's canonical form, mapped to the reading's prepared text.
    canon: Canonical,
    /// Runs of the prepared text that decode to written text, in its coordinates.
    runs: Vec<Run>,
}

#[cfg(test)]
mod tests;
