//! A policy set asked as one Cedar expression per request instead of one evaluation per
//! policy.
//!
//! Cedar's authorizer rebuilds every policy's condition and sets up its evaluator anew
//! for each policy on every request, which is most of what a request costs. Here each
//! static policy's condition (its scope constraints, `when` clauses and negated
//! `unless` clauses, joined with `&&`, which keeps Cedar's short-circuit order) is
//! built once, as Cedar text printed from Cedar's own structured form of the policy and
//! parsed back. The conditions of a set are folded into bit masks,
//! `(if c0 then 1 else 0) + (if c1 then 2 else 0) + …`, so one `eval_expression`
//! tells which policies are satisfied. In a per-action slice every request has the
//! slice's action, so an action scope that surely holds for it (by the schema's action
//! hierarchy, see `slice::surely_matches`) is left out: looking up the action's
//! ancestors for `action in [...]` was half of what a request cost. Conditions that
//! never name `principal` have their own mask: the `receive` requests of one flow
//! differ only in their principal, so that mask is asked once per flow.
//!
//! That gives Cedar's decision exactly when no condition raises an error: a forbid that
//! is satisfied denies, otherwise a satisfied permit allows, otherwise the request is
//! denied with no reason. Any error anywhere makes the caller ask Cedar's authorizer
//! for the same request, so that errors, and the policies they skip, are reported by
//! Cedar itself. A set that cannot be built this way (templates, linked policies,
//! printing or parsing trouble) is left to the authorizer entirely.

use cedar_policy::{
    eval_expression, pst, Effect, Entities, EvalResult, Expression, Policy, PolicyId, PolicySet,
    Request,
};
use std::str::FromStr;

/// Conditions per bit mask: keeps every partial sum within a Cedar `Long`.
const POLICIES_PER_MASK: usize = 62;

/// One policy set's conditions, ready to be asked together.
#[derive(Debug)]
pub(super) struct Combined {
    /// The set's policies.
    policies: Vec<(PolicyId, Effect)>,
    /// The conditions that never mention `principal`: they are the same for every
    /// request that differs only in its principal, such as the `receive` requests of
    /// one flow's recipients.
    shared: Mask,
    /// The conditions that do.
    own: Mask,
}

/// Some of a set's conditions, folded into bit masks.
#[derive(Debug)]
struct Mask {
    /// Indices into [`Combined::policies`], in the order of their bits.
    members: Vec<usize>,
    /// One expression per run of [`POLICIES_PER_MASK`] members.
    expressions: Vec<Expression>,
}

/// The policies whose shared conditions hold for a group of requests that differ only
/// in their principal.
#[derive(Debug)]
pub(super) struct Shared(Vec<usize>);

/// What a set decided for one request when no condition raised an error.
#[derive(Debug)]
pub(super) struct Verdict<'c> {
    /// Whether the request is allowed.
    pub(super) allowed: bool,
    /// The satisfied policies that decided: forbids on deny, permits on allow.
    pub(super) reasons: Vec<&'c PolicyId>,
}

impl Mask {
    fn build(members: Vec<usize>, conditions: &[String]) -> Option<Mask> {
        let expressions = members
            .chunks(POLICIES_PER_MASK)
            .map(|chunk| {
                let terms: Vec<String> = chunk
                    .iter()
                    .enumerate()
                    .map(|(bit, &i)| format!("(if {} then {} else 0)", conditions[i], 1i64 << bit))
                    .collect();
                Expression::from_str(&terms.join(" + ")).ok()
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Mask {
            members,
            expressions,
        })
    }

    /// Adds the members whose condition holds to `out`; `None` when any raised an error.
    fn satisfied(
        &self,
        request: &Request,
        entities: &Entities,
        out: &mut Vec<usize>,
    ) -> Option<()> {
        for (chunk, expression) in self
            .members
            .chunks(POLICIES_PER_MASK)
            .zip(&self.expressions)
        {
            let EvalResult::Long(bits) = eval_expression(request, entities, expression).ok()?
            else {
                return None;
            };
            out.extend(
                chunk
                    .iter()
                    .enumerate()
                    .filter(|(bit, _)| bits & (1i64 << bit) != 0)
                    .map(|(_, &i)| i),
            );
        }
        Some(())
    }
}

impl Combined {
    /// The combined form of `set`, or `None` when any of its policies cannot be
    /// rebuilt as an expression. The action scope of a policy for which
    /// `scope_holds` says it holds for every request asked of this set is left out.
    pub(super) fn build(
        set: &PolicySet,
        scope_holds: impl Fn(&Policy) -> bool,
    ) -> Option<Combined> {
        if set.templates().next().is_some() {
            return None;
        }
        let mut policies = Vec::new();
        let mut conditions = Vec::new();
        for policy in set.policies() {
            conditions.push(condition_text(policy, scope_holds(policy))?);
            policies.push((policy.id().clone(), policy.effect()));
        }
        // The principal is only ever named `principal` in printed Cedar, so a condition
        // without that word cannot depend on it (a string holding the word only costs
        // the saving).
        let (own, shared): (Vec<usize>, Vec<usize>) =
            (0..conditions.len()).partition(|&i| conditions[i].contains("principal"));
        Some(Combined {
            policies,
            shared: Mask::build(shared, &conditions)?,
            own: Mask::build(own, &conditions)?,
        })
    }

    /// The shared conditions that hold for `request` and for every request that
    /// differs from it only in its principal; `None` when any raised an error.
    pub(super) fn shared(&self, request: &Request, entities: &Entities) -> Option<Shared> {
        let mut satisfied = Vec::new();
        self.shared.satisfied(request, entities, &mut satisfied)?;
        Some(Shared(satisfied))
    }

    /// Cedar's decision for `request`, or `None` when any condition raised an error
    /// (the caller then asks Cedar's authorizer).
    pub(super) fn decide(&self, request: &Request, entities: &Entities) -> Option<Verdict<'_>> {
        let shared = self.shared(request, entities)?;
        self.decide_with(&shared, request, entities)
    }

    /// Like [`Combined::decide`], with the shared conditions already asked of a request
    /// that differs from `request` only in its principal.
    pub(super) fn decide_with(
        &self,
        shared: &Shared,
        request: &Request,
        entities: &Entities,
    ) -> Option<Verdict<'_>> {
        let mut satisfied = shared.0.clone();
        self.own.satisfied(request, entities, &mut satisfied)?;
        let holding = || satisfied.iter().filter_map(|&i| self.policies.get(i));
        let forbids: Vec<&PolicyId> = holding()
            .filter(|(_, effect)| *effect == Effect::Forbid)
            .map(|(id, _)| id)
            .collect();
        if !forbids.is_empty() {
            return Some(Verdict {
                allowed: false,
                reasons: forbids,
            });
        }
        let permits: Vec<&PolicyId> = holding().map(|(id, _)| id).collect();
        Some(Verdict {
            allowed: !permits.is_empty(),
            reasons: permits,
        })
    }
}

/// A static policy's whole condition as Cedar text, scope first; without its action
/// scope when `action_scope_holds`.
fn condition_text(policy: &Policy, action_scope_holds: bool) -> Option<String> {
    if !policy.is_static() {
        return None;
    }
    let pst = policy.to_pst().ok()?;
    let body = pst.body();
    let mut parts = Vec::new();
    if body.principal != pst::PrincipalConstraint::Any {
        parts.push(format!("(principal {})", body.principal));
    }
    if body.action != pst::ActionConstraint::Any && !action_scope_holds {
        parts.push(format!("(action {})", body.action));
    }
    if body.resource != pst::ResourceConstraint::Any {
        parts.push(format!("(resource {})", body.resource));
    }
    for clause in body.clauses() {
        parts.push(match clause {
            pst::Clause::When(e) => format!("({e})"),
            pst::Clause::Unless(e) => format!("(!({e}))"),
        });
    }
    if !prints_faithfully(body) {
        return None;
    }
    Some(if parts.is_empty() {
        "true".to_owned()
    } else {
        parts.join(" && ")
    })
}

/// Whether the policy printed from its scope constraints and clauses, as
/// [`condition_text`] prints them, parses back to the same structure: a printing slip
/// would otherwise change what a condition means without any error.
fn prints_faithfully(body: &pst::Template) -> bool {
    let scope = |var: &str, constraint: String| {
        if constraint.is_empty() {
            var.to_owned()
        } else {
            format!("{var} {constraint}")
        }
    };
    let clauses: Vec<String> = body.clauses().iter().map(ToString::to_string).collect();
    let printed = format!(
        "permit ({}, {}, {}) {};",
        scope("principal", body.principal.to_string()),
        scope("action", body.action.to_string()),
        scope("resource", body.resource.to_string()),
        clauses.join(" ")
    );
    let Ok(policy) = Policy::from_str(&printed) else {
        return false;
    };
    let Ok(reparsed) = policy.to_pst() else {
        return false;
    };
    let again = reparsed.body();
    again.principal == body.principal
        && again.action == body.action
        && again.resource == body.resource
        && again.clauses() == body.clauses()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cedar_policy::{Authorizer, Context, EntityUid};

    /// Syntax that printing must carry through: escapes in strings and `like` patterns,
    /// quoted attribute names, `is` and `in` scopes, extension functions, records and
    /// `if`, `unless`, and a condition that errors on some principals.
    const TRICKY: &str = r#"
@id("escapes")
permit (principal == User::"al\"ice", action == Action::"view", resource in Folder::"f")
when { resource.name like "*re\*port*" };
@id("odd-key")
forbid (principal is User in Group::"g", action in [Action::"view", Action::"edit"], resource is Doc)
unless { context has "odd key" && context["odd key"] == "x\n" };
@id("extensions")
permit (principal, action, resource)
when {
  ip("10.0.0.1").isInRange(ip("10.0.0.0/8")) &&
  decimal("1.5").lessThan(decimal("2.0")) &&
  datetime("2024-10-15").toDate() == datetime("2024-10-15") &&
  resource.tags.containsAny(["a", "b"])
};
@id("errors-without-age")
permit (principal, action == Action::"edit", resource)
when { principal.age > 3 }
unless { resource has secret && resource.secret };
@id("records")
forbid (principal, action, resource == Doc::"locked")
when { { "k": [1, -2, 3] }.k.contains(-2) && !(1 == 2) && (if principal is User then true else false) };
"#;

    const ENTITIES: &str = r#"[
  {"uid": {"type": "User", "id": "al\"ice"}, "attrs": {"age": 30}, "parents": [{"type": "Group", "id": "g"}]},
  {"uid": {"type": "User", "id": "bob"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Group", "id": "g"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Folder", "id": "f"}, "attrs": {}, "parents": []},
  {"uid": {"type": "Doc", "id": "report"}, "attrs": {"name": "my re*port v2", "tags": ["b"]}, "parents": [{"type": "Folder", "id": "f"}]},
  {"uid": {"type": "Doc", "id": "plain"}, "attrs": {"name": "report", "tags": [], "secret": true}, "parents": []},
  {"uid": {"type": "Doc", "id": "locked"}, "attrs": {"name": "x", "tags": ["a"]}, "parents": []}
]"#;

    fn uid(s: &str) -> EntityUid {
        EntityUid::from_str(s).unwrap()
    }

    #[test]
    fn combined_decisions_match_cedars_authorizer() {
        let set = PolicySet::from_str(TRICKY).unwrap();
        let combined = Combined::build(&set, |_| false).expect("every policy converts");
        let entities = Entities::from_json_str(ENTITIES, None).unwrap();
        let principals = [r#"User::"al\"ice""#, r#"User::"bob""#, r#"User::"nobody""#];
        let actions = [r#"Action::"view""#, r#"Action::"edit""#];
        let resources = [r#"Doc::"report""#, r#"Doc::"plain""#, r#"Doc::"locked""#];
        let contexts = [
            Context::empty(),
            Context::from_json_str(r#"{"odd key": "x\n"}"#, None).unwrap(),
        ];
        let (mut decided, mut fell_back, mut allowed, mut forbidden) = (0, 0, 0, 0);
        for p in principals {
            for a in actions {
                for r in resources {
                    for c in &contexts {
                        let request =
                            Request::new(uid(p), uid(a), uid(r), c.clone(), None).unwrap();
                        let cedar = Authorizer::new().is_authorized(&request, &set, &entities);
                        let errored = cedar.diagnostics().errors().next().is_some();
                        // The shared conditions asked of another principal's request
                        // answer for this one too.
                        let at = principals.iter().position(|x| *x == p).unwrap();
                        let other = principals[(at + 1) % principals.len()];
                        let first =
                            Request::new(uid(other), uid(a), uid(r), c.clone(), None).unwrap();
                        let grouped = combined
                            .shared(&first, &entities)
                            .and_then(|shared| combined.decide_with(&shared, &request, &entities));
                        let alone = combined.decide(&request, &entities);
                        assert_eq!(
                            grouped.as_ref().map(|v| (v.allowed, v.reasons.clone())),
                            alone.as_ref().map(|v| (v.allowed, v.reasons.clone())),
                            "{p} {a} {r}: grouped and alone differ"
                        );
                        match alone {
                            Some(verdict) => {
                                assert!(!errored, "{p} {a} {r}: Cedar errored, combined did not");
                                let mut ours: Vec<String> =
                                    verdict.reasons.iter().map(|id| id.to_string()).collect();
                                let mut theirs: Vec<String> = cedar
                                    .diagnostics()
                                    .reason()
                                    .map(|id| id.to_string())
                                    .collect();
                                ours.sort();
                                theirs.sort();
                                assert_eq!(
                                    verdict.allowed,
                                    cedar.decision() == cedar_policy::Decision::Allow,
                                    "{p} {a} {r}"
                                );
                                assert_eq!(ours, theirs, "{p} {a} {r}");
                                decided += 1;
                                allowed += usize::from(verdict.allowed);
                                forbidden +=
                                    usize::from(!verdict.allowed && !verdict.reasons.is_empty());
                            }
                            None => {
                                assert!(errored, "{p} {a} {r}: combined gave up without an error");
                                fell_back += 1;
                            }
                        }
                    }
                }
            }
        }
        // The grid reaches every outcome, so a wrong bit or effect cannot pass.
        assert!(decided > 0 && fell_back > 0 && allowed > 0 && forbidden > 0);
    }

    #[test]
    fn a_set_with_a_template_is_left_to_the_authorizer() {
        let mut set = PolicySet::from_str(TRICKY).unwrap();
        let template = cedar_policy::Template::parse(
            Some(cedar_policy::PolicyId::new("t")),
            "permit (principal == ?principal, action, resource);",
        )
        .unwrap();
        set.add_template(template).unwrap();
        assert!(Combined::build(&set, |_| false).is_none());
    }
}
