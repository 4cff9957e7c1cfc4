//! Values split over several texts that reach one destination, read in order: cut into
//! consecutive pieces with other words around each (`pieces(n)`), or dealt out
//! character by character (`interleave(n)`: odd characters in one text, even in the
//! next). Pieces are searched among the letters and digits of each text (see
//! [`super::project::squeezed`]) and must start and end on word boundaries.

use super::assemble::MAX_WAYS;
use super::project::squeezed;
use super::{bits, MIN_BITS};
use crate::canon::{prepare, Needle};
use crate::mapped::Mapped;
use crate::views::View;
use std::ops::Range;

/// Fewest letters and digits in one piece.
pub const MIN_PIECE: usize = 4;
/// Minimum bits of a value searched in pieces, and of each piece.
pub const MIN_SPLIT_BITS: f64 = 40.0;

/// One text read for pieces.
struct Part {
    prepared: Mapped,
    squeezed: Mapped,
}

impl Part {
    /// Original byte ranges where `piece` occurs on word boundaries.
    fn find(&self, piece: &str) -> Option<Range<usize>> {
        let hay = self.squeezed.as_str();
        let mut from = 0;
        while let Some(k) = hay.get(from..).and_then(|h| h.find(piece)) {
            let start = from + k;
            let r = self.squeezed.source_span(start..start + piece.len());
            let text = self.prepared.as_str();
            let before = text.get(..r.start).and_then(|s| s.chars().next_back());
            let after = text.get(r.end..).and_then(|s| s.chars().next());
            if !before.is_some_and(char::is_alphanumeric)
                && !after.is_some_and(char::is_alphanumeric)
            {
                return Some(self.prepared.source_span(r));
            }
            from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
        }
        None
    }
}

/// Texts read in order, prepared once for any number of values.
pub struct Stream {
    parts: Vec<Part>,
}

/// A value found across texts: the family and, per text used, its index in the stream
/// and the original byte range of its piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    /// `pieces(n)` or `interleave(n)`.
    pub view: View,
    /// (text index, original byte range) of each piece, in stream order.
    pub pieces: Vec<(usize, Range<usize>)>,
}

impl Stream {
    /// The texts of one destination, in the order they were written.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let parts = texts
            .into_iter()
            .map(|t| {
                let prepared = prepare(&Mapped::identity(t));
                let squeezed = squeezed(prepared.as_str());
                Part { prepared, squeezed }
            })
            .collect();
        Stream { parts }
    }

    /// Where `needle` occurs split over two or more texts, if it does.
    pub fn find(&self, needle: &Needle) -> Option<Split> {
        let prepared = prepare(&Mapped::identity(needle.raw()));
        let s = squeezed(prepared.as_str()).as_str().to_owned();
        if needle.is_strict() || bits(&s) < MIN_SPLIT_BITS || !s.is_ascii() {
            return None;
        }
        self.pieces(&s).or_else(|| self.interleaved(&s))
    }

    fn piece_ok(piece: &str) -> bool {
        piece.len() >= MIN_PIECE && bits(piece) >= MIN_BITS
    }

    /// Consecutive pieces in increasing texts.
    fn pieces(&self, s: &str) -> Option<Split> {
        let len = s.len();
        // reach[b]: how s[..b] was covered: the previous end, the text and the range.
        let mut reach: Vec<Option<(usize, usize, Range<usize>)>> = vec![None; len + 1];
        let mut reached = vec![false; len + 1];
        if let Some(r) = reached.first_mut() {
            *r = true;
        }
        let is = |v: &[bool], k: usize| v.get(k).copied().unwrap_or(false);
        for (t, part) in self.parts.iter().enumerate() {
            let starts: Vec<usize> = (0..len).filter(|&a| is(&reached, a)).collect();
            let mut newly = Vec::new();
            for a in starts {
                for b in (a + MIN_PIECE..=len).rev() {
                    let Some(piece) = s.get(a..b) else { continue };
                    if is(&reached, b) || !Self::piece_ok(piece) || (a == 0 && b == len) {
                        continue;
                    }
                    if let Some(r) = part.find(piece) {
                        if let Some(slot) = reach.get_mut(b) {
                            *slot = Some((a, t, r));
                        }
                        newly.push(b);
                    }
                }
            }
            for b in newly {
                if let Some(r) = reached.get_mut(b) {
                    *r = true;
                }
            }
            if is(&reached, len) {
                let mut pieces = Vec::new();
                let mut at = len;
                while at > 0 {
                    let (a, t, r) = reach.get(at).cloned().flatten()?;
                    pieces.push((t, r));
                    at = a;
                }
                pieces.reverse();
                let n = u8::try_from(pieces.len()).unwrap_or(u8::MAX);
                return Some(Split {
                    view: View::Pieces(n),
                    pieces,
                });
            }
        }
        None
    }

    /// Characters dealt round-robin over `n` increasing texts.
    fn interleaved(&self, s: &str) -> Option<Split> {
        let chars: Vec<char> = s.chars().collect();
        'ways: for n in 2..=usize::from(MAX_WAYS) {
            let strides: Vec<String> = (0..n)
                .map(|r| chars.iter().skip(r).step_by(n).collect())
                .collect();
            if !strides.iter().all(|p| Self::piece_ok(p)) {
                continue;
            }
            let mut pieces = Vec::new();
            let mut next = 0;
            for p in &strides {
                let found = self
                    .parts
                    .iter()
                    .enumerate()
                    .skip(next)
                    .find_map(|(t, part)| part.find(p).map(|r| (t, r)));
                let Some((t, r)) = found else { continue 'ways };
                pieces.push((t, r));
                next = t + 1;
            }
            let n = u8::try_from(n).unwrap_or(u8::MAX);
            return Some(Split {
                view: View::Interleave(n),
                pieces,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_with_words_around_and_odd_even_characters() {
        let n = Needle::new("DE44 5001 0517 5407 3249 31").unwrap();
        let s = Stream::new([
            "Here you go... DE44 5001 0517",
            "(continued) 5407 3249 31 bye",
        ]);
        let f = s.find(&n).unwrap();
        assert_eq!(f.view, View::Pieces(2));
        let v: Vec<char> = "de44500105175407324931".chars().collect();
        let odd: String = v.iter().step_by(2).collect();
        let even: String = v.iter().skip(1).step_by(2).collect();
        let s = Stream::new(
            [format!("first: {odd}"), format!("second: {even}.")]
                .iter()
                .map(String::as_str),
        );
        assert_eq!(s.find(&n).unwrap().view, View::Interleave(2));
        let s = Stream::new(["DE44 5001 0517 is a number", "and 2024 was a year"]);
        assert!(s.find(&n).is_none());
    }
}
