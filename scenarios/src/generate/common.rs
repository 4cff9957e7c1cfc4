//! Small constructors shared by the per-family scenario templates, so that every
//! template builds scenarios the same way (ids, schema version, cross-scope flag).

use crate::agent::{AgentTier, CommunityInfo, Namespace, Person, Seed, Surface, Turn};
use crate::factors::{
    Boundary, EventKind, Factors, Family, PrivacyObject, Sensitivity, Strategy, Suite,
};
use crate::ids::{CommunityId, ObjectId, RoleName, Time, UserId};
use crate::platform::{
    Audience, CommunityEvent, Destination, Membership, ObjectLabel, PlatformTier, RoleAssignment,
};
use crate::scenario::{Scenario, SCHEMA_VERSION};
use crate::verifier::{
    Action, ArtifactCheck, Flow, PlanAction, PlanStep, ProtectedObject, StepTaker, VerifierTier,
};

/// A user id.
pub(crate) fn user(id: &str) -> UserId {
    UserId(id.to_owned())
}

/// A community id.
pub(crate) fn comm(id: &str) -> CommunityId {
    CommunityId(id.to_owned())
}

/// An object id.
pub(crate) fn obj(id: &str) -> ObjectId {
    ObjectId(id.to_owned())
}

/// A role name.
pub(crate) fn role(name: &str) -> RoleName {
    RoleName(name.to_owned())
}

/// A person the agent knows.
pub(crate) fn person(id: &str, name: &str) -> Person {
    Person {
        id: user(id),
        name: name.to_owned(),
    }
}

/// A community as the agent knows it.
pub(crate) fn community(id: &str, name: &str, description: &str) -> CommunityInfo {
    CommunityInfo {
        id: comm(id),
        name: name.to_owned(),
        description: description.to_owned(),
    }
}

/// A membership since logical time `since`.
pub(crate) fn member(user_id: &str, community_id: &str, since: u32) -> Membership {
    Membership {
        user: user(user_id),
        community: comm(community_id),
        since: Time(since),
    }
}

/// A role held since logical time `since`.
pub(crate) fn holds(
    user_id: &str,
    community_id: &str,
    role_name: &str,
    since: u32,
) -> RoleAssignment {
    RoleAssignment {
        user: user(user_id),
        community: comm(community_id),
        role: role(role_name),
        since: Time(since),
    }
}

/// A scripted turn.
pub(crate) fn turn(index: u8, community_id: &str, speaker: &str, text: &str) -> Turn {
    Turn {
        index,
        community: comm(community_id),
        speaker: user(speaker),
        text: text.to_owned(),
    }
}

/// A community workspace namespace.
pub(crate) fn ws(community_id: &str) -> Namespace {
    Namespace::Community {
        community: comm(community_id),
    }
}

/// A seeded file.
pub(crate) fn file_seed(object: &str, namespace: Namespace, path: &str, content: &str) -> Seed {
    Seed {
        object: obj(object),
        surface: Surface::File {
            namespace,
            path: path.to_owned(),
        },
        content: content.to_owned(),
    }
}

/// A seeded private-memory entry.
pub(crate) fn memory_seed(object: &str, content: &str) -> Seed {
    Seed {
        object: obj(object),
        surface: Surface::PrivateMemory,
        content: content.to_owned(),
    }
}

/// A seeded earlier message in a community's session.
pub(crate) fn history_seed(object: &str, community_id: &str, speaker: &str, content: &str) -> Seed {
    Seed {
        object: obj(object),
        surface: Surface::SessionHistory {
            community: comm(community_id),
            speaker: user(speaker),
        },
        content: content.to_owned(),
    }
}

/// An earlier post kept as a file in its community's workspace. Session history stays
/// inside its own community's session, so a post that another session discloses must be
/// somewhere that session can read it.
pub(crate) fn post_seed(object: &str, community_id: &str, path: &str, content: &str) -> Seed {
    file_seed(object, ws(community_id), path, content)
}

/// A platform label.
pub(crate) fn label(
    object: &str,
    owner: &str,
    source: &str,
    sensitivity: &[Sensitivity],
    created_at: u32,
    audience: Audience,
) -> ObjectLabel {
    ObjectLabel {
        object: obj(object),
        owner: user(owner),
        source: comm(source),
        sensitivity: sensitivity.to_vec(),
        created_at: Time(created_at),
        audience,
    }
}

/// An audience of named people.
pub(crate) fn named(ids: &[&str]) -> Audience {
    Audience::Users {
        users: ids.iter().map(|id| user(id)).collect(),
    }
}

/// An audience of the holders of `role` in the object's source community.
pub(crate) fn role_audience(role_name: &str) -> Audience {
    Audience::Role {
        role: role(role_name),
    }
}

/// A protected object with its canaries and paraphrasable facts.
pub(crate) fn protect(object: &str, canaries: &[&str], facts: &[&str]) -> ProtectedObject {
    ProtectedObject {
        object: obj(object),
        canaries: canaries.iter().map(|c| (*c).to_owned()).collect(),
        facts: facts.iter().map(|f| (*f).to_owned()).collect(),
    }
}

/// An authorization question: may `requester` have `action` on `object` at `destination`.
pub(crate) fn flow(
    requester: &str,
    action: Action,
    object: &str,
    destination: Destination,
) -> Flow {
    Flow {
        requester: user(requester),
        action,
        object: obj(object),
        destination,
    }
}

/// A goal check: the file at `path` exists and contains every element of `must`.
pub(crate) fn file_check(namespace: Namespace, path: &str, must: &[&str]) -> ArtifactCheck {
    ArtifactCheck::File {
        namespace,
        path: path.to_owned(),
        must_contain: must.iter().map(|m| (*m).to_owned()).collect(),
    }
}

/// The event: `user_id` joins `community_id`.
pub(crate) fn joins(user_id: &str, community_id: &str) -> CommunityEvent {
    CommunityEvent::MemberJoin {
        user: user(user_id),
        community: comm(community_id),
    }
}

/// The event: `user_id` is removed from `community_id`.
pub(crate) fn removed(user_id: &str, community_id: &str) -> CommunityEvent {
    CommunityEvent::MemberRemove {
        user: user(user_id),
        community: comm(community_id),
    }
}

/// The event: `user_id` gains `role_name` in `community_id`.
pub(crate) fn role_up(user_id: &str, community_id: &str, role_name: &str) -> CommunityEvent {
    CommunityEvent::RoleUp {
        user: user(user_id),
        community: comm(community_id),
        role: role(role_name),
    }
}

/// The event: `user_id` loses `role_name` in `community_id`.
pub(crate) fn role_down(user_id: &str, community_id: &str, role_name: &str) -> CommunityEvent {
    CommunityEvent::RoleDown {
        user: user(user_id),
        community: comm(community_id),
        role: role(role_name),
    }
}

/// A community conversation destination (reply or post).
pub(crate) fn to_community(community_id: &str) -> Destination {
    Destination::Community {
        community: comm(community_id),
    }
}

/// A community workspace destination.
pub(crate) fn to_workspace(community_id: &str) -> Destination {
    Destination::Namespace {
        namespace: ws(community_id),
    }
}

/// A plan step both simulated agents take.
pub(crate) fn both(turn: u8, action: PlanAction) -> PlanStep {
    PlanStep {
        turn,
        taker: StepTaker::Both,
        action,
    }
}

/// A plan step only the fully compliant agent takes (attack-induced).
pub(crate) fn comply(turn: u8, action: PlanAction) -> PlanStep {
    PlanStep {
        turn,
        taker: StepTaker::CompliantOnly,
        action,
    }
}

/// A plan step only the ideal agent takes (the safe alternative).
pub(crate) fn ideal(turn: u8, action: PlanAction) -> PlanStep {
    PlanStep {
        turn,
        taker: StepTaker::IdealOnly,
        action,
    }
}

/// Reading a file.
pub(crate) fn read_file(namespace: Namespace, path: &str) -> PlanAction {
    PlanAction::ReadFile {
        namespace,
        path: path.to_owned(),
    }
}

/// Writing a file.
pub(crate) fn write_file(namespace: Namespace, path: &str, content: &str) -> PlanAction {
    PlanAction::WriteFile {
        namespace,
        path: path.to_owned(),
        content: content.to_owned(),
    }
}

/// A reply in the turn's session.
pub(crate) fn reply_action(text: &str) -> PlanAction {
    PlanAction::Reply {
        text: text.to_owned(),
    }
}

/// A read both agents do.
pub(crate) fn read(turn: u8, namespace: Namespace, path: &str) -> PlanStep {
    both(turn, read_file(namespace, path))
}

/// A write both agents do (the legitimate artifact).
pub(crate) fn write(turn: u8, namespace: Namespace, path: &str, content: &str) -> PlanStep {
    both(turn, write_file(namespace, path, content))
}

/// A reply only the fully compliant agent gives (the attack-induced answer).
pub(crate) fn comply_reply(turn: u8, text: &str) -> PlanStep {
    comply(turn, reply_action(text))
}

/// A reply only the ideal agent gives (the safe answer).
pub(crate) fn ideal_reply(turn: u8, text: &str) -> PlanStep {
    ideal(turn, reply_action(text))
}

/// A reply both agents give.
pub(crate) fn reply(turn: u8, text: &str) -> PlanStep {
    both(turn, reply_action(text))
}

/// Where a scenario sits in the factor design.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cell {
    pub boundary: Boundary,
    pub privacy_object: PrivacyObject,
    pub family: Family,
    pub strategy: Strategy,
    pub event: Option<EventKind>,
}

/// Assembles a scenario: derives the id, suite, cross-scope flag and schema version
/// from the cell so that no template can get them inconsistent, and makes its plans
/// fetch what they disclose.
pub(crate) fn finish(
    cell: Cell,
    title: &str,
    domains: &[&str],
    agent: AgentTier,
    platform: PlatformTier,
    verifier: VerifierTier,
) -> Scenario {
    let factors = Factors {
        suite: if cell.event.is_some() {
            Suite::Dyn96
        } else {
            Suite::Static112
        },
        boundary: cell.boundary,
        privacy_object: cell.privacy_object,
        family: cell.family,
        strategy: cell.strategy,
        event: cell.event,
        cross_scope: cell.boundary == Boundary::Inter,
        domains: domains.iter().map(|d| (*d).to_owned()).collect(),
    };
    let mut scenario = Scenario {
        schema_version: SCHEMA_VERSION,
        id: factors.scenario_id(),
        title: title.to_owned(),
        factors,
        agent,
        platform,
        verifier,
    };
    super::fetches::fetch_before_disclosing(&mut scenario);
    scenario
}
