//! The agent-visible tier: everything a harness may put in front of the agent.
//!
//! Code that prepares agent inputs takes `&AgentTier` and nothing else, so it cannot
//! reach platform labels or verifier facts by accident.

use crate::ids::{CommunityId, ObjectId, UserId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the agent may see of one scenario.
///
/// On the wire, zero or one notice is written as `event_notice` (null or one object) and
/// a chain of two or more as `event_notices` (a list); reading accepts either key, never
/// both (see [`crate::wire`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "crate::wire::AgentWire", into = "crate::wire::AgentWire")]
pub struct AgentTier {
    /// The user the agent represents.
    pub target_user: UserId,
    /// People the agent knows by name.
    pub people: Vec<Person>,
    /// Communities the target user takes part in at some point of the scenario.
    pub communities: Vec<CommunityInfo>,
    /// Seeded content on every agent-visible surface.
    pub seeds: Vec<Seed>,
    /// Scenario-specific lookup tools whose results are tool observations.
    pub tools: Vec<SeededTool>,
    /// Workflows the agent can submit to (their destinations are platform facts).
    pub workflows: Vec<WorkflowInfo>,
    /// The scripted participant turns, in order (eight in the frozen suite, at most
    /// [`crate::ids::MAX_TURN_COUNT`] in a custom scenario).
    pub turns: Vec<Turn>,
    /// The trusted notices of the scenario's community events, one per event, in time
    /// order; each is delivered between two turns.
    pub event_notices: Vec<EventNotice>,
}

/// A person by display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// Stable id.
    pub id: UserId,
    /// Name shown in conversation.
    pub name: String,
}

/// A community as the agent knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunityInfo {
    /// Stable id.
    pub id: CommunityId,
    /// Display name, e.g. `CarePod`.
    pub name: String,
    /// One sentence on what the community is for.
    pub description: String,
}

/// Where an agent-visible namespace of files lives.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Namespace {
    /// A community's workspace, visible to its current members.
    Community {
        /// The community.
        community: CommunityId,
    },
    /// The agent's shared workspace across all communities.
    Shared,
    /// The agent's persistent private memory.
    Memory,
}

/// The file of the memory namespace that holds the agent's private memory entries.
pub const MEMORY_NOTES_FILE: &str = "notes.md";

/// Folder of community workspaces under the agent root.
pub const COMMUNITIES_DIR: &str = "communities";
/// Folder of the shared workspace under the agent root.
pub const SHARED_DIR: &str = "shared";
/// Folder of private memory under the agent root.
pub const MEMORY_DIR: &str = "memory";

impl Namespace {
    /// The namespace's folder relative to the agent root (`communities/<id>`, `shared`,
    /// `memory`).
    pub fn folder(&self) -> String {
        match self {
            Namespace::Community { community } => format!("{COMMUNITIES_DIR}/{community}"),
            Namespace::Shared => SHARED_DIR.to_owned(),
            Namespace::Memory => MEMORY_DIR.to_owned(),
        }
    }

    /// The path tools show for `path` inside this namespace (relative to the agent root).
    pub fn tool_path(&self, path: &str) -> String {
        format!("{}/{path}", self.folder())
    }
}

/// The surface a seeded object lives on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Surface {
    /// An earlier message in a community's native session.
    SessionHistory {
        /// Whose session.
        community: CommunityId,
        /// Who wrote the message.
        speaker: UserId,
    },
    /// An entry of the agent's persistent private memory.
    PrivateMemory,
    /// A file in a namespace (community workspace, shared workspace or memory folder).
    File {
        /// Namespace holding the file.
        namespace: Namespace,
        /// Relative path inside the namespace.
        path: String,
    },
    /// A document (with title and metadata) in a namespace.
    Document {
        /// Namespace holding the document.
        namespace: Namespace,
        /// Relative path inside the namespace.
        path: String,
        /// Title shown in listings.
        title: String,
    },
    /// A result a seeded tool returns when its argument mentions `trigger`.
    ToolObservation {
        /// Tool name (one of `AgentTier::tools`).
        tool: String,
        /// Case-insensitive substring of the argument that makes the tool return this object.
        trigger: String,
    },
}

/// One seeded object on an agent-visible surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// The object's id (its label is in the platform tier).
    pub object: ObjectId,
    /// Where the object lives.
    pub surface: Surface,
    /// The object's content as the agent sees it.
    pub content: String,
}

/// A scenario-specific lookup tool (e.g. a directory or records lookup).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeededTool {
    /// Tool name offered to the agent.
    pub name: String,
    /// Tool description offered to the agent.
    pub description: String,
    /// Name of the tool's single string argument.
    pub argument: String,
    /// Text returned when no observation matches.
    pub empty_result: String,
}

/// A workflow the agent can submit a payload to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowInfo {
    /// Workflow name used with `submit_workflow`.
    pub name: String,
    /// What the workflow does, as the agent is told.
    pub description: String,
}

/// One scripted participant turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// 1-based position among the scenario's turns.
    pub index: u8,
    /// The community whose native session receives the message.
    pub community: CommunityId,
    /// Who sends the message (the requester of this turn).
    pub speaker: UserId,
    /// The message text.
    pub text: String,
}

/// A trusted platform notice of a community event, delivered between two turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventNotice {
    /// Delivered after this turn and before the next; not itself a turn.
    pub after_turn: u8,
    /// The community whose session receives the notice.
    pub community: CommunityId,
    /// The notice text.
    pub text: String,
}

impl AgentTier {
    /// Number of scripted turns (saturating at `u8::MAX` for a file with too many).
    pub fn turn_count(&self) -> u8 {
        u8::try_from(self.turns.len()).unwrap_or(u8::MAX)
    }

    /// The event notice delivered right after turn `turn`, if any.
    pub fn notice_after(&self, turn: u8) -> Option<&EventNotice> {
        self.event_notices.iter().find(|n| n.after_turn == turn)
    }

    /// Display name of a person, falling back to the id.
    pub fn person_name<'a>(&'a self, id: &'a UserId) -> &'a str {
        self.people
            .iter()
            .find(|p| &p.id == id)
            .map_or(id.as_str(), |p| p.name.as_str())
    }

    /// Display name of a community, falling back to the id.
    pub fn community_name<'a>(&'a self, id: &'a CommunityId) -> &'a str {
        self.communities
            .iter()
            .find(|c| &c.id == id)
            .map_or(id.as_str(), |c| c.name.as_str())
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Namespace::Community { community } => write!(f, "workspace:{community}"),
            Namespace::Shared => f.write_str("shared"),
            Namespace::Memory => f.write_str("memory"),
        }
    }
}
