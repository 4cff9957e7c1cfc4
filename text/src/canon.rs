//! The canonical form (the crate documentation states its rules) and matching on it.

use crate::mapped::Mapped;
use caseless::Caseless;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

/// Needles with fewer alphanumeric characters than this also need the separators
/// between them to be where the needle has them: `8.4` is not found in `84`.
const MIN_LOOSE_ALNUM: usize = 4;

/// Characters that separate the parts of numbers and codes (and words).
pub fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '.' | '/' | '_' | ',' | ':')
}

/// Steps 1 to 3 of the canonical form, which keep case so that case-sensitive encodings
/// (base64) can still be decoded afterwards: NFKC, removal of default-ignorable code
/// points and the UTS #39 skeleton of every non-ASCII character.
pub fn prepare(input: &Mapped) -> Mapped {
    // ASCII has no compatibility form, nothing ignorable, and is its own skeleton here
    // (the module's tests check this against the character-by-character path).
    if input.as_str().is_ascii() {
        return input.clone();
    }
    prepare_by_segment(input)
}

/// [`prepare`] of a text the caller gives up: ASCII is returned as it is, not copied.
pub(crate) fn prepare_owned(input: Mapped) -> Mapped {
    if input.as_str().is_ascii() {
        return input;
    }
    prepare_by_segment(&input)
}

/// [`prepare`] of a text the caller keeps: ASCII is borrowed, not copied.
pub(crate) fn prepare_borrowed(input: &Mapped) -> std::borrow::Cow<'_, Mapped> {
    if input.as_str().is_ascii() {
        return std::borrow::Cow::Borrowed(input);
    }
    std::borrow::Cow::Owned(prepare_by_segment(input))
}

/// [`prepare`], one character and its combining marks at a time.
fn prepare_by_segment(input: &Mapped) -> Mapped {
    let text = input.as_str();
    let mut out = Mapped::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let mut end = start + c.len_utf8();
        // A segment is a character with its combining marks, and with the invisible
        // characters among them (they vanish, and the marks then belong to it).
        while let Some(&(i, next)) = chars.peek() {
            if next.is_ascii() {
                break;
            }
            let invisible = skeleton(next).is_empty();
            if canonical_combining_class(next) == 0 && !invisible {
                break;
            }
            end = i + next.len_utf8();
            chars.next();
        }
        let span = input.source_span(start..end);
        let segment = &text[start..end];
        if segment.is_ascii() {
            out.push_str(segment, span);
            continue;
        }
        out.push_str(&fold_segment(segment), span);
    }
    out
}

/// What a base character and its combining marks read as: NFKC, then each character
/// folded, composed again, until nothing changes (a glyph folded to `G` followed by an
/// acute accent composes to `Ǵ`, which must read the same in a second preparation).
fn fold_segment(segment: &str) -> String {
    let mut current = segment.to_owned();
    for _ in 0..3 {
        let mut folded = String::with_capacity(current.len());
        for k in current.nfkc() {
            push_folded(k, &mut folded, 2);
        }
        let composed: String = folded.nfc().collect();
        if composed == current {
            break;
        }
        current = composed;
    }
    current
}

/// Pushes what `k` reads as. A skeleton may itself be a glyph or look-alike that a second
/// reading would fold further (Cyrillic `н` has the skeleton `ʜ`, a small capital `h`),
/// so the skeleton's characters are folded again, `depth` times at most: preparing a
/// prepared text then changes nothing, and a reading built from prepared text (reversed,
/// decoded) compares with a prepared value.
fn push_folded(k: char, out: &mut String, depth: u8) {
    if let Some(g) = crate::glyphs::fold(k) {
        out.push_str(g);
    } else if k.is_ascii() {
        out.push(k);
    } else if let Some(a) = ascii_lookalike(k) {
        out.push(a);
    } else {
        let sk = skeleton(k);
        // A symbol stays a symbol: `€`'s skeleton is the letter `Ꞓ`, and a value written
        // `€310` must not gain a letter that its spelled-out or squeezed renderings
        // (`three one zero`) never carry.
        if !k.is_alphanumeric() && sk.chars().any(char::is_alphanumeric) {
            out.push(k);
            return;
        }
        let unchanged = sk.chars().eq(std::iter::once(k));
        for s in sk.nfc() {
            if depth == 0 || unchanged {
                out.push(s);
            } else {
                push_folded(s, out, depth - 1);
            }
        }
    }
}

fn skeleton(c: char) -> String {
    let mut buf = [0u8; 4];
    unicode_security::skeleton(c.encode_utf8(&mut buf)).collect()
}

/// The ASCII letter or digit a non-ASCII character imitates: one with the same UTS #39
/// skeleton, a letter of the same case preferred. Skeleton prototypes are not always
/// what ASCII text holds (capital `I` and Greek `Ι` both become `l`), so the skeletons
/// are compared rather than used.
fn ascii_lookalike(c: char) -> Option<char> {
    static BY_SKELETON: OnceLock<HashMap<String, Vec<char>>> = OnceLock::new();
    let table = BY_SKELETON.get_or_init(|| {
        let mut t: HashMap<String, Vec<char>> = HashMap::new();
        for a in ('a'..='z').chain('A'..='Z').chain('0'..='9') {
            t.entry(skeleton(a)).or_default().push(a);
        }
        t
    });
    let candidates = table.get(&skeleton(c))?;
    let same_case = |a: &&char| a.is_alphabetic() && a.is_uppercase() == c.is_uppercase();
    candidates
        .iter()
        .find(same_case)
        .or_else(|| candidates.iter().find(|a| a.is_alphabetic()))
        .or_else(|| candidates.first())
        .copied()
}

/// Per-byte flags of a canonical text.
pub(crate) const BOUNDARY: u8 = 1;
const JOINED: u8 = 2;

/// A text in canonical form, with each byte's original span, where word boundaries
/// fall and where a separator run was removed.
#[derive(Debug, Clone, Default)]
pub struct Canonical {
    text: Mapped,
    /// `flags[i]` for the character starting at byte `i`; `flags[len]` is the end.
    flags: Vec<u8>,
}

impl Canonical {
    /// The canonical form of `text`.
    pub fn new(text: &str) -> Self {
        Canonical::from_mapped(&Mapped::identity(text))
    }

    /// The canonical form of a derived text, keeping its spans in the original.
    pub fn from_mapped(input: &Mapped) -> Self {
        Canonical::from_prepared(&prepare(input))
    }

    /// The canonical form of a text [`prepare`] already went through.
    pub(crate) fn from_prepared(prepared: &Mapped) -> Self {
        let text = prepared.as_str();
        let mut out = Mapped::with_capacity(text.len());
        let mut flags: Vec<u8> = Vec::with_capacity(text.len() + 1);
        let mut prev: Option<char> = None;
        let mut pending: Option<Range<usize>> = None;
        for (i, c) in text.char_indices() {
            let span = prepared.span_of(i);
            if is_separator(c) {
                pending = Some(match pending {
                    Some(p) => p.start.min(span.start)..p.end.max(span.end),
                    None => span,
                });
                continue;
            }
            for f in fold_case(c) {
                let mut flag = 0;
                match (pending.take(), prev) {
                    (Some(_), Some(p)) if joins(p, f) => flag |= JOINED | BOUNDARY,
                    (Some(run), Some(_)) => {
                        push_flagged(&mut out, &mut flags, ' ', run, BOUNDARY);
                        flag |= BOUNDARY;
                    }
                    (_, None) => flag |= BOUNDARY,
                    (None, Some(p)) => {
                        if !(p.is_alphanumeric() && f.is_alphanumeric()) {
                            flag |= BOUNDARY;
                        }
                    }
                }
                push_flagged(&mut out, &mut flags, f, span.clone(), flag);
                prev = Some(f);
            }
        }
        flags.push(BOUNDARY);
        Canonical { text: out, flags }
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// Whether nothing is left after canonicalisation.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The original byte span of the canonical byte range `range`.
    pub fn source_span(&self, range: Range<usize>) -> Range<usize> {
        self.text.source_span(range)
    }

    pub(crate) fn flag(&self, i: usize, f: u8) -> bool {
        self.flags.get(i).is_some_and(|x| x & f != 0)
    }

    /// Whether `needle` found at canonical bytes `range` starts and ends on word
    /// boundaries and keeps a short value's separators.
    pub(crate) fn accepts(&self, needle: &Needle, range: &Range<usize>) -> bool {
        self.flag(range.start, BOUNDARY)
            && self.flag(range.end, BOUNDARY)
            && needle.fits(self, range.start)
    }

    /// Canonical byte ranges where `needle` occurs starting and ending on word boundaries
    /// (separator runs removed inside a number count as boundaries), overlapping ones
    /// included.
    pub fn find_iter<'a>(&'a self, needle: &'a Needle) -> impl Iterator<Item = Range<usize>> + 'a {
        let hay = self.as_str();
        let pat = needle.canon.as_str();
        let mut from = 0;
        std::iter::from_fn(move || {
            if pat.is_empty() {
                return None;
            }
            while let Some(rel) = hay.get(from..).and_then(|h| h.find(pat)) {
                let start = from + rel;
                from = start + hay[start..].chars().next().map_or(1, char::len_utf8);
                let end = start + pat.len();
                if self.flag(start, BOUNDARY)
                    && self.flag(end, BOUNDARY)
                    && needle.fits(self, start)
                {
                    return Some(start..end);
                }
            }
            None
        })
    }
}

/// `c` case-folded. ASCII folds to its lowercase, without the folding iterator.
fn fold_case(c: char) -> impl Iterator<Item = char> {
    let quick = c.is_ascii().then(|| c.to_ascii_lowercase());
    let full = (!c.is_ascii()).then(|| std::iter::once(c).default_case_fold());
    quick.into_iter().chain(full.into_iter().flatten())
}

fn push_flagged(out: &mut Mapped, flags: &mut Vec<u8>, c: char, span: Range<usize>, flag: u8) {
    out.push(c, span);
    flags.push(flag);
    flags.extend(std::iter::repeat_n(0, c.len_utf8() - 1));
}

/// Whether a separator run between `prev` and `next` is removed: inside a number or a
/// code, where both neighbours are letters or digits and at least one is a digit.
fn joins(prev: char, next: char) -> bool {
    prev.is_alphanumeric() && next.is_alphanumeric() && (prev.is_numeric() || next.is_numeric())
}

/// A protected value prepared for lookups.
#[derive(Debug, Clone)]
pub struct Needle {
    canon: Canonical,
    /// The value as given, for renderings that depend on its exact bytes.
    raw: String,
    /// Short values must also keep their separators (see [`MIN_LOOSE_ALNUM`]).
    strict: bool,
    /// Too little information to count inside an encoded run read raw (see
    /// [`crate::render::MIN_RUN_BITS`]).
    faint: bool,
}

impl Needle {
    /// Prepares `value`; `None` when nothing is left of it in canonical form.
    pub fn new(value: &str) -> Option<Self> {
        let canon = Canonical::new(value);
        if canon.is_empty() {
            return None;
        }
        let alnum = canon
            .as_str()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .count();
        let prepared = prepare(&Mapped::identity(value));
        let squeezed = crate::render::project::squeezed(prepared.as_str());
        Some(Needle {
            strict: alnum < MIN_LOOSE_ALNUM,
            faint: crate::render::bits(squeezed.as_str()) < crate::render::MIN_RUN_BITS,
            canon,
            raw: value.to_owned(),
        })
    }

    /// Whether the value carries too little information to count where a reading
    /// shows it inside an encoded run without decoding it.
    pub fn is_faint(&self) -> bool {
        self.faint
    }

    /// The value's canonical form with its word boundaries.
    pub(crate) fn canonical(&self) -> &Canonical {
        &self.canon
    }

    /// The value as given.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Whether the value is short enough that its separators must match too.
    pub fn is_strict(&self) -> bool {
        self.strict
    }

    /// The value in canonical form.
    pub fn as_str(&self) -> &str {
        self.canon.as_str()
    }

    /// Whether a textual occurrence at `start` also keeps a short value's separators.
    pub(crate) fn fits(&self, hay: &Canonical, start: usize) -> bool {
        !self.strict
            || self
                .canon
                .as_str()
                .char_indices()
                .skip(1)
                .all(|(k, _)| self.canon.flag(k, JOINED) == hay.flag(start + k, JOINED))
    }
}

/// The canonical form of `text` as a plain string.
pub fn canonical(text: &str) -> String {
    Canonical::new(text).as_str().to_owned()
}

#[cfg(test)]
mod tests;
