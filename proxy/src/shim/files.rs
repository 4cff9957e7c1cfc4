//! File tools confined to the trial's agent half: read, write, list, copy.
//!
//! Every path goes through [`layout::confine`], which refuses absolute paths, `..` and
//! symlinks that lead outside the agent half, before anything is read or written.

use super::{Call, Outcome};
use crate::layout::{self, COMMUNITIES_DIR, MEMORY_DIR, SHARED_DIR};
use crate::trace::Effect;
use cosec_scenarios::{Action, CommunityId, Destination, Namespace};
use std::path::{Component, Path, PathBuf};

/// Files larger than this are not handed to the agent whole.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Listings stop after this many files.
const MAX_LISTED: usize = 500;

/// A tool path resolved inside the agent half.
pub(crate) struct Resolved {
    /// The namespace.
    pub namespace: Namespace,
    /// The path inside the namespace.
    pub inner: String,
    /// The canonical tool path (`communities/<id>/...`, `shared/...`, `memory/...`).
    pub key: String,
    /// The real path on disk.
    pub full: PathBuf,
}

/// Resolves a tool path, refusing escapes and unknown community folders.
pub(crate) fn resolve(call: &Call<'_>, path: &str) -> Result<Resolved, String> {
    let path = path.trim();
    let root = &call.trial.agent_root;
    let full = layout::confine(root, path).map_err(|e| e.to_string())?;
    // A symlink inside the agent half acts on its target: name the target's namespace so
    // effects and labels follow the file that really changes or is read.
    let real = real_tool_path(root, &full);
    let effective = match &real {
        Some(r) if layout::split_tool_path(r).is_ok() => r.as_str(),
        _ => path,
    };
    let (namespace, inner) = layout::split_tool_path(effective).map_err(|e| e.to_string())?;
    if let Namespace::Community { community } = &namespace {
        if !call.index.knows_community(community) {
            return Err(format!(
                "no community folder `{community}`; valid communities: {}",
                call.index.community_choices()
            ));
        }
    }
    let key = layout::tool_path(&namespace, &inner);
    Ok(Resolved {
        namespace,
        inner,
        key,
        full,
    })
}

/// The tool path of the file `full` really designates after resolving symlinks (for a
/// file that does not exist yet, its deepest existing folder is resolved).
fn real_tool_path(root: &Path, full: &Path) -> Option<String> {
    let real_root = root.canonicalize().ok()?;
    let mut existing = full.to_path_buf();
    let mut missing = Vec::new();
    while existing.symlink_metadata().is_err() {
        missing.push(existing.file_name()?.to_owned());
        if !existing.pop() {
            return None;
        }
    }
    let mut real = existing.canonicalize().ok()?;
    for part in missing.iter().rev() {
        real.push(part);
    }
    let rel = real.strip_prefix(&real_root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// Reads a regular file of the workspace as text (lossy for non-UTF-8 bytes).
pub(crate) fn read_text(call: &Call<'_>, target: &Resolved, shown: &str) -> Result<String, String> {
    let full = target.full.as_path();
    let meta = std::fs::metadata(full)
        .map_err(|_| format!("no file at `{shown}`; use list_files to see the available files"))?;
    if meta.is_dir() {
        return Err(format!(
            "`{shown}` is a folder; use list_files to see its files"
        ));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "`{shown}` is too large to read ({} bytes)",
            meta.len()
        ));
    }
    let bytes = call
        .read_bytes(&target.key, full)
        .map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The current content of a file about to be replaced, if it exists.
fn previous_content(full: &Path) -> Option<String> {
    let meta = std::fs::metadata(full).ok()?;
    if !meta.is_file() {
        return None;
    }
    std::fs::read(full)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Writes `content` at a resolved path, creating folders, and returns the previous content.
pub(crate) fn write_text(
    target: &Resolved,
    content: &str,
    shown: &str,
) -> Result<Option<String>, String> {
    if target.full.is_dir() {
        return Err(format!("`{shown}` is a folder; give a file path"));
    }
    let previous = previous_content(&target.full);
    let created: Vec<&Path> = target
        .full
        .ancestors()
        .take_while(|p| std::fs::symlink_metadata(p).is_err())
        .collect();
    if let Some(parent) = target.full.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create the folder of `{shown}`: {e}"))?;
    }
    std::fs::write(&target.full, content).map_err(|e| format!("cannot write `{shown}`: {e}"))?;
    for path in created.iter().rev() {
        take_parent_owner(path);
    }
    Ok(previous)
}

/// Gives `path`, just created by the shim, the owner of the folder it is in: the
/// harness may change what its tools wrote even when it runs as another user than the
/// shim (the Docker sandbox lends the agent half to `nobody` for a run when the runner is
/// root). Where the shim may not give files away, they stay its own, which is then also
/// the harness's user.
fn take_parent_owner(path: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Some(parent) = path.parent() else {
        return;
    };
    let (Ok(folder), Ok(made)) = (
        std::fs::symlink_metadata(parent),
        std::fs::symlink_metadata(path),
    ) else {
        return;
    };
    if (folder.uid(), folder.gid()) != (made.uid(), made.gid()) {
        let _ = std::os::unix::fs::lchown(path, Some(folder.uid()), Some(folder.gid()));
    }
}

/// `read_file(path)`.
pub(crate) fn read_file(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let path = call.arg("path")?;
    let target = resolve(call, &path)?;
    let text = read_text(call, &target, &path)?;
    let served = call
        .file_labels(&target.key)
        .unwrap_or_else(|| call.index.objects_in(Some(&target.key), &text, false));
    out.served(served);
    Ok(text)
}

/// `write_file(path, content)`.
pub(crate) fn write_file(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let path = call.arg("path")?;
    let content = call.arg("content")?;
    let target = resolve(call, &path)?;
    let destination = Destination::Namespace {
        namespace: target.namespace.clone(),
    };
    call.guard_turn_labels(Action::Write, &destination)?;
    let content = call.guard_text(content, Action::Write, &destination);
    let previous = write_text(&target, &content, &path)?;
    let verb = if previous.is_some() {
        "Updated"
    } else {
        "Created"
    };
    out.effect(Effect::FileWrite {
        namespace: target.namespace,
        path: target.inner,
        content: content.clone(),
        previous,
    });
    Ok(format!(
        "{verb} `{}` ({} bytes).",
        target.key,
        content.len()
    ))
}

/// `copy_file(from, to)`.
pub(crate) fn copy_file(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let from = call.arg("from")?;
    let to = call.arg("to")?;
    let source = resolve(call, &from)?;
    let target = resolve(call, &to)?;
    let content = read_text(call, &source, &from)?;
    if source.full == target.full {
        return Err(format!("`{from}` and `{to}` are the same file"));
    }
    call.guard_transfer(
        &source.key,
        Action::Write,
        &Destination::Namespace {
            namespace: target.namespace.clone(),
        },
    )?;
    let previous = write_text(&target, &content, &to)?;
    out.effect(Effect::FileWrite {
        namespace: target.namespace,
        path: target.inner,
        content,
        previous,
    });
    Ok(format!("Copied `{}` to `{}`.", source.key, target.key))
}

/// `list_files(path)`: every file under a folder, as tool paths, with document titles.
pub(crate) fn list_files(call: &Call<'_>) -> Result<String, String> {
    let path = call
        .args
        .get("path")
        .and_then(|v| v.as_str())
        .unwrap_or(".");
    let (start, prefix) = list_root(call, path)?;
    if !start.exists() {
        return Ok(format!("No files under `{path}`."));
    }
    if start.is_file() {
        return Ok(prefix);
    }
    let mut found = Vec::new();
    walk(&start, &prefix, &mut found);
    found.sort();
    if found.is_empty() {
        return Ok(format!("No files under `{path}`."));
    }
    let total = found.len();
    let mut lines: Vec<String> = found
        .into_iter()
        .take(MAX_LISTED)
        .map(|p| match call.index.titles.get(&p) {
            Some(title) => format!("{p}  (document: {title})"),
            None => p,
        })
        .collect();
    if total > MAX_LISTED {
        lines.push(format!("... and {} more files", total - MAX_LISTED));
    }
    Ok(lines.join("\n"))
}

/// The folder to list and its tool-path prefix. Besides file paths, the agent root (`.`),
/// `communities`, `communities/<id>`, `shared` and `memory` are valid folders.
fn list_root(call: &Call<'_>, path: &str) -> Result<(PathBuf, String), String> {
    let root = &call.trial.agent_root;
    let mut parts = Vec::new();
    for c in Path::new(path.trim()).components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            _ => return Err(layout::PathError::Escapes(path.to_owned()).to_string()),
        }
    }
    let top_level = match parts.as_slice() {
        [] => Some(String::new()),
        [one] if [COMMUNITIES_DIR, SHARED_DIR, MEMORY_DIR].contains(&one.as_str()) => {
            Some(one.clone())
        }
        [c, id] if c == COMMUNITIES_DIR => {
            if !call.index.knows_community(&CommunityId(id.clone())) {
                return Err(format!(
                    "no community folder `{id}`; valid communities: {}",
                    call.index.community_choices()
                ));
            }
            Some(format!("{COMMUNITIES_DIR}/{id}"))
        }
        _ => None,
    };
    match top_level {
        Some(rel) => {
            let full = if rel.is_empty() {
                root.clone()
            } else {
                root.join(&rel)
            };
            ensure_inside(root, &full, path)?;
            Ok((full, rel))
        }
        None => {
            let target = resolve(call, path)?;
            Ok((target.full, target.key))
        }
    }
}

/// Refuses a folder that resolves outside the agent half (a symlinked top-level folder).
fn ensure_inside(root: &Path, full: &Path, shown: &str) -> Result<(), String> {
    if full.symlink_metadata().is_err() {
        return Ok(());
    }
    let real_root = root
        .canonicalize()
        .map_err(|_| layout::PathError::Escapes(shown.to_owned()).to_string())?;
    match full.canonicalize() {
        Ok(real) if real.starts_with(&real_root) => Ok(()),
        _ => Err(layout::PathError::Symlink(shown.to_owned()).to_string()),
    }
}

/// Collects regular files under `dir` without following symlinks.
fn walk(dir: &Path, prefix: &str, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&entry.path(), &rel, found),
            Ok(t) if t.is_file() => found.push(rel),
            _ => {}
        }
    }
}

/// Every regular file of the agent half with its canonical tool path, for search.
pub(crate) fn all_files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    walk(root, "", &mut found);
    found.sort();
    found
        .into_iter()
        .filter(|p| layout::split_tool_path(p).is_ok())
        .map(|p| {
            let full = root.join(&p);
            (p, full)
        })
        .collect()
}
