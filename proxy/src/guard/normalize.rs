//! Normalised views of a text for matching, each byte mapped back to the original.
//!
//! Two views are used. The *word* view lower-cases letters and digits and collapses
//! every run of anything else (spaces, punctuation, separators) into one space, so
//! `Tonic-Clonic  seizure` and `tonic clonic seizure` read the same. The *compact*
//! view keeps only lower-cased letters and digits and remembers where something was
//! dropped, so `07700 900412`, `07700-900412` and `07700900412` read the same while a
//! match must still start and end at a token edge (`500` is not found in `1500`).
//!
//! Both views take the character before the text (`prev`) and whether the text is
//! the end of the whole output (`at_end`): a window of a stream is normalised exactly
//! as the same characters inside the whole text, except that nothing may match at its
//! open right edge, where the next chunk could still extend the last token.

/// The word view: tokens separated by single spaces, padded with a space on each side
/// where the edge is known to be a token boundary.
pub(crate) struct WordView {
    /// The normalised text.
    pub text: String,
    /// For every byte of `text`, the original byte span `[start, end)` it came from.
    pub src: Vec<(usize, usize)>,
}

/// The compact view: letters and digits only, lower-cased.
pub(crate) struct CompactView {
    /// The normalised text.
    pub text: String,
    /// For every byte of `text`, the original byte span it came from.
    pub src: Vec<(usize, usize)>,
    /// For every byte of `text`: whether something was dropped right before it (or the
    /// text starts after a non-alphanumeric character).
    pub gap: Vec<bool>,
    /// Whether the last kept character is followed by a token boundary.
    pub gap_after_last: bool,
}

fn push_lower(out: &mut String, src: &mut Vec<(usize, usize)>, c: char, span: (usize, usize)) {
    // Most output is ASCII: skip the Unicode case tables for it.
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        src.push(span);
        return;
    }
    for lc in c.to_lowercase() {
        let before = out.len();
        out.push(lc);
        src.extend(std::iter::repeat_n(span, out.len() - before));
    }
}

/// Whether a character belongs to a token (`%` does: `8.1%` is not `8.1`).
pub(crate) fn is_token_char(c: char) -> bool {
    c.is_alphanumeric() || c == '%'
}

/// Whether an ASCII byte belongs to a token (as [`is_token_char`]).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'%'
}

/// The word view of `text`.
pub(crate) fn word_view(text: &str, prev: Option<char>, at_end: bool) -> WordView {
    if text.is_ascii() {
        return ascii_word_view(text, prev, at_end);
    }
    let mut out = String::with_capacity(text.len() + 2);
    let mut src = Vec::with_capacity(text.len() + 2);
    let glued = prev.is_some_and(is_token_char);
    let mut last_space = false;
    if !glued {
        out.push(' ');
        src.push((0, 0));
        last_space = true;
    }
    for (i, c) in text.char_indices() {
        let span = (i, i + c.len_utf8());
        if is_token_char(c) {
            push_lower(&mut out, &mut src, c, span);
            last_space = false;
        } else if !last_space {
            out.push(' ');
            src.push(span);
            last_space = true;
        }
    }
    if at_end && !last_space {
        out.push(' ');
        src.push((text.len(), text.len()));
    }
    WordView { text: out, src }
}

/// [`word_view`] of an ASCII text, byte by byte: most model output is ASCII, and
/// decoding characters and asking Unicode tables was most of a scan's time.
fn ascii_word_view(text: &str, prev: Option<char>, at_end: bool) -> WordView {
    let mut out = Vec::with_capacity(text.len() + 2);
    let mut src = Vec::with_capacity(text.len() + 2);
    let mut last_space = prev.is_none_or(|c| !is_token_char(c));
    if last_space {
        out.push(b' ');
        src.push((0, 0));
    }
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if is_token_byte(b) {
            out.push(b.to_ascii_lowercase());
            src.push((i, i + 1));
            last_space = false;
        } else if !last_space {
            out.push(b' ');
            src.push((i, i + 1));
            last_space = true;
        }
    }
    if at_end && !last_space {
        out.push(b' ');
        src.push((text.len(), text.len()));
    }
    WordView {
        text: ascii_string(out),
        src,
    }
}

/// The compact view of `text`.
pub(crate) fn compact_view(text: &str, prev: Option<char>, at_end: bool) -> CompactView {
    if text.is_ascii() {
        return ascii_compact_view(text, prev, at_end);
    }
    let mut out = String::with_capacity(text.len());
    let mut src = Vec::with_capacity(text.len());
    let mut gap = Vec::with_capacity(text.len());
    let mut dropped = !prev.is_some_and(is_token_char);
    for (i, c) in text.char_indices() {
        if is_token_char(c) {
            let before = out.len();
            push_lower(&mut out, &mut src, c, (i, i + c.len_utf8()));
            gap.push(dropped);
            gap.extend(std::iter::repeat_n(false, out.len() - before - 1));
            dropped = false;
        } else {
            dropped = true;
        }
    }
    CompactView {
        text: out,
        src,
        gap,
        gap_after_last: dropped || at_end,
    }
}

/// [`compact_view`] of an ASCII text, byte by byte (see [`ascii_word_view`]).
fn ascii_compact_view(text: &str, prev: Option<char>, at_end: bool) -> CompactView {
    let mut out = Vec::with_capacity(text.len());
    let mut src = Vec::with_capacity(text.len());
    let mut gap = Vec::with_capacity(text.len());
    let mut dropped = prev.is_none_or(|c| !is_token_char(c));
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if is_token_byte(b) {
            out.push(b.to_ascii_lowercase());
            src.push((i, i + 1));
            gap.push(dropped);
            dropped = false;
        } else {
            dropped = true;
        }
    }
    CompactView {
        text: ascii_string(out),
        src,
        gap,
        gap_after_last: dropped || at_end,
    }
}

/// Lower-cased ASCII bytes as a string (they are always valid UTF-8).
fn ascii_string(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl CompactView {
    /// Whether a match of `[start, end)` (normalised bytes) sits on token edges.
    pub fn on_edges(&self, start: usize, end: usize) -> bool {
        let starts = self.gap.get(start).copied().unwrap_or(false);
        let ends = if end >= self.text.len() {
            self.gap_after_last
        } else {
            self.gap.get(end).copied().unwrap_or(false)
        };
        starts && ends
    }

    /// The original byte span of a match of `[start, end)`.
    pub fn original(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let first = self.src.get(start)?;
        let last = self.src.get(end.checked_sub(1)?)?;
        Some((first.0, last.1))
    }
}

impl WordView {
    /// The original byte span of a padded match of `[start, end)` (the pads excluded).
    pub fn original(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let first = self.src.get(start + 1)?;
        let last = self.src.get(end.checked_sub(2)?)?;
        Some((first.0, last.1))
    }
}

/// The lower-cased letters and digits of a text (what a code token compacts to).
pub(crate) fn compact(text: &str) -> String {
    compact_view(text, None, true).text
}

/// The lower-cased tokens of a text, in order.
pub(crate) fn words(text: &str) -> Vec<String> {
    word_view(text, None, true)
        .text
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_view_collapses_separators_and_case() {
        let v = word_view("Tonic-Clonic  seizure!", None, true);
        assert_eq!(v.text, " tonic clonic seizure ");
        let (s, e) = v.original(0, v.text.len()).unwrap();
        assert_eq!(&"Tonic-Clonic  seizure!"[s..e], "Tonic-Clonic  seizure");
    }

    #[test]
    fn open_right_edge_has_no_pad() {
        assert_eq!(word_view("ab cd", None, false).text, " ab cd");
        assert_eq!(word_view("ab cd", Some('x'), true).text, "ab cd ");
    }

    #[test]
    fn the_ascii_fast_path_matches_the_general_one() {
        let texts = [
            "Tonic-Clonic  seizure! 07700-900412, 8.1% of 1500.",
            "  leading and trailing  ",
            "",
            "%%",
            "x",
        ];
        let prevs = [None, Some('a'), Some(' '), Some('é')];
        for text in texts {
            // The same text with one non-ASCII character appended takes the general path;
            // its views must start exactly as the ASCII path's.
            let general = format!("{text}\u{e9}");
            for prev in prevs {
                for at_end in [false, true] {
                    let fast = word_view(text, prev, at_end);
                    let slow = word_view(&general, prev, at_end);
                    let open = word_view(text, prev, false);
                    assert!(slow.text.starts_with(&open.text), "{text:?} {prev:?}");
                    assert_eq!(&slow.src[..open.src.len()], &open.src[..]);
                    assert_eq!(fast.text.trim_end(), open.text.trim_end());

                    let fast = compact_view(text, prev, at_end);
                    let slow = compact_view(&general, prev, at_end);
                    assert_eq!(
                        slow.text,
                        format!("{}\u{e9}", fast.text),
                        "{text:?} {prev:?}"
                    );
                    assert_eq!(&slow.src[..fast.src.len()], &fast.src[..]);
                    assert_eq!(&slow.gap[..fast.gap.len()], &fast.gap[..]);
                }
            }
        }
    }

    #[test]
    fn compact_view_marks_token_edges() {
        let v = compact_view("x 1500 07700-900412", None, true);
        assert_eq!(v.text, "x150007700900412");
        // "500" inside "1500" is not on an edge.
        assert!(!v.on_edges(2, 5));
        // "07700900412" spans a dropped separator but starts and ends on edges.
        assert!(v.on_edges(5, 16));
        let (s, e) = v.original(5, 16).unwrap();
        assert_eq!(&"x 1500 07700-900412"[s..e], "07700-900412");
    }
}
