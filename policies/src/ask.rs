//! The authorization question of an output: who asks, for what, to where, at which
//! moment.
//!
//! The runtime guard (both layers, every decision point, `proxy serve` included) and the
//! verifier build their Cedar requests here and nowhere else, so that a proof of the
//! defense policy against the oracle speaks about the requests the guard really makes.
//!
//! **Who asks.** The requester of an output is the person whose message opened the
//! delivery it belongs to. A delivery without a speaker (a trusted event notice, a
//! scheduled or autonomous step, a delivery whose speaker is unknown) acts for nobody in
//! particular, so its question is asked for every principal it could be acting for: each
//! earlier requester of the same turn and every current member of the delivery's
//! community. The output is allowed only if every one of them may have it. The owner of
//! an object is therefore a requester only when the owner's own message asked.

use crate::oracle::{Decision, Oracle, PreparedState, Question};
use cosec_scenarios::{
    Action, CommunityId, CommunityState, Destination, Namespace, ObjectId, PlatformTier, Time,
    UserId,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// What the platform knows about one delivery: the turn it belongs to, the session's
/// community, who spoke and when.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TurnContext {
    /// Turn index (1-based); 0 before the first turn. A notice delivered after turn `t`
    /// belongs to turn `t`.
    pub turn: u8,
    /// The session's community.
    pub community: CommunityId,
    /// Whose message opened the delivery (`None` when nobody's did: a notice, a
    /// scheduled or autonomous step).
    pub requester: Option<UserId>,
    /// Logical time of the delivery: the community state its questions are asked at.
    pub time: Time,
    /// The speakers of the same turn's earlier deliveries, in order: who an output of a
    /// delivery without a speaker may still be acting for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_requesters: Vec<UserId>,
}

impl TurnContext {
    /// The context of a delivery opened by `requester`'s message (or by nobody's).
    pub fn new(turn: u8, community: CommunityId, requester: Option<UserId>, time: Time) -> Self {
        TurnContext {
            turn,
            community,
            requester,
            time,
            earlier_requesters: Vec::new(),
        }
    }

    /// The destination of the delivery's reply: its community's conversation.
    pub fn reply_destination(&self) -> Destination {
        Destination::Community {
            community: self.community.clone(),
        }
    }

    /// Everyone the delivery's outputs are asked for, sorted (see the module docs): the
    /// speaker; without one, the turn's earlier requesters and the community's current
    /// members at `state`. Empty only when nobody qualifies, which decides nothing.
    pub fn principals(&self, state: &CommunityState) -> Vec<UserId> {
        if let Some(speaker) = &self.requester {
            return vec![speaker.clone()];
        }
        let mut all: BTreeSet<UserId> = self.earlier_requesters.iter().cloned().collect();
        all.extend(state.members(&self.community));
        all.into_iter().collect()
    }
}

/// What an output does and where it goes: the action and destination of its question.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outlet {
    /// What is done with the content.
    pub action: Action,
    /// Where it goes, as the agent addressed it (a workflow stays a workflow).
    pub destination: Destination,
}

impl Outlet {
    /// Content entering the model's context in a delivery whose reply goes to `ctx`'s
    /// community (the input layer's question).
    pub fn context(ctx: &TurnContext) -> Self {
        Outlet {
            action: Action::Read,
            destination: ctx.reply_destination(),
        }
    }

    /// The delivery's reply, said in its community.
    pub fn reply(ctx: &TurnContext) -> Self {
        Self::post(ctx.community.clone())
    }

    /// A post to a community (or a reply there).
    pub fn post(community: CommunityId) -> Self {
        Outlet {
            action: Action::Disclose,
            destination: Destination::Community { community },
        }
    }

    /// A direct message to one person.
    pub fn message(user: UserId) -> Self {
        Outlet {
            action: Action::Send,
            destination: Destination::Person { user },
        }
    }

    /// A workflow submission (decided where the workflow's route delivers it).
    pub fn workflow(name: String) -> Self {
        Outlet {
            action: Action::Send,
            destination: Destination::Workflow { name },
        }
    }

    /// A file shared into a community.
    pub fn share(community: CommunityId) -> Self {
        Outlet {
            action: Action::Share,
            destination: Destination::Community { community },
        }
    }

    /// A file written into a namespace.
    pub fn write(namespace: Namespace) -> Self {
        Outlet {
            action: Action::Write,
            destination: Destination::Namespace { namespace },
        }
    }
}

/// The action the hidden oracle is asked for `action`. The oracle has no `read`: the
/// ground truth of letting an object into a turn's context is disclosing it to that
/// turn's destination at the same moment (an object a turn may not pass on there must
/// not be in what the turn works from).
pub fn oracle_action(action: Action) -> Action {
    match action {
        Action::Read => Action::Disclose,
        other => other,
    }
}

/// One output's authorization question, whole: asked once per principal, and allowed
/// only if every principal's request (and every recipient's `receive`) is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AuthRequest {
    /// Who the output is asked for (see the module docs), sorted.
    pub principals: Vec<UserId>,
    /// What is done with the object.
    pub action: Action,
    /// The object.
    pub object: ObjectId,
    /// Where it goes.
    pub destination: Destination,
    /// When it takes effect: the delivery's time.
    pub time: Time,
    /// Who the destination reaches at that time (each asked `receive`); empty when the
    /// destination cannot be resolved, which the decision then refuses.
    pub recipients: Vec<UserId>,
}

impl AuthRequest {
    /// The question of an output of delivery `ctx` carrying `object` out through
    /// `outlet`, at `state` (the community state at `ctx.time`).
    pub fn of_output(
        ctx: &TurnContext,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
        outlet: &Outlet,
        object: &ObjectId,
    ) -> Self {
        let recipients = state
            .reach(&outlet.destination, target, platform)
            .map(|r| r.audience.into_iter().collect())
            .unwrap_or_default();
        AuthRequest {
            principals: ctx.principals(state),
            action: outlet.action,
            object: object.clone(),
            destination: outlet.destination.clone(),
            time: ctx.time,
            recipients,
        }
    }

    /// The request with its recipients narrowed to `readers`: for a value assembled
    /// from pieces, only the readers who received every piece hold it, so only they
    /// (and the output's principals) are asked.
    pub fn for_readers(mut self, readers: &std::collections::BTreeSet<UserId>) -> Self {
        self.recipients.retain(|u| readers.contains(u));
        self
    }

    /// The single-principal Cedar questions this request consists of.
    fn questions<'a>(
        &'a self,
        platform: &'a PlatformTier,
        target: &'a UserId,
        state: &'a CommunityState,
    ) -> impl Iterator<Item = Question<'a>> + 'a {
        self.principals.iter().map(move |requester| Question {
            platform,
            target,
            state,
            requester,
            action: self.action,
            object: &self.object,
            destination: &self.destination,
        })
    }
}

impl Oracle {
    /// Decides a whole output question over `state` (which must be the state at
    /// `request.time`), reusing `prepared` when given: allowed only if every principal's
    /// question is allowed. A request without principals, or asked at another state's
    /// time, is refused with the reason.
    pub fn authorize_request(
        &self,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
        request: &AuthRequest,
        prepared: Option<&PreparedState>,
    ) -> Decision {
        if state.time != request.time {
            return Decision {
                allowed: false,
                reasons: Vec::new(),
                errors: vec![format!(
                    "asked at the state of {} for an output at {}",
                    state.time, request.time
                )],
            };
        }
        if request.principals.is_empty() {
            return Decision {
                allowed: false,
                reasons: Vec::new(),
                errors: vec!["no principal the output could be acting for".to_owned()],
            };
        }
        let several = request.principals.len() > 1;
        let mut out = Decision {
            allowed: true,
            reasons: Vec::new(),
            errors: Vec::new(),
        };
        let mut denied_reasons = Vec::new();
        for question in request.questions(platform, target, state) {
            let decision = match prepared {
                Some(prepared) => self.authorize_prepared(&question, prepared),
                None => self.authorize(&question),
            };
            let prefix = |r: String| match several {
                true => format!("as `{}`: {r}", question.requester),
                false => r,
            };
            if decision.allowed {
                out.reasons.extend(decision.reasons.into_iter().map(prefix));
            } else {
                out.allowed = false;
                denied_reasons.extend(decision.reasons.into_iter().map(prefix));
            }
            out.errors.extend(decision.errors);
        }
        if !out.allowed {
            // Only the side that decides is spelled out, as for one principal.
            out.reasons = denied_reasons;
        }
        out.allowed &= out.errors.is_empty();
        out
    }
}

#[cfg(test)]
mod tests;
