//! Labels at the source: what every file of a trial's workspace holds, the view of the
//! workspace each turn gets, and the labels of what a turn writes.
//!
//! The platform labels content when it serves it, not when it sees it again: a seeded
//! file or memory entry carries its object's label from the moment it is laid out, and
//! bytes the agent writes carry the labels of what entered its context in that turn
//! ([`taint`]). Before each delivery the workspace on disk is made the turn's *view*:
//! every segment whose labels the turn may read is there as it is, every other one is
//! replaced by a placeholder, in the same file, so that the agent's own shell, an MCP
//! tool and a long-lived process all read the same view. The real content stays here,
//! in the runner's memory, out of the agent's reach; after the turn the workspace's new
//! bytes are absorbed (the placeholder kept where a withheld segment was stands for it)
//! and, at the end of the trial, the real content is written back for the verifier.
//!
//! What entered a turn is the union of what the platform handed out (shim reads, search
//! hits, lookup observations), what the proxy let through in the model's requests, and
//! the workspace files opened during the delivery, by whatever process ([`watch`]).
//! Deciding which labels a turn may read, and where the labels of a write may go, is
//! the guard's job ([`crate::guard`]); this module keeps the books.

pub mod record;
pub mod taint;
pub mod watch;

pub use record::{Labels, Record, Rendered, Segment};
pub use taint::{Absorbed, Change, ChangeKind};

use cosec_scenarios::ObjectId;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use watch::OpenWatch;

/// Files larger than this are not kept in the books: one written during a turn that
/// carries labels is removed at the end of the turn (it cannot be viewed or restored).
pub const MAX_TRACKED_FILE: u64 = 32 * 1024 * 1024;

/// Why the workspace could not be viewed or absorbed. The guard treats every one as a
/// reason to fail closed.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// A file or folder of the workspace could not be read or written.
    #[error("workspace {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ProvenanceError + '_ {
    move |source| ProvenanceError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One file of a turn's view whose content was (partly) withheld.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Withheld {
    /// Its path relative to the workspace root.
    pub path: String,
    /// The labels that kept content out.
    pub labels: Labels,
}

/// What identifies a file's bytes without opening it: size, modification time, inode.
type Stamp = (u64, Option<std::time::SystemTime>, u64);

fn stamp(full: &Path) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(full).ok()?;
    m.is_file().then(|| (m.len(), m.modified().ok(), m.ino()))
}

/// The turn in progress.
struct TurnState {
    rendered: BTreeMap<String, Rendered>,
    /// Each viewed file as written, to recognise it unchanged without opening it.
    stamps: BTreeMap<String, Stamp>,
    entered: Labels,
    watching: bool,
}

/// A folder in the books: the agent half (prefix empty), or a harness's own store of
/// labeled content (its memory) under a prefix of its own.
struct Root {
    prefix: String,
    dir: PathBuf,
}

impl Root {
    fn key(&self, rel: &str) -> String {
        if self.prefix.is_empty() {
            rel.to_owned()
        } else {
            format!("{}/{rel}", self.prefix)
        }
    }
}

/// The books of one trial's workspace.
pub struct Workspace {
    roots: Vec<Root>,
    records: BTreeMap<String, Record>,
    /// The bytes each file holds on disk, as last read or written by the books (a file
    /// missing here is read again).
    on_disk: BTreeMap<String, Vec<u8>>,
    /// One watch per folder in the books, kept for the whole trial; `None` where a
    /// watch could not be set up (every file then counts as opened).
    watches: Vec<(String, Option<OpenWatch>)>,
    turn: Option<TurnState>,
    placeholder: Vec<u8>,
}

impl Workspace {
    /// The books of the workspace at `root` as laid out: every file on disk, with the
    /// records of `seeded` (path to labeled record) where the file still holds exactly
    /// their content, and no labels elsewhere. `placeholder` stands for withheld content.
    pub fn open(
        root: &Path,
        seeded: BTreeMap<String, Record>,
        placeholder: &str,
    ) -> Result<Self, ProvenanceError> {
        let mut ws = Workspace {
            roots: Vec::new(),
            records: BTreeMap::new(),
            on_disk: BTreeMap::new(),
            watches: Vec::new(),
            turn: None,
            placeholder: placeholder.as_bytes().to_vec(),
        };
        ws.add_root("", root, seeded)?;
        Ok(ws)
    }

    /// Adds the folder `dir` to the books under `prefix` (keys `prefix/relative path`),
    /// with `seeded` (relative path to labeled record) as [`Workspace::open`] takes them:
    /// a harness's own store of seeded content (its memory) is viewed like the
    /// workspace. Takes effect from the next turn.
    pub fn add_root(
        &mut self,
        prefix: &str,
        dir: &Path,
        seeded: BTreeMap<String, Record>,
    ) -> Result<(), ProvenanceError> {
        let root = Root {
            prefix: prefix.trim_end_matches('/').to_owned(),
            dir: dir.to_owned(),
        };
        for (rel, bytes) in read_tree(dir)? {
            let record = match seeded.get(&rel) {
                Some(r) if r.content() == bytes => r.clone(),
                _ => Record::whole(bytes.clone(), Labels::new()),
            };
            self.on_disk.insert(root.key(&rel), bytes);
            self.records.insert(root.key(&rel), record);
        }
        self.watches
            .push((root.prefix.clone(), OpenWatch::new(dir).ok()));
        self.roots.push(root);
        Ok(())
    }

    /// The agent half.
    pub fn root(&self) -> &Path {
        self.roots
            .first()
            .map_or(Path::new(""), |r| r.dir.as_path())
    }

    /// The file a key names on disk: under the root whose prefix it carries (the
    /// longest), else under the agent half.
    fn full(&self, key: &str) -> PathBuf {
        self.roots
            .iter()
            .filter(|r| !r.prefix.is_empty())
            .filter_map(|r| {
                let rel = key.strip_prefix(r.prefix.as_str())?.strip_prefix('/')?;
                Some((r.prefix.len(), r.dir.join(rel)))
            })
            .max_by_key(|(len, _)| *len)
            .map_or_else(|| self.root().join(key), |(_, full)| full)
    }

    /// Every file of every folder in the books, by key.
    fn read_all(&self) -> Result<BTreeMap<String, Vec<u8>>, ProvenanceError> {
        let mut out = BTreeMap::new();
        for root in &self.roots {
            for (rel, bytes) in read_tree(&root.dir)? {
                out.insert(root.key(&rel), bytes);
            }
        }
        Ok(out)
    }

    /// Every label any file carries.
    pub fn labels(&self) -> Labels {
        self.records.values().flat_map(Record::labels).collect()
    }

    /// The record of a file, if it is in the books.
    pub fn record(&self, path: &str) -> Option<&Record> {
        self.records.get(path)
    }

    /// Makes the workspace on disk the view of a new turn: every segment whose labels
    /// are all `visible` as it is, every other one replaced by the placeholder. Files
    /// are rewritten in place (same inode), so a process that keeps a file open sees
    /// the new view too. Returns the files with withheld content.
    pub fn begin_turn(
        &mut self,
        visible: &dyn Fn(&ObjectId) -> bool,
    ) -> Result<Vec<Withheld>, ProvenanceError> {
        self.turn = None;
        let mut rendered = BTreeMap::new();
        let mut stamps = BTreeMap::new();
        let mut withheld = Vec::new();
        for (path, record) in &self.records {
            let view = record.render(visible, &self.placeholder);
            let full = self.full(path);
            let known = match self.on_disk.get(path) {
                Some(bytes) => Some(bytes.clone()),
                None => std::fs::read(&full).ok(),
            };
            if known.as_deref() != Some(view.bytes.as_slice()) {
                write_in_place(&full, &view.bytes)?;
                self.on_disk.insert(path.clone(), view.bytes.clone());
            }
            if let Some(s) = stamp(&full) {
                stamps.insert(path.clone(), s);
            }
            if view.withholds() {
                withheld.push(Withheld {
                    path: path.clone(),
                    labels: view.withheld.clone(),
                });
            }
            rendered.insert(path.clone(), view);
        }
        self.turn = Some(TurnState {
            rendered,
            stamps,
            entered: Labels::new(),
            watching: false,
        });
        Ok(withheld)
    }

    /// Starts counting file opens as content entering the turn (call just before the
    /// delivery, after the runner's own reads of the view).
    pub fn open_window(&mut self) {
        for (_, w) in self.watches.iter_mut() {
            if let Some(w) = w {
                w.drain();
            }
        }
        if let Some(turn) = &mut self.turn {
            turn.watching = true;
        }
    }

    /// Stops counting file opens (call right after the delivery, before the runner reads
    /// the workspace again); opens so far are kept.
    pub fn close_window(&mut self) {
        self.collect_opens();
        if let Some(turn) = &mut self.turn {
            turn.watching = false;
        }
    }

    /// Adds labels that entered the turn's context another way (served by the shim, let
    /// through by the proxy).
    pub fn note_entered(&mut self, labels: impl IntoIterator<Item = ObjectId>) {
        if let Some(turn) = &mut self.turn {
            turn.entered.extend(labels);
        }
    }

    /// Every label that entered the turn's context so far. Without a working watch
    /// (inotify unavailable, events lost), every label the view showed counts.
    pub fn entered(&mut self) -> Labels {
        self.collect_opens();
        self.turn
            .as_ref()
            .map(|t| t.entered.clone())
            .unwrap_or_default()
    }

    fn collect_opens(&mut self) {
        let Some(turn) = &mut self.turn else {
            return;
        };
        if !turn.watching {
            return;
        }
        let mut opened = watch::Opened::default();
        for (prefix, w) in self.watches.iter_mut() {
            let Some(w) = w else {
                opened.lost = true;
                continue;
            };
            let got = w.drain();
            opened.lost |= got.lost;
            opened.files.extend(got.files.into_iter().map(|f| {
                if prefix.is_empty() {
                    f
                } else {
                    format!("{prefix}/{f}")
                }
            }));
        }
        if opened.lost {
            for view in turn.rendered.values() {
                turn.entered.extend(view.visible.iter().cloned());
            }
        }
        for path in &opened.files {
            if let Some(view) = turn.rendered.get(path) {
                turn.entered.extend(view.visible.iter().cloned());
            }
        }
    }

    /// The bytes of the file at `path` as this turn's view wrote them, if the file is
    /// still exactly that (same size, time and inode), read from the books without
    /// opening the file: the platform's own reads (the shim's search and file tools)
    /// then do not count as content entering the turn, only what they serve does.
    pub fn view_bytes(&self, path: &str) -> Option<Vec<u8>> {
        let turn = self.turn.as_ref()?;
        let view = turn.rendered.get(path)?;
        let written = turn.stamps.get(path)?;
        (stamp(&self.full(path)).as_ref() == Some(written)).then(|| view.bytes.clone())
    }

    /// The labels of the file at `path` now: those its view showed, plus everything that
    /// entered the turn if the turn wrote it.
    pub fn labels_of(&mut self, path: &str) -> Labels {
        let full = self.full(path);
        let now = std::fs::read(&full).ok();
        let shown = self
            .turn
            .as_ref()
            .and_then(|t| t.rendered.get(path))
            .map(|v| (v.visible.clone(), Some(v.bytes.clone()) == now));
        match shown {
            Some((labels, true)) => labels,
            Some((mut labels, false)) => {
                labels.extend(self.entered());
                labels
            }
            None => self.entered(),
        }
    }

    /// The workspace after the turn: new records and the changes, not yet committed.
    pub fn absorb(&mut self) -> Result<Absorbed, ProvenanceError> {
        self.collect_opens();
        let after = self.read_all()?;
        self.on_disk.clone_from(&after);
        let Some(turn) = &self.turn else {
            return Ok(Absorbed {
                records: self.records.clone(),
                changes: Vec::new(),
            });
        };
        let input = taint::Turn {
            records: &self.records,
            rendered: &turn.rendered,
            entered: &turn.entered,
            placeholder: &self.placeholder,
        };
        let mut absorbed = taint::absorb(&input, &after);
        // Oversized files are not read into the books: one the turn wrote while labels
        // had entered is removed, since it could be viewed and restored by nobody.
        for root in &self.roots {
            for rel in oversized(&root.dir)? {
                if !turn.entered.is_empty() {
                    let full = root.dir.join(&rel);
                    std::fs::remove_file(&full).map_err(io(&full))?;
                }
                absorbed.records.remove(&root.key(&rel));
            }
        }
        Ok(absorbed)
    }

    /// Ends the turn with `absorbed`, except the changes to `revert` (paths), which are
    /// undone on disk: a file created is removed, a file modified or deleted gets back
    /// the bytes of its view and its old record.
    pub fn commit(
        &mut self,
        mut absorbed: Absorbed,
        revert: &BTreeSet<String>,
    ) -> Result<(), ProvenanceError> {
        let Some(turn) = self.turn.take() else {
            return Ok(());
        };
        for path in revert {
            let full = self.full(path);
            match (turn.rendered.get(path), self.records.get(path)) {
                (Some(view), Some(old)) => {
                    if let Some(parent) = full.parent() {
                        std::fs::create_dir_all(parent).map_err(io(parent))?;
                    }
                    write_in_place(&full, &view.bytes)?;
                    self.on_disk.insert(path.clone(), view.bytes.clone());
                    absorbed.records.insert(path.clone(), old.clone());
                }
                _ => {
                    match std::fs::remove_file(&full) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(io(&full)(e)),
                    }
                    self.on_disk.remove(path);
                    absorbed.records.remove(path);
                }
            }
        }
        self.records = absorbed.records;
        Ok(())
    }

    /// Writes the real content of every file back (the end of the trial: the verifier
    /// reads the workspace as the platform holds it).
    pub fn restore_real(&mut self) -> Result<(), ProvenanceError> {
        self.turn = None;
        for (path, record) in &self.records {
            let full = self.full(path);
            let bytes = record.content();
            if std::fs::read(&full).ok().as_deref() != Some(bytes.as_slice()) {
                write_in_place(&full, &bytes)?;
            }
            self.on_disk.insert(path.clone(), bytes);
        }
        Ok(())
    }
}

/// Overwrites `full` in place (same inode when it exists), creating it otherwise.
fn write_in_place(full: &Path, bytes: &[u8]) -> Result<(), ProvenanceError> {
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent).map_err(io(parent))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(full)
        .map_err(io(full))?;
    file.write_all(bytes).map_err(io(full))?;
    file.flush().map_err(io(full))
}

/// Every regular file under `root` up to [`MAX_TRACKED_FILE`] bytes, by relative path
/// (symlinks are neither followed nor kept).
fn read_tree(root: &Path) -> Result<BTreeMap<String, Vec<u8>>, ProvenanceError> {
    let mut out = BTreeMap::new();
    for (rel, full, len) in walk(root)? {
        if len <= MAX_TRACKED_FILE {
            out.insert(rel, std::fs::read(&full).map_err(io(&full))?);
        }
    }
    Ok(out)
}

/// The files under `root` larger than [`MAX_TRACKED_FILE`].
fn oversized(root: &Path) -> Result<Vec<String>, ProvenanceError> {
    Ok(walk(root)?
        .into_iter()
        .filter(|(_, _, len)| *len > MAX_TRACKED_FILE)
        .map(|(rel, _, _)| rel)
        .collect())
}

/// Every regular file under `root`: relative path, full path, size.
fn walk(root: &Path) -> Result<Vec<(String, PathBuf, u64)>, ProvenanceError> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_owned(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(io(&dir))? {
            let entry = entry.map_err(io(&dir))?;
            let kind = entry.file_type().map_err(io(&entry.path()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if kind.is_dir() {
                stack.push((entry.path(), child));
            } else if kind.is_file() {
                let len = entry.metadata().map_err(io(&entry.path()))?.len();
                out.push((child, entry.path(), len));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
