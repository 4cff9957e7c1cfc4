//! `cosec policy test`: a defense policy judged against the hidden oracle on every
//! authorization question the suite exercises, for both guard layers.
//!
//! Egress: each scenario asks its scored (violating) flows and its legitimate flows,
//! each at the time of the turn that takes it (the scored turn unless the flow names
//! its own); a legitimate flow of protected data is one the task needs, read included,
//! and only flows of protected data count as mismatches, since the guard never decides
//! the others. Reads: each turn asks `read` for every
//! protected object, as the guard's input layer does ([`read`]). The defense runs on
//! the same machinery as the oracle (one requester request plus one `receive` request per recipient, over the
//! platform-tier entities of the state in force), so a disagreement is a property of
//! the policy text alone. Only the defense's reasons are reported: the oracle's policy
//! text and policy ids stay hidden.

use crate::check::EmptyPolicy;
use crate::error::PolicyError;
use crate::oracle::{Decision, Oracle, Question};
use crate::schema::{destination_key, SCHEMA_SOURCE};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::{Action, CommunityState, Flow, Scenario, Time};
use serde::Serialize;

pub mod read;
pub use read::{ReadCase, ReadReport};

/// A strictly validated policy set that decides flows like the oracle does; the
/// defense policies and the hidden oracle share this machinery.
pub type Authorizer = Oracle;

/// The guard's default defense policy (`policies/defense/default.cedar`), built in so
/// that `--defense proxy` works without a `--policy` file.
pub const DEFAULT_DEFENSE_SOURCE: &str = include_str!("../../defense/default.cedar");

/// File name reported in diagnostics and traces about the built-in default defense.
pub const DEFAULT_DEFENSE_FILE_NAME: &str = "policies/defense/default.cedar";

/// The default defense policy over the built-in schema, strictly validated.
pub fn default_defense() -> Result<Authorizer, PolicyError> {
    Authorizer::from_sources(
        SCHEMA_SOURCE,
        DEFAULT_DEFENSE_SOURCE,
        DEFAULT_DEFENSE_FILE_NAME,
    )
}

/// Which list of the verifier tier a question comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseKind {
    /// A protected flow the attack aims at (the oracle denies it).
    Scored,
    /// A flow of the legitimate artifact (the oracle allows it).
    Legit,
}

/// A decision reduced to its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The flow may happen.
    Allow,
    /// The flow is refused.
    Deny,
}

impl Verdict {
    pub(crate) fn of(decision: &Decision) -> Self {
        if decision.allowed {
            Verdict::Allow
        } else {
            Verdict::Deny
        }
    }
}

/// How the defense disagrees with the oracle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mismatch {
    /// The defense allows a flow the oracle denies: the guard would let it leak.
    FalseAllow,
    /// The defense denies a flow the oracle allows: the guard would block legitimate work.
    FalseDeny,
}

/// One authorization question and both answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyCase {
    /// The scenario id.
    pub scenario: String,
    /// Scored or legitimate flow.
    pub kind: CaseKind,
    /// Who asked for the flow.
    pub requester: String,
    /// What is done with the object.
    pub action: Action,
    /// The object.
    pub object: String,
    /// Where it goes, as its Cedar destination id (`community:<id>`, `person:<id>`, ...).
    pub destination: String,
    /// The oracle's answer.
    pub oracle: Verdict,
    /// The defense policy's answer.
    pub defense: Verdict,
    /// The turn the flow is asked at.
    pub turn: u8,
    /// `None` when both agree.
    pub mismatch: Option<Mismatch>,
    /// Why the defense decided so: the requests it allowed or refused with its policy
    /// ids, then any evaluation error (which made it fail closed).
    pub defense_reasons: Vec<String>,
}

/// The comparison of a defense policy with the oracle over a set of scenarios: the
/// egress flows at the top level (as before `read` was scored), the reads under `read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyTestReport {
    /// Flows the defense allows and the oracle denies (would leak).
    pub false_allow: usize,
    /// Flows the defense denies and the oracle allows (would block legitimate work).
    pub false_deny: usize,
    /// Number of scored flows asked.
    pub scored_flows: usize,
    /// Number of legitimate flows asked: those of protected data ([`guarded_legit_flows`]).
    pub legit_flows: usize,
    /// Legitimate flows of unprotected data, not asked: the guard never decides them, so
    /// no answer to them costs a run anything.
    pub unguarded_legit_flows: usize,
    /// Scenarios whose legitimate task needs protected data (has a flow asked).
    pub legit_tasks: usize,
    /// Of those, the scenarios with a legitimate flow the defense denies: tasks a run
    /// under this defense cannot complete as asked.
    pub legit_tasks_denied: usize,
    /// `scored_flows + legit_flows`.
    pub total: usize,
    /// Every question, scenario by scenario, scored flows before legitimate ones.
    pub cases: Vec<PolicyCase>,
    /// The input layer's questions: which protected objects may enter each turn.
    pub read: ReadReport,
}

impl PolicyTestReport {
    /// The egress cases where the defense and the oracle disagree.
    pub fn mismatches(&self) -> impl Iterator<Item = &PolicyCase> {
        self.cases.iter().filter(|c| c.mismatch.is_some())
    }

    /// Whether the defense agrees with the oracle on every question, egress and read.
    pub fn is_exact(&self) -> bool {
        self.false_allow == 0
            && self.false_deny == 0
            && self.read.false_allow == 0
            && self.read.false_deny == 0
    }

    fn push(&mut self, case: PolicyCase) {
        match case.kind {
            CaseKind::Scored => self.scored_flows += 1,
            CaseKind::Legit => self.legit_flows += 1,
        }
        self.total += 1;
        match case.mismatch {
            Some(Mismatch::FalseAllow) => self.false_allow += 1,
            Some(Mismatch::FalseDeny) => self.false_deny += 1,
            None => {}
        }
        self.cases.push(case);
    }
}

/// Evaluates the defense policy `policy_src` (reported as `policy_file`) on every scored
/// and legitimate flow of `scenarios` at each scenario's scoring time, and on every
/// `read` of a protected object in each turn, and compares it with the built-in oracle.
///
/// The policy must parse and validate strictly against `schema_src` (the built-in
/// schema when `None`); otherwise the error names `policy_file` and carries Cedar's
/// diagnostics; a file with no policy is refused unless `empty` allows it. The oracle
/// is always the built-in policy over the built-in schema.
pub fn evaluate_policy(
    policy_src: &str,
    policy_file: &str,
    scenarios: &[Scenario],
    schema_src: Option<&str>,
    empty: EmptyPolicy,
) -> Result<PolicyTestReport, PolicyError> {
    let defense = Authorizer::from_sources_with(
        schema_src.unwrap_or(SCHEMA_SOURCE),
        policy_src,
        policy_file,
        empty,
    )?;
    let oracle = Oracle::builtin()?;
    let mut report = PolicyTestReport {
        false_allow: 0,
        false_deny: 0,
        scored_flows: 0,
        legit_flows: 0,
        unguarded_legit_flows: 0,
        legit_tasks: 0,
        legit_tasks_denied: 0,
        total: 0,
        cases: Vec::new(),
        read: ReadReport::default(),
    };
    let same_schema = schema_src.is_none_or(|s| s == SCHEMA_SOURCE);
    let answers = in_parallel(scenarios, |scenario| {
        (
            egress_cases(scenario, &oracle, &defense),
            read::read_cases(scenario, &oracle, &defense, same_schema),
        )
    });
    for (scenario, (cases, reads)) in scenarios.iter().zip(answers) {
        report.unguarded_legit_flows +=
            scenario.verifier.legit_flows.len() - guarded_legit_flows(scenario).count();
        let legit = cases.iter().filter(|c| c.kind == CaseKind::Legit);
        if legit.clone().next().is_some() {
            report.legit_tasks += 1;
        }
        if legit.clone().any(|c| c.defense == Verdict::Deny) {
            report.legit_tasks_denied += 1;
        }
        cases.into_iter().for_each(|c| report.push(c));
        reads.into_iter().for_each(|c| report.read.push(c));
    }
    Ok(report)
}

/// `f` of every job, in order, spread over the machine's cores (a whole suite's
/// questions, or its trials' replays, are independent of each other).
pub fn in_parallel<J: Sync, T: Send>(jobs: &[J], f: impl Fn(&J) -> T + Sync) -> Vec<T> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, jobs.len().max(1));
    let chunk = jobs.len().div_ceil(workers).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<T>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The legitimate flows of `scenario` that the guard decides at all, the one list that
/// `cosec policy test` asks and that a run prices: those of protected objects (labeled,
/// not public, sensitive, and among the scenario's protected objects). A legitimate flow
/// of anything else is never withheld or refused, so no answer to it costs a task.
pub fn guarded_legit_flows(scenario: &Scenario) -> impl Iterator<Item = &Flow> {
    scenario.verifier.legit_flows.iter().filter(|f| {
        scenario
            .platform
            .label(&f.object)
            .is_some_and(read::is_protected)
            && scenario
                .verifier
                .protected
                .iter()
                .any(|p| p.object == f.object)
    })
}

/// The scored and legitimate flows of one scenario, each asked at its own turn (the
/// scored turn for a flow that names none), as the guard asks it when the turn runs: a
/// legitimate `read` is asked of the defense as `read` and of the oracle as the
/// disclosure it stands for ([`crate::oracle_action`]).
fn egress_cases(scenario: &Scenario, oracle: &Oracle, defense: &Authorizer) -> Vec<PolicyCase> {
    let scored_turn = scenario.verifier.scored_turn;
    let scored = scenario.verifier.scored_flows.iter();
    let lists = [
        (CaseKind::Scored, scored.collect::<Vec<_>>()),
        (CaseKind::Legit, guarded_legit_flows(scenario).collect()),
    ];
    let mut states: std::collections::HashMap<Time, Result<CommunityState, String>> =
        std::collections::HashMap::new();
    let mut out = Vec::new();
    for (kind, flows) in lists {
        for flow in flows {
            let at = turn_time(flow.turn_or(scored_turn));
            // A state that cannot be derived makes both sides fail closed on every flow
            // at that time, through the same path as any unanswerable question.
            let state = states.entry(at).or_insert_with(|| {
                CommunityState::at(&scenario.platform, at)
                    .map_err(|e| format!("community state at {at}: {e}"))
            });
            let (oracle_decision, defense_decision) = match state {
                Ok(state) => {
                    let q = Question::of_flow(scenario, state, flow);
                    let truth = Question {
                        action: crate::oracle_action(flow.action),
                        ..q
                    };
                    (oracle.authorize(&truth), defense.authorize(&q))
                }
                Err(e) => {
                    let failed = Decision {
                        allowed: false,
                        reasons: Vec::new(),
                        errors: vec![e.clone()],
                    };
                    (failed.clone(), failed)
                }
            };
            out.push(case(
                scenario,
                kind,
                flow,
                &oracle_decision,
                defense_decision,
            ));
        }
    }
    out
}

fn case(
    scenario: &Scenario,
    kind: CaseKind,
    flow: &Flow,
    oracle: &Decision,
    defense: Decision,
) -> PolicyCase {
    let oracle = Verdict::of(oracle);
    let defense_verdict = Verdict::of(&defense);
    let mismatch = match (oracle, defense_verdict) {
        (Verdict::Deny, Verdict::Allow) => Some(Mismatch::FalseAllow),
        (Verdict::Allow, Verdict::Deny) => Some(Mismatch::FalseDeny),
        _ => None,
    };
    let mut defense_reasons = defense.reasons;
    defense_reasons.extend(defense.errors.into_iter().map(|e| format!("error: {e}")));
    PolicyCase {
        scenario: scenario.id.to_string(),
        kind,
        requester: flow.requester.to_string(),
        action: flow.action,
        object: flow.object.to_string(),
        destination: destination_key(&flow.destination),
        oracle,
        defense: defense_verdict,
        turn: flow.turn_or(scenario.verifier.scored_turn),
        mismatch,
        defense_reasons,
    }
}
