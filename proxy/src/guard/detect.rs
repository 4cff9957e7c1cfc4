//! Detection of labeled content through the shared canonical form and decoding views.
//!
//! A [`PatternLibrary`] holds the distinctive parts of every protected object of a
//! trial (see [`super::patterns`]), minus those that also occur in any text of the
//! scenario's platform corpus that is not protected content. A [`Detector`] is built
//! from the library for a set of objects and finds every occurrence in a text, read
//! plainly and through every decoding view of `cosec-text` (base64, hex, percent
//! encoding, ROT13, reversal, spelled-out numbers, table and JSON cells, two deep),
//! each mapped back to its span in the original text.
//!
//! The detector's window `W` bounds how far back a stream must hold text so that a
//! match is seen whole: `W = min(`[`MAX_WINDOW`]`, max(`[`WINDOW_FACTOR`]` x the longest
//! non-passage pattern, the longest passage + 64))` characters; the factor leaves room
//! for encodings and spelled-out digits, which are longer than the value.

use super::patterns::{context, text_patterns, PatternKind};
use cosec_text::render::assemble::{Dealt, Held, Pieces};
use cosec_text::{Haystack, Needle, NeedleSet, ViewPath};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

/// Upper bound of the hold-back window, in characters.
pub const MAX_WINDOW: usize = 4096;
/// How much longer than its pattern a disguised match may be.
pub const WINDOW_FACTOR: usize = 8;

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
    /// The kind of the matched pattern.
    pub kind: PatternKind,
    /// The reading that found it (plain or a view path).
    pub view: ViewPath,
    /// Index of the matched pattern in its detector.
    pub pattern: usize,
}

/// A piece of the clause around a code or name, as the output layer decides and
/// remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PieceOf {
    /// The byte ranges of the clause's canonical form it may stand for.
    pub covers: Vec<Range<usize>>,
    /// The strides of the clause's codes and names it may be (characters dealt out
    /// over several outputs).
    pub dealt: Vec<Dealt>,
    /// The clause's parts (indices) it lay over where its text held them whole: it
    /// was that occurrence, decided as such, so it completes none of them.
    pub wholes: Vec<usize>,
}

/// A piece of the clause around a code or name found in a text (see
/// [`cosec_text::render::assemble`] and [`context`]): which clause, which part of it
/// and where it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PieceHit {
    /// Index of the clause in the detector's pieces.
    pub value: usize,
    /// What it covers of the clause.
    pub piece: PieceOf,
    /// Original byte offset where it starts.
    pub start: usize,
    /// Original byte offset where it ends (exclusive).
    pub end: usize,
}

/// One distinctive pattern: its kind and the objects it belongs to.
#[derive(Debug, Clone)]
struct Entry {
    /// The spelling it was taken from (its canonical form is the library key).
    spelling: String,
    kind: PatternKind,
    owners: BTreeSet<ObjIdx>,
}

/// The patterns of every protected object, by canonical form, with their owners, and
/// the clauses around their codes and names (see [`context`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct PatternLibrary {
    patterns: BTreeMap<String, Entry>,
    /// By canonical form: a clause of some content around a code or name, as spelled,
    /// and the canonical keys of the codes and names it holds.
    contexts: BTreeMap<String, (String, BTreeSet<String>)>,
}

impl PatternLibrary {
    /// The library of `objects` (index, content), without the patterns that also occur
    /// in any of the `corpus` texts (the platform's other, unprotected text).
    pub fn build<'a>(
        objects: impl IntoIterator<Item = (ObjIdx, &'a str)>,
        corpus: &[&str],
    ) -> Self {
        let mut patterns: BTreeMap<String, Entry> = BTreeMap::new();
        // Per content, its codes and names: (spelling, canonical key).
        let mut strong: Vec<(&str, Vec<(String, String)>)> = Vec::new();
        for (idx, content) in objects {
            let mut own = Vec::new();
            for (spelling, kind) in text_patterns(content) {
                let Some(needle) = Needle::new(&spelling) else {
                    continue;
                };
                if matches!(kind, PatternKind::Code | PatternKind::Name) {
                    own.push((spelling.clone(), needle.as_str().to_owned()));
                }
                let entry = patterns
                    .entry(needle.as_str().to_owned())
                    .or_insert_with(|| Entry {
                        spelling: spelling.clone(),
                        kind,
                        owners: BTreeSet::new(),
                    });
                entry.kind = entry.kind.min(kind);
                entry.owners.insert(idx);
            }
            strong.push((content, own));
        }
        let mut lib = PatternLibrary {
            patterns,
            contexts: BTreeMap::new(),
        };
        lib.drop_common(corpus);
        for (content, own) in strong {
            lib.add_contexts(content, &own);
        }
        lib
    }

    /// Drops the patterns that occur in any of the `corpus` texts.
    fn drop_common(&mut self, corpus: &[&str]) {
        if !corpus.is_empty() {
            let (keys, needles): (Vec<String>, Vec<Needle>) = self
                .patterns
                .iter()
                .filter_map(|(k, e)| Needle::new(&e.spelling).map(|n| (k.clone(), n)))
                .unzip();
            let set = match NeedleSet::new(needles) {
                Ok(set) => set,
                Err(e) => {
                    // Nothing can be told common: keep every pattern (more is withheld).
                    tracing::error!(error = %e, "guard corpus automaton could not be built");
                    return;
                }
            };
            for text in corpus {
                for m in Haystack::plain(text).find_set(&set) {
                    if let Some(key) = keys.get(m.needle) {
                        self.patterns.remove(key);
                    }
                }
            }
        }
    }

    /// Adds the clause around every occurrence in `content` of its codes and names
    /// `own` (spelling, key) that the library kept, with the kept ones it holds.
    fn add_contexts(&mut self, content: &str, own: &[(String, String)]) {
        let kept: Vec<&(String, String)> = own
            .iter()
            .filter(|(_, key)| self.patterns.contains_key(key))
            .collect();
        for (spelling, _) in &kept {
            for (at, _) in content.match_indices(spelling.as_str()) {
                let range = context::around(content, at..at + spelling.len());
                let Some(clause) = content.get(range) else {
                    continue;
                };
                let Some(needle) = Needle::new(clause) else {
                    continue;
                };
                let parts = kept
                    .iter()
                    .filter(|(s, _)| clause.contains(s.as_str()))
                    .map(|(_, key)| key.clone());
                self.contexts
                    .entry(needle.as_str().to_owned())
                    .or_insert_with(|| (clause.to_owned(), BTreeSet::new()))
                    .1
                    .extend(parts);
            }
        }
    }

    /// Number of distinct patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }
}

/// A matcher over the patterns of a set of objects.
pub(crate) struct Detector {
    set: NeedleSet,
    /// Kind and owners of needle `i` of `set`.
    entries: Vec<(PatternKind, Vec<ObjIdx>)>,
    window: usize,
    /// Set when the automaton could not be built: the detector then holds everything
    /// back and reports the whole text as one hit of every included object (fail
    /// closed).
    broken: Option<Vec<ObjIdx>>,
    /// The pieces of the clauses around codes and names with owners, and for each
    /// clause its canonical key and the index in `set` of each of its parts.
    pieces: Pieces,
    clauses: Vec<(String, Vec<usize>)>,
}

impl Detector {
    /// A detector over the patterns of the objects `include` accepts, in library order.
    pub fn build(lib: &PatternLibrary, include: impl Fn(ObjIdx) -> bool) -> Self {
        let mut needles = Vec::new();
        let mut entries = Vec::new();
        let mut longest_short = 0;
        let mut longest_passage = 0;
        for e in lib.patterns.values() {
            let owners: Vec<ObjIdx> = e.owners.iter().copied().filter(|o| include(*o)).collect();
            let Some(needle) = Needle::new(&e.spelling) else {
                continue;
            };
            let chars = e.spelling.chars().count();
            if !owners.is_empty() {
                if e.kind == PatternKind::Passage {
                    longest_passage = longest_passage.max(chars);
                } else {
                    longest_short = longest_short.max(chars);
                }
            }
            needles.push(needle);
            entries.push((e.kind, owners));
        }
        let any = entries.iter().any(|(_, o)| !o.is_empty());
        let window = if any {
            (longest_short * WINDOW_FACTOR)
                .max(longest_passage + 64)
                .min(MAX_WINDOW)
        } else {
            0
        };
        let (pieces, clauses) = clause_pieces(lib, &needles, &entries);
        match NeedleSet::new(needles) {
            Ok(set) => Detector {
                set,
                entries,
                window,
                broken: None,
                pieces,
                clauses,
            },
            Err(e) => {
                tracing::error!(error = %e, "guard automaton could not be built; holding text back");
                let all: BTreeSet<ObjIdx> = entries
                    .iter()
                    .flat_map(|(_, o)| o.iter().copied())
                    .collect();
                Detector {
                    set: NeedleSet::default(),
                    entries: Vec::new(),
                    window: usize::MAX,
                    broken: Some(all.into_iter().collect()),
                    pieces: Pieces::default(),
                    clauses: Vec::new(),
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
        self.window == 0 && self.broken.is_none()
    }

    /// Every match in `text` (plain and through the views), sorted by start.
    pub fn scan(&self, text: &str) -> Vec<Hit> {
        self.scan_in(text, false)
    }

    /// Every match in `text` read plainly only (canonical form, no decoding view).
    pub fn scan_plain(&self, text: &str) -> Vec<Hit> {
        self.scan_in(text, true)
    }

    /// [`Detector::scan`], and the pieces of the clauses around codes and names the
    /// text holds (each piece in every reading and rendering, like a pattern of its
    /// own).
    pub fn scan_with_pieces(&self, text: &str) -> (Vec<Hit>, Vec<PieceHit>) {
        if self.broken.is_some() || self.is_empty() || text.is_empty() {
            return (self.scan(text), Vec::new());
        }
        let haystack = Haystack::new(text);
        let hits = self.hits_in(&haystack);
        let pieces = self
            .pieces
            .held(&haystack)
            .into_iter()
            .map(|held: Held| PieceHit {
                value: held.value,
                piece: PieceOf {
                    covers: held.spans,
                    dealt: held.dealt,
                    wholes: Vec::new(),
                },
                start: held.source.start,
                end: held.source.end,
            })
            .filter(|p| p.start < p.end)
            .collect();
        (hits, pieces)
    }

    /// The canonical form of clause `value` of [`Detector::pieces`] (its key across
    /// detectors) and the pattern index of each of its parts.
    pub fn clause(&self, value: usize) -> Option<(&str, &[usize])> {
        self.clauses
            .get(value)
            .map(|(key, parts)| (key.as_str(), parts.as_slice()))
    }

    /// The pieces searched for: of the clauses around codes and names.
    pub fn pieces(&self) -> &Pieces {
        &self.pieces
    }

    /// The objects pattern `pattern` belongs to.
    pub fn owners(&self, pattern: usize) -> &[ObjIdx] {
        self.entries.get(pattern).map_or(&[], |(_, o)| o.as_slice())
    }

    fn scan_in(&self, text: &str, plain: bool) -> Vec<Hit> {
        if let Some(objects) = &self.broken {
            if text.is_empty() {
                return Vec::new();
            }
            return vec![Hit {
                start: 0,
                end: text.len(),
                objects: objects.clone(),
                kind: PatternKind::Passage,
                view: ViewPath::plain(),
                pattern: usize::MAX,
            }];
        }
        if self.is_empty() || text.is_empty() {
            return Vec::new();
        }
        // A long text is read in full only where it can hold a pattern (the text
        // crate's located reading): most of a long tool result or document is prose
        // that no reading turns into a protected value.
        let found = if plain {
            Haystack::plain(text).find_set(&self.set)
        } else {
            Haystack::find_set_located(text, &self.set)
        };
        self.hits_of(found)
    }

    fn hits_in(&self, haystack: &Haystack) -> Vec<Hit> {
        self.hits_of(haystack.find_set(&self.set))
    }

    fn hits_of(&self, found: Vec<cosec_text::SetMatch>) -> Vec<Hit> {
        found
            .into_iter()
            .filter_map(|m| {
                let (kind, owners) = self.entries.get(m.needle)?;
                (!owners.is_empty()).then(|| Hit {
                    start: m.found.source.start,
                    end: m.found.source.end,
                    objects: owners.clone(),
                    kind: *kind,
                    view: m.found.view,
                    pattern: m.needle,
                })
            })
            .filter(|h| h.start < h.end)
            .collect()
    }

    /// The patterns that occur plainly in `text` (what participants said themselves).
    pub fn patterns_in(&self, text: &str) -> BTreeSet<usize> {
        Haystack::plain(text)
            .find_set(&self.set)
            .into_iter()
            .map(|m| m.needle)
            .collect()
    }

    /// The objects a strong pattern of which occurs in `text`.
    pub fn objects_in(&self, text: &str) -> BTreeSet<ObjIdx> {
        self.scan(text)
            .into_iter()
            .filter(|h| h.kind.is_strong())
            .flat_map(|h| h.objects)
            .collect()
    }
}

/// The pieces of the library's clauses around the codes and names that have owners
/// among `entries` (kind and owners of each of `needles`), and per clause its key and
/// the needle index of each part. Passages and phrases are no parts: their pieces are
/// the ordinary words that conversation repeats.
fn clause_pieces(
    lib: &PatternLibrary,
    needles: &[Needle],
    entries: &[(PatternKind, Vec<ObjIdx>)],
) -> (Pieces, Vec<(String, Vec<usize>)>) {
    let index: HashMap<&str, usize> = needles
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            entries.get(*i).is_some_and(|(kind, owners)| {
                matches!(kind, PatternKind::Code | PatternKind::Name) && !owners.is_empty()
            })
        })
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut values = Vec::new();
    let mut clauses = Vec::new();
    for (key, (spelling, parts)) in &lib.contexts {
        let parts: Vec<usize> = parts
            .iter()
            .filter_map(|p| index.get(p.as_str()).copied())
            .collect();
        let Some(clause) = Needle::new(spelling).filter(|_| !parts.is_empty()) else {
            continue;
        };
        let part_needles = parts
            .iter()
            .filter_map(|&p| needles.get(p).cloned())
            .collect();
        values.push((clause, part_needles));
        clauses.push((key.clone(), parts));
    }
    (Pieces::around(&values), clauses)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "Ole takes levetiracetam 500 mg twice daily; call Ingrid on 07700 900412.";

    fn spans(d: &Detector, text: &str) -> Vec<String> {
        d.scan(text)
            .iter()
            .map(|h| text[h.start..h.end].to_owned())
            .collect()
    }

    #[test]
    fn finds_codes_across_separators_case_and_encodings() {
        let lib = PatternLibrary::build([(0, SECRET)], &[]);
        let d = Detector::build(&lib, |_| true);
        let text = "Reach her at 07700-900-412 or LEVETIRACETAM 500 MG, b64 MDc3MDAgOTAwNDEy";
        let s = spans(&d, text);
        for want in [
            "07700-900-412",
            "LEVETIRACETAM",
            "500 MG",
            "MDc3MDAgOTAwNDEy",
        ] {
            assert!(s.contains(&want.to_owned()), "{want}: {s:?}");
        }
        assert!(d.window() > 0 && d.window() <= MAX_WINDOW);
    }

    #[test]
    fn patterns_in_unprotected_text_are_dropped_but_not_participants_words() {
        let lib = PatternLibrary::build([(0, SECRET)], &["Meet at 07700 900412 for the walk"]);
        let d = Detector::build(&lib, |_| true);
        assert!(spans(&d, "call 07700 900412").is_empty());
        assert!(!spans(&d, "500 mg").is_empty());
        assert!(spans(&d, "500 m").is_empty());
    }

    #[test]
    fn excluded_objects_are_not_found() {
        let lib = PatternLibrary::build([(0, SECRET)], &[]);
        let d = Detector::build(&lib, |_| false);
        assert!(d.is_empty());
        assert_eq!(d.window(), 0);
        assert!(d.scan("levetiracetam").is_empty());
    }
}
