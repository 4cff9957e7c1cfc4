//! Transfers of files (copies, moves, shares) and the mapping of tool paths to
//! namespaces.

use super::decide::Flow;
use super::stats::GuardOutcome;
use super::toolcall::{ToolCallVerdict, BLOCKED_TRANSFER};
use super::trial::TrialGuard;
use super::{GuardLayer, GuardPoint};
use crate::layout;
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination, Namespace, ObjectId};

/// Files larger than this are not read to look for labeled content.
const MAX_READ: u64 = 1024 * 1024;

/// A shell wildcard `pattern` (`*`, `?`, `[...]`; `*` stays inside one path segment)
/// as a matcher; `None` if it does not parse, and the caller must then assume it
/// covers everything.
fn wildcard(pattern: &str) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

impl TrialGuard {
    /// The agent-relative form of a path (`None` outside the agent's files).
    pub(crate) fn agent_relative(&self, path: &str) -> Option<String> {
        layout::agent_relative(&self.agent_roots, path)
    }

    /// The namespace a path lies in, if any.
    pub(crate) fn namespace_of(&self, path: &str) -> Option<Namespace> {
        layout::namespace_of(&self.agent_relative(path)?)
    }

    /// Checks a transfer of the file at `source` (agent-relative or absolute) by `action`
    /// to `destination` (a share, a copy, a move): blocked if the file is a labeled
    /// seeded file, or holds labeled content, whose flow there is denied. In shadow mode
    /// decisions are traced and `Allow` is returned.
    pub fn check_transfer(
        &self,
        ctx: &TurnContext,
        source: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> ToolCallVerdict {
        let verdict = if self.transfer_denied(ctx, source, action, destination, point) {
            ToolCallVerdict::Block {
                reason: BLOCKED_TRANSFER.to_owned(),
            }
        } else {
            ToolCallVerdict::Allow
        };
        self.enforced(verdict)
    }

    /// Whether moving the file at `source` by `action` to `destination` is denied for
    /// a labeled seeded file there, or for labeled content inside it.
    pub(crate) fn transfer_denied(
        &self,
        ctx: &TurnContext,
        source: &str,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> bool {
        let Some(rel) = self.agent_relative(source) else {
            return false;
        };
        // A labeled seeded file is decided by its label (the input layer); any other
        // file by the protected content found in it (the output layer).
        let mut flow = Flow::new(
            ctx.clone(),
            action,
            destination.clone(),
            point,
            GuardLayer::Input,
            GuardOutcome::Block,
        );
        let mut content_flow = Flow::new(
            ctx.clone(),
            action,
            destination.clone(),
            point,
            GuardLayer::Output,
            GuardOutcome::Block,
        );
        let prefix = format!("{rel}/");
        let mut denied = false;
        let mut paths: Vec<(&String, &ObjectId)> = self.seeded_paths.iter().collect();
        paths.sort();
        let glob = rel
            .contains(['*', '?', '['])
            .then(|| wildcard(&rel).ok_or(()));
        for (path, object) in paths {
            let matches = |m: &globset::GlobMatcher| {
                m.is_match(path.as_str())
                    || path
                        .rsplit_once('/')
                        .is_some_and(|(dir, _)| m.is_match(dir))
            };
            let covered = *path == rel
                || path.starts_with(&prefix)
                || rel.is_empty()
                || match &glob {
                    Some(Ok(m)) => matches(m),
                    // A pattern that does not parse may mean anything.
                    Some(Err(())) => true,
                    None => false,
                };
            if covered {
                if let Some(idx) = self.idx(object).filter(|_| self.layers.input) {
                    denied |= flow.denied(self, idx, None);
                }
            }
        }
        // Whatever the file is, the protected content in it is matched too.
        if self.layers.output {
            for root in self.agent_roots.iter().take(1) {
                let full = root.join(&rel);
                let small = full
                    .metadata()
                    .is_ok_and(|m| m.is_file() && m.len() <= MAX_READ);
                if let Some(text) = small.then(|| std::fs::read_to_string(&full).ok()).flatten() {
                    for hit in self.all.scan(&text).iter().filter(|h| h.kind.is_strong()) {
                        for o in &hit.objects {
                            denied |= content_flow.denied(self, *o, Some(hit));
                        }
                    }
                }
            }
        }
        denied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_stay_in_one_segment_and_know_classes() {
        let is = |p: &str, t: &str| wildcard(p).unwrap().is_match(t);
        assert!(is("shared/notes/*", "shared/notes/a.md"));
        assert!(is("shared/*.md", "shared/a.md"));
        assert!(!is("shared/*", "shared/notes/a.md"));
        assert!(is("shared/?.md", "shared/a.md"));
        assert!(is("shared/[a-c].md", "shared/b.md"));
        assert!(!is("shared/[a-c].md", "shared/d.md"));
    }

    #[test]
    fn many_stars_are_matched_without_backtracking_blowup() {
        let pattern = format!("shared/{}b", "*a".repeat(40));
        let text = format!("shared/{}", "a".repeat(200));
        assert!(!wildcard(&pattern).unwrap().is_match(text.as_str()));
    }
}
