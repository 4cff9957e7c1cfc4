//! What the platform knows of one workspace file: its bytes cut into segments, each with
//! the labels of the objects it holds, and how a turn sees it.

use cosec_scenarios::ObjectId;
use std::collections::BTreeSet;

/// The objects a piece of content holds or was derived from (their ids; the labels
/// themselves are in the platform tier).
pub type Labels = BTreeSet<ObjectId>;

/// A run of a file's bytes and the labels it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// What they hold (empty: nothing labeled).
    pub labels: Labels,
}

impl Segment {
    /// A segment of `bytes` carrying `labels`.
    pub fn new(bytes: impl Into<Vec<u8>>, labels: Labels) -> Self {
        Segment {
            bytes: bytes.into(),
            labels,
        }
    }

    /// A segment that holds nothing labeled.
    pub fn plain(bytes: impl Into<Vec<u8>>) -> Self {
        Segment::new(bytes, Labels::new())
    }
}

/// A file as the platform knows it: its real content, in labeled segments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The segments, in file order; their concatenation is the file.
    pub segments: Vec<Segment>,
}

impl Record {
    /// A file of one segment.
    pub fn whole(bytes: impl Into<Vec<u8>>, labels: Labels) -> Self {
        Record {
            segments: vec![Segment::new(bytes, labels)],
        }
    }

    /// The file's real bytes.
    pub fn content(&self) -> Vec<u8> {
        self.segments
            .iter()
            .flat_map(|s| s.bytes.iter().copied())
            .collect()
    }

    /// Every label the file carries.
    pub fn labels(&self) -> Labels {
        self.segments
            .iter()
            .flat_map(|s| s.labels.iter().cloned())
            .collect()
    }

    /// The file as a turn sees it: every segment whose labels are all `visible`, and
    /// `placeholder` in place of each other one.
    pub fn render(&self, visible: &dyn Fn(&ObjectId) -> bool, placeholder: &[u8]) -> Rendered {
        let mut out = Rendered::default();
        // An empty segment holds nothing: it neither shows nor splits a withheld run.
        for segment in self.segments.iter().filter(|s| !s.bytes.is_empty()) {
            let shown = segment.labels.iter().all(visible);
            if !shown {
                out.withheld
                    .extend(segment.labels.iter().filter(|l| !visible(l)).cloned());
                // A run of withheld segments is one placeholder.
                if let Some(last) = out.parts.last_mut().filter(|p| !p.shown) {
                    last.segments.push(segment.clone());
                    continue;
                }
            }
            let start = out.bytes.len();
            if shown {
                out.bytes.extend_from_slice(&segment.bytes);
                out.visible.extend(segment.labels.iter().cloned());
            } else {
                out.bytes.extend_from_slice(placeholder);
            }
            out.parts.push(Part {
                range: start..out.bytes.len(),
                segments: vec![segment.clone()],
                shown,
            });
        }
        out
    }
}

/// One piece of a rendered file: where it lies in the rendering and what it really is
/// (one shown segment, or a run of withheld segments behind one placeholder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Its byte range in the rendering.
    pub range: std::ops::Range<usize>,
    /// The real segments behind it.
    pub segments: Vec<Segment>,
    /// Whether the rendering shows it (else it shows the placeholder).
    pub shown: bool,
}

/// A file as one turn sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// The bytes the turn's view holds.
    pub bytes: Vec<u8>,
    /// The segments behind them, in order.
    pub parts: Vec<Part>,
    /// Labels of the segments shown.
    pub visible: Labels,
    /// Labels that kept a segment out.
    pub withheld: Labels,
}

impl Rendered {
    /// Whether any segment is withheld.
    pub fn withholds(&self) -> bool {
        self.parts.iter().any(|p| !p.shown)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn labels(ids: &[&str]) -> Labels {
        ids.iter().map(|i| ObjectId((*i).to_owned())).collect()
    }

    #[test]
    fn a_segment_is_shown_only_when_every_label_it_carries_is_visible() {
        let record = Record {
            segments: vec![
                Segment::new("alpha", labels(&["a"])),
                Segment::plain("\n\n"),
                Segment::new("beta", labels(&["a", "b"])),
            ],
        };
        let only_a = |o: &ObjectId| o.0 == "a";
        let r = record.render(&only_a, b"[X]");
        assert_eq!(r.bytes, b"alpha\n\n[X]");
        assert_eq!(r.visible, labels(&["a"]));
        assert_eq!(r.withheld, labels(&["b"]));
        assert!(r.withholds());
        assert_eq!(record.content(), b"alpha\n\nbeta");
        let all = |_: &ObjectId| true;
        assert_eq!(record.render(&all, b"[X]").bytes, record.content());
    }
}
