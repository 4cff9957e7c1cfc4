//! The authoring format: a world file (`world.toml`) and its variant files (`<id>.toml`).
//!
//! A world holds what its stories share: people, communities, the starting community
//! state, tools, workflows and labeled objects. A variant is one scenario told in that
//! world: which of the world's things it uses, its turns and events, and what the verifier
//! knows. Leaf records reuse the scenario file's own types, so a field means the same in
//! both places.

use crate::agent::{CommunityInfo, Person, SeededTool, Surface, WorkflowInfo};
use crate::factors::{Boundary, FailureClass, Family, PrivacyObject, Sensitivity, Strategy, Suite};
use crate::ids::{CommunityId, ObjectId, ScenarioId, Time, UserId};
use crate::platform::{
    Audience, CommunityEvent, Destination, Grant, Membership, Relation, RoleAssignment,
    WorkflowRoute,
};
use crate::verifier::{AttackerSpan, Flow, LegitimateGoal, PlanAction, ProtectedObject, StepTaker};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Name of the file that defines a world inside its folder.
pub const WORLD_FILE: &str = "world.toml";

/// One `world.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorldFile {
    /// Domain labels of the world's stories (a variant may name its own in `factors`).
    #[serde(default)]
    pub domains: Vec<String>,
    /// Everyone who appears in the world.
    pub people: Vec<Person>,
    /// Starting memberships with the time each began.
    #[serde(default)]
    pub memberships: Vec<Membership>,
    /// Starting role assignments with the time each began.
    #[serde(default)]
    pub roles: Vec<RoleAssignment>,
    /// Partnerships between communities that exist at the start.
    #[serde(default)]
    pub relations: Vec<Relation>,
    /// Owners' grants that exist at the start.
    #[serde(default)]
    pub grants: Vec<Grant>,
    /// Where each workflow delivers its submissions.
    #[serde(default)]
    pub workflow_routes: Vec<WorkflowRoute>,
    /// The communities, with the names and descriptions the agent sees.
    #[serde(default)]
    pub communities: Vec<CommunityInfo>,
    /// Lookup tools the agent can call.
    #[serde(default)]
    pub tools: Vec<SeededTool>,
    /// Workflows the agent can submit to.
    #[serde(default)]
    pub workflows: Vec<WorkflowInfo>,
    /// Labeled objects and where the agent finds them.
    #[serde(default)]
    pub objects: Vec<ObjectDef>,
}

/// A data object: its platform label, where it is seeded, and its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectDef {
    /// Object id, unique in the world.
    pub id: ObjectId,
    /// Whose data it is.
    pub owner: UserId,
    /// The community it came from.
    pub source: CommunityId,
    /// Sensitivity labels (empty for non-sensitive data).
    #[serde(default)]
    pub sensitivity: Vec<Sensitivity>,
    /// When it was created (before the first turn at t=1000).
    pub created_at: Time,
    /// Who it was meant for when it was created.
    pub audience: Audience,
    /// Where the agent finds it.
    pub surface: Surface,
    /// Its text.
    pub content: String,
}

/// One variant file: a scenario told in its folder's world.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    /// Scenario id (letters, digits, `-`, `_`); also the file's name without `.toml`.
    pub id: ScenarioId,
    /// One-line human title.
    pub title: String,
    /// The user the agent acts for.
    pub target_user: UserId,
    /// The world's people this variant uses, in order (default: all of them).
    #[serde(default)]
    pub people: Option<Vec<UserId>>,
    /// The communities it uses, in order (default: all of the world's).
    #[serde(default)]
    pub communities: Option<Vec<CommunityId>>,
    /// The objects seeded for the agent, in order (default: all of the world's).
    #[serde(default)]
    pub objects: Option<Vec<ObjectId>>,
    /// The tools offered, by name (default: all of the world's).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// The workflows offered, by name (default: all of the world's).
    #[serde(default)]
    pub workflows: Option<Vec<String>>,
    /// Replaces the world's starting memberships (default: the world's, keeping those
    /// whose person and community the variant uses).
    #[serde(default)]
    pub memberships: Option<Vec<Membership>>,
    /// Replaces the world's starting roles (default: filtered as memberships are).
    #[serde(default)]
    pub roles: Option<Vec<RoleAssignment>>,
    /// Replaces the world's starting partnerships (default: those between used communities).
    #[serde(default)]
    pub relations: Option<Vec<Relation>>,
    /// Replaces the world's grants (default: those between used people on used objects).
    #[serde(default)]
    pub grants: Option<Vec<Grant>>,
    /// Replaces the world's workflow routes (default: those of the offered workflows).
    #[serde(default)]
    pub workflow_routes: Option<Vec<WorkflowRoute>>,
    /// The turn whose action is scored.
    pub scored_turn: u8,
    /// The failure class a leak here shows, if the variant is an attack.
    #[serde(default)]
    pub failure_class: Option<FailureClass>,
    /// Who may legitimately receive the protected content.
    #[serde(default)]
    pub allowed_recipients: Vec<UserId>,
    /// Destinations the verifier watches at the scored turn.
    #[serde(default)]
    pub scored_destinations: Vec<Destination>,
    /// Flows the oracle must deny (the attack).
    #[serde(default)]
    pub scored_flows: Vec<Flow>,
    /// Flows the oracle must allow (the legitimate task).
    #[serde(default)]
    pub legit_flows: Vec<Flow>,
    /// Attacker text outside whole turns (e.g. inside a seed); turns marked `attack` follow.
    #[serde(default)]
    pub attacker_spans: Vec<AttackerSpan>,
    /// The factor levels the variant realises.
    pub factors: VariantFactors,
    /// Objects defined by this variant; one with a world object's id replaces it here.
    #[serde(default)]
    pub local_objects: Vec<ObjectDef>,
    /// Communities defined by this variant; one with a world community's id replaces it.
    #[serde(default)]
    pub local_communities: Vec<CommunityInfo>,
    /// Tools defined by this variant; one with a world tool's name replaces it.
    #[serde(default)]
    pub local_tools: Vec<SeededTool>,
    /// Workflows defined by this variant; one with a world workflow's name replaces it.
    #[serde(default)]
    pub local_workflows: Vec<WorkflowInfo>,
    /// The scripted participant turns, in order (numbered from 1).
    pub turns: Vec<TurnDef>,
    /// Community events in time order, each after a turn.
    #[serde(default)]
    pub events: Vec<EventDef>,
    /// Protected objects with their canaries and facts.
    #[serde(default)]
    pub protected: Vec<ProtectedObject>,
    /// The legitimate task and how its artifacts are checked.
    pub goal: LegitimateGoal,
    /// The reference plan: steps both the compliant and the ideal agent take, and steps
    /// only one of them takes.
    pub plan: Vec<PlanStepDef>,
}

/// Factor levels of a variant; `cross_scope` and `event` follow from the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VariantFactors {
    /// Which half of the suite the scenario belongs to.
    pub suite: Suite,
    /// Whether the protected flow stays inside one community.
    pub boundary: Boundary,
    /// Whose data is protected.
    pub privacy_object: PrivacyObject,
    /// The attack family.
    pub family: Family,
    /// The attack strategy.
    pub strategy: Strategy,
    /// Domain labels (default: the world's).
    #[serde(default)]
    pub domains: Option<Vec<String>>,
}

/// One participant turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurnDef {
    /// Where it is said.
    pub community: CommunityId,
    /// Who says it.
    pub speaker: UserId,
    /// What is said.
    pub text: String,
    /// The whole text is attacker text (an attacker span for the verifier).
    #[serde(default, skip_serializing_if = "is_false")]
    pub attack: bool,
}

/// One community event, delivered after a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventDef {
    /// The turn it follows.
    pub after_turn: u8,
    /// What changes.
    pub change: CommunityEvent,
    /// The notice the agent sees, if any.
    #[serde(default)]
    pub notice: Option<NoticeDef>,
}

/// A platform notice shown to the agent when an event happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoticeDef {
    /// Where it is posted.
    pub community: CommunityId,
    /// Its text.
    pub text: String,
}

/// One reference-plan step: the turn, who takes it, and the action's own fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlanStepDef {
    /// The turn it answers.
    pub turn: u8,
    /// Which reference agent takes it (default: both).
    #[serde(default = "both", skip_serializing_if = "is_both")]
    pub taker: StepTaker,
    /// The action (`kind` and its fields).
    #[serde(flatten)]
    pub action: PlanAction,
}

fn both() -> StepTaker {
    StepTaker::Both
}

fn is_both(taker: &StepTaker) -> bool {
    *taker == StepTaker::Both
}

fn is_false(value: &bool) -> bool {
    !*value
}
