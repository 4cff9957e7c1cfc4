//! Decisions: one Cedar question per detected object, cached, fail-closed, traced.
//!
//! A question is the output's [`AuthRequest`], built by `cosec_policies::ask` from the
//! delivery's context exactly as the verifier builds it: its principals (the speaker,
//! or for a delivery without one every principal it could be acting for), the action,
//! the object, the destination and the delivery's time, decided against the live state
//! `CommunityState::at(platform, time)` and the defense policy. The state and its Cedar
//! entities are built once per state time ([`cosec_policies::Oracle::prepare`]), so a
//! first decision costs only the Cedar evaluation; answers are cached per question, so
//! a repeated hit costs a hash lookup. Anything that goes wrong (a state that cannot be
//! built, an unknown object, an entity or Cedar error, nobody to ask for) is a deny
//! carrying the error.

use super::detect::{Hit, ObjIdx};
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{GuardLayer, GuardMode, GuardPoint};
use crate::registry::TurnContext;
use crate::trace::TraceEvent;
use cosec_policies::{AuthRequest, Outlet, PreparedState};
use cosec_scenarios::{Action, CommunityState, Destination, Time, UserId};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The cache key of a decision: the question's parts that the delivery's context and the
/// outlet fix (the principals follow from them and the state at `time`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    object: ObjIdx,
    action: Action,
    destination: Destination,
    requester: Option<UserId>,
    earlier_requesters: Vec<UserId>,
    community: cosec_scenarios::CommunityId,
    time: Time,
    /// The readers the recipients are narrowed to (a value assembled from pieces).
    readers: Option<Vec<UserId>>,
}

/// A cached answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Whether the flow is allowed.
    pub allowed: bool,
    /// Policy ids (and denied requester or recipients) that determined it.
    pub policies: Vec<String>,
    /// Errors that made it fail closed.
    pub errors: Vec<String>,
    /// Who the question was asked for (empty when it could not be built).
    pub principals: Vec<UserId>,
}

impl Verdict {
    fn fail_closed(error: String) -> Self {
        Verdict {
            allowed: false,
            policies: Vec::new(),
            errors: vec![error],
            principals: Vec::new(),
        }
    }
}

/// The live state at one time and its Cedar entities.
pub(crate) struct StateAt {
    /// The community state.
    pub state: CommunityState,
    /// `None` when the entities could not be prepared: questions then take the slow
    /// path, which fails closed on the same error if it concerns them.
    prepared: Option<PreparedState>,
}

/// Decisions and states of one trial, by key and by time.
#[derive(Default)]
pub(crate) struct DecisionCache {
    verdicts: Mutex<HashMap<Key, Arc<Verdict>>>,
    states: Mutex<HashMap<Time, Arc<Result<StateAt, String>>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TrialGuard {
    /// Builds (once) the live state at `time` and its Cedar entities, so that the first
    /// decision at that time costs only the evaluation; returns whether the entities
    /// could be prepared (decisions fail closed on any error either way).
    pub fn prepare_state(&self, time: Time) -> bool {
        matches!(self.state_at(time).as_ref(), Ok(at) if at.prepared.is_some())
    }

    /// The live state at `time` and its entities, built once per trial and time.
    pub(crate) fn state_at(&self, time: Time) -> Arc<Result<StateAt, String>> {
        let mut states = lock(&self.cache.states);
        Arc::clone(states.entry(time).or_insert_with(|| {
            Arc::new(
                CommunityState::at(&self.platform, time)
                    .map_err(|e| format!("community state at {time}: {e}"))
                    .map(|state| {
                        let prepared = self
                            .policy
                            .prepare(&self.platform, &self.target, &state)
                            .map_err(|e| {
                                tracing::warn!(trial = %self.id, %time, error = %e,
                                    "guard entities not prepared; deciding question by question");
                            })
                            .ok();
                        StateAt { state, prepared }
                    }),
            )
        }))
    }

    /// Decides one flow of a protected object, from the cache when possible.
    pub(crate) fn decide(
        &self,
        ctx: &TurnContext,
        object: ObjIdx,
        action: Action,
        destination: &Destination,
    ) -> Arc<Verdict> {
        self.decide_for(ctx, object, action, destination, None)
    }

    /// [`TrialGuard::decide`] with the recipients narrowed to `readers` when given
    /// (`AuthRequest::for_readers`): the question of a value that only they assembled.
    pub(crate) fn decide_for(
        &self,
        ctx: &TurnContext,
        object: ObjIdx,
        action: Action,
        destination: &Destination,
        readers: Option<&BTreeSet<UserId>>,
    ) -> Arc<Verdict> {
        let key = Key {
            object,
            action,
            destination: destination.clone(),
            requester: ctx.requester.clone(),
            earlier_requesters: ctx.earlier_requesters.clone(),
            community: ctx.community.clone(),
            time: ctx.time,
            readers: readers.map(|r| r.iter().cloned().collect()),
        };
        if let Some(v) = lock(&self.cache.verdicts).get(&key) {
            return Arc::clone(v);
        }
        let verdict = Arc::new(self.ask(&key));
        lock(&self.cache.verdicts).insert(key, Arc::clone(&verdict));
        verdict
    }

    fn ask(&self, key: &Key) -> Verdict {
        let Some(protected) = self.object(key.object) else {
            return Verdict::fail_closed(format!("unknown object #{}", key.object));
        };
        let state = self.state_at(key.time);
        let at = match state.as_ref() {
            Ok(at) => at,
            Err(e) => return Verdict::fail_closed(e.clone()),
        };
        let ctx = TurnContext {
            earlier_requesters: key.earlier_requesters.clone(),
            ..TurnContext::new(0, key.community.clone(), key.requester.clone(), key.time)
        };
        let outlet = Outlet {
            action: key.action,
            destination: key.destination.clone(),
        };
        let request = AuthRequest::of_output(
            &ctx,
            &self.platform,
            &self.target,
            &at.state,
            &outlet,
            &protected.id,
        );
        let request = match &key.readers {
            Some(readers) => request.for_readers(&readers.iter().cloned().collect()),
            None => request,
        };
        let decision = self.policy.decide_request(
            &self.platform,
            &self.target,
            &at.state,
            &request,
            at.prepared.as_ref(),
        );
        Verdict {
            allowed: decision.allowed && decision.errors.is_empty(),
            policies: decision.reasons,
            errors: decision.errors,
            principals: request.principals,
        }
    }
}

/// One outbound flow being checked (a reply, a write, a post ...): decides each object
/// once and traces each decision once.
pub(crate) struct Flow {
    pub ctx: TurnContext,
    pub action: Action,
    pub destination: Destination,
    pub point: GuardPoint,
    /// The layer deciding.
    pub layer: GuardLayer,
    /// What a deny does here (redact, block or restore).
    pub on_deny: GuardOutcome,
    decided: HashMap<ObjIdx, bool>,
    /// Questions of values assembled from pieces, by object and readers.
    decided_for: HashMap<(ObjIdx, Vec<UserId>), bool>,
}

impl Flow {
    /// A flow of `action` to `destination` at `point`.
    pub fn new(
        ctx: TurnContext,
        action: Action,
        destination: Destination,
        point: GuardPoint,
        layer: GuardLayer,
        on_deny: GuardOutcome,
    ) -> Self {
        Flow {
            ctx,
            action,
            destination,
            point,
            layer,
            on_deny,
            decided: HashMap::new(),
            decided_for: HashMap::new(),
        }
    }

    /// Whether the flow of `object` is denied; the first time, decides and traces,
    /// with the match that found the object (`None` for a labeled file by path).
    pub fn denied(&mut self, guard: &TrialGuard, object: ObjIdx, evidence: Option<&Hit>) -> bool {
        if let Some(denied) = self.decided.get(&object) {
            return *denied;
        }
        let denied = self.ask(guard, object, None, evidence);
        self.decided.insert(object, denied);
        denied
    }

    /// Whether the flow of `object` to `readers` alone is denied (a value they
    /// assembled from pieces of earlier outputs and this one); the first time, decides
    /// and traces.
    pub fn denied_for(
        &mut self,
        guard: &TrialGuard,
        object: ObjIdx,
        readers: &BTreeSet<UserId>,
    ) -> bool {
        let key = (object, readers.iter().cloned().collect::<Vec<_>>());
        if let Some(denied) = self.decided_for.get(&key) {
            return *denied;
        }
        let denied = self.ask(guard, object, Some(readers), None);
        self.decided_for.insert(key, denied);
        denied
    }

    /// Decides `object` (for `readers` alone when given) and traces the decision;
    /// returns whether it is denied.
    fn ask(
        &self,
        guard: &TrialGuard,
        object: ObjIdx,
        readers: Option<&BTreeSet<UserId>>,
        evidence: Option<&Hit>,
    ) -> bool {
        let started = Instant::now();
        let verdict = guard.decide_for(&self.ctx, object, self.action, &self.destination, readers);
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let denied = !verdict.allowed;
        let outcome = if denied {
            self.on_deny
        } else {
            GuardOutcome::Allow
        };
        self.trace(guard, object, &verdict, outcome, latency_us, evidence);
        denied
    }

    /// The objects decided and allowed in this flow.
    pub fn allowed(&self) -> impl Iterator<Item = ObjIdx> + '_ {
        self.decided
            .iter()
            .filter(|(_, denied)| !**denied)
            .map(|(o, _)| *o)
    }

    /// Whether `object` was already decided and denied in this flow.
    pub fn was_denied(&self, object: ObjIdx) -> bool {
        self.decided.get(&object).copied().unwrap_or(false)
    }

    /// Appends one `GuardDecision` line and counts it.
    pub fn trace(
        &self,
        guard: &TrialGuard,
        object: ObjIdx,
        verdict: &Verdict,
        outcome: GuardOutcome,
        latency_us: u64,
        evidence: Option<&Hit>,
    ) {
        let Some(protected) = guard.object(object) else {
            return;
        };
        guard.count(self.layer, outcome, latency_us);
        if !guard.recording() {
            return;
        }
        guard.record(TraceEvent::GuardDecision {
            turn: self.ctx.turn,
            point: self.point,
            layer: self.layer,
            object: protected.id.clone(),
            pattern: evidence.map(|h| h.kind),
            view: evidence.map(|h| h.view.to_string()),
            requester: self.ctx.requester.clone(),
            principals: verdict.principals.clone(),
            time: Some(self.ctx.time),
            action: self.action,
            destination: self.destination.to_string(),
            decision: outcome,
            policies: verdict.policies.clone(),
            errors: verdict.errors.clone(),
            enforced: guard.mode == GuardMode::Enforce,
            latency_us,
        });
    }
}
