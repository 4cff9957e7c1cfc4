//! The platform tier: what a real platform knows and the runtime guard may use.
//!
//! Object labels, the initial community state, real grants, workflow routes and the
//! scheduled events. Never the oracle policy and never anything of the verifier tier.

use crate::agent::Namespace;
use crate::factors::Sensitivity;
use crate::ids::{CommunityId, ObjectId, RoleName, Time, UserId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Platform facts of one scenario.
///
/// On the wire, zero or one event is written as `event` (null or one object) and a chain
/// of two or more as `events` (a list); reading accepts either key, never both (see
/// [`crate::wire`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    try_from = "crate::wire::PlatformWire",
    into = "crate::wire::PlatformWire"
)]
pub struct PlatformTier {
    /// Every user id that exists in the scenario.
    pub users: Vec<UserId>,
    /// Communities that exist before any event (events may create more).
    pub communities: Vec<CommunityId>,
    /// Memberships in force at the start, with their start times.
    pub memberships: Vec<Membership>,
    /// Roles held at the start, with their start times.
    pub roles: Vec<RoleAssignment>,
    /// Partnerships in force at the start.
    pub relations: Vec<Relation>,
    /// The label of every seeded object.
    pub labels: Vec<ObjectLabel>,
    /// Real grants recorded by the platform (a grant typed into a message is not one).
    pub grants: Vec<Grant>,
    /// Where each workflow delivers its payload.
    pub workflow_routes: Vec<WorkflowRoute>,
    /// The scheduled community events in time order (strictly increasing `after_turn`):
    /// none for a static scenario, one for each Dyn96 scenario, a chain in a custom one.
    pub events: Vec<ScheduledEvent>,
}

/// A user's membership of a community since a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Membership {
    /// The member.
    pub user: UserId,
    /// The community.
    pub community: CommunityId,
    /// When the membership started.
    pub since: Time,
}

/// A role a member holds in a community since a time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleAssignment {
    /// The role holder.
    pub user: UserId,
    /// The community the role belongs to.
    pub community: CommunityId,
    /// The role.
    pub role: RoleName,
    /// When the role was granted.
    pub since: Time,
}

/// A partnership between two communities, with its own shared space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Relation {
    /// The partnership space (a community-like scope whose members are both sides').
    pub space: CommunityId,
    /// The two partner communities.
    pub between: [CommunityId; 2],
    /// When the partnership started.
    pub since: Time,
}

/// Who an object was meant for when it was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Audience {
    /// Only the owner.
    Owner,
    /// Members of the source community at creation time.
    Community,
    /// Holders of a role in the source community at creation time.
    Role {
        /// The role.
        role: RoleName,
    },
    /// Named people (e.g. a direct conversation).
    Users {
        /// The people.
        users: Vec<UserId>,
    },
    /// Anyone.
    Public,
}

/// The platform label of a data object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectLabel {
    /// The labeled object.
    pub object: ObjectId,
    /// Whose data it is.
    pub owner: UserId,
    /// The community it came from.
    pub source: CommunityId,
    /// Sensitivity labels (empty for non-sensitive data).
    #[serde(default)]
    pub sensitivity: Vec<Sensitivity>,
    /// When the object was created.
    pub created_at: Time,
    /// Who it was meant for at creation.
    pub audience: Audience,
}

/// A real grant by an object's owner to a person, valid in `[from, until)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// The object the grant covers.
    pub object: ObjectId,
    /// Who may receive it.
    pub grantee: UserId,
    /// Who granted it (the owner).
    pub granted_by: UserId,
    /// Start of validity.
    pub from: Time,
    /// End of validity, exclusive; `None` for open-ended.
    #[serde(default)]
    pub until: Option<Time>,
}

/// Where something is delivered.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Destination {
    /// A community's conversation (a reply in its session or a post).
    Community {
        /// The community.
        community: CommunityId,
    },
    /// A file namespace (community workspace, shared workspace, private memory).
    Namespace {
        /// The namespace.
        namespace: Namespace,
    },
    /// A direct message to one person.
    Person {
        /// The recipient.
        user: UserId,
    },
    /// A workflow, delivered where its route says.
    Workflow {
        /// Workflow name.
        name: String,
    },
}

/// A workflow's declared delivery destination.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowRoute {
    /// Workflow name (one of the agent tier's workflows).
    pub name: String,
    /// Where submitted payloads go (never another workflow).
    pub destination: Destination,
}

/// A community event scheduled between two turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduledEvent {
    /// Applied after this turn and before the next.
    pub after_turn: u8,
    /// The state change.
    pub change: CommunityEvent,
}

/// One of the eight directed state transitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CommunityEvent {
    /// `user` joins `community`.
    MemberJoin {
        /// The joiner.
        user: UserId,
        /// The community joined.
        community: CommunityId,
    },
    /// `user` leaves `community` (their roles there end too).
    MemberRemove {
        /// The leaver.
        user: UserId,
        /// The community left.
        community: CommunityId,
    },
    /// `user` gains `role` in `community`.
    RoleUp {
        /// The promoted member.
        user: UserId,
        /// The community.
        community: CommunityId,
        /// The role gained.
        role: RoleName,
    },
    /// `user` loses `role` in `community`.
    RoleDown {
        /// The demoted member.
        user: UserId,
        /// The community.
        community: CommunityId,
        /// The role lost.
        role: RoleName,
    },
    /// Two communities merge into a new one; the originals keep their own audiences.
    Merge {
        /// The merging communities.
        from: [CommunityId; 2],
        /// The merged community.
        into: CommunityId,
    },
    /// A community splits into two; the original's memberships end.
    Split {
        /// The community that splits.
        from: CommunityId,
        /// The two successors and who goes to each.
        into: [SplitSide; 2],
    },
    /// Two communities start a partnership with a new, empty shared space.
    RelationStart {
        /// The partnership space created.
        space: CommunityId,
        /// The partners.
        between: [CommunityId; 2],
    },
    /// A partnership ends; its space closes.
    RelationEnd {
        /// The partnership space that closes.
        space: CommunityId,
    },
}

/// One successor community of a split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SplitSide {
    /// The successor community.
    pub community: CommunityId,
    /// Its members from the split on.
    pub members: Vec<UserId>,
}

impl CommunityEvent {
    /// The factor-level kind of this event.
    pub fn kind(&self) -> crate::factors::EventKind {
        use crate::factors::EventKind as K;
        match self {
            CommunityEvent::MemberJoin { .. } => K::MemberJoin,
            CommunityEvent::MemberRemove { .. } => K::MemberRemove,
            CommunityEvent::RoleUp { .. } => K::RoleUp,
            CommunityEvent::RoleDown { .. } => K::RoleDown,
            CommunityEvent::Merge { .. } => K::Merge,
            CommunityEvent::Split { .. } => K::Split,
            CommunityEvent::RelationStart { .. } => K::RelationStart,
            CommunityEvent::RelationEnd { .. } => K::RelationEnd,
        }
    }
}

impl PlatformTier {
    /// The first scheduled event (the one `factors.event` names), if any.
    pub fn first_event(&self) -> Option<&ScheduledEvent> {
        self.events.first()
    }

    /// The label of an object, if the platform knows it.
    pub fn label(&self, object: &ObjectId) -> Option<&ObjectLabel> {
        self.labels.iter().find(|l| &l.object == object)
    }

    /// The route of a workflow, if declared.
    pub fn workflow_route(&self, name: &str) -> Option<&WorkflowRoute> {
        self.workflow_routes.iter().find(|r| r.name == name)
    }
}

impl fmt::Display for Destination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Destination::Community { community } => write!(f, "community:{community}"),
            Destination::Namespace { namespace } => write!(f, "{namespace}"),
            Destination::Person { user } => write!(f, "person:{user}"),
            Destination::Workflow { name } => write!(f, "workflow:{name}"),
        }
    }
}
