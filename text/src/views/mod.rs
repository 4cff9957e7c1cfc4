//! Decoding views: the readings of a text an agent can produce without tools.
//!
//! Each view turns a prepared text (see [`crate::prepare`]) into zero or more derived
//! texts, each mapped to the original bytes it came from. A view that finds nothing to
//! decode yields nothing, so an ordinary text has few readings. Radix views hand their
//! decoded bytes to [`container`], which opens compressed and archived payloads, so a
//! reading may name several steps (`gzip>base64`).

mod container;
mod escapes;
mod label;
mod lists;
pub(crate) mod morse;
mod radix;
mod spelled;
mod structure;
mod tokens;
mod transform;

pub(crate) use label::LANGS;
pub use label::{Block, View, ViewPath};

use crate::canon::prepare;
use crate::mapped::Mapped;
use std::collections::HashSet;

/// The decoding views, in the order readings are tried.
pub(crate) const DECODERS: &[View] = &[
    View::Markdown,
    View::Json,
    View::Csv,
    View::SpelledNumbers,
    View::Escapes,
    View::Base64,
    View::Base32,
    View::Base58,
    View::Ascii85,
    View::Uuencode,
    View::Hex,
    View::Binary,
    View::Octal,
    View::Decimal,
    View::CodePoints,
    View::Percent,
    View::QuotedPrintable,
    View::Rot13,
    View::Reversed,
];

/// Applies a decoding view: the derived texts, each with the container steps
/// (`gzip`, `tar`) its decoded bytes went through.
pub(crate) fn apply(view: View, text: &Mapped) -> Vec<(Vec<View>, Mapped)> {
    let plain = |v: Vec<Mapped>| v.into_iter().map(|m| (Vec::new(), m)).collect();
    match view {
        View::Base64 => joined(tokens::base64(text)),
        View::Base32 => joined(radix::base32(text)),
        View::Base58 => joined(radix::base58(text)),
        View::Ascii85 => joined(radix::ascii85(text)),
        View::Uuencode => joined(radix::uuencode(text)),
        View::Hex => joined(tokens::hex(text)),
        View::Binary => joined(lists::binary(text)),
        View::Octal => joined(lists::octal(text)),
        View::Decimal => joined(lists::decimal(text)),
        View::CodePoints => joined(lists::code_points(text)),
        View::Percent => joined(tokens::percent(text)),
        View::QuotedPrintable => plain(escapes::quoted_printable(text).into_iter().collect()),
        View::Escapes => plain(escapes::escapes(text).into_iter().collect()),
        View::Rot13 => plain(transform::rot13(text).into_iter().collect()),
        View::Reversed => plain(transform::reversed(text).into_iter().collect()),
        View::SpelledNumbers => plain(spelled::digits(text).into_iter().collect()),
        View::Markdown => plain(transform::markdown(text).into_iter().collect()),
        View::Json => plain(structure::json(text)),
        View::Csv => plain(structure::csv(text).into_iter().collect()),
        _ => Vec::new(),
    }
}

/// One token as it is; several read as one text joined directly and joined by spaces.
/// Tokens that went through a container keep their steps and are read alone.
fn joined(tokens: Vec<(Vec<View>, Mapped)>) -> Vec<(Vec<View>, Mapped)> {
    let (boxed, bare): (Vec<_>, Vec<_>) = tokens.into_iter().partition(|(s, _)| !s.is_empty());
    let mut out = boxed;
    if bare.len() < 2 {
        out.extend(bare);
        return out;
    }
    let mut direct = Mapped::default();
    let mut spaced = Mapped::default();
    for (k, (_, t)) in bare.iter().enumerate() {
        if k > 0 {
            let at = spaced.span_of(spaced.as_str().len());
            spaced.push(' ', at);
        }
        direct.append(t);
        spaced.append(t);
    }
    out.push((Vec::new(), direct));
    out.push((Vec::new(), spaced));
    out
}

/// Every reading of `source`: the prepared text itself, then each view of it, then each
/// view of those (two views deep), skipping readings whose text was already read.
///
/// Views read prepared text, except reversal, which reads what was written before it is
/// prepared: preparation can turn one character into several (a skeleton) or attach
/// marks to the character before them, so reversing a prepared text is not preparing a
/// reversed one.
pub fn readings(source: &Mapped) -> Vec<(ViewPath, Mapped)> {
    let plain = prepare(source);
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(plain.as_str().to_owned());
    // (path, as written, prepared)
    let mut all = vec![(ViewPath::plain(), source.clone(), plain)];
    let mut level = 0..1;
    for _depth in 0..2 {
        let mut next = Vec::new();
        for i in level.clone() {
            let Some((path, raw, text)) = all.get(i) else {
                continue;
            };
            for &view in DECODERS {
                if path
                    .0
                    .last()
                    .is_some_and(|&v| v == view && v.is_involution())
                {
                    continue;
                }
                let input = if view == View::Reversed { raw } else { text };
                for (steps, written) in apply(view, input) {
                    let derived = prepare(&written);
                    if derived.is_empty() || !seen.insert(derived.as_str().to_owned()) {
                        continue;
                    }
                    let mut p = path.0.clone();
                    p.push(view);
                    p.extend(steps);
                    next.push((ViewPath(p), written, derived));
                }
            }
        }
        let start = all.len();
        all.extend(next);
        level = start..all.len();
    }
    // Text turned upside down is a rendering of characters, the first a writer applies
    // and so the last to undo: it is undone in every reading, whatever its depth.
    let mut turned = Vec::new();
    for (path, raw, _) in &all {
        if let Some(written) = transform::upside_down(raw) {
            let derived = prepare(&written);
            if !derived.is_empty() && seen.insert(derived.as_str().to_owned()) {
                turned.push((path.then(View::UpsideDown), written, derived));
            }
        }
    }
    all.extend(turned);
    all.into_iter()
        .map(|(path, _, prepared)| (path, prepared))
        .collect()
}
