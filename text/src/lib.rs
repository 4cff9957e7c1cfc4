//! The canonical text form and the decoding views shared by the verifier and the guard.
//!
//! # Canonical form
//!
//! Two texts that a reader would take for the same value have the same canonical form.
//! [`Canonical::new`] applies, in order:
//!
//! 1. **NFKC** (Unicode compatibility normalisation): fullwidth `ＤＥ４４` becomes `DE44`,
//!    ligatures and superscripts become plain letters and digits.
//! 2. **Removal of default-ignorable code points**: zero-width spaces and joiners, bidi
//!    controls, the soft hyphen and the byte-order mark vanish, so `me\u{200B}tformin`
//!    is `metformin`.
//! 3. **Confusables skeleton** (UTS #39, `unicode-security`) of every non-ASCII
//!    character: Cyrillic `а` or Greek `Ι` become the ASCII letter with the same
//!    skeleton (one of the same case preferred), else their skeleton. ASCII is left as
//!    it is, because the skeleton also maps `1` to `l` and `0` to `O`.
//! 4. **Case folding** (Unicode default case folding, `caseless`).
//! 5. **The separator rule**, the one rule for numbers and codes. Separators are
//!    whitespace and `- . / _ , :`. A run of separators between two letters or digits
//!    of which at least one is a digit is removed; any other run becomes one space
//!    (and disappears at either end of the text). So `4-1-2`, `4 1 2`, `4.1.2` and
//!    `412` are all `412`, `DE44 5001` is `de445001`, `PF_2291` is `pf2291` and
//!    `deep-brain  stimulation` is `deep brain stimulation`.
//!
//! Steps 1 to 3 keep case and are available alone as [`prepare`]: the decoding views
//! read the prepared text, because base64 is case-sensitive.
//!
//! # Matching
//!
//! A value is found where its canonical form occurs starting and ending on a word
//! boundary (`2291` is not in `22910`); a removed separator run counts as a boundary.
//! Values with fewer than four letters and digits must also have their separators where
//! the value has them, so `8.4` is not found in `84`.
//!
//! # Views and rendering families
//!
//! A [`Haystack`] reads a text through decoding [`View`]s besides the plain canonical
//! form (base64, base32, base58, Ascii85/Z85, uuencode, hex and hex byte lists,
//! binary, octal and decimal character codes, `U+` code points, percent-encoding, quoted-printable, HTML and string escapes, ROT13, reversal,
//! spelled-out numbers and markdown/JSON/CSV cell text), and through every pair of them;
//! decoded payloads that are gzip, zlib, bzip2, xz, zip or tar are opened. Each reading
//! is then searched for the value's renderings under the [`render`] families (Caesar
//! shifts, Atbash, ROT47, leetspeak, spelled digits in fourteen languages, the NATO
//! alphabet, Morse code, initials, characters spread out with filler, block encodings at every
//! alignment). A match reports the reading and family that found it
//! (`caesar(+3)>gzip>base64`) and where it lies in the original text. Values split over
//! several texts (halves with words around them, odd and even characters) are found by
//! [`render::split`]; values assembled from pieces in any order, each piece in its own
//! reading and rendering, by [`render::assemble`].
//!
//! A long text can be read in full only where it can hold a value of a set
//! ([`Haystack::find_set_located`]): one pass over the text as written finds the places
//! (forms of the values in cheap projections, what a decoder may read), and only windows
//! around them go through every view and family.
//!
//! Every derived text is a [`Mapped`]: each of its bytes knows the original byte span
//! it came from, so a match can be located (and redacted) in what was written.

// Library code reads text and files it did not write: an index out of range must be a
// handled case (`get`), never a panic. Tests may index what they just built.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

mod canon;
#[cfg(feature = "generate")]
pub mod generate;
mod glyphs;
mod haystack;
mod locate;
mod mapped;
pub mod render;
mod set;
mod views;

pub use canon::{canonical, is_separator, prepare, Canonical, Needle};
pub use haystack::{Haystack, Match, SetMatch};
pub use mapped::Mapped;
pub use render::Families;
pub use set::{NeedleSet, SetError};
pub use views::{readings, Block, View, ViewPath};
