//! Building blocks shared by the A2 templates: a scenario draft assembled from eight
//! beats, shorthands for labels, seeds and plan actions, and the holder computation that
//! fills `allowed_recipients` from the same rule the oracle applies.

use crate::agent::{
    AgentTier, CommunityInfo, EventNotice, Namespace, Person, Seed, SeededTool, Surface, Turn,
};
use crate::factors::FailureClass;
use crate::generate::common::{self, Cell};
use crate::ids::{turn_time, ObjectId, Time, UserId};
use crate::platform::{Destination, ObjectLabel, PlatformTier};
use crate::state::CommunityState;
use crate::verifier::{
    Action, ArtifactCheck, AttackerSpan, Flow, LegitimateGoal, PlanAction, ProtectedObject,
    ReferencePlan, SpanLocation, VerifierTier,
};
use crate::Scenario;

// The family's templates import their constructors from here; the ones every family
// shares live in `common`.
pub(super) use crate::generate::common::{
    file_check, label, named, protect, read_file, reply_action, role_audience, write_file,
};

/// One scripted turn together with what each simulated agent does in it.
pub(super) struct Beat {
    pub community: &'static str,
    pub speaker: &'static str,
    pub text: String,
    /// Steps both agents take (reads, tool calls, the shared reply).
    pub both: Vec<PlanAction>,
    /// Steps only the fully compliant agent takes.
    pub comply: Vec<PlanAction>,
    /// Steps only the ideal agent takes.
    pub ideal: Vec<PlanAction>,
}

/// A benign turn that both agents answer the same way.
pub(super) fn say(
    community: &'static str,
    speaker: &'static str,
    text: &str,
    answer: &str,
) -> Beat {
    Beat {
        community,
        speaker,
        text: text.to_owned(),
        both: vec![reply_action(answer)],
        comply: Vec::new(),
        ideal: Vec::new(),
    }
}

/// A benign turn in which both agents act (e.g. call a tool) before answering.
pub(super) fn say_after(
    community: &'static str,
    speaker: &'static str,
    text: &str,
    acts: Vec<PlanAction>,
    answer: &str,
) -> Beat {
    let mut both = acts;
    both.push(reply_action(answer));
    Beat {
        community,
        speaker,
        text: text.to_owned(),
        both,
        comply: Vec::new(),
        ideal: Vec::new(),
    }
}

/// A turn where the two agents part ways: shared reads, then each agent's own steps.
pub(super) fn fork(
    community: &'static str,
    speaker: &'static str,
    text: String,
    reads: Vec<PlanAction>,
    comply: Vec<PlanAction>,
    ideal: Vec<PlanAction>,
) -> Beat {
    Beat {
        community,
        speaker,
        text,
        both: reads,
        comply,
        ideal,
    }
}

/// Everything one scenario needs before it is split into its three tiers.
pub(super) struct Draft {
    pub cell: Cell,
    pub title: String,
    pub domains: Vec<&'static str>,
    pub target: &'static str,
    pub people: Vec<Person>,
    pub communities: Vec<CommunityInfo>,
    pub platform: PlatformTier,
    pub seeds: Vec<Seed>,
    pub tools: Vec<SeededTool>,
    pub beats: Vec<Beat>,
    pub notice: Option<EventNotice>,
    pub protected: Vec<ProtectedObject>,
    pub scored_turn: u8,
    pub scored_destinations: Vec<Destination>,
    pub scored_flows: Vec<Flow>,
    pub legit_flows: Vec<Flow>,
    pub spans: Vec<AttackerSpan>,
    pub failure_class: Option<FailureClass>,
    pub goal: LegitimateGoal,
}

impl Draft {
    /// An empty draft for one cell of the design.
    pub(super) fn new(
        cell: Cell,
        title: &str,
        domains: &[&'static str],
        target: &'static str,
    ) -> Self {
        Draft {
            cell,
            title: title.to_owned(),
            domains: domains.to_vec(),
            target,
            people: Vec::new(),
            communities: Vec::new(),
            platform: PlatformTier {
                users: Vec::new(),
                communities: Vec::new(),
                memberships: Vec::new(),
                roles: Vec::new(),
                relations: Vec::new(),
                labels: Vec::new(),
                grants: Vec::new(),
                workflow_routes: Vec::new(),
                event: None,
            },
            seeds: Vec::new(),
            tools: Vec::new(),
            beats: Vec::new(),
            notice: None,
            protected: Vec::new(),
            scored_turn: 6,
            scored_destinations: Vec::new(),
            scored_flows: Vec::new(),
            legit_flows: Vec::new(),
            spans: Vec::new(),
            failure_class: None,
            goal: LegitimateGoal {
                description: String::new(),
                checks: Vec::new(),
            },
        }
    }

    /// Adds people: they become both agent-known people and platform users.
    pub(super) fn people(&mut self, list: &[(&str, &str)]) {
        for (id, name) in list {
            self.people.push(common::person(id, name));
            self.platform.users.push(common::user(id));
        }
    }

    /// Adds a community that exists from the start, with its members (id, since).
    pub(super) fn community(
        &mut self,
        id: &str,
        name: &str,
        description: &str,
        members: &[(&str, u32)],
    ) {
        self.communities
            .push(common::community(id, name, description));
        self.platform.communities.push(common::comm(id));
        for (user, since) in members {
            self.platform
                .memberships
                .push(common::member(user, id, *since));
        }
    }

    /// Adds a seeded object with its platform label.
    pub(super) fn seed(&mut self, seed: Seed, label: ObjectLabel) {
        self.seeds.push(seed);
        self.platform.labels.push(label);
    }

    /// Marks attacker text inside a seeded object.
    pub(super) fn span_in_seed(&mut self, object: &str, text: &str) {
        self.spans.push(AttackerSpan {
            location: SpanLocation::Seed {
                object: common::obj(object),
            },
            text: text.to_owned(),
        });
    }

    /// Marks attacker text inside a scripted turn.
    pub(super) fn span_in_turn(&mut self, index: u8, text: &str) {
        self.spans.push(AttackerSpan {
            location: SpanLocation::Turn { index },
            text: text.to_owned(),
        });
    }

    /// The speaker of the scored turn, who is the requester of every scored and legit flow.
    fn requester(&self) -> &'static str {
        let idx = usize::from(self.scored_turn.saturating_sub(1));
        self.beats.get(idx).map_or(self.target, |b| b.speaker)
    }

    /// Declares the scored flows: `action` of the protected `object` to each destination.
    pub(super) fn scored(&mut self, object: &str, targets: &[(Action, Destination)]) {
        let requester = self.requester();
        for (action, dest) in targets {
            if !self.scored_destinations.contains(dest) {
                self.scored_destinations.push(dest.clone());
            }
            self.scored_flows
                .push(common::flow(requester, *action, object, dest.clone()));
        }
    }

    /// Declares the legitimate flows of the artifact built from `object`.
    pub(super) fn legit(&mut self, object: &str, targets: &[(Action, Destination)]) {
        let requester = self.requester();
        for (action, dest) in targets {
            self.legit_flows
                .push(common::flow(requester, *action, object, dest.clone()));
        }
    }

    /// Splits the draft into its three tiers and assembles the scenario.
    pub(super) fn build(self) -> Scenario {
        let mut turns = Vec::with_capacity(self.beats.len());
        let mut steps = Vec::new();
        for (i, beat) in self.beats.into_iter().enumerate() {
            let index = u8::try_from(i + 1).unwrap_or(u8::MAX);
            turns.push(Turn {
                index,
                community: common::comm(beat.community),
                speaker: common::user(beat.speaker),
                text: beat.text,
            });
            steps.extend(beat.both.into_iter().map(|a| common::both(index, a)));
            steps.extend(beat.comply.into_iter().map(|a| common::comply(index, a)));
            steps.extend(beat.ideal.into_iter().map(|a| common::ideal(index, a)));
        }
        let at = turn_time(self.scored_turn);
        let mut allowed: Vec<UserId> = Vec::new();
        for po in &self.protected {
            for u in holders(&self.platform, &po.object, at) {
                if !allowed.contains(&u) {
                    allowed.push(u);
                }
            }
        }
        allowed.sort();
        let agent = AgentTier {
            target_user: common::user(self.target),
            people: self.people,
            communities: self.communities,
            seeds: self.seeds,
            tools: self.tools,
            workflows: Vec::new(),
            turns,
            event_notice: self.notice,
        };
        let verifier = VerifierTier {
            scored_turn: self.scored_turn,
            protected: self.protected,
            scored_destinations: self.scored_destinations,
            scored_flows: self.scored_flows,
            legit_flows: self.legit_flows,
            allowed_recipients: allowed,
            attacker_spans: self.spans,
            failure_class: self.failure_class,
            goal: self.goal,
            reference_plan: ReferencePlan { steps },
        };
        common::finish(
            self.cell,
            &self.title,
            &self.domains,
            agent,
            self.platform,
            verifier,
        )
    }
}

/// What a scored request must produce: an artifact written into the home workspace and
/// announced in the home community, built from `legit_obj` and never from `protected_obj`.
pub(super) struct Artifact {
    pub home: &'static str,
    pub path: &'static str,
    pub protected_obj: &'static str,
    pub legit_obj: &'static str,
    pub file_must: &'static [&'static str],
    pub reply_must: &'static [&'static str],
    pub goal: &'static str,
}

/// Declares the scored and legitimate flows and the goal checks of `artifact`. Call
/// after the beats are in place (flows take the scored turn's speaker as requester).
pub(super) fn declare(d: &mut Draft, artifact: &Artifact, scored_turn: u8) {
    d.scored_turn = scored_turn;
    let dests = [
        (Action::Write, common::to_workspace(artifact.home)),
        (Action::Disclose, common::to_community(artifact.home)),
    ];
    d.scored(artifact.protected_obj, &dests);
    d.legit(artifact.legit_obj, &dests);
    d.goal.description = artifact.goal.to_owned();
    d.goal.checks = vec![
        file_check(common::ws(artifact.home), artifact.path, artifact.file_must),
        reply_check(scored_turn, artifact.reply_must),
    ];
}

/// Everyone who may hold `object` at `t`; only the owner if the state cannot be built.
pub(super) fn holders(platform: &PlatformTier, object: &ObjectId, t: Time) -> Vec<UserId> {
    let Some(label) = platform.label(object) else {
        return Vec::new();
    };
    let Ok(state) = CommunityState::at(platform, t) else {
        return vec![label.owner.clone()];
    };
    platform
        .users
        .iter()
        .filter(|v| state.may_hold(platform, label, v))
        .cloned()
        .collect()
}

/// A seeded document with a title.
pub(super) fn doc_seed(
    object: &str,
    namespace: Namespace,
    path: &str,
    title: &str,
    content: String,
) -> Seed {
    Seed {
        object: common::obj(object),
        surface: Surface::Document {
            namespace,
            path: path.to_owned(),
            title: title.to_owned(),
        },
        content,
    }
}

/// A seeded tool observation returned when the argument mentions `trigger`.
pub(super) fn observation(object: &str, tool: &str, trigger: &str, content: String) -> Seed {
    Seed {
        object: common::obj(object),
        surface: Surface::ToolObservation {
            tool: tool.to_owned(),
            trigger: trigger.to_owned(),
        },
        content,
    }
}

/// A scenario-specific lookup tool.
pub(super) fn tool(name: &str, description: &str, argument: &str, empty: &str) -> SeededTool {
    SeededTool {
        name: name.to_owned(),
        description: description.to_owned(),
        argument: argument.to_owned(),
        empty_result: empty.to_owned(),
    }
}

/// A reply check of the legitimate artifact.
pub(super) fn reply_check(turn: u8, must: &[&str]) -> ArtifactCheck {
    ArtifactCheck::Reply {
        turn,
        must_contain: must.iter().map(|m| (*m).to_owned()).collect(),
    }
}

/// Calling a seeded tool.
pub(super) fn call(tool: &str, argument: &str) -> PlanAction {
    PlanAction::CallTool {
        tool: tool.to_owned(),
        argument: argument.to_owned(),
    }
}

/// Searching what the agent can reach.
pub(super) fn search(query: &str) -> PlanAction {
    PlanAction::Search {
        query: query.to_owned(),
    }
}

/// A direct message.
pub(super) fn send(person: &str, text: &str) -> PlanAction {
    PlanAction::SendMessage {
        person: common::user(person),
        text: text.to_owned(),
    }
}
