//! Many needles searched at once: one `aho-corasick` automaton over their canonical
//! forms, with the same boundary rules as a single [`Needle`].

use crate::canon::Needle;
use crate::locate::Locator;
use crate::render::Families;
use aho_corasick::AhoCorasick;
use std::sync::OnceLock;

/// Why a [`NeedleSet`] could not be built (the automaton's own error).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the needle automaton: {0}")]
pub struct SetError(#[from] aho_corasick::BuildError);

/// A set of needles prepared for one pass over each reading of a text.
#[derive(Debug, Clone, Default)]
pub struct NeedleSet {
    needles: Vec<Needle>,
    automaton: Option<AhoCorasick>,
    /// The needles' renderings, precomputed once.
    families: Families,
    /// The forms a long text is searched for before it is read, built on first use.
    locator: OnceLock<Locator>,
    /// What the full reading of a short run of decodable tokens found, by its text.
    tokens: TokenMemo,
}

/// Most token runs remembered per set (the memory is cleared when full).
const MAX_TOKEN_RUNS: usize = 1 << 14;
/// Longest token run remembered.
const MAX_TOKEN_RUN: usize = 64;

/// The matches of the full reading of token runs, by text, relative to the run: ordinary
/// words that a token decoder reads as junk recur in every text, and their reading
/// depends on nothing else. A clone starts empty.
#[derive(Debug, Default)]
struct TokenMemo(std::sync::Mutex<std::collections::HashMap<String, Vec<crate::SetMatch>>>);

impl Clone for TokenMemo {
    fn clone(&self) -> Self {
        TokenMemo::default()
    }
}

impl NeedleSet {
    /// [`crate::Haystack::find_set`] of a run of decodable tokens (the families searched
    /// in its decoded readings only: [`crate::Haystack::decoded_tokens`]), remembered by
    /// its text.
    pub(crate) fn find_in_tokens(&self, run: &str) -> Vec<crate::SetMatch> {
        let read = || crate::Haystack::decoded_tokens(run).find_set(self);
        if run.len() > MAX_TOKEN_RUN {
            return read();
        }
        let lock = || self.tokens.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = lock().get(run) {
            return found.clone();
        }
        let found = read();
        let mut memo = lock();
        if memo.len() >= MAX_TOKEN_RUNS {
            memo.clear();
        }
        memo.insert(run.to_owned(), found.clone());
        found
    }
}

impl NeedleSet {
    /// The set of `needles`; needle `i` of the input is reported as index `i`.
    pub fn new(needles: Vec<Needle>) -> Result<Self, SetError> {
        if needles.is_empty() {
            return Ok(NeedleSet::default());
        }
        let automaton = AhoCorasick::new(needles.iter().map(Needle::as_str))?;
        let families = Families::new(&needles);
        Ok(NeedleSet {
            needles,
            automaton: Some(automaton),
            families,
            locator: OnceLock::new(),
            tokens: TokenMemo::default(),
        })
    }

    /// Number of needles.
    pub fn len(&self) -> usize {
        self.needles.len()
    }

    /// Whether the set has no needle.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// Needle `i`.
    pub fn get(&self, i: usize) -> Option<&Needle> {
        self.needles.get(i)
    }

    /// The needles, by index.
    pub fn needles(&self) -> &[Needle] {
        &self.needles
    }

    /// The needles' renderings.
    pub(crate) fn families(&self) -> &Families {
        &self.families
    }

    /// The forms of the needles and their renderings that locate where a long text can
    /// hold one.
    pub(crate) fn locator(&self) -> &Locator {
        self.locator
            .get_or_init(|| Locator::new(&self.needles, &self.families))
    }

    /// The byte ranges of `text` that [`crate::Haystack::find_set_located`] reads in
    /// full, in order; `None` when it reads the whole text (for benches and diagnostics).
    pub fn located_windows(&self, text: &str) -> Option<Vec<std::ops::Range<usize>>> {
        let plain = crate::Haystack::plain(text).find_set(self);
        let windows = self.locator().windows(text, &plain)?;
        Some(windows.into_iter().map(|w| w.range).collect())
    }

    /// The automaton and needles, for the haystack's search.
    pub(crate) fn parts(&self) -> Option<(&AhoCorasick, &[Needle])> {
        self.automaton
            .as_ref()
            .map(|a| (a, self.needles.as_slice()))
    }
}
