//! Random renderings of a value, for property tests of the matcher and of what uses it.
//!
//! A [`Rendering`] is an optional character-level member (a cipher, a substitution
//! class, a spelling or a spacing) followed by up to two encodings around the text
//! (radix encodings, escapes, compression), each with random parameters. The families
//! are written here independently of the matcher's own decoders and renderings (with
//! the encoding crates or by hand), so a test measures the matcher against encoders it
//! does not share code with. Enabled by the `generate` feature (a dev-dependency).

mod inner;
mod outer;

pub use inner::Inner;
pub use outer::Outer;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// One random rendering: an optional character-level member, then the encodings.
#[derive(Debug, Clone)]
pub struct Rendering {
    /// The character-level member, applied first.
    pub inner: Option<Inner>,
    /// The encodings, applied in order after it.
    pub outers: Vec<Outer>,
}

impl Rendering {
    /// `value` rendered: the character-level member, then each encoding.
    pub fn apply(&self, value: &str) -> String {
        let mut text = self
            .inner
            .as_ref()
            .map_or_else(|| value.to_owned(), |i| i.apply(value));
        for o in &self.outers {
            text = o.apply(&text);
        }
        text
    }

    /// Whether the matcher promises to find `value` under this rendering.
    pub fn eligible(&self, value: &str) -> bool {
        self.inner.as_ref().is_none_or(|i| i.eligible(value))
    }

    /// The families of its members, in order.
    pub fn families(&self) -> Vec<&'static str> {
        self.inner
            .iter()
            .map(Inner::family)
            .chain(self.outers.iter().map(Outer::family))
            .collect()
    }
}

/// Any character-level member, with random parameters.
pub fn inner() -> impl Strategy<Value = Inner> {
    prop_oneof![
        (0u8..26, 0u8..10).prop_map(|(l, d)| Inner::Caesar(l, d)),
        Just(Inner::Atbash),
        Just(Inner::Rot47),
        any::<u64>().prop_map(Inner::Leet),
        Just(Inner::Nato),
        (0usize..8).prop_map(Inner::Spelled),
        (0usize..7).prop_map(Inner::Spaced),
        any::<bool>().prop_map(Inner::Glyphs),
        Just(Inner::Fullwidth),
        Just(Inner::MathBold),
        Just(Inner::Homoglyphs),
        any::<u64>().prop_map(Inner::Case),
        Just(Inner::Morse),
        Just(Inner::WordsReversed),
        Just(Inner::UpsideDown),
    ]
}

/// Any encoding, with random parameters.
pub fn outer() -> impl Strategy<Value = Outer> {
    prop_oneof![
        (any::<bool>(), 0usize..6).prop_map(|(u, p)| Outer::Base64(u, p)),
        any::<bool>().prop_map(Outer::Base32),
        Just(Outer::Base58),
        any::<bool>().prop_map(Outer::Hex),
        any::<bool>().prop_map(Outer::Entities),
        Just(Outer::UEscape),
        Just(Outer::XEscape),
        Just(Outer::OctalEscape),
        Just(Outer::Percent),
        Just(Outer::QuotedPrintable),
        Just(Outer::Ascii85),
        Just(Outer::Uuencode),
        (0u8..3).prop_map(Outer::Compressed),
        Just(Outer::Reversed),
        any::<bool>().prop_map(Outer::Binary),
        Just(Outer::Octal),
        any::<bool>().prop_map(Outer::Decimal),
        Just(Outer::CodePoints),
    ]
}

/// One to three members: an optional character-level one, then up to two encodings.
pub fn rendering() -> impl Strategy<Value = Rendering> {
    (
        proptest::option::of(inner()),
        proptest::collection::vec(outer(), 0..=2),
    )
        .prop_filter("at least one member", |(i, o)| i.is_some() || !o.is_empty())
        .prop_map(|(inner, outers)| Rendering { inner, outers })
}

/// Renderings drawn per value by the property tests: `COSEC_RENDERING_CASES`, default 4
/// (the long runs in BENCHMARKS.md use more).
pub fn cases_per_value() -> u32 {
    std::env::var("COSEC_RENDERING_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4)
}

/// A runner drawing `cases` renderings from a fixed seed: the same renderings on every
/// run, so a family's figure only moves when the code under test does.
pub fn seeded_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    )
}
