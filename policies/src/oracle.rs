//! The hidden oracle: `Auth_t(u, a, d, l)` decided by Cedar over the entities of `E_t`.
//!
//! One Cedar request for the requester and one `receive` request per recipient of the
//! destination; the flow is allowed only if all are allowed and nothing errored.

use crate::check::{check_source, display_id};
use crate::entities::entities_with;
use crate::error::PolicyError;
use crate::schema::{
    action_uid, destination_uid, object_uid, parse_schema, receive_uid, user_uid, ORACLE_FILE_NAME,
    ORACLE_SOURCE, SCHEMA_SOURCE,
};
use cedar_policy::{
    Authorizer, Context, Entities, EntityUid, PolicySet, Request, RestrictedExpression, Schema,
};
use cosec_scenarios::{
    Action, CommunityState, Destination, Flow, Namespace, ObjectId, PlatformTier, Scenario, Time,
    UserId,
};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

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

/// Cedar entities of one community state, prepared once for many questions.
#[derive(Debug, Clone)]
pub struct PreparedState {
    entities: Entities,
    time: Time,
    users: BTreeSet<UserId>,
    destinations: BTreeSet<Destination>,
}

/// The oracle: a strictly validated policy set and its schema.
#[derive(Debug, Clone)]
pub struct Oracle {
    schema: Schema,
    policies: PolicySet,
    authorizer: Authorizer,
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
        let schema = parse_schema("schema", schema_src)?;
        let (pset, diagnostics) = check_source(Path::new(policy_file_name), policy_src, &schema);
        match pset {
            Some(policies) if diagnostics.is_empty() => Ok(Oracle {
                schema,
                policies,
                authorizer: Authorizer::new(),
            }),
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
        self.authorize(&Question {
            platform: &scenario.platform,
            target: &scenario.agent.target_user,
            state: &state,
            requester: &flow.requester,
            action: flow.action,
            object: &flow.object,
            destination: &flow.destination,
        })
    }

    /// Builds the entities of one state once, for every user and every destination the
    /// scenario knows, so that many questions at that state skip the rebuild.
    pub fn prepare(
        &self,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
    ) -> Result<PreparedState, PolicyError> {
        let users: BTreeSet<UserId> = platform.users.iter().cloned().collect();
        let mut destinations: BTreeSet<Destination> = BTreeSet::new();
        for record in &state.communities {
            destinations.insert(Destination::Community {
                community: record.id.clone(),
            });
            destinations.insert(Destination::Namespace {
                namespace: Namespace::Community {
                    community: record.id.clone(),
                },
            });
        }
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Shared,
        });
        destinations.insert(Destination::Namespace {
            namespace: Namespace::Memory,
        });
        destinations.extend(
            users
                .iter()
                .map(|u| Destination::Person { user: u.clone() }),
        );
        destinations.extend(
            platform
                .workflow_routes
                .iter()
                .map(|r| Destination::Workflow {
                    name: r.name.clone(),
                }),
        );
        let user_refs: Vec<&UserId> = users.iter().collect();
        let dest_refs: Vec<&Destination> = destinations.iter().collect();
        let entities = entities_with(
            platform,
            target,
            state,
            &user_refs,
            &dest_refs,
            Some(&self.schema),
        )?;
        Ok(PreparedState {
            entities,
            time: state.time,
            users,
            destinations,
        })
    }

    /// Like [`Oracle::authorize`], reusing entities from [`Oracle::prepare`] for the same
    /// state; a question naming anyone or anything outside them is decided the slow way.
    pub fn authorize_prepared(&self, q: &Question<'_>, prepared: &PreparedState) -> Decision {
        let covered = q.state.time == prepared.time
            && prepared.users.contains(q.requester)
            && prepared.destinations.contains(q.destination);
        let result = if covered {
            self.try_authorize_with(q, Some(&prepared.entities))
        } else {
            self.try_authorize_with(q, None)
        };
        result.unwrap_or_else(Decision::fail_closed)
    }

    fn try_authorize(&self, q: &Question<'_>) -> Result<Decision, String> {
        self.try_authorize_with(q, None)
    }

    fn try_authorize_with(
        &self,
        q: &Question<'_>,
        prepared: Option<&Entities>,
    ) -> Result<Decision, String> {
        if q.platform.label(q.object).is_none() {
            return Err(format!("object `{}` has no platform label", q.object));
        }
        let recipients = q
            .state
            .audience_of(q.destination, q.target, q.platform)
            .map_err(|e| e.to_string())?;
        let built;
        let entities = match prepared {
            Some(entities) if recipients.iter().all(|r| q.platform.users.contains(r)) => entities,
            _ => {
                let mut extra_users: Vec<&UserId> = recipients.iter().collect();
                extra_users.push(q.requester);
                built = entities_with(
                    q.platform,
                    q.target,
                    q.state,
                    &extra_users,
                    &[q.destination],
                    Some(&self.schema),
                )
                .map_err(|e| e.to_string())?;
                &built
            }
        };
        let context = self.context(q).map_err(|e| e.to_string())?;
        let object = object_uid(q.object).map_err(|e| e.to_string())?;

        let mut checks = vec![Check {
            side: "requester",
            user: q.requester,
            action: action_uid(q.action).map_err(|e| e.to_string())?,
        }];
        let receive = receive_uid().map_err(|e| e.to_string())?;
        checks.extend(recipients.iter().map(|user| Check {
            side: "recipient",
            user,
            action: receive.clone(),
        }));

        let mut allowed_reasons = Vec::new();
        let mut denied_reasons = Vec::new();
        let mut errors = Vec::new();
        for check in &checks {
            let outcome = self.ask(check, &object, &context, entities)?;
            errors.extend(outcome.errors);
            let who = format!("{} `{}`", check.side, check.user);
            if outcome.allowed {
                allowed_reasons.push(format!("{who}: allowed by {}", outcome.policies.join(", ")));
            } else if outcome.policies.is_empty() {
                denied_reasons.push(format!(
                    "{who}: denied, may not hold `{}` (no permit applies)",
                    q.object
                ));
            } else {
                denied_reasons.push(format!("{who}: denied by {}", outcome.policies.join(", ")));
            }
        }
        let allowed = denied_reasons.is_empty() && errors.is_empty();
        Ok(Decision {
            allowed,
            reasons: if denied_reasons.is_empty() {
                allowed_reasons
            } else {
                denied_reasons
            },
            errors,
        })
    }

    fn context(&self, q: &Question<'_>) -> Result<Context, PolicyError> {
        let pairs = [
            (
                "time".to_owned(),
                RestrictedExpression::new_long(i64::from(q.state.time.0)),
            ),
            (
                "destination".to_owned(),
                RestrictedExpression::new_entity_uid(destination_uid(q.destination)?),
            ),
            (
                "requester".to_owned(),
                RestrictedExpression::new_entity_uid(user_uid(q.requester)?),
            ),
        ];
        Context::from_pairs(pairs).map_err(|e| PolicyError::cedar("context", e))
    }

    fn ask(
        &self,
        check: &Check<'_>,
        object: &EntityUid,
        context: &Context,
        entities: &Entities,
    ) -> Result<Outcome, String> {
        let principal = user_uid(check.user).map_err(|e| e.to_string())?;
        // No per-request schema check: the policies were validated strictly at load, the
        // entities against the schema when built, and the context is built here with the
        // schema's types; re-validating every request tripled the decision time.
        let request = Request::new(
            principal,
            check.action.clone(),
            object.clone(),
            context.clone(),
            None,
        )
        .map_err(|e| format!("cannot build Cedar request: {e}"))?;
        let response = self
            .authorizer
            .is_authorized(&request, &self.policies, entities);
        let diagnostics = response.diagnostics();
        let mut policies: Vec<String> = diagnostics
            .reason()
            .map(|id| display_id(&self.policies, id))
            .collect();
        policies.sort();
        Ok(Outcome {
            allowed: response.decision() == cedar_policy::Decision::Allow,
            policies,
            errors: diagnostics.errors().map(|e| e.to_string()).collect(),
        })
    }
}

/// One Cedar request of a question.
struct Check<'a> {
    side: &'static str,
    user: &'a UserId,
    action: EntityUid,
}

/// The answer to one Cedar request.
struct Outcome {
    allowed: bool,
    policies: Vec<String>,
    errors: Vec<String>,
}
