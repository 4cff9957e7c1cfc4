//! Decisions by label, made where content comes from (the input layer).
//!
//! - **Views.** Before each delivery the trial's workspace becomes the turn's view: a
//!   segment whose object the turn's requester may not `read` for the turn's reply
//!   destination is replaced by [`PLACEHOLDER`] in the file itself
//!   ([`crate::provenance`]), so a harness's shell reads the placeholder whatever it
//!   runs on the file.
//! - **What entered.** Everything the shim hands out, every labeled object the proxy
//!   lets into a request, and every workspace file opened during the delivery adds its
//!   labels to the turn.
//! - **Egress by label.** A post, message, share, workflow submission or file write
//!   aimed anywhere but the reply carries the turn's labels (a share or copy: the file's
//!   own); Cedar decides `egress` for each label to that destination and one denied
//!   label blocks the call, whatever its text looks like. The reply itself is what the
//!   `read` decisions were taken for.
//! - **Writes after the turn.** Files the turn changed carry the labels of what it
//!   wrote; a change to a namespace whose audience may not receive one of them is
//!   undone, and the labels stay with the bytes for every later view.
//!
//! Any error while building a view or absorbing a turn fails the delivery: a turn whose
//! view is unknown must not run.

use super::decide::Flow;
use super::minimise::PLACEHOLDER;
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{reply_destination, GuardLayer, GuardMode, GuardPoint};
use crate::layout;
use crate::provenance::{ChangeKind, Labels, ProvenanceError, Workspace};
use crate::registry::TurnContext;
use crate::trace::{LabeledPath, TraceEvent};
use cosec_scenarios::{Action, Destination, ObjectId};
use std::collections::BTreeSet;
use std::time::Instant;

fn micros(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The reason given when the labels a call carries may not go where it sends them.
pub const BLOCKED_LABELS: &str =
    "blocked by policy: this turn has used protected data that may not go to this destination";

impl TrialGuard {
    /// Makes the trial's workspace the view of turn `ctx` (input layer only; without it,
    /// nothing happens). Opens the books of the workspace on first use.
    pub fn begin_turn(&self, ctx: &TurnContext) -> Result<(), ProvenanceError> {
        if !self.layers.input {
            return Ok(());
        }
        let started = Instant::now();
        let mut ws = self.workspace();
        self.open_books(&mut ws)?;
        let Some(workspace) = ws.as_mut() else {
            return Ok(());
        };
        let mut flow = Flow::new(
            ctx.clone(),
            Action::Read,
            reply_destination(ctx),
            GuardPoint::View,
            GuardLayer::Input,
            GuardOutcome::Withhold,
        );
        // Every label is decided (and traced) once per turn; shadow mode shows all.
        let mut decided = Labels::new();
        for object in workspace.labels() {
            let visible = match self.idx(&object) {
                None => true,
                Some(idx) => !flow.denied(self, idx, None) || self.mode == GuardMode::Shadow,
            };
            if visible {
                decided.insert(object);
            }
        }
        let withheld = workspace.begin_turn(&|o| decided.contains(o))?;
        self.record(TraceEvent::WorkspaceView {
            turn: ctx.turn,
            community: ctx.community.clone(),
            withheld: withheld
                .into_iter()
                .map(|w| LabeledPath {
                    path: w.path,
                    labels: w.labels.into_iter().collect(),
                })
                .collect(),
            latency_us: micros(started),
        });
        Ok(())
    }

    /// Opens the books of the trial's workspace from the agent half as laid out, once.
    fn open_books(&self, ws: &mut Option<Workspace>) -> Result<(), ProvenanceError> {
        if ws.is_some() {
            return Ok(());
        }
        let Some(root) = self.agent_roots.last() else {
            return Ok(());
        };
        let seeded = crate::shim::seeded_layout(&self.agent).map_err(|e| ProvenanceError::Io {
            path: root.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        *ws = Some(Workspace::open(root, seeded, PLACEHOLDER)?);
        Ok(())
    }

    /// Adds a harness's own store of seeded content (the folder `dir`, e.g. its memory)
    /// to the books under `prefix`, with its seeded records by relative path: every turn
    /// then views it like the workspace (input layer only).
    pub fn view_store(
        &self,
        prefix: &str,
        dir: &std::path::Path,
        seeded: std::collections::BTreeMap<String, crate::provenance::Record>,
    ) -> Result<(), ProvenanceError> {
        if !self.layers.input {
            return Ok(());
        }
        let mut ws = self.workspace();
        self.open_books(&mut ws)?;
        match ws.as_mut() {
            Some(workspace) => workspace.add_root(prefix, dir, seeded),
            None => Ok(()),
        }
    }

    /// Whether the trial's workspace is in the books (the input layer has begun a turn).
    pub fn has_workspace(&self) -> bool {
        self.workspace().is_some()
    }

    /// Whether turn `ctx` may have `object` in its context: `read` for the turn's
    /// requester and reply destination, traced at `point`. Unprotected objects, a guard
    /// without the input layer and shadow mode always may.
    pub fn may_read(&self, ctx: &TurnContext, object: &ObjectId, point: GuardPoint) -> bool {
        let Some(idx) = self.idx(object).filter(|_| self.layers.input) else {
            return true;
        };
        let mut flow = Flow::new(
            ctx.clone(),
            Action::Read,
            reply_destination(ctx),
            point,
            GuardLayer::Input,
            GuardOutcome::Withhold,
        );
        !flow.denied(self, idx, None) || self.mode == GuardMode::Shadow
    }

    /// Starts counting workspace file opens as content entering the turn.
    pub fn open_window(&self) {
        if let Some(ws) = self.workspace().as_mut() {
            ws.open_window();
        }
    }

    /// Stops counting workspace file opens (the delivery is over).
    pub fn close_window(&self) {
        if let Some(ws) = self.workspace().as_mut() {
            ws.close_window();
        }
    }

    /// Notes objects that entered the turn's context other than by a file open.
    pub fn note_entered(&self, objects: impl IntoIterator<Item = ObjectId>) {
        if let Some(ws) = self.workspace().as_mut() {
            ws.note_entered(objects);
        }
    }

    /// The labels of the file at the agent-relative `path` now (none without books).
    pub fn file_labels(&self, path: &str) -> Labels {
        self.workspace()
            .as_mut()
            .map(|ws| ws.labels_of(path))
            .unwrap_or_default()
    }

    /// The bytes of the workspace file at `path` as this turn's view holds them, read
    /// from the books if the file is unchanged (see [`Workspace::view_bytes`]).
    pub fn view_bytes(&self, path: &str) -> Option<Vec<u8>> {
        self.workspace().as_ref().and_then(|ws| ws.view_bytes(path))
    }

    /// Every label that entered the turn so far (none without books).
    pub fn entered_labels(&self) -> Labels {
        self.workspace()
            .as_mut()
            .map(Workspace::entered)
            .unwrap_or_default()
    }

    /// Whether the protected objects among `labels` may go by `action` to `destination`
    /// in turn `ctx`; the reason to give when not. Each decision is traced once per
    /// call. In shadow mode every call is let through.
    pub fn labels_blocked(
        &self,
        ctx: &TurnContext,
        labels: &Labels,
        action: Action,
        destination: &Destination,
        point: GuardPoint,
    ) -> Option<String> {
        if !self.layers.input {
            return None;
        }
        let mut flow = Flow::new(
            ctx.clone(),
            action,
            destination.clone(),
            point,
            GuardLayer::Input,
            GuardOutcome::Block,
        );
        let mut denied = false;
        for idx in labels.iter().filter_map(|o| self.idx(o)) {
            denied |= flow.denied(self, idx, None);
        }
        (denied && self.mode == GuardMode::Enforce).then(|| BLOCKED_LABELS.to_owned())
    }

    /// Absorbs what turn `ctx` wrote into the books: a file written into a namespace
    /// whose audience may not receive one of the labels written into it is put back as
    /// it was (with any file it was moved from). Returns the paths put back.
    pub fn end_turn(&self, ctx: &TurnContext) -> Result<Vec<String>, ProvenanceError> {
        let started = Instant::now();
        let mut ws = self.workspace();
        let Some(workspace) = ws.as_mut() else {
            return Ok(Vec::new());
        };
        let absorbed = workspace.absorb()?;
        let written: Vec<LabeledPath> = absorbed
            .changes
            .iter()
            .filter(|c| c.kind != ChangeKind::Deleted)
            .map(|c| LabeledPath {
                path: c.path.clone(),
                labels: c.written.iter().cloned().collect(),
            })
            .collect();
        let mut revert: BTreeSet<String> = BTreeSet::new();
        for change in &absorbed.changes {
            if change.kind == ChangeKind::Deleted {
                continue;
            }
            let Ok((namespace, _)) = layout::split_tool_path(&change.path) else {
                continue;
            };
            let destination = Destination::Namespace { namespace };
            let mut flow = Flow::new(
                ctx.clone(),
                Action::Write,
                destination,
                GuardPoint::Restore,
                GuardLayer::Input,
                GuardOutcome::Restore,
            );
            let mut denied = false;
            for idx in change.written.iter().filter_map(|o| self.idx(o)) {
                denied |= flow.denied(self, idx, None);
            }
            if denied && self.mode == GuardMode::Enforce {
                revert.insert(change.path.clone());
                // A move undone brings its source back.
                revert.extend(
                    change
                        .copied_from
                        .iter()
                        .filter(|from| {
                            absorbed
                                .changes
                                .iter()
                                .any(|c| &c.path == *from && c.kind == ChangeKind::Deleted)
                        })
                        .cloned(),
                );
            }
        }
        workspace.commit(absorbed, &revert)?;
        let reverted: Vec<String> = revert.into_iter().collect();
        self.record(TraceEvent::WorkspaceWrites {
            turn: ctx.turn,
            community: ctx.community.clone(),
            written,
            reverted: reverted.clone(),
            latency_us: micros(started),
        });
        Ok(reverted)
    }

    /// Writes the real content of the workspace back for the verifier (the trial is
    /// over).
    pub fn finish_workspace(&self) -> Result<(), ProvenanceError> {
        match self.workspace().as_mut() {
            Some(ws) => ws.restore_real(),
            None => Ok(()),
        }
    }
}
