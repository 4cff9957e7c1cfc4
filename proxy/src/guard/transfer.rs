//! Transfers of files (copies, moves, shares) and the mapping of tool paths to
//! namespaces.

use super::decide::Flow;
use super::stats::GuardOutcome;
use super::toolcall::{ToolCallVerdict, BLOCKED_TRANSFER};
use super::trial::TrialGuard;
use super::{GuardLayer, GuardPoint};
use crate::registry::TurnContext;
use cosec_scenarios::{Action, CommunityId, Destination, Namespace, ObjectId};
use std::path::{Component, Path};

/// Files larger than this are not read to look for labeled content.
const MAX_READ: u64 = 1024 * 1024;

/// The components of a relative path with `.` and `..` resolved (`None` if it climbs
/// above its start or is absolute).
fn lexical(path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(path).components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts)
}

/// Whether `text` matches a shell wildcard `pattern` (`*` and `?` stay inside one
/// path segment).
fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    fn go(p: &[char], t: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len())
                .take_while(|k| *k == 0 || t[*k - 1] != '/')
                .any(|k| go(rest, &t[k..])),
            Some(('?', rest)) => t.first().is_some_and(|c| *c != '/') && go(rest, &t[1..]),
            Some((c, rest)) => t.first() == Some(c) && go(rest, &t[1..]),
        }
    }
    go(&p, &t)
}

impl TrialGuard {
    /// The agent-relative form of a path (`None` outside the agent's files).
    pub(crate) fn agent_relative(&self, path: &str) -> Option<String> {
        let path = path.trim();
        let rel = if Path::new(path).is_absolute() {
            let p = Path::new(path);
            let root = self.agent_roots.iter().find(|r| p.starts_with(r))?;
            p.strip_prefix(root).ok()?.to_string_lossy().into_owned()
        } else {
            path.to_owned()
        };
        let parts = lexical(&rel)?;
        Some(parts.join("/"))
    }

    /// The namespace a path lies in, if any.
    pub(crate) fn namespace_of(&self, path: &str) -> Option<Namespace> {
        let rel = self.agent_relative(path)?;
        let mut parts = rel.split('/');
        match parts.next()? {
            crate::layout::COMMUNITIES_DIR => Some(Namespace::Community {
                community: CommunityId(parts.next().filter(|s| !s.is_empty())?.to_owned()),
            }),
            crate::layout::SHARED_DIR => Some(Namespace::Shared),
            crate::layout::MEMORY_DIR => Some(Namespace::Memory),
            _ => None,
        }
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
        let glob = rel.contains(['*', '?']);
        for (path, object) in paths {
            let covered = *path == rel
                || path.starts_with(&prefix)
                || rel.is_empty()
                || (glob
                    && (wildcard(&rel, path)
                        || path
                            .rsplit_once('/')
                            .is_some_and(|(dir, _)| wildcard(&rel, dir))));
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
    fn wildcards_stay_in_one_segment() {
        assert!(wildcard("shared/notes/*", "shared/notes/a.md"));
        assert!(wildcard("shared/*.md", "shared/a.md"));
        assert!(!wildcard("shared/*", "shared/notes/a.md"));
        assert!(wildcard("shared/?.md", "shared/a.md"));
    }
}
