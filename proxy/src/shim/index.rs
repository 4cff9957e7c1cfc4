//! A per-trial index of the scenario facts the shim needs on every call: which seeded
//! object lives at which path, the labels of seeded objects, the tool observations of
//! each seeded tool and the tool list. Built once per trial so a tool call never scans
//! the scenario again.

use crate::layout;
use crate::tools::{self, ToolDef};
use cosec_scenarios::agent::{CommunityInfo, Person};
use cosec_scenarios::platform::ObjectLabel;
use cosec_scenarios::{AgentTier, CommunityId, ObjectId, PlatformTier, Surface, UserId};
use std::collections::HashMap;
use std::sync::Arc;

/// Seed content shorter than this is not matched by containment (only by path), so that
/// short phrases do not mark unrelated files as carrying a labeled object.
const MIN_CONTAINED_LEN: usize = 24;

/// A seeded object whose content may be handed out by reads and searches.
#[derive(Debug, Clone)]
pub(crate) struct ContentSeed {
    /// The object.
    pub object: ObjectId,
    /// Its seeded content, trimmed.
    pub content: String,
    /// Memory entries are always matched by containment, whatever their length.
    pub memory: bool,
}

/// A tool observation of a seeded tool.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    /// The seeded trigger (matched by [`cosec_scenarios::search::triggers`]).
    pub trigger: String,
    /// The object.
    pub object: ObjectId,
    /// What the tool returns.
    pub content: String,
}

/// Everything the shim looks up about one trial.
pub(crate) struct TrialIndex {
    /// The agent tier this index was built from (to notice a replaced trial).
    pub agent: Arc<AgentTier>,
    /// The platform tier this index was built from.
    pub platform: Arc<PlatformTier>,
    /// Seeded file/document objects by canonical tool path.
    pub by_path: HashMap<String, ObjectId>,
    /// Document titles by canonical tool path (shown in listings).
    pub titles: HashMap<String, String>,
    /// Seeds that reads and searches recognise by their content.
    pub content_seeds: Vec<ContentSeed>,
    /// Tool observations by tool name.
    pub observations: HashMap<String, Vec<Observation>>,
    /// Labels of seeded objects.
    pub labels: HashMap<ObjectId, ObjectLabel>,
    /// Tool definitions offered for this trial.
    pub tool_defs: Vec<ToolDef>,
}

impl TrialIndex {
    /// Builds the index of a trial.
    pub fn build(agent: Arc<AgentTier>, platform: Arc<PlatformTier>) -> Self {
        let mut by_path = HashMap::new();
        let mut titles = HashMap::new();
        let mut content_seeds = Vec::new();
        let mut observations: HashMap<String, Vec<Observation>> = HashMap::new();
        for seed in &agent.seeds {
            match &seed.surface {
                Surface::File { namespace, path } => {
                    by_path.insert(layout::tool_path(namespace, path), seed.object.clone());
                    content_seeds.push(content_seed(&seed.object, &seed.content, false));
                }
                Surface::Document {
                    namespace,
                    path,
                    title,
                } => {
                    let key = layout::tool_path(namespace, path);
                    by_path.insert(key.clone(), seed.object.clone());
                    titles.insert(key, title.clone());
                    content_seeds.push(content_seed(&seed.object, &seed.content, false));
                }
                Surface::PrivateMemory => {
                    content_seeds.push(content_seed(&seed.object, &seed.content, true));
                }
                Surface::ToolObservation { tool, trigger } => {
                    observations
                        .entry(tool.clone())
                        .or_default()
                        .push(Observation {
                            trigger: trigger.clone(),
                            object: seed.object.clone(),
                            content: seed.content.clone(),
                        });
                }
                Surface::SessionHistory { .. } => {}
            }
        }
        content_seeds.retain(|s| !s.content.is_empty());
        let labels = platform
            .labels
            .iter()
            .map(|l| (l.object.clone(), l.clone()))
            .collect();
        let tool_defs = tool_defs_for(&agent);
        TrialIndex {
            agent,
            platform,
            by_path,
            titles,
            content_seeds,
            observations,
            labels,
            tool_defs,
        }
    }

    /// Seeded objects whose content a text hands out: `path_key` (a canonical tool path)
    /// names a seeded file, or the text contains a seed's content, or (for `fragment`
    /// texts such as search snippets) the seed's content contains the text.
    pub fn objects_in(&self, path_key: Option<&str>, text: &str, fragment: bool) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = Vec::new();
        if let Some(obj) = path_key.and_then(|k| self.by_path.get(k)) {
            out.push(obj.clone());
        }
        let trimmed = text.trim();
        for seed in &self.content_seeds {
            if out.contains(&seed.object) {
                continue;
            }
            let long_enough = seed.memory || seed.content.len() >= MIN_CONTAINED_LEN;
            let contains = long_enough && text.contains(seed.content.as_str());
            let inside = fragment
                && (seed.memory || trimmed.len() >= MIN_CONTAINED_LEN)
                && !trimmed.is_empty()
                && seed.content.contains(trimmed);
            if contains || inside {
                out.push(seed.object.clone());
            }
        }
        out
    }

    /// Resolves a community by id or display name, case-insensitively.
    pub fn community(&self, wanted: &str) -> Result<CommunityId, String> {
        crate::names::community_named(&self.agent, wanted).ok_or_else(|| {
            format!(
                "unknown community `{wanted}`; valid communities: {}",
                list_communities(&self.agent.communities)
            )
        })
    }

    /// Resolves a person by id or display name, case-insensitively.
    pub fn person(&self, wanted: &str) -> Result<UserId, String> {
        crate::names::person_named(&self.agent, wanted).ok_or_else(|| {
            format!(
                "unknown person `{wanted}`; valid people: {}",
                list_people(&self.agent.people)
            )
        })
    }

    /// Whether a community id is one of the agent's communities.
    pub fn knows_community(&self, id: &CommunityId) -> bool {
        self.agent.communities.iter().any(|c| &c.id == id)
    }

    /// The valid communities, for error messages.
    pub fn community_choices(&self) -> String {
        list_communities(&self.agent.communities)
    }
}

fn content_seed(object: &ObjectId, content: &str, memory: bool) -> ContentSeed {
    ContentSeed {
        object: object.clone(),
        content: content.trim().to_owned(),
        memory,
    }
}

fn list_communities(cs: &[CommunityInfo]) -> String {
    cs.iter()
        .map(|c| format!("{} ({})", c.id, c.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_people(ps: &[Person]) -> String {
    ps.iter()
        .map(|p| format!("{} ({})", p.id, p.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tools offered for a trial: the shim's tools (with the declared workflows named in
/// `submit_workflow`'s description) followed by the scenario's seeded tools. A seeded tool
/// named like a shim tool is left out: the shim tool wins.
pub fn tool_defs_for(agent: &AgentTier) -> Vec<ToolDef> {
    tool_defs_with(agent, false)
}

/// Like [`tool_defs_for`], with the `policy_blocked` tool appended when
/// `policy_blocked` is set (a guard enforcing, so that blocked calls can be answered).
pub fn tool_defs_with(agent: &AgentTier, policy_blocked: bool) -> Vec<ToolDef> {
    let mut defs = tools::shim_tools();
    if !agent.workflows.is_empty() {
        if let Some(def) = defs.iter_mut().find(|d| d.name == tools::SUBMIT_WORKFLOW) {
            let list = agent
                .workflows
                .iter()
                .map(|w| format!("`{}`: {}", w.name, w.description))
                .collect::<Vec<_>>()
                .join("; ");
            def.description = format!("{} Available workflows: {list}.", def.description);
        }
    }
    for tool in &agent.tools {
        if defs.iter().all(|d| d.name != tool.name) {
            defs.push(tools::seeded_tool(tool));
        }
    }
    if policy_blocked {
        defs.retain(|d| d.name != tools::POLICY_BLOCKED);
        defs.push(tools::policy_blocked_tool());
    }
    defs
}
