//! Text that remembers, for every byte, which bytes of an original text produced it.

use std::ops::Range;

/// A text whose every byte maps back to a byte span of the original text it was derived
/// from: the bridge that lets a match found in a normalised or decoded reading be located
/// (and later redacted) in what the agent actually wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapped {
    text: String,
    /// `spans[i]`: the original byte range that produced byte `i` of `text`.
    spans: Vec<Range<usize>>,
}

impl Mapped {
    /// The original text itself: every byte maps to itself.
    pub fn identity(text: &str) -> Self {
        let mut m = Mapped::with_capacity(text.len());
        for (i, c) in text.char_indices() {
            m.push(c, i..i + c.len_utf8());
        }
        m
    }

    /// An empty text with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        Mapped {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(bytes),
        }
    }

    /// The derived text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the derived text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Appends `c`, produced by the original bytes `span`.
    pub fn push(&mut self, c: char, span: Range<usize>) {
        let before = self.text.len();
        self.text.push(c);
        self.spans
            .extend(std::iter::repeat_n(span, self.text.len() - before));
    }

    /// Appends `s`, produced as a whole by the original bytes `span`.
    pub fn push_str(&mut self, s: &str, span: Range<usize>) {
        self.text.push_str(s);
        self.spans.extend(std::iter::repeat_n(span, s.len()));
    }

    /// Appends another derived text of the same original.
    pub fn append(&mut self, other: &Mapped) {
        self.text.push_str(&other.text);
        self.spans.extend(other.spans.iter().cloned());
    }

    /// The original span of derived byte `i` (empty at the end of the text).
    pub fn span_of(&self, i: usize) -> Range<usize> {
        match self.spans.get(i) {
            Some(s) => s.clone(),
            None => {
                let end = self.spans.last().map_or(0, |s| s.end);
                end..end
            }
        }
    }

    /// The smallest original span covering the derived byte range `range`.
    pub fn source_span(&self, range: Range<usize>) -> Range<usize> {
        let covered = self.spans.get(range.clone()).unwrap_or(&[]);
        let start = covered.iter().map(|s| s.start).min();
        let end = covered.iter().map(|s| s.end).max();
        match (start, end) {
            (Some(s), Some(e)) => s..e,
            _ => self.span_of(range.start),
        }
    }
}
