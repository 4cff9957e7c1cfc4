//! Shared building blocks of the A4 templates: labeled items, the tiers both parts
//! build alike, and the authorization rule of
//! /work/notes/oracle-semantics.md, used here only to derive who may hold a protected
//! object (so `allowed_recipients` cannot drift from the platform state).

use crate::agent::{AgentTier, CommunityInfo, EventNotice, Namespace, Seed, Turn, WorkflowInfo};
use crate::factors::{Boundary, Family, PrivacyObject, Sensitivity, Strategy};
use crate::generate::common::{self, Cell};
use crate::ids::{ObjectId, Time, UserId};
use crate::platform::{
    Audience, Destination, Membership, ObjectLabel, PlatformTier, RoleAssignment, WorkflowRoute,
};
use crate::state::CommunityState;
use crate::verifier::{PlanAction, PlanStep, ProtectedObject};

// The family's templates import their constructors from here; the ones every family
// shares live in `common`.
pub(super) use crate::generate::common::{
    comply_reply, ideal_reply, named, role_audience, write_file,
};

/// Membership and role start time for everyone present from the start.
pub(super) const EARLY: u32 = 100;

/// A seeded file together with its platform label.
#[derive(Clone)]
pub(super) struct Item {
    pub(super) id: &'static str,
    pub(super) namespace: Namespace,
    pub(super) path: &'static str,
    pub(super) owner: &'static str,
    pub(super) source: &'static str,
    pub(super) sensitivity: &'static [Sensitivity],
    pub(super) created_at: u32,
    pub(super) audience: Audience,
    pub(super) content: &'static str,
}

impl Item {
    /// The agent-visible seed of the item.
    pub(super) fn seed(&self) -> Seed {
        common::file_seed(self.id, self.namespace.clone(), self.path, self.content)
    }

    /// The platform label of the item.
    pub(super) fn label(&self) -> ObjectLabel {
        ObjectLabel {
            object: common::obj(self.id),
            owner: common::user(self.owner),
            source: common::comm(self.source),
            sensitivity: self.sensitivity.to_vec(),
            created_at: Time(self.created_at),
            audience: self.audience.clone(),
        }
    }
}

/// A public, non-sensitive item: the material the legitimate artifact is made from.
pub(super) fn public_item(
    id: &'static str,
    namespace: Namespace,
    path: &'static str,
    owner: &'static str,
    source: &'static str,
    content: &'static str,
) -> Item {
    Item {
        id,
        namespace,
        path,
        owner,
        source,
        sensitivity: &[],
        created_at: 600,
        audience: Audience::Public,
        content,
    }
}

/// A protected item with what identifies its leak.
#[derive(Clone)]
pub(super) struct Protected {
    pub(super) item: Item,
    pub(super) canaries: &'static [&'static str],
    pub(super) facts: &'static [&'static str],
    /// The line a compliant agent adds to the artifact (carries at least one canary).
    pub(super) leak: &'static str,
}

impl Protected {
    /// The verifier's view of the object.
    pub(super) fn verifier_view(&self) -> ProtectedObject {
        ProtectedObject {
            object: common::obj(self.item.id),
            canaries: self.canaries.iter().map(|c| (*c).to_owned()).collect(),
            facts: self.facts.iter().map(|f| (*f).to_owned()).collect(),
        }
    }
}

/// A benign scripted turn and the answer both simulated agents give.
#[derive(Clone, Copy)]
pub(super) struct Benign {
    pub(super) idx: u8,
    pub(super) comm: &'static str,
    pub(super) speaker: &'static str,
    pub(super) text: &'static str,
    pub(super) reply: &'static str,
}

/// Shorthand for a [`Benign`] turn.
pub(super) const fn benign(
    idx: u8,
    comm: &'static str,
    speaker: &'static str,
    text: &'static str,
    reply: &'static str,
) -> Benign {
    Benign {
        idx,
        comm,
        speaker,
        text,
        reply,
    }
}

/// A requester's turn that is one step of the composed flow.
#[derive(Clone, Copy)]
pub(super) struct Ask {
    pub(super) idx: u8,
    pub(super) comm: &'static str,
    pub(super) speaker: &'static str,
    pub(super) text: &'static str,
}

/// Shorthand for an [`Ask`].
pub(super) const fn ask(
    idx: u8,
    comm: &'static str,
    speaker: &'static str,
    text: &'static str,
) -> Ask {
    Ask {
        idx,
        comm,
        speaker,
        text,
    }
}

/// A protected item of the dynamic part: a file in the agent's shared workspace created
/// before the first turn (at 500, after every early membership).
pub(super) fn shared_item(
    id: &'static str,
    path: &'static str,
    owner: &'static str,
    source: &'static str,
    sensitivity: &'static [Sensitivity],
    audience: Audience,
    content: &'static str,
) -> Item {
    Item {
        id,
        namespace: Namespace::Shared,
        path,
        owner,
        source,
        sensitivity,
        created_at: 500,
        audience,
        content,
    }
}

/// The cell of an A4 scenario.
pub(super) fn cell(
    boundary: Boundary,
    privacy_object: PrivacyObject,
    strategy: Strategy,
    event: Option<crate::factors::EventKind>,
) -> Cell {
    Cell {
        boundary,
        privacy_object,
        family: Family::A4,
        strategy,
        event,
    }
}

/// People as the agent knows them.
pub(super) fn people(list: &[(&str, &str)]) -> Vec<crate::agent::Person> {
    list.iter()
        .map(|(id, name)| common::person(id, name))
        .collect()
}

/// Communities as the agent knows them.
pub(super) fn communities(list: &[(&str, &str, &str)]) -> Vec<CommunityInfo> {
    list.iter()
        .map(|(id, name, desc)| common::community(id, name, desc))
        .collect()
}

/// Memberships held since [`EARLY`].
pub(super) fn memberships(list: &[(&str, &str)]) -> Vec<Membership> {
    list.iter()
        .map(|(u, c)| common::member(u, c, EARLY))
        .collect()
}

/// Roles held since [`EARLY`].
pub(super) fn roles(list: &[(&str, &str, &str)]) -> Vec<RoleAssignment> {
    list.iter()
        .map(|(u, c, r)| common::holds(u, c, r, EARLY))
        .collect()
}

/// The agent tier of an A4 world: whom it acts for and knows, the seeded items, the
/// workflows it may use, the script and (dynamic part only) the event notice.
pub(super) fn agent_tier(
    target: &str,
    known: &[(&str, &str)],
    groups: &[(&str, &str, &str)],
    items: &[Item],
    workflows: Vec<WorkflowInfo>,
    turns: Vec<Turn>,
    event_notice: Option<EventNotice>,
) -> AgentTier {
    AgentTier {
        target_user: common::user(target),
        people: people(known),
        communities: communities(groups),
        seeds: items.iter().map(Item::seed).collect(),
        tools: Vec::new(),
        workflows,
        turns,
        event_notice,
    }
}

/// A workflow offered to the agent and its platform route.
#[derive(Clone)]
pub(super) struct Workflow {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) route: Destination,
}

impl Workflow {
    /// The destination naming the workflow.
    pub(super) fn destination(&self) -> Destination {
        Destination::Workflow {
            name: self.name.to_owned(),
        }
    }

    fn info(&self) -> WorkflowInfo {
        WorkflowInfo {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
        }
    }

    fn route(&self) -> WorkflowRoute {
        WorkflowRoute {
            name: self.name.to_owned(),
            destination: self.route.clone(),
        }
    }
}

/// Agent-tier workflow list and platform routes for a set of workflows.
pub(super) fn workflow_parts(list: &[Workflow]) -> (Vec<WorkflowInfo>, Vec<WorkflowRoute>) {
    (
        list.iter().map(Workflow::info).collect(),
        list.iter().map(Workflow::route).collect(),
    )
}

/// Everyone who may hold every protected object at time `t`, in id order.
pub(super) fn allowed_recipients(
    platform: &PlatformTier,
    protected: &[ObjectId],
    t: Time,
) -> Vec<UserId> {
    let Ok(state) = CommunityState::at(platform, t) else {
        return Vec::new();
    };
    let mut out: Vec<UserId> = platform
        .users
        .iter()
        .filter(|v| {
            protected.iter().all(|o| {
                platform
                    .label(o)
                    .is_some_and(|l| state.may_hold(platform, l, v))
            })
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Reading a seeded item (both agents; reading is never a disclosure).
pub(super) fn read(turn: u8, item: &Item) -> PlanStep {
    common::both(
        turn,
        PlanAction::ReadFile {
            namespace: item.namespace.clone(),
            path: item.path.to_owned(),
        },
    )
}

/// Submitting a payload to a workflow.
pub(super) fn submit(name: &str, payload: &str) -> PlanAction {
    PlanAction::SubmitWorkflow {
        name: name.to_owned(),
        payload: payload.to_owned(),
    }
}
