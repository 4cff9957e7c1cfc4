//! Taint: the labels of what a turn wrote.
//!
//! The rule is the classic information-flow join: bytes the agent wrote in a turn carry
//! the labels of everything that entered the turn's context (`entered`), whatever they
//! look like, because they may be derived from any of it. Three refinements keep labels
//! from spreading further than the content did:
//!
//! - **Unchanged runs keep their own labels.** Where a file's new bytes share a prefix
//!   or suffix with what the turn's view held, the segments in it are kept as they were
//!   (an appended line does not relabel the lines before it).
//! - **Copies made without reading** (`mv`, `ln`, a copy done by a tool that never
//!   handed the bytes to the model) are found by content: a new run that contains the
//!   bytes of a labeled segment the turn could see carries that segment's labels too.
//! - **Withheld segments survive edits around them.** A placeholder still present
//!   where the view showed one stands for the withheld segment behind it, which keeps
//!   its content and labels; a placeholder the agent removed takes the segment with it.

use super::record::{Labels, Record, Rendered, Segment};
use std::collections::{BTreeMap, BTreeSet};

/// Labeled segments shorter than this are not looked for in new content: a short run
/// says little about where content came from and matches by accident.
pub const MIN_INHERITED_BYTES: usize = 16;

/// How a file changed over a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// It did not exist before the turn.
    Created,
    /// Its bytes changed.
    Modified,
    /// It is gone.
    Deleted,
}

/// One file the turn changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Its path relative to the workspace root.
    pub path: String,
    /// How it changed.
    pub kind: ChangeKind,
    /// The labels of the bytes the turn wrote into it (not those of kept runs).
    pub written: Labels,
    /// Files whose labeled bytes it holds verbatim (copies made without reading).
    pub copied_from: BTreeSet<String>,
}

/// The workspace after a turn: the new records and what changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Absorbed {
    /// Every file's record after the turn.
    pub records: BTreeMap<String, Record>,
    /// The files that changed, in path order.
    pub changes: Vec<Change>,
}

/// What a turn's view held, and the labels that entered the turn.
pub struct Turn<'a> {
    /// The real records before the turn.
    pub records: &'a BTreeMap<String, Record>,
    /// What the view showed of each of them.
    pub rendered: &'a BTreeMap<String, Rendered>,
    /// Every label that entered the turn's context.
    pub entered: &'a Labels,
    /// The text that stood for a withheld segment.
    pub placeholder: &'a [u8],
}

/// The records after a turn whose workspace now holds `after` (path to bytes).
pub fn absorb(turn: &Turn<'_>, after: &BTreeMap<String, Vec<u8>>) -> Absorbed {
    let pool = Pool::of(turn.rendered);
    let mut out = Absorbed::default();
    for (path, bytes) in after {
        let (record, change) = match (turn.rendered.get(path), turn.records.get(path)) {
            (Some(view), Some(record)) if view.bytes == *bytes => (record.clone(), None),
            (Some(view), _) => {
                let (record, written, copied) = rewrite(turn, &pool, view, bytes);
                let change = Change {
                    path: path.clone(),
                    kind: ChangeKind::Modified,
                    written,
                    copied_from: copied,
                };
                (record, Some(change))
            }
            (None, _) => {
                let (record, written, copied) = rewrite(turn, &pool, &Rendered::default(), bytes);
                let change = Change {
                    path: path.clone(),
                    kind: ChangeKind::Created,
                    written,
                    copied_from: copied,
                };
                (record, Some(change))
            }
        };
        out.records.insert(path.clone(), record);
        out.changes.extend(change);
    }
    for path in turn.rendered.keys() {
        if !after.contains_key(path) {
            out.changes.push(Change {
                path: path.clone(),
                kind: ChangeKind::Deleted,
                written: Labels::new(),
                copied_from: BTreeSet::new(),
            });
        }
    }
    out.changes.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The labeled segments the turn could see, with the file each came from.
struct Pool<'a> {
    segments: Vec<(&'a str, &'a Segment)>,
}

impl<'a> Pool<'a> {
    fn of(rendered: &'a BTreeMap<String, Rendered>) -> Self {
        let segments = rendered
            .iter()
            .flat_map(|(path, view)| {
                view.parts
                    .iter()
                    .filter(|p| p.shown)
                    .flat_map(|p| p.segments.iter())
                    .filter(|s| !s.labels.is_empty() && s.bytes.len() >= MIN_INHERITED_BYTES)
                    .map(move |s| (path.as_str(), s))
            })
            .collect();
        Pool { segments }
    }

    /// Labels and source files of the visible labeled segments `bytes` holds verbatim.
    fn inherited(&self, bytes: &[u8]) -> (Labels, BTreeSet<String>) {
        let mut labels = Labels::new();
        let mut from = BTreeSet::new();
        for (path, segment) in &self.segments {
            if contains(bytes, &segment.bytes) {
                labels.extend(segment.labels.iter().cloned());
                from.insert((*path).to_owned());
            }
        }
        (labels, from)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && needle.len() <= haystack.len()
        && haystack.windows(needle.len()).any(|w| w == needle)
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &[u8], b: &[u8], limit: usize) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take(limit)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The record of a file whose view was `view` and whose bytes are now `bytes`; with the
/// labels of the bytes written and the files copied from.
fn rewrite(
    turn: &Turn<'_>,
    pool: &Pool<'_>,
    view: &Rendered,
    bytes: &[u8],
) -> (Record, Labels, BTreeSet<String>) {
    let old = &view.bytes;
    let prefix = common_prefix(old, bytes);
    let suffix = common_suffix(old, bytes, old.len().min(bytes.len()) - prefix);
    // Whole parts inside the common prefix and suffix are kept as they were.
    let head = view
        .parts
        .iter()
        .take_while(|p| p.range.end <= prefix)
        .count();
    let tail_start = old.len() - suffix;
    let tail = view
        .parts
        .iter()
        .skip(head)
        .rev()
        .take_while(|p| p.range.start >= tail_start)
        .count();
    let kept_head_len = view
        .parts
        .get(..head)
        .map_or(0, |p| p.last().map_or(0, |last| last.range.end));
    let kept_tail_len = view.parts.len().checked_sub(tail).map_or(0, |first| {
        view.parts
            .get(first)
            .map_or(0, |p| old.len() - p.range.start)
    });
    let kept_tail_len = if tail == 0 { 0 } else { kept_tail_len };
    let middle_end = bytes.len().saturating_sub(kept_tail_len).max(kept_head_len);
    let middle = bytes.get(kept_head_len..middle_end).unwrap_or_default();
    let mut withheld: std::collections::VecDeque<&[Segment]> = view
        .parts
        .iter()
        .skip(head)
        .take(view.parts.len().saturating_sub(head + tail))
        .filter(|p| !p.shown)
        .map(|p| p.segments.as_slice())
        .collect();

    let mut segments: Vec<Segment> = view
        .parts
        .iter()
        .take(head)
        .flat_map(|p| p.segments.iter().cloned())
        .collect();
    let mut written = Labels::new();
    let mut copied = BTreeSet::new();
    let mut written_piece = |piece: &[u8], segments: &mut Vec<Segment>| {
        if piece.is_empty() {
            return;
        }
        let (inherited, from) = pool.inherited(piece);
        let mut labels: Labels = turn.entered.clone();
        labels.extend(inherited);
        written.extend(labels.iter().cloned());
        copied.extend(from);
        segments.push(Segment::new(piece.to_vec(), labels));
    };
    let mut rest = middle;
    while let Some(at) = find(rest, turn.placeholder) {
        let (before, after) = rest.split_at(at);
        written_piece(before, &mut segments);
        match withheld.pop_front() {
            Some(run) => segments.extend(run.iter().cloned()),
            None => segments.push(Segment::plain(turn.placeholder.to_vec())),
        }
        rest = after.get(turn.placeholder.len()..).unwrap_or_default();
    }
    written_piece(rest, &mut segments);
    segments.extend(
        view.parts
            .iter()
            .skip(view.parts.len() - tail)
            .flat_map(|p| p.segments.iter().cloned()),
    );
    (coalesce(segments), written, copied)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Adjacent segments with the same labels, merged.
fn coalesce(segments: Vec<Segment>) -> Record {
    let mut out: Vec<Segment> = Vec::with_capacity(segments.len());
    for s in segments.into_iter().filter(|s| !s.bytes.is_empty()) {
        match out.last_mut() {
            Some(last) if last.labels == s.labels => last.bytes.extend_from_slice(&s.bytes),
            _ => out.push(s),
        }
    }
    Record { segments: out }
}

#[cfg(test)]
mod tests;
