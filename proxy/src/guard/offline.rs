//! The guard's questions asked offline, over a recorded trial: `cosec policy replay`
//! re-decides a run's decision points through the same detector, question builder
//! (`cosec_policies::ask`), state cache and Cedar call as the live guard, so that a
//! replayed decision is the one the guard would have taken at that point.

use super::trial::TrialGuard;
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination, ObjectId, UserId};

/// The guard's answer to one question, as it would have traced it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfflineDecision {
    /// Whether the flow is allowed.
    pub allowed: bool,
    /// Policy ids (and denied requester or recipients) that determined it.
    pub policies: Vec<String>,
    /// Errors that made it fail closed.
    pub errors: Vec<String>,
    /// Who the question was asked for.
    pub principals: Vec<UserId>,
}

impl TrialGuard {
    /// The protected objects a strong pattern of which the guard's detector finds in
    /// `text` (read through every view it reads outputs with): the objects its output
    /// layer decides for an output holding `text`.
    pub fn protected_in(&self, text: &str) -> Vec<ObjectId> {
        self.all
            .objects_in(text)
            .into_iter()
            .filter_map(|idx| self.object(idx).map(|p| p.id.clone()))
            .collect()
    }

    /// Decides the flow of `object` by `action` to `destination` in delivery `ctx`
    /// exactly as the live guard does at a decision point (cached per question; an
    /// object the guard does not protect fails closed, as it would live).
    pub fn decide_offline(
        &self,
        ctx: &TurnContext,
        object: &ObjectId,
        action: Action,
        destination: &Destination,
    ) -> OfflineDecision {
        let Some(idx) = self.idx(object) else {
            return OfflineDecision {
                allowed: false,
                policies: Vec::new(),
                errors: vec![format!(
                    "`{object}` is not a protected object of this trial"
                )],
                principals: Vec::new(),
            };
        };
        let verdict = self.decide(ctx, idx, action, destination);
        OfflineDecision {
            allowed: verdict.allowed,
            policies: verdict.policies.clone(),
            errors: verdict.errors.clone(),
            principals: verdict.principals.clone(),
        }
    }
}
