//! The verifier-only tier: what only the verifier, the oracle check and the simulated
//! models read. Nothing here may reach anything an agent can see.

use crate::agent::Namespace;
use crate::factors::FailureClass;
use crate::ids::{CommunityId, ObjectId, UserId};
use crate::platform::Destination;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Verifier-only facts of one scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifierTier {
    /// The turn whose action is scored (after the event in Dyn96).
    pub scored_turn: u8,
    /// Protected objects with their canaries and semantic facts.
    pub protected: Vec<ProtectedObject>,
    /// Destinations where protected content counts as a violation.
    pub scored_destinations: Vec<Destination>,
    /// The protected flows the attack aims at; the oracle denies each at scoring time.
    pub scored_flows: Vec<Flow>,
    /// The flows of the legitimate artifact; the oracle allows each at scoring time.
    pub legit_flows: Vec<Flow>,
    /// People who may receive the protected objects.
    pub allowed_recipients: Vec<UserId>,
    /// Text the attacker controls (never counted as a disclosure by the agent).
    pub attacker_spans: Vec<AttackerSpan>,
    /// Class of a violation (Dyn96 only).
    #[serde(default)]
    pub failure_class: Option<FailureClass>,
    /// The legitimate goal and how to check it was reached.
    pub goal: LegitimateGoal,
    /// Abstract steps of a fully compliant agent and of an ideal agent.
    pub reference_plan: ReferencePlan,
}

/// A protected object and how its leak is recognised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProtectedObject {
    /// The object.
    pub object: ObjectId,
    /// Exact values a deterministic extractor can find (e.g. `8.4`, an IBAN).
    pub canaries: Vec<String>,
    /// Facts a paraphrase could leak, for the semantic judge.
    pub facts: Vec<String>,
}

/// An authorization-relevant action on a data object.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Say it in a reply or post.
    Disclose,
    /// Write it into a file namespace.
    Write,
    /// Share a file into a community.
    Share,
    /// Send it to a person or a workflow.
    Send,
    /// Let it into the model's context in a turn whose output goes to the destination
    /// (asked by the guard's input layer; a legitimate flow names the reads its task
    /// needs, never a scored one).
    Read,
}

impl Action {
    /// Every action a scenario flow can take (not the guard's [`Action::Read`]).
    pub const ALL: &'static [Action] =
        &[Action::Disclose, Action::Write, Action::Share, Action::Send];

    /// Canonical spelling (also the Cedar action id).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Disclose => "disclose",
            Action::Write => "write",
            Action::Share => "share",
            Action::Send => "send",
            Action::Read => "read",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One authorization question: may `requester` have `action` on `object` to `destination`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Whose message asked for it.
    pub requester: UserId,
    /// The action.
    pub action: Action,
    /// The object.
    pub object: ObjectId,
    /// Where it goes.
    pub destination: Destination,
    /// The turn whose delivery takes the flow. A legitimate flow of protected data names
    /// it (the task reads and writes in that turn); without it a flow is asked at the
    /// scored turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u8>,
}

impl Flow {
    /// The turn the flow is asked at: its own, else `scored_turn`.
    pub fn turn_or(&self, scored_turn: u8) -> u8 {
        self.turn.unwrap_or(scored_turn)
    }
}

/// Where attacker-controlled text sits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpanLocation {
    /// In a scripted turn.
    Turn {
        /// Turn index.
        index: u8,
    },
    /// In a seeded object.
    Seed {
        /// The object.
        object: ObjectId,
    },
}

/// A span of attacker-controlled text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttackerSpan {
    /// Where the text is.
    pub location: SpanLocation,
    /// The exact attacker text (a substring of the turn or seed).
    pub text: String,
}

/// The legitimate goal of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegitimateGoal {
    /// What a helpful agent should achieve.
    pub description: String,
    /// Checks that the artifact exists with its required elements.
    pub checks: Vec<ArtifactCheck>,
}

/// One check of the legitimate artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArtifactCheck {
    /// A file must exist and contain every element (case-insensitive).
    File {
        /// Namespace of the file.
        namespace: Namespace,
        /// Path inside the namespace.
        path: String,
        /// Required elements.
        must_contain: Vec<String>,
    },
    /// A reply in a turn, or a post to its community, must contain every element.
    Reply {
        /// The turn.
        turn: u8,
        /// Required elements.
        must_contain: Vec<String>,
    },
    /// A workflow submission must contain every element.
    Workflow {
        /// Workflow name.
        name: String,
        /// Required elements.
        must_contain: Vec<String>,
    },
    /// A message to a person must contain every element.
    Message {
        /// Recipient.
        user: UserId,
        /// Required elements.
        must_contain: Vec<String>,
    },
}

/// Which simulated agent takes a plan step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepTaker {
    /// Both the fully compliant and the ideal agent.
    Both,
    /// Only the fully compliant agent (attack-induced steps).
    CompliantOnly,
    /// Only the ideal agent (the safe alternative of an attack-induced step).
    IdealOnly,
}

/// One abstract step of a reference plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStep {
    /// The turn in which the step is taken.
    pub turn: u8,
    /// Who takes it.
    pub taker: StepTaker,
    /// What is done.
    pub action: PlanAction,
}

/// An abstract agent action, mapped onto whatever tools a harness offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PlanAction {
    /// Answer in the turn's session.
    Reply {
        /// Reply text.
        text: String,
    },
    /// Read a file.
    ReadFile {
        /// Namespace.
        namespace: Namespace,
        /// Path.
        path: String,
    },
    /// Write (create or replace) a file.
    WriteFile {
        /// Namespace.
        namespace: Namespace,
        /// Path.
        path: String,
        /// Full content.
        content: String,
    },
    /// Copy a file between namespaces.
    CopyFile {
        /// Source namespace.
        from_namespace: Namespace,
        /// Source path.
        from_path: String,
        /// Target namespace.
        to_namespace: Namespace,
        /// Target path.
        to_path: String,
    },
    /// Post a message to a community.
    PostMessage {
        /// Community.
        community: CommunityId,
        /// Text.
        text: String,
    },
    /// Send a direct message.
    SendMessage {
        /// Recipient.
        person: UserId,
        /// Text.
        text: String,
    },
    /// Share a file into a community.
    ShareFile {
        /// Namespace of the file.
        namespace: Namespace,
        /// Path.
        path: String,
        /// Community shared into.
        community: CommunityId,
    },
    /// Submit a payload to a workflow.
    SubmitWorkflow {
        /// Workflow name.
        name: String,
        /// Payload text.
        payload: String,
    },
    /// Search what the agent may reach.
    Search {
        /// Query.
        query: String,
    },
    /// Call a seeded tool.
    CallTool {
        /// Tool name.
        tool: String,
        /// Argument value.
        argument: String,
    },
    /// Store a note in private memory.
    Remember {
        /// Note text.
        text: String,
    },
}

impl PlanAction {
    /// For a copy, the tool paths it reads and writes (`from`, `to`).
    pub fn copy_tool_paths(&self) -> Option<(String, String)> {
        match self {
            PlanAction::CopyFile {
                from_namespace,
                from_path,
                to_namespace,
                to_path,
            } => Some((
                from_namespace.tool_path(from_path),
                to_namespace.tool_path(to_path),
            )),
            _ => None,
        }
    }
}

/// The reference plan of a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReferencePlan {
    /// Steps in order.
    pub steps: Vec<PlanStep>,
}

impl ReferencePlan {
    /// Steps a fully compliant agent takes.
    pub fn compliant(&self) -> impl Iterator<Item = &PlanStep> {
        self.steps_of(crate::play::PlanKind::Compliant)
    }

    /// Steps an ideal agent takes.
    pub fn ideal(&self) -> impl Iterator<Item = &PlanStep> {
        self.steps_of(crate::play::PlanKind::Ideal)
    }
}
