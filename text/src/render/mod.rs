//! Rendering families: a known value searched in the renderings a writer can produce
//! from it by hand or with a one-line command, organised by family and parameter.
//!
//! Decoding views ([`crate::views`]) undo encodings that can be recognised in the text
//! (base64, escapes, containers). What cannot be recognised without knowing the value
//! is searched with the value in hand instead: its rendering under every member of a
//! family is precomputed once per value and searched in projections of each reading
//! (see [`project`]):
//!
//! | family | parameter | searched as |
//! |---|---|---|
//! | `spaced` | — | the value's letters and digits in the reading's letters and digits (anything else between them); on word boundaries unless the value has [`MIN_FILLER_BITS`] |
//! | `caesar(+l,+d)` | letter shift 0-25, digit shift 0-9 | the shift-invariant differences of consecutive letters and digits, one pattern for all 260 members |
//! | `atbash` | — | the mirrored value in the letters and digits |
//! | `rot47` | — | ROT47 of the value's spellings, whitespace removed |
//! | `leet` | — | both sides read by look-alike class (`4 @` a, `3` e, `1 l !` i, `0` o, ...) |
//! | `nato`, `spelled(xx)` | spelling alphabet or language | words read back as letters and digits, and the concatenated spelling |
//! | `initials` | — | the first letters of consecutive words |
//! | `morse` | — | Morse letters in the reading read back as letters and digits |
//! | `words_reversed` | — | every word of the reading spelled backwards, in order |
//! | `word_order` | — | the words of the reading in reverse order |
//! | `base64@o`, `base32@o`, `ascii85@o` | byte offset mod the block | the characters fully determined by the value inside a longer payload |
//! | `filler(k)` | up to `k` other letters or digits between characters | a gap-bounded subsequence search |
//!
//! Values too short to tell from ordinary text in a family (a few digits shifted by an
//! unknown amount are any few digits) are not searched in it: each family needs the
//! value to carry a minimum of information ([`bits`]), more for families with many
//! members.

pub mod assemble;
mod blocks;
pub(crate) mod project;
mod search;
pub mod split;
pub(crate) mod words;

pub use search::Families;
pub(crate) use search::Projections;

/// Information in a value's letters and digits, in bits (a letter about 4.7, a digit
/// about 3.3): what decides which families it is searched in.
pub fn bits(squeezed: &str) -> f64 {
    squeezed
        .chars()
        .map(|c| {
            if c.is_ascii_digit() {
                3.32
            } else if c.is_ascii_alphabetic() {
                4.7
            } else {
                5.0
            }
        })
        .sum()
}

/// Minimum bits for single-member families (`spaced`, `leet`, `nato`, `spelled`,
/// `initials`, `atbash`, `rot47`, block alignments).
pub const MIN_BITS: f64 = 16.0;
/// Minimum bits for `leet`, whose look-alike classes merge letters with digits and
/// symbols, so a short value's classes are common (`SP30` reads `speo`).
pub const MIN_LEET_BITS: f64 = 20.0;
/// Minimum bits for `initials`: words start with a few common letters far more often
/// than with the others, so a short value's initials are common (`and Bilal. Van
/// deliveries` reads `ABVD`).
pub const MIN_INITIALS_BITS: f64 = 20.0;
/// Minimum bits for `caesar`, which has 260 members.
pub const MIN_SHIFT_BITS: f64 = 30.0;
/// Minimum bits for `filler`, which matches a value spread over ordinary words, and for
/// a `spaced` match that does not start and end on word boundaries.
pub const MIN_FILLER_BITS: f64 = 60.0;
/// Minimum bits for a value to count where a reading shows it inside an encoded run
/// that the reading did not decode (`84%` in the characters of `%48`, `3031` in the hex
/// of `01`): an encoder writes short strings of digits and symbols by chance.
pub const MIN_RUN_BITS: f64 = 24.0;
/// Fewest characters of a ROT47 rendering searched: it is looked for without word
/// boundaries (ROT47 turns letters into punctuation), so very short ones are left out.
pub const MIN_ROT47_CHARS: usize = 6;
/// Most other letters or digits between two characters of a `filler` match.
pub const MAX_FILLER: usize = 3;

#[cfg(test)]
mod tests;
