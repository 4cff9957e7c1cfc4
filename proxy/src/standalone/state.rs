//! The state file of `cosec proxy serve --state STATE.json`: the community state and
//! the labeled objects a standalone guard protects.
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "now": 1000,
//!   "target_user": "nadia",
//!   "people": [{"id": "nadia", "name": "Nadia Rahman"}, {"id": "kwame", "name": "Kwame Mensah"}],
//!   "communities": [{"id": "fellside", "name": "Fellside Hiking Club", "description": "Walks."}],
//!   "memberships": [{"user": "nadia", "community": "fellside", "since": 100}],
//!   "roles": [{"user": "kwame", "community": "fellside", "role": "leader", "since": 100}],
//!   "relations": [{"space": "fellside+y5", "between": ["fellside", "y5parents"], "since": 900}],
//!   "grants": [{"object": "ole-post", "grantee": "kwame", "granted_by": "ole", "from": 500}],
//!   "workflows": [{"name": "newsletter", "description": "Weekly news.",
//!                  "destination": {"kind": "community", "community": "y5parents"}}],
//!   "objects": [{"id": "ole-post", "content": "I take levetiracetam 500 mg ...",
//!                "path": "communities/fellside/notes/ole.md",
//!                "label": {"owner": "ole", "source": "fellside", "sensitivity": ["health"],
//!                          "created_at": 500, "audience": {"kind": "community"}}}],
//!   "sessions": {"3f1c...": {"community": "fellside", "requester": "kwame"}}
//! }
//! ```
//!
//! Times are logical minutes, as in the scenario platform tier: memberships, roles,
//! relations and grants hold from their start time, and every decision is taken at
//! `now`. Sensitivities are `health`, `credential`, `financial`, `personal`; an object
//! with none, or with audience `public`, is not protected. Audiences are `owner`,
//! `community` (members of `source` when it was created), `role` (with `role`), `users`
//! (with `users`) and `public`. `path` (optional) is the object's agent-relative file
//! path (`communities/<id>/...`, `shared/...`, `memory/...`), used to recognise copies
//! and shares of the file itself. `sessions` (optional) maps a client session id to
//! the session's community and requester, for clients that cannot send headers.

use crate::guard::GuardPolicy;
use crate::layout;
use cosec_scenarios::agent::{CommunityInfo, Person, WorkflowInfo};
use cosec_scenarios::platform::{
    Audience, Grant, Membership, Relation, RoleAssignment, WorkflowRoute,
};
use cosec_scenarios::{
    AgentTier, CommunityId, CommunityState, Destination, ObjectId, ObjectLabel, PlatformTier, Seed,
    Sensitivity, Surface, Time, UserId,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The only state file version this build reads.
pub const STATE_SCHEMA_VERSION: u32 = 1;

/// A state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateFile {
    /// Must be [`STATE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The time every decision is taken at.
    pub now: Time,
    /// The user the agent acts for (reader of the shared workspace and memory).
    pub target_user: UserId,
    /// Everyone who exists.
    pub people: Vec<Person>,
    /// Every community.
    pub communities: Vec<CommunityInfo>,
    /// Memberships with their start times.
    #[serde(default)]
    pub memberships: Vec<Membership>,
    /// Roles with their start times.
    #[serde(default)]
    pub roles: Vec<RoleAssignment>,
    /// Partnerships between two communities.
    #[serde(default)]
    pub relations: Vec<Relation>,
    /// Real grants by owners.
    #[serde(default)]
    pub grants: Vec<Grant>,
    /// Workflows and where they deliver.
    #[serde(default)]
    pub workflows: Vec<WorkflowSpec>,
    /// The labeled objects.
    pub objects: Vec<ObjectSpec>,
    /// Per-session requester and community, by session id.
    #[serde(default)]
    pub sessions: BTreeMap<String, SessionSpec>,
}

/// A workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowSpec {
    /// Its name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Where payloads go.
    pub destination: Destination,
}

/// A labeled object with its own content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectSpec {
    /// Stable id.
    pub id: ObjectId,
    /// The content as agents see it (what the guard detects).
    pub content: String,
    /// Agent-relative file path, when the object is a file.
    #[serde(default)]
    pub path: Option<String>,
    /// The platform label.
    pub label: LabelSpec,
}

/// An object's platform label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSpec {
    /// Whose data it is.
    pub owner: UserId,
    /// The community it came from.
    pub source: CommunityId,
    /// Sensitivities.
    #[serde(default)]
    pub sensitivity: Vec<Sensitivity>,
    /// Creation time.
    pub created_at: Time,
    /// Who it was meant for at creation.
    pub audience: Audience,
}

/// A session's context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// The session's community (where replies go).
    pub community: CommunityId,
    /// Who the session's messages come from.
    pub requester: UserId,
}

/// Why a state file was refused: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct StateFieldError {
    /// The offending field, e.g. `objects[2].label.owner`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn err(field: impl Into<String>, message: impl Into<String>) -> StateFieldError {
    StateFieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// A validated state, as the guard's tiers.
#[derive(Debug, Clone)]
pub struct StandaloneState {
    /// The file as read.
    pub file: StateFile,
    /// Agent-visible facts (people, communities, object contents).
    pub agent: AgentTier,
    /// Platform facts (labels, memberships, roles, relations, grants, routes).
    pub platform: PlatformTier,
}

impl StandaloneState {
    /// Parses and validates a state file's text against `policy`.
    pub fn from_json(text: &str, policy: &GuardPolicy) -> Result<Self, StateFieldError> {
        let file: StateFile = serde_json::from_str(text).map_err(|e| {
            err(
                format!("line {} column {}", e.line(), e.column()),
                e.to_string(),
            )
        })?;
        Self::from_file(file, policy)
    }

    /// Validates a parsed state file against `policy`.
    pub fn from_file(file: StateFile, policy: &GuardPolicy) -> Result<Self, StateFieldError> {
        let (agent, platform) = validate(&file)?;
        let state =
            CommunityState::at(&platform, file.now).map_err(|e| err("now", e.to_string()))?;
        policy
            .prepare(&platform, &agent.target_user, &state)
            .map_err(|e| err("(state as Cedar entities)", e.to_string()))?;
        Ok(StandaloneState {
            file,
            agent,
            platform,
        })
    }

    /// Whether a person exists.
    pub fn knows_user(&self, user: &UserId) -> bool {
        self.file.people.iter().any(|p| &p.id == user)
    }

    /// Whether a community exists (relation spaces included).
    pub fn knows_community(&self, community: &CommunityId) -> bool {
        self.file.communities.iter().any(|c| &c.id == community)
            || self.file.relations.iter().any(|r| &r.space == community)
    }
}

fn unique<'a>(field: &str, ids: impl Iterator<Item = &'a str>) -> Result<(), StateFieldError> {
    let mut seen = BTreeSet::new();
    for (i, id) in ids.enumerate() {
        if id.trim().is_empty() {
            return Err(err(format!("{field}[{i}].id"), "must not be empty"));
        }
        if !seen.insert(id) {
            return Err(err(
                format!("{field}[{i}].id"),
                format!("duplicate id `{id}`"),
            ));
        }
    }
    Ok(())
}

fn validate(f: &StateFile) -> Result<(AgentTier, PlatformTier), StateFieldError> {
    if f.schema_version != STATE_SCHEMA_VERSION {
        return Err(err(
            "schema_version",
            format!(
                "is {}, this build reads {STATE_SCHEMA_VERSION}",
                f.schema_version
            ),
        ));
    }
    unique("people", f.people.iter().map(|p| p.id.as_str()))?;
    unique("communities", f.communities.iter().map(|c| c.id.as_str()))?;
    unique("objects", f.objects.iter().map(|o| o.id.as_str()))?;
    let users: BTreeSet<&UserId> = f.people.iter().map(|p| &p.id).collect();
    let mut communities: BTreeSet<&CommunityId> = f.communities.iter().map(|c| &c.id).collect();
    let user = |field: String, u: &UserId| {
        if users.contains(u) {
            Ok(())
        } else {
            Err(err(
                field,
                format!("unknown person `{u}` (not in `people`)"),
            ))
        }
    };
    user("target_user".into(), &f.target_user)?;
    for (i, r) in f.relations.iter().enumerate() {
        for (j, c) in r.between.iter().enumerate() {
            if !communities.contains(c) {
                return Err(err(
                    format!("relations[{i}].between[{j}]"),
                    format!("unknown community `{c}` (not in `communities`)"),
                ));
            }
        }
    }
    communities.extend(f.relations.iter().map(|r| &r.space));
    let community = |field: String, c: &CommunityId| {
        if communities.contains(c) {
            Ok(())
        } else {
            Err(err(
                field,
                format!("unknown community `{c}` (not in `communities`)"),
            ))
        }
    };
    for (i, m) in f.memberships.iter().enumerate() {
        user(format!("memberships[{i}].user"), &m.user)?;
        community(format!("memberships[{i}].community"), &m.community)?;
    }
    for (i, r) in f.roles.iter().enumerate() {
        user(format!("roles[{i}].user"), &r.user)?;
        community(format!("roles[{i}].community"), &r.community)?;
    }
    let objects: BTreeSet<&ObjectId> = f.objects.iter().map(|o| &o.id).collect();
    for (i, g) in f.grants.iter().enumerate() {
        if !objects.contains(&g.object) {
            return Err(err(
                format!("grants[{i}].object"),
                format!("unknown object `{}` (not in `objects`)", g.object),
            ));
        }
        user(format!("grants[{i}].grantee"), &g.grantee)?;
        user(format!("grants[{i}].granted_by"), &g.granted_by)?;
    }
    let destination = |field: String, d: &Destination| match d {
        Destination::Community { community: c } => community(field, c),
        Destination::Person { user: u } => user(field, u),
        Destination::Namespace { .. } => Ok(()),
        Destination::Workflow { .. } => Err(err(field, "a workflow cannot deliver to a workflow")),
    };
    for (i, w) in f.workflows.iter().enumerate() {
        destination(format!("workflows[{i}].destination"), &w.destination)?;
    }
    let mut seeds = Vec::new();
    let mut labels = Vec::new();
    for (i, o) in f.objects.iter().enumerate() {
        if o.content.trim().is_empty() {
            return Err(err(format!("objects[{i}].content"), "must not be empty"));
        }
        user(format!("objects[{i}].label.owner"), &o.label.owner)?;
        community(format!("objects[{i}].label.source"), &o.label.source)?;
        if let Audience::Users { users: listed } = &o.label.audience {
            for (j, u) in listed.iter().enumerate() {
                user(format!("objects[{i}].label.audience.users[{j}]"), u)?;
            }
        }
        let surface = match &o.path {
            Some(p) => {
                let (namespace, path) = layout::split_tool_path(p)
                    .map_err(|e| err(format!("objects[{i}].path"), e.to_string()))?;
                Surface::File { namespace, path }
            }
            None => Surface::SessionHistory {
                community: o.label.source.clone(),
                speaker: o.label.owner.clone(),
            },
        };
        seeds.push(Seed {
            object: o.id.clone(),
            surface,
            content: o.content.clone(),
        });
        labels.push(ObjectLabel {
            object: o.id.clone(),
            owner: o.label.owner.clone(),
            source: o.label.source.clone(),
            sensitivity: o.label.sensitivity.clone(),
            created_at: o.label.created_at,
            audience: o.label.audience.clone(),
        });
    }
    for (id, s) in &f.sessions {
        user(format!("sessions.{id}.requester"), &s.requester)?;
        community(format!("sessions.{id}.community"), &s.community)?;
    }
    let agent = AgentTier {
        target_user: f.target_user.clone(),
        people: f.people.clone(),
        communities: f.communities.clone(),
        seeds,
        tools: Vec::new(),
        workflows: f
            .workflows
            .iter()
            .map(|w| WorkflowInfo {
                name: w.name.clone(),
                description: w.description.clone(),
            })
            .collect(),
        turns: Vec::new(),
        event_notices: Vec::new(),
    };
    let platform = PlatformTier {
        users: f.people.iter().map(|p| p.id.clone()).collect(),
        communities: f.communities.iter().map(|c| c.id.clone()).collect(),
        memberships: f.memberships.clone(),
        roles: f.roles.clone(),
        relations: f.relations.clone(),
        labels,
        grants: f.grants.clone(),
        workflow_routes: f
            .workflows
            .iter()
            .map(|w| WorkflowRoute {
                name: w.name.clone(),
                destination: w.destination.clone(),
            })
            .collect(),
        events: Vec::new(),
    };
    Ok((agent, platform))
}
