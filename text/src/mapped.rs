//! Text that remembers, for every byte, which bytes of an original text produced it.

use std::ops::Range;

/// A text whose every byte maps back to a byte span of the original text it was derived
/// from: the bridge that lets a match found in a normalised or decoded reading be located
/// (and later redacted) in what the agent actually wrote.
///
/// Spans are kept as 32-bit offsets: every reading and projection of a text holds one
/// per byte, and half the memory is half the time spent writing them. An original text
/// is at most 4 GiB; an offset beyond that is clamped to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapped {
    text: String,
    /// `spans[i]`: the original byte range (start, end) that produced byte `i` of `text`.
    spans: Vec<(u32, u32)>,
}

fn narrow(r: Range<usize>) -> (u32, u32) {
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    (n(r.start), n(r.end))
}

fn widen((s, e): (u32, u32)) -> Range<usize> {
    s as usize..e as usize
}

impl Mapped {
    /// The original text itself: every byte maps to itself.
    pub fn identity(text: &str) -> Self {
        if text.is_ascii() {
            return Mapped {
                text: text.to_owned(),
                spans: (0..text.len()).map(|i| narrow(i..i + 1)).collect(),
            };
        }
        Mapped::identity_by_char(text)
    }

    /// [`Mapped::identity`], one character at a time.
    fn identity_by_char(text: &str) -> Self {
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
        if c.is_ascii() {
            self.text.push(c);
            self.spans.push(narrow(span));
            return;
        }
        let before = self.text.len();
        self.text.push(c);
        self.spans
            .extend(std::iter::repeat_n(narrow(span), self.text.len() - before));
    }

    /// Appends `s`, produced as a whole by the original bytes `span`.
    pub fn push_str(&mut self, s: &str, span: Range<usize>) {
        self.text.push_str(s);
        self.spans
            .extend(std::iter::repeat_n(narrow(span), s.len()));
    }

    /// Appends another derived text of the same original.
    pub fn append(&mut self, other: &Mapped) {
        self.text.push_str(&other.text);
        self.spans.extend_from_slice(&other.spans);
    }

    /// The original span of derived byte `i` (empty at the end of the text).
    pub fn span_of(&self, i: usize) -> Range<usize> {
        match self.spans.get(i) {
            Some(&s) => widen(s),
            None => {
                let end = self.spans.last().map_or(0, |s| s.1 as usize);
                end..end
            }
        }
    }

    /// The smallest original span covering the derived byte range `range`.
    pub fn source_span(&self, range: Range<usize>) -> Range<usize> {
        let covered = self.spans.get(range.clone()).unwrap_or(&[]);
        let start = covered.iter().map(|s| s.0).min();
        let end = covered.iter().map(|s| s.1).max();
        match (start, end) {
            (Some(s), Some(e)) => widen((s, e)),
            _ => self.span_of(range.start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The shortcut for ASCII maps every byte to itself, as the general path does.
        #[test]
        fn an_ascii_identity_is_the_identity_built_by_character(s in "[\\x00-\\x7f]{0,64}") {
            proptest::prop_assert_eq!(Mapped::identity(&s), Mapped::identity_by_char(&s));
        }
    }

    /// Offsets beyond 32 bits are clamped, not wrapped.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_span_past_four_gibibytes_is_clamped() {
        let mut m = Mapped::default();
        m.push('a', 1usize << 33..(1usize << 33) + 1);
        assert_eq!(m.span_of(0), u32::MAX as usize..u32::MAX as usize);
    }
}
