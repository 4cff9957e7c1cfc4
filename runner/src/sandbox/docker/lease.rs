//! Lending a trial's trees and sockets to the unprivileged sandbox user for one container
//! run, and taking them back afterwards.
//!
//! When the runner is root its trials are root's, and a container running as root would
//! read whatever the image's root may read. The container runs as [`SANDBOX_UID`]
//! instead, so for the run the writable trees (the agent half, the harness home) and the
//! sockets it must connect to are handed to that user, then handed back to their owner.
//!
//! Neither walk follows a symlink, and both keep every folder they have not finished
//! with out of the sandbox user's hands, so a process of that user (the harness itself,
//! still running when a cancelled run is given back) cannot redirect a change of owner
//! to a file outside the tree: lending changes a folder's owner only after everything
//! in it (leaves first), giving back changes a folder's owner before reading it (root
//! first).

use crate::sandbox::{SandboxError, SANDBOX_UID};
use std::os::unix::fs::{lchown, MetadataExt};
use std::path::{Path, PathBuf};

/// The uid and gid a container runs as when the runner is root.
pub(super) const SANDBOX_USER: (u32, u32) = (SANDBOX_UID, SANDBOX_UID);

/// Trees and sockets lent to [`SANDBOX_USER`], each with the owner it goes back to.
pub(super) struct Lease {
    lent: Vec<(PathBuf, (u32, u32))>,
}

impl Lease {
    /// Hands every path of `paths` (whole trees) to `to`; on an error, what was already
    /// lent goes back.
    pub(super) fn lend(paths: &[PathBuf], to: (u32, u32)) -> Result<Lease, SandboxError> {
        let mut lease = Lease { lent: Vec::new() };
        for path in paths {
            let meta = std::fs::symlink_metadata(path)
                .map_err(|_| SandboxError::NoSuchPath(path.clone()))?;
            lease.lent.push((path.clone(), (meta.uid(), meta.gid())));
            lend_tree(path, to).map_err(|e| {
                SandboxError::Start(format!(
                    "cannot hand {} to the sandbox user {}:{} ({e}); the Docker sandbox \
                     runs harnesses unprivileged and needs the runner to be root or to \
                     own the trial folder",
                    path.display(),
                    to.0,
                    to.1
                ))
            })?;
        }
        Ok(lease)
    }

    /// Hands everything back to its owner, including what the run created.
    pub(super) fn give_back(mut self) -> Result<(), SandboxError> {
        self.give_back_all()
    }

    fn give_back_all(&mut self) -> Result<(), SandboxError> {
        let mut first_error = None;
        for (path, owner) in self.lent.drain(..) {
            if let Err(e) = give_back_tree(&path, owner) {
                first_error.get_or_insert_with(|| {
                    SandboxError::Start(format!(
                        "cannot give {} back to {}:{} after the run: {e}",
                        path.display(),
                        owner.0,
                        owner.1
                    ))
                });
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Lease {
    /// A run cancelled before [`Lease::give_back`] still gives everything back.
    fn drop(&mut self) {
        let _ = self.give_back_all();
    }
}

/// Gives `path` and everything under it to `owner`, leaves first.
fn lend_tree(path: &Path, owner: (u32, u32)) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            lend_tree(&entry?.path(), owner)?;
        }
    }
    lchown(path, Some(owner.0), Some(owner.1))
}

/// Gives `path` to `owner`, then everything under it; a file that vanished meanwhile is
/// skipped.
fn give_back_tree(path: &Path, owner: (u32, u32)) -> std::io::Result<()> {
    match lchown(path, Some(owner.0), Some(owner.1)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other?,
    }
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            give_back_tree(&entry?.path(), owner)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(path: &Path) -> (u32, u32) {
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.uid(), meta.gid())
    }

    /// Whether this process may give files away (the runner as root, as in CI).
    fn privileged() -> bool {
        let dir = tempfile::tempdir().unwrap();
        owner(dir.path()).0 == 0
    }

    #[test]
    fn a_lent_tree_comes_back_whole_and_a_symlink_out_of_it_is_never_followed() {
        if !privileged() {
            eprintln!("skipped: changing owners needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("agent");
        std::fs::create_dir_all(tree.join("shared/funds")).unwrap();
        std::fs::write(tree.join("shared/funds/ledger.md"), "x").unwrap();
        let outside = dir.path().join("host-file");
        std::fs::write(&outside, "host").unwrap();
        lchown(&outside, Some(1234), Some(1234)).unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("link")).unwrap();
        let before = owner(&tree);

        let lease = Lease::lend(std::slice::from_ref(&tree), SANDBOX_USER).unwrap();
        for path in [
            &tree,
            &tree.join("shared/funds/ledger.md"),
            &tree.join("link"),
        ] {
            assert_eq!(owner(path), SANDBOX_USER, "{}", path.display());
        }
        assert_eq!(
            owner(&outside),
            (1234, 1234),
            "lending followed the symlink"
        );
        // What the run creates belongs to the sandbox user, and comes back too.
        std::fs::create_dir(tree.join("made")).unwrap();
        std::fs::write(tree.join("made/note.md"), "n").unwrap();
        for made in [tree.join("made"), tree.join("made/note.md")] {
            lchown(made, Some(SANDBOX_USER.0), Some(SANDBOX_USER.1)).unwrap();
        }
        lease.give_back().unwrap();

        for path in [
            &tree,
            &tree.join("shared/funds/ledger.md"),
            &tree.join("link"),
            &tree.join("made/note.md"),
        ] {
            assert_eq!(owner(path), before, "{}", path.display());
        }
        assert_eq!(
            owner(&outside),
            (1234, 1234),
            "giving back followed the symlink"
        );
    }

    #[test]
    fn a_dropped_lease_gives_everything_back() {
        if !privileged() {
            eprintln!("skipped: changing owners needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("home");
        std::fs::create_dir_all(tree.join("sessions")).unwrap();
        let before = owner(&tree);
        let lease = Lease::lend(std::slice::from_ref(&tree), SANDBOX_USER).unwrap();
        assert_eq!(owner(&tree.join("sessions")), SANDBOX_USER);
        drop(lease);
        assert_eq!(owner(&tree.join("sessions")), before);
    }

    #[test]
    fn a_missing_path_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("absent");
        let Err(err) = Lease::lend(std::slice::from_ref(&missing), SANDBOX_USER) else {
            panic!("a missing path was lent");
        };
        assert!(err.to_string().contains("absent"), "{err}");
    }
}
