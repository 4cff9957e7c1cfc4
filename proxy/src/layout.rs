//! The agent half of a trial directory and the mapping between namespaces and paths.
//!
//! `<trial>/agent/` is the only part of a trial an agent may see. Inside it:
//! `communities/<community-id>/...` holds each community workspace, `shared/...` the
//! shared workspace and `memory/...` the agent's private memory. Tool paths are relative
//! to the agent root (e.g. `communities/workhub/notes/availability.md`).

use cosec_scenarios::{CommunityId, Namespace};
use std::path::{Component, Path, PathBuf};

pub use cosec_scenarios::agent::{COMMUNITIES_DIR, MEMORY_DIR, SHARED_DIR};

/// Why a tool path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Absolute paths, `..` and other escapes.
    #[error(
        "path `{0}` is outside the agent's files; use a relative path such as `shared/notes.md`"
    )]
    Escapes(String),
    /// A path that is not in any namespace.
    #[error("path `{0}` is not inside `communities/<id>/`, `shared/` or `memory/`")]
    NoNamespace(String),
    /// A symlink inside the agent half points outside it.
    #[error("path `{0}` resolves outside the agent's files through a symbolic link")]
    Symlink(String),
}

/// The relative folder of a namespace under the agent root.
pub fn namespace_dir(ns: &Namespace) -> PathBuf {
    PathBuf::from(ns.folder())
}

/// The relative tool path of a file in a namespace.
pub fn tool_path(ns: &Namespace, path: &str) -> String {
    ns.tool_path(path)
}

/// The components of a relative path with `.` and `..` resolved as a shell would,
/// without touching the filesystem; `None` for an absolute path or one that climbs
/// above its start.
pub fn lexical(path: &str) -> Option<Vec<String>> {
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

/// `path` relative to the agent root: an absolute path under one of `roots` (the agent
/// root as the runner and as the harness see it), or a relative one taken from the agent
/// root, with `.` and `..` resolved; `None` for anything outside.
pub fn agent_relative(roots: &[PathBuf], path: &str) -> Option<String> {
    let path = path.trim();
    let p = Path::new(path);
    let rel = if p.is_absolute() {
        let root = roots.iter().find(|r| p.starts_with(r))?;
        p.strip_prefix(root).ok()?.to_string_lossy().into_owned()
    } else {
        path.to_owned()
    };
    lexical(&rel).map(|parts| parts.join("/"))
}

/// The namespace an agent-relative path lies in (a namespace's folder itself included).
pub fn namespace_of(rel: &str) -> Option<Namespace> {
    let mut parts = rel.split('/');
    match parts.next()? {
        COMMUNITIES_DIR => Some(Namespace::Community {
            community: CommunityId(parts.next().filter(|s| !s.is_empty())?.to_owned()),
        }),
        SHARED_DIR => Some(Namespace::Shared),
        MEMORY_DIR => Some(Namespace::Memory),
        _ => None,
    }
}

/// Splits a relative tool path into its namespace and the path inside it, with `.` and
/// `..` resolved as a shell would; rejects absolute paths and paths that climb out of
/// the agent root. Does not touch the filesystem.
pub fn split_tool_path(path: &str) -> Result<(Namespace, String), PathError> {
    let parts = lexical(path.trim()).ok_or_else(|| PathError::Escapes(path.to_owned()))?;
    let mut it = parts.into_iter();
    let ns = match it.next().as_deref() {
        Some(COMMUNITIES_DIR) => match it.next() {
            Some(id) => Namespace::Community {
                community: CommunityId(id),
            },
            None => return Err(PathError::NoNamespace(path.to_owned())),
        },
        Some(SHARED_DIR) => Namespace::Shared,
        Some(MEMORY_DIR) => Namespace::Memory,
        _ => return Err(PathError::NoNamespace(path.to_owned())),
    };
    let rest: Vec<String> = it.collect();
    if rest.is_empty() {
        return Err(PathError::NoNamespace(path.to_owned()));
    }
    Ok((ns, rest.join("/")))
}

/// Resolves a tool path to a real path under `agent_root`, refusing escapes, including
/// through symlinks that already exist on the way.
pub fn confine(agent_root: &Path, path: &str) -> Result<PathBuf, PathError> {
    let (ns, inner) = split_tool_path(path)?;
    let full = agent_root.join(namespace_dir(&ns)).join(&inner);
    let root = agent_root
        .canonicalize()
        .map_err(|_| PathError::Escapes(path.to_owned()))?;
    // Walk up to the deepest existing ancestor and make sure it stays inside the root.
    let mut probe = full.clone();
    loop {
        if probe.exists() || probe.symlink_metadata().is_ok() {
            let real = probe
                .canonicalize()
                .map_err(|_| PathError::Symlink(path.to_owned()))?;
            if !real.starts_with(&root) {
                return Err(PathError::Symlink(path.to_owned()));
            }
            break;
        }
        if !probe.pop() {
            break;
        }
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_shim_and_the_guard_resolve_dot_dot_alike_and_never_above_the_root() {
        let roots = [PathBuf::from("/run/t1/agent")];
        for (path, expected) in [
            ("shared/../memory/a.md", Some("memory/a.md")),
            ("./communities/x/./n.md", Some("communities/x/n.md")),
            ("/run/t1/agent/shared/l.md", Some("shared/l.md")),
            ("../x", None),
            ("communities/../../x", None),
            ("/etc/passwd", None),
        ] {
            assert_eq!(agent_relative(&roots, path).as_deref(), expected, "{path}");
            let split = split_tool_path(path).ok().map(|(ns, p)| tool_path(&ns, &p));
            if !path.starts_with('/') {
                assert_eq!(split.as_deref(), expected, "{path}");
            }
        }
        assert_eq!(
            namespace_of("communities/x"),
            Some(Namespace::Community {
                community: CommunityId("x".into())
            })
        );
        assert_eq!(namespace_of("notes.md"), None);
    }
}
