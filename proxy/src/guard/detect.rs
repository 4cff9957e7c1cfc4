//! Multi-pattern detection of labeled content with `aho-corasick`.
//!
//! A [`PatternLibrary`] holds the distinctive parts of every protected object of a
//! trial (see [`super::patterns`]), minus those that also occur in the trial's
//! non-sensitive agent-visible text. A [`Detector`] is built from the library for a
//! set of objects (the tainted candidates) and finds every occurrence in a text,
//! mapped back to the original span, with the objects it points to.
//!
//! A match whose original span is longer than the detector's window `W` (in
//! characters) is ignored; `W = min(`[`MAX_WINDOW`]`, `[`WINDOW_FACTOR`]` x the longest
//! pattern in normalised characters)`, which leaves room for separators and
//! whitespace between the normalised characters. The same `W` is the streaming
//! hold-back, so a stream and the whole text find exactly the same matches.

use super::normalize::{compact_view, word_view};
use super::patterns::text_patterns;
use aho_corasick::AhoCorasick;
use std::collections::{BTreeMap, BTreeSet};

/// Upper bound of the hold-back window, in characters.
pub const MAX_WINDOW: usize = 512;
/// How much longer than its normalised form a match may be in the original text.
pub const WINDOW_FACTOR: usize = 3;

/// Index of a protected object inside a trial guard.
pub(crate) type ObjIdx = u32;

/// One occurrence of labeled content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Original byte offset where the match starts.
    pub start: usize,
    /// Original byte offset where it ends (exclusive).
    pub end: usize,
    /// The objects the matched pattern belongs to.
    pub objects: Vec<ObjIdx>,
}

/// The patterns of every protected object, deduplicated, with their owners.
#[derive(Debug, Default, Clone)]
pub(crate) struct PatternLibrary {
    shingles: BTreeMap<String, BTreeSet<ObjIdx>>,
    codes: BTreeMap<String, BTreeSet<ObjIdx>>,
}

impl PatternLibrary {
    /// The library of `objects` (index, content), without patterns that also occur in
    /// any of the `common` texts.
    pub fn build<'a>(
        objects: impl IntoIterator<Item = (ObjIdx, &'a str)>,
        common: &[&str],
    ) -> Self {
        let mut lib = PatternLibrary::default();
        for (idx, content) in objects {
            let p = text_patterns(content);
            for s in p.shingles {
                lib.shingles.entry(s).or_default().insert(idx);
            }
            for c in p.codes {
                lib.codes.entry(c).or_default().insert(idx);
            }
        }
        if !common.is_empty() {
            let all = Detector::build(&lib, |_| true);
            let mut common_shingles = BTreeSet::new();
            let mut common_codes = BTreeSet::new();
            for text in common {
                all.matched_patterns(text, &mut common_shingles, &mut common_codes);
            }
            lib.shingles.retain(|p, _| !common_shingles.contains(p));
            lib.codes.retain(|p, _| !common_codes.contains(p));
        }
        lib
    }

    /// Number of distinct patterns.
    pub fn len(&self) -> usize {
        self.shingles.len() + self.codes.len()
    }
}

/// One automaton and the owners of each of its patterns.
struct Matcher {
    ac: AhoCorasick,
    patterns: Vec<String>,
    owners: Vec<Vec<ObjIdx>>,
}

impl Matcher {
    fn build(
        source: &BTreeMap<String, BTreeSet<ObjIdx>>,
        include: &impl Fn(ObjIdx) -> bool,
    ) -> Result<Option<Matcher>, String> {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (p, objs) in source {
            let kept: Vec<ObjIdx> = objs.iter().copied().filter(|o| include(*o)).collect();
            if !kept.is_empty() {
                patterns.push(p.clone());
                owners.push(kept);
            }
        }
        if patterns.is_empty() {
            return Ok(None);
        }
        let ac = AhoCorasick::new(&patterns).map_err(|e| e.to_string())?;
        Ok(Some(Matcher {
            ac,
            patterns,
            owners,
        }))
    }

    fn longest(&self) -> usize {
        self.patterns
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0)
    }
}

/// A matcher over the patterns of a set of objects.
pub(crate) struct Detector {
    shingles: Option<Matcher>,
    codes: Option<Matcher>,
    window: usize,
    /// Why the automaton could not be built; the detector then holds everything back
    /// and reports the whole text as one hit of every included object (fail closed).
    broken: Option<Vec<ObjIdx>>,
}

impl Detector {
    /// A detector over the patterns of the objects `include` accepts.
    pub fn build(lib: &PatternLibrary, include: impl Fn(ObjIdx) -> bool) -> Self {
        let built = Matcher::build(&lib.shingles, &include)
            .and_then(|s| Matcher::build(&lib.codes, &include).map(|c| (s, c)));
        match built {
            Ok((shingles, codes)) => {
                let longest = shingles
                    .iter()
                    .chain(codes.iter())
                    .map(Matcher::longest)
                    .max()
                    .unwrap_or(0);
                Detector {
                    shingles,
                    codes,
                    window: (longest * WINDOW_FACTOR).min(MAX_WINDOW),
                    broken: None,
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "guard automaton could not be built; holding text back");
                let mut all: BTreeSet<ObjIdx> = BTreeSet::new();
                for objs in lib.shingles.values().chain(lib.codes.values()) {
                    all.extend(objs.iter().copied().filter(|o| include(*o)));
                }
                Detector {
                    shingles: None,
                    codes: None,
                    window: usize::MAX,
                    broken: Some(all.into_iter().collect()),
                }
            }
        }
    }

    /// The hold-back window `W` in characters (0 when nothing can match; unbounded
    /// when the automaton could not be built).
    pub fn window(&self) -> usize {
        self.window
    }

    /// Whether nothing can ever match.
    pub fn is_empty(&self) -> bool {
        self.shingles.is_none() && self.codes.is_none() && self.broken.is_none()
    }

    /// Every match in `text` (preceded by `prev`; `at_end` when nothing follows), sorted
    /// by start. Offsets are bytes of `text`.
    pub fn scan(&self, text: &str, prev: Option<char>, at_end: bool) -> Vec<Hit> {
        if let Some(objects) = &self.broken {
            if at_end && !text.is_empty() {
                return vec![Hit {
                    start: 0,
                    end: text.len(),
                    objects: objects.clone(),
                }];
            }
            return Vec::new();
        }
        let mut hits = Vec::new();
        if let Some(m) = &self.shingles {
            let view = word_view(text, prev, at_end);
            for found in m.ac.find_overlapping_iter(&view.text) {
                if let Some((start, end)) = view.original(found.start(), found.end()) {
                    hits.push(Hit {
                        start,
                        end,
                        objects: m.owners[found.pattern().as_usize()].clone(),
                    });
                }
            }
        }
        if let Some(m) = &self.codes {
            let view = compact_view(text, prev, at_end);
            for found in m.ac.find_overlapping_iter(&view.text) {
                if !view.on_edges(found.start(), found.end()) {
                    continue;
                }
                if let Some((start, end)) = view.original(found.start(), found.end()) {
                    hits.push(Hit {
                        start,
                        end,
                        objects: m.owners[found.pattern().as_usize()].clone(),
                    });
                }
            }
        }
        hits.retain(|h| h.start < h.end && text[h.start..h.end].chars().count() <= self.window);
        hits.sort_by_key(|h| (h.start, h.end));
        hits
    }

    /// The objects whose patterns occur in `text` (a whole text).
    pub fn objects_in(&self, text: &str) -> BTreeSet<ObjIdx> {
        self.scan(text, None, true)
            .into_iter()
            .flat_map(|h| h.objects)
            .collect()
    }

    /// Adds the patterns found in `text` to the two sets.
    fn matched_patterns(
        &self,
        text: &str,
        shingles: &mut BTreeSet<String>,
        codes: &mut BTreeSet<String>,
    ) {
        if let Some(m) = &self.shingles {
            let view = word_view(text, None, true);
            for found in m.ac.find_overlapping_iter(&view.text) {
                shingles.insert(m.patterns[found.pattern().as_usize()].clone());
            }
        }
        if let Some(m) = &self.codes {
            let view = compact_view(text, None, true);
            for found in m.ac.find_overlapping_iter(&view.text) {
                if view.on_edges(found.start(), found.end()) {
                    codes.insert(m.patterns[found.pattern().as_usize()].clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Ole takes levetiracetam 500 mg twice daily; call Ingrid on 07700 900412.";

    #[test]
    fn finds_codes_across_separators_and_case() {
        let lib = PatternLibrary::build([(0, SECRET)], &[]);
        let d = Detector::build(&lib, |_| true);
        let text = "Reach her at 07700-900-412 or LEVETIRACETAM 500 MG TWICE";
        let hits = d.scan(text, None, true);
        let spans: Vec<&str> = hits.iter().map(|h| &text[h.start..h.end]).collect();
        assert!(spans.contains(&"07700-900-412"), "{spans:?}");
        assert!(spans.contains(&"500 MG"), "{spans:?}");
        assert!(d.window() > 0 && d.window() <= MAX_WINDOW);
    }

    #[test]
    fn common_patterns_are_skipped() {
        let lib = PatternLibrary::build([(0, SECRET)], &["Meet at 07700 900412 for the walk"]);
        let d = Detector::build(&lib, |_| true);
        assert!(d.scan("call 07700 900412", None, true).is_empty());
        assert!(!d.scan("500 mg", None, true).is_empty());
        assert!(d.scan("500 m", None, true).is_empty());
    }

    #[test]
    fn excluded_objects_are_not_found() {
        let lib = PatternLibrary::build([(0, SECRET)], &[]);
        assert!(Detector::build(&lib, |_| false).is_empty());
        assert_eq!(Detector::build(&lib, |_| false).window(), 0);
    }
}
