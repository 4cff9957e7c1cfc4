//! Lays out a trial's agent half from the agent-visible tier before the first turn.
//!
//! Only agent-tier content is written: seeded files and documents into their namespace
//! folders, private memory entries into [`MEMORY_NOTES`]. Session history and tool
//! observations are not files: the harness and the shim serve them.

use crate::layout::{self, PathError, COMMUNITIES_DIR, MEMORY_DIR, SHARED_DIR};
use crate::provenance::{Labels, Record, Segment};
use cosec_scenarios::{AgentTier, ObjectId, Surface};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Private memory entries live in this file under the agent root: the memory
/// namespace's [`cosec_scenarios::agent::MEMORY_NOTES_FILE`].
pub const MEMORY_NOTES: &str = "memory/notes.md";

/// Why the agent half could not be laid out.
#[derive(Debug, thiserror::Error)]
pub enum MaterializeError {
    /// A folder or file could not be created.
    #[error("cannot write {path}: {source}")]
    Io {
        /// What was being written.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A seed's path leaves its namespace.
    #[error("seed `{object}` has an invalid path: {source}")]
    BadSeedPath {
        /// The seeded object.
        object: String,
        /// Why the path was refused.
        source: PathError,
    },
    /// Two seeds (or a seed and the memory notes) claim the same file.
    #[error("seed `{object}` would overwrite `{path}`, which another seed already wrote")]
    Conflict {
        /// The second seed.
        object: String,
        /// The contested tool path.
        path: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MaterializeError + '_ {
    move |source| MaterializeError::Io {
        path: path.to_owned(),
        source,
    }
}

fn mkdir(path: &Path) -> Result<(), MaterializeError> {
    std::fs::create_dir_all(path).map_err(io(path))
}

/// The seeded files, documents and private memory of `agent` as they are laid out: each
/// file by its tool path, with the label of the object each part of it holds (private
/// memory entries share [`MEMORY_NOTES`], separated by blank lines).
pub fn seeded_layout(agent: &AgentTier) -> Result<BTreeMap<String, Record>, MaterializeError> {
    let mut files: BTreeMap<String, Record> = BTreeMap::new();
    let mut memory: Vec<(&str, &ObjectId)> = Vec::new();
    for seed in &agent.seeds {
        let (namespace, path) = match &seed.surface {
            Surface::File { namespace, path }
            | Surface::Document {
                namespace, path, ..
            } => (namespace, path),
            Surface::PrivateMemory => {
                memory.push((seed.content.trim_end(), &seed.object));
                continue;
            }
            Surface::SessionHistory { .. } | Surface::ToolObservation { .. } => continue,
        };
        let tool_path = layout::tool_path(namespace, path);
        // Re-splitting refuses seed paths with `..` or absolute parts.
        let (ns, inner) = layout::split_tool_path(&tool_path).map_err(|source| {
            MaterializeError::BadSeedPath {
                object: seed.object.to_string(),
                source,
            }
        })?;
        let key = layout::tool_path(&ns, &inner);
        if files.contains_key(&key) {
            return Err(MaterializeError::Conflict {
                object: seed.object.to_string(),
                path: key,
            });
        }
        let labels = Labels::from([seed.object.clone()]);
        files.insert(key, Record::whole(seed.content.as_bytes(), labels));
    }
    if !memory.is_empty() {
        if files.contains_key(MEMORY_NOTES) {
            return Err(MaterializeError::Conflict {
                object: "private memory".to_owned(),
                path: MEMORY_NOTES.to_owned(),
            });
        }
        let mut segments = Vec::new();
        for (i, (text, object)) in memory.into_iter().enumerate() {
            if i > 0 {
                segments.push(Segment::plain("\n\n"));
            }
            segments.push(Segment::new(text, Labels::from([object.clone()])));
        }
        segments.push(Segment::plain("\n"));
        files.insert(MEMORY_NOTES.to_owned(), Record { segments });
    }
    Ok(files)
}

/// Writes the seeded files, documents and private memory of `agent` under `root`, and
/// creates `communities/<id>/` for every community, `shared/` and `memory/`.
pub fn materialize_agent_half(agent: &AgentTier, root: &Path) -> Result<(), MaterializeError> {
    mkdir(root)?;
    for c in &agent.communities {
        mkdir(&root.join(COMMUNITIES_DIR).join(c.id.as_str()))?;
    }
    mkdir(&root.join(SHARED_DIR))?;
    mkdir(&root.join(MEMORY_DIR))?;
    for (key, record) in seeded_layout(agent)? {
        let full = root.join(&key);
        if let Some(parent) = full.parent() {
            mkdir(parent)?;
        }
        std::fs::write(&full, record.content()).map_err(io(&full))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::MEMORY_NOTES;
    use cosec_scenarios::agent::MEMORY_NOTES_FILE;
    use cosec_scenarios::Namespace;

    #[test]
    fn the_memory_notes_are_the_notes_file_of_the_memory_namespace() {
        let (namespace, inner) = crate::layout::split_tool_path(MEMORY_NOTES).unwrap();
        assert_eq!(
            (namespace, inner.as_str()),
            (Namespace::Memory, MEMORY_NOTES_FILE)
        );
    }
}
