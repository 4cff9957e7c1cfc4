//! The input layer's questions: may a protected object enter the model's context in a
//! turn?
//!
//! The guard asks, for every labeled object that may enter a turn's context, Cedar
//! `read` with the turn's requester as principal, the object as resource and the
//! turn's reply destination (its community) in the context, plus `receive` for
//! everyone that destination reaches, under the community state of the turn. The
//! oracle has no `read` action: the ground truth of a read is the oracle's answer to
//! disclosing the object to the same destination at the same time, because an object
//! a turn may not pass on to its destination must not be in what the turn works from
//! (docs/guard.md, "What it costs legitimate work"). A policy that grants `read`
//! nowhere therefore shows every read the oracle permits as a false deny.

use super::{Mismatch, Verdict};
use crate::oracle::{Decision, Oracle, PreparedState, Question};
use crate::schema::destination_key;
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::platform::Audience;
use cosec_scenarios::{Action, CommunityState, Destination, ObjectLabel, Scenario, Turn};
use serde::Serialize;

/// One `read` question: may `object` enter the context of `turn`, and both answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadCase {
    /// The scenario id.
    pub scenario: String,
    /// The turn (1-based).
    pub turn: u8,
    /// Whose message opened the turn.
    pub requester: String,
    /// The protected object.
    pub object: String,
    /// The turn's reply destination, as its Cedar destination id (`community:<id>`).
    pub destination: String,
    /// The oracle's answer (disclosing the object to the destination).
    pub oracle: Verdict,
    /// The defense policy's answer to `read`.
    pub defense: Verdict,
    /// `None` when both agree.
    pub mismatch: Option<Mismatch>,
    /// Why the defense decided so (policy ids, then any evaluation error).
    pub defense_reasons: Vec<String>,
}

/// The `read` questions of a set of scenarios.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadReport {
    /// Questions asked: protected objects times turns.
    pub questions: usize,
    /// Questions the oracle allows (the object may enter that turn).
    pub permitted: usize,
    /// Reads the defense allows and the oracle denies (the model would see what the
    /// turn may not pass on).
    pub false_allow: usize,
    /// Reads the defense denies and the oracle allows (withheld from legitimate work).
    pub false_deny: usize,
    /// Every question, scenario by scenario, turn by turn, objects in label order.
    pub cases: Vec<ReadCase>,
}

impl ReadReport {
    /// The cases where the defense and the oracle disagree.
    pub fn mismatches(&self) -> impl Iterator<Item = &ReadCase> {
        self.cases.iter().filter(|c| c.mismatch.is_some())
    }

    pub(super) fn push(&mut self, case: ReadCase) {
        self.questions += 1;
        if case.oracle == Verdict::Allow {
            self.permitted += 1;
        }
        match case.mismatch {
            Some(Mismatch::FalseAllow) => self.false_allow += 1,
            Some(Mismatch::FalseDeny) => self.false_deny += 1,
            None => {}
        }
        self.cases.push(case);
    }
}

/// Whether the guard decides an object at all: labeled, not Public, and sensitive (the
/// same rule as the guard's; anything else is never withheld).
pub fn is_protected(label: &ObjectLabel) -> bool {
    !matches!(label.audience, Audience::Public) && !label.sensitivity.is_empty()
}

/// Asks every turn of `scenario` about every protected object, turn by turn;
/// `same_schema` says the defense was validated against the oracle's schema, so that
/// one set of entities serves both.
pub(super) fn read_cases(
    scenario: &Scenario,
    oracle: &Oracle,
    defense: &Oracle,
    same_schema: bool,
) -> Vec<ReadCase> {
    let mut out = Vec::new();
    let mut objects: Vec<&ObjectLabel> = Vec::new();
    for label in scenario.platform.labels.iter().filter(|l| is_protected(l)) {
        if !objects.iter().any(|o| o.object == label.object) {
            objects.push(label);
        }
    }
    if objects.is_empty() {
        return out;
    }
    for turn in &scenario.agent.turns {
        let at = turn_time(turn.index);
        let destination = Destination::Community {
            community: turn.community.clone(),
        };
        let state = CommunityState::at(&scenario.platform, at);
        let asker = Asker::new(scenario, state.as_ref(), oracle, defense, same_schema);
        for label in &objects {
            let (truth, answer) = match (&state, &asker) {
                (Ok(state), Some(asker)) => asker.ask(scenario, state, turn, label, &destination),
                (Ok(state), None) => {
                    let ask = |action| Question {
                        platform: &scenario.platform,
                        target: &scenario.agent.target_user,
                        state,
                        requester: &turn.speaker,
                        action,
                        object: &label.object,
                        destination: &destination,
                    };
                    (
                        oracle.authorize(&ask(Action::Disclose)),
                        defense.authorize(&ask(Action::Read)),
                    )
                }
                (Err(e), _) => {
                    let failed = Decision {
                        allowed: false,
                        reasons: Vec::new(),
                        errors: vec![format!("community state at {at}: {e}")],
                    };
                    (failed.clone(), failed)
                }
            };
            out.push(case(scenario, turn, label, &destination, &truth, answer));
        }
    }
    out
}

/// Both sides' entities of one turn's state, prepared once for all its objects.
struct Asker<'o> {
    oracle: &'o Oracle,
    defense: &'o Oracle,
    oracle_state: PreparedState,
    /// `None` when the defense shares the oracle's schema, hence its entities.
    defense_state: Option<PreparedState>,
}

impl<'o> Asker<'o> {
    /// `None` when either side cannot prepare the state: its questions are then asked
    /// one by one, which reports the problem in each answer.
    fn new(
        scenario: &Scenario,
        state: Result<&CommunityState, &cosec_scenarios::StateError>,
        oracle: &'o Oracle,
        defense: &'o Oracle,
        same_schema: bool,
    ) -> Option<Self> {
        let state = state.ok()?;
        let target = &scenario.agent.target_user;
        // Building a state's entities costs more than the few questions asked of it.
        let defense_state = if same_schema {
            None
        } else {
            Some(defense.prepare(&scenario.platform, target, state).ok()?)
        };
        Some(Asker {
            oracle,
            defense,
            oracle_state: oracle.prepare(&scenario.platform, target, state).ok()?,
            defense_state,
        })
    }

    fn ask(
        &self,
        scenario: &Scenario,
        state: &CommunityState,
        turn: &Turn,
        label: &ObjectLabel,
        destination: &Destination,
    ) -> (Decision, Decision) {
        let ask = |action| Question {
            platform: &scenario.platform,
            target: &scenario.agent.target_user,
            state,
            requester: &turn.speaker,
            action,
            object: &label.object,
            destination,
        };
        (
            self.oracle
                .authorize_prepared(&ask(Action::Disclose), &self.oracle_state),
            self.defense.authorize_prepared(
                &ask(Action::Read),
                self.defense_state.as_ref().unwrap_or(&self.oracle_state),
            ),
        )
    }
}

fn case(
    scenario: &Scenario,
    turn: &Turn,
    label: &ObjectLabel,
    destination: &Destination,
    truth: &Decision,
    answer: Decision,
) -> ReadCase {
    let oracle = Verdict::of(truth);
    let defense = Verdict::of(&answer);
    let mismatch = match (oracle, defense) {
        (Verdict::Deny, Verdict::Allow) => Some(Mismatch::FalseAllow),
        (Verdict::Allow, Verdict::Deny) => Some(Mismatch::FalseDeny),
        _ => None,
    };
    let mut defense_reasons = answer.reasons;
    defense_reasons.extend(answer.errors.into_iter().map(|e| format!("error: {e}")));
    ReadCase {
        scenario: scenario.id.to_string(),
        turn: turn.index,
        requester: turn.speaker.to_string(),
        object: label.object.to_string(),
        destination: destination_key(destination),
        oracle,
        defense,
        mismatch,
        defense_reasons,
    }
}
