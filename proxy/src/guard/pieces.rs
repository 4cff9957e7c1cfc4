//! Values released in pieces (the output layer's memory of a trial).
//!
//! A strong pattern may leave in parts: the first half of a number in one post, the
//! rest in a file of the same community a turn later, each part in its own rendering.
//! Per trial and reader (each person an output's destination reached at its delivery,
//! the user the agent acts for excepted; the destination itself where its audience is
//! unknown) the guard remembers which parts of each pattern's canonical form earlier
//! outputs released: the pattern's canonical key and the byte ranges a piece covered,
//! never the text around it. A later output holding a piece that completes a pattern
//! for some readers (`cosec_text::render::assemble`: at most four pieces, from two or
//! more outputs, this one among them) is asked about for those readers alone, as the
//! verifier asks it, and its pieces are redacted when the answer is deny.
//!
//! Memory is bounded: at most [`MAX_PIECES_PER_READER`] distinct pieces per reader,
//! the oldest dropped first, in a map with one entry per person of the platform and
//! per destination without a known audience.

use super::trial::TrialGuard;
use cosec_scenarios::{Destination, Time, UserId};
use cosec_text::render::assemble::{Held, Pieces};
use cosec_text::ViewPath;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ops::Range;

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

/// A released piece: the pattern's canonical key and the ranges of it the piece may
/// stand for.
type Piece = (String, Vec<Range<usize>>);

/// The pieces released to each reader of one trial.
#[derive(Debug, Default)]
pub(crate) struct Released {
    by_reader: HashMap<Reader, VecDeque<Piece>>,
}

impl Released {
    /// The pieces of pattern `key` released to `reader`, each as the ranges it covers.
    pub fn of(&self, reader: &Reader, key: &str) -> Vec<Vec<Range<usize>>> {
        self.by_reader
            .get(reader)
            .map(|pieces| {
                pieces
                    .iter()
                    .filter(|(k, _)| k == key)
                    .map(|(_, covers)| covers.clone())
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

/// The readers among `readers` for whom the pieces of value `value` (of `pieces`)
/// released before, together with `current` (this output's pieces of it, each as the
/// ranges it covers), cover the value: pieces of two or more outputs, this one among
/// them.
pub(crate) fn assembling(
    pieces: &Pieces,
    value: usize,
    readers: &[Reader],
    earlier: impl Fn(&Reader) -> Vec<Vec<Range<usize>>>,
    current: Vec<Vec<Range<usize>>>,
) -> BTreeSet<Reader> {
    let held = |covers: Vec<Vec<Range<usize>>>| -> Vec<Held> {
        covers
            .into_iter()
            .map(|spans| Held {
                value,
                spans,
                view: ViewPath::plain(),
                source: 0..0,
            })
            .collect()
    };
    let now = held(current);
    readers
        .iter()
        .filter(|r| {
            let before = earlier(r);
            !before.is_empty()
                && pieces
                    .assemble(&[held(before), now.clone()], value)
                    .is_some()
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(s: &str) -> Reader {
        Reader::Person(UserId::from(s))
    }

    #[test]
    fn pieces_are_remembered_per_reader_once_and_within_the_bound() {
        let mut r = Released::default();
        let a = ("abc".to_owned(), vec![0..2, 4..6]);
        r.add(&[person("ann"), person("bo")], &[a.clone(), a.clone()]);
        assert_eq!(r.of(&person("ann"), "abc"), vec![vec![0..2, 4..6]]);
        assert_eq!(r.of(&person("bo"), "abc"), vec![vec![0..2, 4..6]]);
        assert!(r.of(&person("cy"), "abc").is_empty());
        assert!(r.of(&person("ann"), "other").is_empty());
        for i in 0..(MAX_PIECES_PER_READER + 10) {
            r.add(&[person("ann")], &[(format!("k{i}"), vec![0..1, 2..3])]);
        }
        let kept: usize = r.by_reader.get(&person("ann")).map_or(0, VecDeque::len);
        assert_eq!(kept, MAX_PIECES_PER_READER);
        assert!(
            r.of(&person("ann"), "abc").is_empty(),
            "the oldest went first"
        );
    }
}
