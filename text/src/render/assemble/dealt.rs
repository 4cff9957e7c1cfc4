//! Values dealt out character by character: every second (or third) letter or digit of
//! a part in one text, the rest in the others (`d4500` | `e4015`). A writer deals what
//! it holds, which may be the part with words of its clause around it, so every
//! stretch of whole words that holds the part is dealt (`cortisone injection` as well
//! as `cortisone`). Each stride is searched like any other piece, in every reading and
//! rendering, in any order of arrival; a part counts as dealt when one stride of each
//! residue of one stretch was found, from two or more texts, the last text among them.

use super::{Assembly, Held, Part, MIN_PIECE};
use crate::canon::{Canonical, BOUNDARY};
use crate::render::split::MIN_SPLIT_BITS;
use crate::render::{bits, MIN_BITS};
use std::collections::BTreeMap;
use std::ops::Range;

/// Most texts a part is dealt over.
pub const MAX_WAYS: u8 = 3;

/// A stride of a stretch that holds a part: the stretch's letters and digits
/// `residue`, `residue + ways`, … (counted from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dealt {
    /// The part it is a stride of (index in the parts given to
    /// [`super::Pieces::around`]; 0, the whole value, for [`super::Pieces::new`]).
    pub part: usize,
    /// Where the stretch dealt starts in the value's canonical form.
    pub from: usize,
    /// Where it ends.
    pub to: usize,
    /// Over how many texts the part is dealt.
    pub ways: u8,
    /// Which of them this stride is.
    pub residue: u8,
}

/// The strides worth searching for the occurrence `range` of `part` in `canon`: of
/// every stretch from a word boundary at or before it to one at or after it, per number
/// of ways, every stride when each carries [`MIN_BITS`] in [`MIN_PIECE`] letters or
/// digits and the stretch [`MIN_SPLIT_BITS`] in all.
pub(super) fn strides(
    canon: &Canonical,
    range: &Range<usize>,
    part: usize,
) -> Vec<(String, Dealt)> {
    let text = canon.as_str();
    let boundary = |i: &usize| canon.flag(*i, BOUNDARY);
    let starts: Vec<usize> = (0..=range.start).filter(boundary).collect();
    let ends: Vec<usize> = (range.end..=text.len()).filter(boundary).collect();
    let mut out = Vec::new();
    for &from in &starts {
        for &to in &ends {
            out.extend(stretch(text, from..to, part));
        }
    }
    out
}

/// The strides of the stretch `range` of `text` that holds `part`.
fn stretch(text: &str, range: Range<usize>, part: usize) -> Vec<(String, Dealt)> {
    let chars: Vec<char> = text
        .get(range.clone())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    if bits(&chars.iter().collect::<String>()) < MIN_SPLIT_BITS {
        return Vec::new();
    }
    let mut out = Vec::new();
    for ways in 2..=MAX_WAYS {
        let dealt: Vec<String> = (0..usize::from(ways))
            .map(|r| chars.iter().skip(r).step_by(usize::from(ways)).collect())
            .collect();
        let counts = |s: &String| s.chars().count() >= MIN_PIECE && bits(s) >= MIN_BITS;
        if !dealt.iter().all(counts) {
            continue;
        }
        out.extend((0u8..).zip(dealt).map(|(residue, s)| {
            (
                s,
                Dealt {
                    part,
                    from: range.start,
                    to: range.end,
                    ways,
                    residue,
                },
            )
        }));
    }
    out
}

/// Per residue of a stretch dealt some number of ways, the pieces (text, index in it)
/// that are that stride.
type ByResidue = Vec<Vec<(usize, usize)>>;

/// A stride of each residue of `part` (the text `range` of `value`) from texts `..=k`,
/// `usable` ones (text, index in it) only, text `k` and another text among them.
pub(super) fn dealt_cover(
    held: &[Vec<Held>],
    value: usize,
    range: &Range<usize>,
    part: usize,
    k: usize,
    usable: impl Fn(usize, usize) -> bool,
) -> Option<Assembly> {
    let mut found: BTreeMap<(usize, usize, u8), ByResidue> = BTreeMap::new();
    for (t, items) in held.iter().enumerate().take(k + 1) {
        for (h, item) in items.iter().enumerate() {
            if item.value != value || !usable(t, h) {
                continue;
            }
            for d in item.dealt.iter().filter(|d| d.part == part) {
                let by_residue = found
                    .entry((d.from, d.to, d.ways))
                    .or_insert_with(|| vec![Vec::new(); usize::from(d.ways)]);
                if let Some(slot) = by_residue.get_mut(usize::from(d.residue)) {
                    slot.push((t, h));
                }
            }
        }
    }
    for ((_, _, ways), by_residue) in found {
        if by_residue.iter().any(Vec::is_empty) {
            continue;
        }
        // One residue from text `k`, another from a text before it, the rest any.
        let pick = |r: usize, f: &dyn Fn(usize) -> bool| {
            by_residue
                .get(r)
                .and_then(|v| v.iter().copied().find(|&(t, _)| f(t)))
        };
        for last in 0..by_residue.len() {
            let Some(from_k) = pick(last, &|t| t == k) else {
                continue;
            };
            let other = (0..by_residue.len())
                .filter(|&r| r != last)
                .find_map(|r| pick(r, &|t| t != k).map(|p| (r, p)));
            let Some((other_residue, from_other)) = other else {
                continue;
            };
            let parts = (0..by_residue.len())
                .filter_map(|r| {
                    let (t, h) = match r {
                        _ if r == last => from_k,
                        _ if r == other_residue => from_other,
                        _ => pick(r, &|_| true)?,
                    };
                    let item = held.get(t)?.get(h)?;
                    Some(Part {
                        text: t,
                        covers: range.clone(),
                        view: item.view.clone(),
                        source: item.source.clone(),
                    })
                })
                .collect();
            return Some(Assembly {
                completed_by: k,
                parts,
                target: part,
                dealt: Some(ways),
            });
        }
    }
    None
}
