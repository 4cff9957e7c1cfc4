//! Values released in pieces (the output layer's memory of a trial).
//!
//! A code or name may leave in parts: the first half of a number in one post, the
//! rest in a file of the same community a turn later, each part in its own rendering,
//! and a cut may carry words of the clause around it (`cortison` | `e injection on`).
//! Per trial and reader (each person an output's destination reached at its delivery,
//! the user the agent acts for excepted; the destination itself where its audience is
//! unknown) the guard remembers which parts of each clause around a code or name
//! (see [`super::patterns::context`]) earlier outputs released: the clause's canonical
//! key and the byte ranges a piece covered, never the text around it. A later output
//! holding a piece that completes one of the clause's codes or names for some readers
//! (`cosec_text::render::assemble`: at most four pieces, from two or more outputs, this
//! one among them) is asked about for those readers alone, as the verifier asks it,
//! and its pieces are redacted when the answer is deny.
//!
//! Memory is bounded: at most [`MAX_PIECES_PER_READER`] distinct pieces per reader,
//! the oldest dropped first, in a map with one entry per person of the platform and
//! per destination without a known audience.

use super::detect::PieceOf;
use super::trial::TrialGuard;
use cosec_scenarios::{Destination, Time, UserId};
use cosec_text::render::assemble::{Held, Pieces};
use cosec_text::ViewPath;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Most distinct pieces remembered per reader.
pub const MAX_PIECES_PER_READER: usize = 512;

/// Who read an output.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Reader {
    /// A person the destination reached.
    Person(UserId),
    /// A destination whose audience is unknown (a workflow without a usable route).
    Place(Destination),
}

/// A released piece: the canonical key of the clause it is a piece of, and the piece.
pub(crate) type Piece = (String, PieceOf);

/// The pieces released to each reader of one trial.
#[derive(Debug, Default)]
pub(crate) struct Released {
    by_reader: HashMap<Reader, VecDeque<Piece>>,
}

impl Released {
    /// The pieces of clause `key` released to `reader`.
    pub fn of(&self, reader: &Reader, key: &str) -> Vec<PieceOf> {
        self.by_reader
            .get(reader)
            .map(|pieces| {
                pieces
                    .iter()
                    .filter(|(k, _)| k == key)
                    .map(|(_, piece)| piece.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Remembers that `readers` received `pieces`.
    pub fn add(&mut self, readers: &[Reader], pieces: &[Piece]) {
        for reader in readers {
            let held = self.by_reader.entry(reader.clone()).or_default();
            for piece in pieces {
                if held.contains(piece) {
                    continue;
                }
                if held.len() == MAX_PIECES_PER_READER {
                    held.pop_front();
                }
                held.push_back(piece.clone());
            }
        }
    }
}

/// Who an output to `destination` at `time` reaches in `guard`'s trial, the user the
/// agent acts for excepted; the destination itself when its audience is unknown.
pub(crate) fn readers_of(guard: &TrialGuard, destination: &Destination, time: Time) -> Vec<Reader> {
    let state = guard.state_at(time);
    let reach = match state.as_ref() {
        Ok(at) => at
            .state
            .reach(destination, &guard.target, &guard.platform)
            .ok(),
        Err(_) => None,
    };
    match reach {
        Some(reach) => reach
            .audience
            .into_iter()
            .filter(|u| *u != guard.target)
            .map(Reader::Person)
            .collect(),
        None => vec![Reader::Place(destination.clone())],
    }
}

/// Per reader among `readers`, the parts of clause `value` (of `pieces`) that the
/// pieces released to them before, together with `current` (this output's pieces of
/// it), complete: covered by pieces of two or more outputs, this one among them, none
/// of them over a whole occurrence of the part it completes. Readers for whom nothing
/// is completed are left out.
pub(crate) fn assembling(
    pieces: &Pieces,
    value: usize,
    readers: &[Reader],
    earlier: impl Fn(&Reader) -> Vec<PieceOf>,
    current: &[PieceOf],
) -> BTreeMap<Reader, BTreeSet<usize>> {
    let held = |of: &[PieceOf]| -> Vec<Held> {
        of.iter()
            .map(|p| Held {
                value,
                spans: p.covers.clone(),
                dealt: p.dealt.clone(),
                view: ViewPath::plain(),
                source: 0..0,
            })
            .collect()
    };
    let now = held(current);
    readers
        .iter()
        .filter_map(|r| {
            let before = earlier(r);
            if before.is_empty() {
                return None;
            }
            let texts = [before.as_slice(), current];
            let usable = |t: usize, h: usize, part: usize| {
                texts
                    .get(t)
                    .and_then(|of| of.get(h))
                    .is_some_and(|p| !p.wholes.contains(&part))
            };
            let parts: BTreeSet<usize> = pieces
                .completed_by_last(&[held(&before), now.clone()], value, usable)
                .into_iter()
                .map(|a| a.target)
                .collect();
            (!parts.is_empty()).then(|| (r.clone(), parts))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;

    fn person(s: &str) -> Reader {
        Reader::Person(UserId::from(s))
    }

    #[test]
    fn pieces_are_remembered_per_reader_once_and_within_the_bound() {
        let mut r = Released::default();
        let piece = |covers: Vec<Range<usize>>| PieceOf {
            covers,
            dealt: Vec::new(),
            wholes: Vec::new(),
        };
        let a = ("abc".to_owned(), piece(vec![0..2, 4..6]));
        r.add(&[person("ann"), person("bo")], &[a.clone(), a.clone()]);
        assert_eq!(r.of(&person("ann"), "abc"), vec![piece(vec![0..2, 4..6])]);
        assert_eq!(r.of(&person("bo"), "abc"), vec![piece(vec![0..2, 4..6])]);
        assert!(r.of(&person("cy"), "abc").is_empty());
        assert!(r.of(&person("ann"), "other").is_empty());
        for i in 0..(MAX_PIECES_PER_READER + 10) {
            r.add(
                &[person("ann")],
                &[(format!("k{i}"), piece(vec![0..1, 2..3]))],
            );
        }
        let kept: usize = r.by_reader.get(&person("ann")).map_or(0, VecDeque::len);
        assert_eq!(kept, MAX_PIECES_PER_READER);
        assert!(
            r.of(&person("ann"), "abc").is_empty(),
            "the oldest went first"
        );
    }
}
