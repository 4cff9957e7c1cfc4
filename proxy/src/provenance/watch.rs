//! Which workspace files were opened during a delivery, whoever opened them.
//!
//! A harness reads files with its own shell (`cat`, `base32`, `python`, `tar`), inside a
//! sandbox the runner cannot look into; the kernel still reports every open of a file
//! under a watched folder to an inotify instance outside it, whatever process, mount
//! namespace or container did it. An open is the moment content can enter the agent's
//! context, before any text exists, so no encoding of what was read hides it. Opens
//! for writing count too: an over-approximation that costs only precision.
//!
//! The kernel's queue is finite: when it overflows the watcher says so, and the caller
//! must then assume that every file was opened.

use std::collections::{BTreeSet, HashMap};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

/// Why a folder could not be watched.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// inotify could not be set up or read.
    #[error("cannot watch {path} for file opens: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// What was opened since the last drain.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Opened {
    /// Files opened, as paths relative to the watched root (`/`-separated).
    pub files: BTreeSet<String>,
    /// Whether events were lost (the queue overflowed, a folder could not be watched):
    /// any file may have been opened.
    pub lost: bool,
}

/// An inotify watch over a folder tree: every folder in it, and every folder created in
/// it while watched.
pub struct OpenWatch {
    root: PathBuf,
    inotify: Inotify,
    dirs: HashMap<WatchDescriptor, String>,
    buffer: Vec<u8>,
    lost: bool,
}

fn mask() -> WatchMask {
    WatchMask::OPEN
        | WatchMask::CREATE
        | WatchMask::MOVED_TO
        | WatchMask::DONT_FOLLOW
        | WatchMask::ONLYDIR
        | WatchMask::EXCL_UNLINK
}

impl OpenWatch {
    /// Watches every folder under `root` (symlinks are not followed).
    pub fn new(root: &Path) -> Result<Self, WatchError> {
        let io = |source| WatchError::Io {
            path: root.to_owned(),
            source,
        };
        let inotify = Inotify::init().map_err(io)?;
        let mut watch = OpenWatch {
            root: root.to_owned(),
            inotify,
            dirs: HashMap::new(),
            buffer: vec![0; 64 * 1024],
            lost: false,
        };
        watch.add_tree(String::new()).map_err(io)?;
        Ok(watch)
    }

    /// Watches the folder `rel` (relative to the root) and every folder below it.
    fn add_tree(&mut self, rel: String) -> std::io::Result<()> {
        let mut stack = vec![rel];
        while let Some(rel) = stack.pop() {
            let full = if rel.is_empty() {
                self.root.clone()
            } else {
                self.root.join(&rel)
            };
            let wd = self.inotify.watches().add(&full, mask())?;
            self.dirs.insert(wd, rel.clone());
            for entry in std::fs::read_dir(&full)? {
                let entry = entry?;
                if entry.file_type()?.is_dir() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    stack.push(join(&rel, &name));
                }
            }
        }
        Ok(())
    }

    /// Everything opened since the last drain (events queued before are included).
    pub fn drain(&mut self) -> Opened {
        let mut out = Opened::default();
        let mut new_dirs = Vec::new();
        loop {
            let events = match self.inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.lost = true;
                    break;
                }
            };
            let mut any = false;
            for event in events {
                any = true;
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    self.lost = true;
                    continue;
                }
                let (Some(dir), Some(name)) = (self.dirs.get(&event.wd), event.name) else {
                    continue;
                };
                let path = join(dir, &name.to_string_lossy());
                if event.mask.contains(EventMask::ISDIR) {
                    if event
                        .mask
                        .intersects(EventMask::CREATE | EventMask::MOVED_TO)
                    {
                        new_dirs.push(path);
                    }
                } else if event.mask.contains(EventMask::OPEN) {
                    out.files.insert(path);
                }
            }
            if !any {
                break;
            }
        }
        for dir in new_dirs {
            // A folder created or moved in during the delivery may already hold files
            // opened before its watch existed (moved in, then read): count every file in
            // it as opened. Whatever is opened there from now on is seen.
            if self.add_tree(dir.clone()).is_err() {
                self.lost = true;
            }
            match files_under(&self.root, &dir) {
                Ok(files) => out.files.extend(files),
                Err(_) => self.lost = true,
            }
        }
        out.lost = std::mem::take(&mut self.lost);
        out
    }
}

/// Every regular file under the folder `rel` of `root`, as relative paths.
fn files_under(root: &Path, rel: &str) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![rel.to_owned()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(root.join(&rel))? {
            let entry = entry?;
            let name = join(&rel, &entry.file_name().to_string_lossy());
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(name);
            } else if kind.is_file() {
                out.push(name);
            }
        }
    }
    Ok(out)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn opens_by_other_processes_are_reported_with_their_relative_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("shared/funds")).unwrap();
        std::fs::write(dir.path().join("shared/funds/ledger.md"), "x").unwrap();
        std::fs::write(dir.path().join("untouched.md"), "y").unwrap();
        let mut watch = OpenWatch::new(dir.path()).unwrap();
        assert!(watch.drain().files.is_empty());
        let status = std::process::Command::new("base32")
            .arg("shared/funds/ledger.md")
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let opened = watch.drain();
        assert_eq!(
            opened.files.into_iter().collect::<Vec<_>>(),
            vec!["shared/funds/ledger.md".to_owned()]
        );
        assert!(!opened.lost);
    }

    #[test]
    fn folders_created_while_watched_are_watched() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = OpenWatch::new(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("new/deeper")).unwrap();
        std::fs::write(dir.path().join("new/deeper/a.md"), "a").unwrap();
        watch.drain();
        std::fs::read(dir.path().join("new/deeper/a.md")).unwrap();
        assert!(watch.drain().files.contains("new/deeper/a.md"));
    }
}
