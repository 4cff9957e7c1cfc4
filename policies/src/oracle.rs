//! The hidden oracle: `Auth_t(u, a, d, l)` decided by Cedar over the entities of `E_t`.
//!
//! One Cedar request for the requester and one `receive` request per recipient of the
//! destination; the flow is allowed only if all are allowed and nothing errored. A
//! `read` (a defense's question: the oracle is never asked one) also asks the
//! requester's `disclose` to the same destination, the reply the object is read for.

mod prepared;
#[cfg(test)]
mod tests;

use crate::check::{check_source, display_id, EmptyPolicy};
use crate::entities::{entities_with, Conformance};
use crate::error::PolicyError;
use crate::schema::{
    action_uid, destination_uid, object_uid, parse_schema, receive_uid, user_uid, ORACLE_FILE_NAME,
    ORACLE_SOURCE, SCHEMA_SOURCE,
};
use cedar_policy::{
    Authorizer, Context, Entities, Entity, EntityUid, PolicyId, PolicySet, Request,
    RestrictedExpression, Schema,
};
use cosec_scenarios::{
    Action, CommunityState, Destination, Flow, ObjectId, PlatformTier, Scenario, Time, UserId,
};
pub use prepared::PreparedState;
use prepared::{Audience, PreparedDestination};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The built-in schema, parsed once.
pub(crate) fn builtin_schema() -> Result<Schema, PolicyError> {
    static SCHEMA: OnceLock<Result<Schema, String>> = OnceLock::new();
    SCHEMA
        .get_or_init(|| parse_schema("built-in", SCHEMA_SOURCE).map_err(|e| e.to_string()))
        .clone()
        .map_err(|message| PolicyError::Schema {
            name: "built-in".to_owned(),
            message,
        })
}

/// One authorization question `Auth_t(requester, action, object, destination)`.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The scenario's platform tier (labels, grants, workflow routes).
    pub platform: &'a PlatformTier,
    /// The user the agent represents (reader of the shared workspace and memory).
    pub target: &'a UserId,
    /// The community state in force; its `time` is the question's time.
    pub state: &'a CommunityState,
    /// Who asked.
    pub requester: &'a UserId,
    /// What is done with the object.
    pub action: Action,
    /// The object.
    pub object: &'a ObjectId,
    /// Where it goes.
    pub destination: &'a Destination,
}

impl<'a> Question<'a> {
    /// The question a scenario flow asks at the state in force.
    pub fn of_flow(scenario: &'a Scenario, state: &'a CommunityState, flow: &'a Flow) -> Self {
        Question {
            platform: &scenario.platform,
            target: &scenario.agent.target_user,
            state,
            requester: &flow.requester,
            action: flow.action,
            object: &flow.object,
            destination: &flow.destination,
        }
    }
}

/// The oracle's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Whether the flow is authorized.
    pub allowed: bool,
    /// On allow, the policies that permitted each request; on deny, which requester or
    /// recipient was refused and by which policy (or that no permit applied).
    pub reasons: Vec<String>,
    /// Anything that made the oracle fail closed (unknown object or workflow, entity
    /// construction, policy evaluation errors).
    pub errors: Vec<String>,
}

impl Decision {
    fn fail_closed(error: impl ToString) -> Self {
        Decision {
            allowed: false,
            reasons: Vec::new(),
            errors: vec![error.to_string()],
        }
    }
}

/// The oracle: a strictly validated policy set and its schema.
#[derive(Debug, Clone)]
pub struct Oracle {
    schema: Schema,
    policies: PolicySet,
    authorizer: Authorizer,
    /// The readable id of every policy, computed once: `PolicySet::annotation` parses its
    /// key on every call, which cost as much as the Cedar evaluation itself.
    display_ids: Arc<HashMap<PolicyId, String>>,
    /// The schema's action entities, added to each prepared state's entities in place
    /// of a per-entity schema check; `None` (an action hierarchy Cedar would not list)
    /// keeps the check.
    actions: Option<Arc<[Entity]>>,
}

impl Oracle {
    /// The built-in schema with the built-in hidden oracle policy.
    pub fn builtin() -> Result<Oracle, PolicyError> {
        Self::from_sources(SCHEMA_SOURCE, ORACLE_SOURCE, ORACLE_FILE_NAME)
    }

    /// An oracle from schema and policy text; the policies must parse and validate
    /// strictly against the schema with no error and no warning.
    pub fn from_sources(
        schema_src: &str,
        policy_src: &str,
        policy_file_name: &str,
    ) -> Result<Oracle, PolicyError> {
        Self::from_sources_with(
            schema_src,
            policy_src,
            policy_file_name,
            EmptyPolicy::Refuse,
        )
    }

    /// Like [`Oracle::from_sources`], saying whether a file with no policy is accepted.
    pub fn from_sources_with(
        schema_src: &str,
        policy_src: &str,
        policy_file_name: &str,
        empty: EmptyPolicy,
    ) -> Result<Oracle, PolicyError> {
        let schema = parse_schema("schema", schema_src)?;
        let (pset, diagnostics) =
            check_source(Path::new(policy_file_name), policy_src, &schema, empty);
        match pset {
            Some(policies) if diagnostics.is_empty() => {
                let display_ids: HashMap<PolicyId, String> = policies
                    .policies()
                    .map(|p| (p.id().clone(), display_id(&policies, p.id())))
                    .collect();
                let actions = schema
                    .action_entities()
                    .ok()
                    .map(|a| a.into_iter().collect());
                Ok(Oracle {
                    schema,
                    policies,
                    authorizer: Authorizer::new(),
                    display_ids: Arc::new(display_ids),
                    actions,
                })
            }
            _ => Err(PolicyError::InvalidPolicies {
                file: policy_file_name.to_owned(),
                diagnostics,
            }),
        }
    }

    /// The schema the policies were validated against.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Decides `Auth_t(u, a, d, l)`; fails closed on any unknown input or error.
    pub fn authorize(&self, q: &Question<'_>) -> Decision {
        match self.try_authorize(q) {
            Ok(decision) => decision,
            Err(e) => Decision::fail_closed(e),
        }
    }

    /// Decides a scenario flow at time `at`, against `CommunityState::at(platform, at)`.
    pub fn authorize_flow(&self, scenario: &Scenario, flow: &Flow, at: Time) -> Decision {
        let state = match CommunityState::at(&scenario.platform, at) {
            Ok(state) => state,
            Err(e) => return Decision::fail_closed(format!("community state at {at}: {e}")),
        };
        self.authorize(&Question::of_flow(scenario, &state, flow))
    }

    /// Builds the entities of one state once, for every user and every destination the
    /// scenario knows, so that many questions at that state skip the rebuild. Cedar's
    /// per-entity schema check is skipped here: the entity builder's code fixes every
    /// type, and the tests hold each suite state to the checked build.
    pub fn prepare(
        &self,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
    ) -> Result<PreparedState, PolicyError> {
        let conformance = match &self.actions {
            Some(actions) => Conformance::Trusted(actions),
            None => Conformance::Checked(&self.schema),
        };
        PreparedState::build(platform, target, state, conformance)
    }

    /// Like [`Oracle::authorize`], reusing what [`Oracle::prepare`] built for the same
    /// state; a question naming anyone or anything outside it is decided the slow way.
    pub fn authorize_prepared(&self, q: &Question<'_>, prepared: &PreparedState) -> Decision {
        let result = match self.prepared_parts(q, prepared) {
            Some((destination, recipients, requester, object)) => self
                .context_of(q.state.time, destination.uid.clone(), requester.clone())
                .map_err(|e| e.to_string())
                .and_then(|context| {
                    let checks = recipients.iter().map(|(user, uid)| (user, uid.clone()));
                    self.decide(
                        q,
                        requester.clone(),
                        checks,
                        object,
                        &context,
                        &prepared.entities,
                    )
                }),
            None => self.try_authorize(q),
        };
        result.unwrap_or_else(Decision::fail_closed)
    }

    /// What a question needs from the prepared state, if the state covers it.
    #[allow(clippy::type_complexity)]
    fn prepared_parts<'p>(
        &self,
        q: &Question<'_>,
        prepared: &'p PreparedState,
    ) -> Option<(
        &'p PreparedDestination,
        &'p [(UserId, EntityUid)],
        &'p EntityUid,
        &'p EntityUid,
    )> {
        if q.state.time != prepared.time || q.target != &prepared.target {
            return None;
        }
        let requester = prepared.users.get(q.requester)?;
        let object = prepared.objects.get(q.object)?;
        let destination = prepared.destinations.get(q.destination)?;
        match &destination.audience {
            Audience::Known(recipients) => Some((destination, recipients, requester, object)),
            Audience::Uncovered => None,
        }
    }

    /// The question decided over entities built for it alone.
    fn try_authorize(&self, q: &Question<'_>) -> Result<Decision, String> {
        if q.platform.label(q.object).is_none() {
            return Err(format!("object `{}` has no platform label", q.object));
        }
        let recipients = q
            .state
            .reach(q.destination, q.target, q.platform)
            .map_err(|e| e.to_string())?
            .audience;
        let mut extra_users: Vec<&UserId> = recipients.iter().collect();
        extra_users.push(q.requester);
        let entities = entities_with(
            q.platform,
            q.target,
            q.state,
            &extra_users,
            &[q.destination],
            Conformance::Checked(&self.schema),
        )
        .map_err(|e| e.to_string())?;
        let requester = user_uid(q.requester).map_err(|e| e.to_string())?;
        let destination = destination_uid(q.destination).map_err(|e| e.to_string())?;
        let context = self
            .context_of(q.state.time, destination, requester.clone())
            .map_err(|e| e.to_string())?;
        let object = object_uid(q.object).map_err(|e| e.to_string())?;
        let checks = recipients
            .iter()
            .map(|user| user_uid(user).map(|uid| (user, uid)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        self.decide(q, requester, checks, &object, &context, &entities)
    }

    /// Asks the requester's request, then one `receive` per recipient, and combines
    /// them: allowed only if every request is allowed and nothing errored.
    fn decide<'u>(
        &self,
        q: &Question<'_>,
        requester: EntityUid,
        recipients: impl IntoIterator<Item = (&'u UserId, EntityUid)>,
        object: &EntityUid,
        context: &Context,
        entities: &Entities,
    ) -> Result<Decision, String> {
        let action = action_uid(q.action).map_err(|e| e.to_string())?;
        let receive = receive_uid().map_err(|e| e.to_string())?;
        let request = cedar_request(requester.clone(), action, object, context)?;
        let first = self.outcome(&request, entities);
        let mut answers = vec![("requester", q.requester, first)];
        // A `read` lets the object into a turn whose reply goes to the destination: the
        // model reads to reply, so the requester must also be let to say it there.
        if q.action == Action::Read {
            let disclose = action_uid(Action::Disclose).map_err(|e| e.to_string())?;
            let said = cedar_request(requester, disclose, object, context)?;
            answers.push((
                "reply of requester",
                q.requester,
                self.outcome(&said, entities),
            ));
        }
        for (user, principal) in recipients {
            let received = cedar_request(principal, receive.clone(), object, context)?;
            let outcome = self.outcome(&received, entities);
            answers.push(("recipient", user, outcome));
        }
        let errors: Vec<String> = answers
            .iter_mut()
            .flat_map(|(_, _, outcome)| std::mem::take(&mut outcome.errors))
            .collect();
        let any_denied = answers.iter().any(|(_, _, outcome)| !outcome.allowed);
        // Only the side that decides is spelled out: the refusals on deny, every
        // permit on allow.
        let reasons = answers
            .iter()
            .filter(|(_, _, outcome)| outcome.allowed != any_denied)
            .map(|(side, user, outcome)| reason(side, user, outcome, q.object))
            .collect();
        Ok(Decision {
            allowed: !any_denied && errors.is_empty(),
            reasons,
            errors,
        })
    }

    fn context_of(
        &self,
        time: Time,
        destination: EntityUid,
        requester: EntityUid,
    ) -> Result<Context, PolicyError> {
        let pairs = [
            (
                "time".to_owned(),
                RestrictedExpression::new_long(i64::from(time.0)),
            ),
            (
                "destination".to_owned(),
                RestrictedExpression::new_entity_uid(destination),
            ),
            (
                "requester".to_owned(),
                RestrictedExpression::new_entity_uid(requester),
            ),
        ];
        Context::from_pairs(pairs).map_err(|e| PolicyError::cedar("context", e))
    }

    /// The outcome of one Cedar request, decided by Cedar's authorizer over the whole
    /// policy set, with Cedar's own reasons and errors.
    fn outcome(&self, request: &Request, entities: &Entities) -> Outcome<'_> {
        let response = self
            .authorizer
            .is_authorized(request, &self.policies, entities);
        let diagnostics = response.diagnostics();
        let mut policies: Vec<Cow<'_, str>> =
            diagnostics.reason().map(|id| self.shown(id)).collect();
        policies.sort_unstable();
        Outcome {
            allowed: response.decision() == cedar_policy::Decision::Allow,
            policies,
            errors: diagnostics.errors().map(|e| e.to_string()).collect(),
        }
    }

    /// A policy's readable id.
    fn shown(&self, id: &PolicyId) -> Cow<'_, str> {
        match self.display_ids.get(id) {
            Some(shown) => Cow::Borrowed(shown.as_str()),
            None => Cow::Owned(display_id(&self.policies, id)),
        }
    }
}

/// The reason a request gives, e.g. ``recipient `bob`: allowed by p1, p2``; written
/// piece by piece because `format!` and `join` were a twentieth of a decision.
fn reason(side: &str, user: &UserId, outcome: &Outcome<'_>, object: &ObjectId) -> String {
    let policies: usize = outcome.policies.iter().map(|p| p.len() + 2).sum();
    let mut out = String::with_capacity(side.len() + user.as_str().len() + policies + 64);
    out.push_str(side);
    out.push_str(" `");
    out.push_str(user.as_str());
    out.push_str(if outcome.allowed {
        "`: allowed by "
    } else if outcome.policies.is_empty() {
        "`: denied, may not hold `"
    } else {
        "`: denied by "
    });
    if !outcome.allowed && outcome.policies.is_empty() {
        out.push_str(object.as_str());
        out.push_str("` (no permit applies)");
    }
    for (i, policy) in outcome.policies.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(policy);
    }
    out
}

/// A Cedar request of the oracle's questions.
fn cedar_request(
    principal: EntityUid,
    action: EntityUid,
    object: &EntityUid,
    context: &Context,
) -> Result<Request, String> {
    // No per-request schema check: the policies were validated strictly at load, the
    // entities against the schema when built, and the context is built here with the
    // schema's types; re-validating every request tripled the decision time.
    Request::new(principal, action, object.clone(), context.clone(), None)
        .map_err(|e| format!("cannot build Cedar request: {e}"))
}

/// The answer to one Cedar request.
struct Outcome<'o> {
    allowed: bool,
    policies: Vec<Cow<'o, str>>,
    errors: Vec<String>,
}
