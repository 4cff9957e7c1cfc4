//! The post-turn restore: files in community-visible namespaces that gained denied
//! content during a turn go back to their previous contents (or away, if new) before
//! anything else reads them. This catches writes the guard could not see in a call
//! (an interpreter writing a file, a `cd` before a relative path).

use super::decide::Flow;
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{GuardLayer, GuardMode, GuardPoint};
use crate::layout::COMMUNITIES_DIR;
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination, Namespace};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Contents of the files in community workspaces, by agent-relative path
/// (`communities/<id>/...`).
pub type Snapshot = BTreeMap<String, String>;

/// Files larger than this are left out of snapshots.
pub const MAX_SNAPSHOT_FILE: u64 = 1024 * 1024;

/// A file to put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    /// Agent-relative path.
    pub path: String,
    /// What it held before the turn; `None` when the turn created it (remove it).
    pub previous_content: Option<String>,
}

/// Reads every text file under `<agent_root>/communities/` (files that are not UTF-8
/// or are larger than [`MAX_SNAPSHOT_FILE`] are left out; symlinks are not followed).
pub fn snapshot(agent_root: &Path) -> std::io::Result<Snapshot> {
    let mut out = Snapshot::new();
    let top = agent_root.join(COMMUNITIES_DIR);
    if !top.is_dir() {
        return Ok(out);
    }
    let mut stack = vec![(top, COMMUNITIES_DIR.to_owned())];
    while let Some((dir, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = format!("{rel}/{name}");
            if kind.is_dir() {
                stack.push((entry.path(), child));
            } else if kind.is_file() && entry.metadata()?.len() <= MAX_SNAPSHOT_FILE {
                if let Ok(text) = std::fs::read_to_string(entry.path()) {
                    out.insert(child, text);
                }
            }
        }
    }
    Ok(out)
}

impl TrialGuard {
    /// The files of `after` (community namespaces only) that hold a protected object
    /// they did not hold in `before` and whose write there is denied for the turn's
    /// requester. Each denied object is traced with decision `restore`; in shadow mode
    /// nothing is returned.
    pub fn files_to_restore(
        &self,
        ctx: &TurnContext,
        before: &Snapshot,
        after: &Snapshot,
    ) -> Vec<Restore> {
        let mut out = Vec::new();
        if !self.layers.output {
            return out;
        }
        for (path, content) in after {
            let previous = before.get(path);
            if previous == Some(content) {
                continue;
            }
            let Some(namespace @ Namespace::Community { .. }) = self.namespace_of(path) else {
                continue;
            };
            let had: BTreeSet<_> = previous.map(|p| self.all.objects_in(p)).unwrap_or_default();
            let gained: BTreeSet<_> = self
                .all
                .objects_in(content)
                .into_iter()
                .filter(|o| !had.contains(o))
                .collect();
            if gained.is_empty() {
                continue;
            }
            let mut flow = Flow::new(
                ctx.clone(),
                Action::Write,
                Destination::Namespace { namespace },
                GuardPoint::Restore,
                GuardLayer::Output,
                GuardOutcome::Restore,
            );
            let mut denied = false;
            for o in gained {
                denied |= flow.denied(self, o, None);
            }
            if denied {
                out.push(Restore {
                    path: path.clone(),
                    previous_content: previous.cloned(),
                });
            }
        }
        match self.mode {
            GuardMode::Enforce => out,
            GuardMode::Shadow => Vec::new(),
        }
    }
}

/// Applies restores under `agent_root`: writes back previous contents, removes new files.
pub fn apply_restores(agent_root: &Path, restores: &[Restore]) -> std::io::Result<()> {
    for r in restores {
        let full = agent_root.join(&r.path);
        match &r.previous_content {
            Some(text) => std::fs::write(&full, text)?,
            None => match std::fs::remove_file(&full) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            },
        }
    }
    Ok(())
}
