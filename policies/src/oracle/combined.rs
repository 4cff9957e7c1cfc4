//! A flow's policy sets asked as a few Cedar expressions instead of one evaluation per
//! policy and request.
//!
//! Cedar's authorizer rebuilds every policy's condition and sets up its evaluator anew
//! for each policy on every request, which is most of what a request costs. Here each
//! static policy's condition (its scope constraints, `when` clauses and negated
//! `unless` clauses, joined with `&&`, which keeps Cedar's short-circuit order) is
//! built once, as Cedar text printed from Cedar's own structured form of the policy and
//! parsed back. Conditions are folded into bit masks,
//! `(if c0 then 1 else 0) + (if c1 then 2 else 0) + …`, so one `eval_expression`
//! tells which of them hold. In a per-action slice every request has the slice's
//! action, so an action scope that surely holds for it (by the schema's action
//! hierarchy, see `slice::surely_matches`) is left out: looking up the action's
//! ancestors for `action in [...]` was half of what a request cost.
//!
//! A flow asks one request of the requester side's set and one `receive` request per
//! recipient of the recipient side's set; all of them share the resource and the
//! context, and the recipients' requests share the action too. So the conditions of
//! both sets are kept once per distinct text, and asked as little as their variables
//! allow (a condition can only depend on the variables it names, and printed Cedar
//! names them `principal` and `action`; the word inside a string only costs the
//! saving):
//! - one that names neither `principal` nor `action` once per flow, for both sides;
//! - the rest once per request, except that a recipient who is also the requester gets
//!   the answers of the requester's request for the conditions both sides have and
//!   that do not name `action`: those two requests differ only in their action.
//!
//! That gives Cedar's decision exactly when no condition raises an error: a forbid that
//! is satisfied denies, otherwise a satisfied permit allows, otherwise the request is
//! denied with no reason. Any error anywhere makes the caller ask Cedar's authorizer
//! for the requests concerned, so that errors, and the policies they skip, are reported
//! by Cedar itself. A set that cannot be built this way (templates, linked policies,
//! printing or parsing trouble) is left to the authorizer entirely.

use cedar_policy::{
    eval_expression, pst, Effect, Entities, EvalResult, Expression, Policy, PolicyId, PolicySet,
    Request,
};
use std::collections::HashMap;
use std::str::FromStr;

/// Conditions per bit mask: keeps every partial sum within a Cedar `Long`.
const POLICIES_PER_MASK: usize = 62;

/// Which request of a flow a policy set answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The requester's own request.
    Requester,
    /// A recipient's request.
    Recipient,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::Requester => 0,
            Side::Recipient => 1,
        }
    }
}

/// The two policy sets of a flow, ready to be asked together.
#[derive(Debug)]
pub(super) struct Combined {
    /// Each side's policies, in set order.
    rules: [Vec<Rule>; 2],
    /// How many distinct conditions the two sides have.
    conditions: usize,
    /// The conditions that name neither `principal` nor `action`: the same for every
    /// request of a flow.
    flow: Mask,
    /// Each side's other conditions, asked per request.
    own: [Mask; 2],
    /// The recipient side's other conditions that the requester's request does not
    /// answer for a recipient who is the requester: those naming `action` and those
    /// the requester side does not have.
    rest: Mask,
}

/// One policy of a side.
#[derive(Debug)]
struct Rule {
    /// Its readable id, computed once (see `Oracle::shown`).
    shown: String,
    effect: Effect,
    /// Index of its condition among the distinct conditions.
    condition: usize,
}

/// Some of the distinct conditions, folded into bit masks.
#[derive(Debug)]
struct Mask {
    /// Indices of the conditions, in the order of their bits.
    members: Vec<usize>,
    /// One expression per run of [`POLICIES_PER_MASK`] members.
    expressions: Vec<Expression>,
}

/// Which distinct conditions hold for a request: one bit per condition, filled in by
/// the masks asked so far.
#[derive(Debug, Clone)]
struct Holding(Vec<u64>);

impl Holding {
    fn none(conditions: usize) -> Holding {
        Holding(vec![0; conditions.div_ceil(64)])
    }

    fn get(&self, i: usize) -> bool {
        self.0
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }

    fn set(&mut self, i: usize, holds: bool) {
        if let Some(word) = self.0.get_mut(i / 64) {
            if holds {
                *word |= 1 << (i % 64);
            } else {
                *word &= !(1 << (i % 64));
            }
        }
    }
}

/// What a flow's shared conditions and its requester's request gave, for its
/// recipients' requests; `None` where a condition raised an error.
#[derive(Debug, Default)]
pub(super) struct Asked {
    flow: Option<Holding>,
    requester: Option<Holding>,
}

/// What a set decided for one request when no condition raised an error.
#[derive(Debug)]
pub(super) struct Verdict<'c> {
    /// Whether the request is allowed.
    pub(super) allowed: bool,
    /// The satisfied policies that decided (forbids on deny, permits on allow), by
    /// readable id.
    pub(super) reasons: Vec<&'c str>,
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

    /// Records in `holding` whether each member holds for `request`; `None` when any
    /// raised an error.
    fn assign(&self, request: &Request, entities: &Entities, holding: &mut Holding) -> Option<()> {
        for (chunk, expression) in self
            .members
            .chunks(POLICIES_PER_MASK)
            .zip(&self.expressions)
        {
            let EvalResult::Long(bits) = eval_expression(request, entities, expression).ok()?
            else {
                return None;
            };
            for (bit, &i) in chunk.iter().enumerate() {
                holding.set(i, bits & (1i64 << bit) != 0);
            }
        }
        Some(())
    }
}

/// The distinct condition texts of a flow's two sets, as they are added.
#[derive(Default)]
struct Conditions {
    texts: Vec<String>,
    index: HashMap<String, usize>,
}

impl Conditions {
    /// The rules of one side; `None` when a policy cannot be rebuilt as an expression.
    fn add_side(
        &mut self,
        set: &PolicySet,
        scope_holds: impl Fn(&Policy) -> bool,
        shown: &impl Fn(&PolicyId) -> String,
    ) -> Option<Vec<Rule>> {
        if set.templates().next().is_some() {
            return None;
        }
        let mut rules = Vec::new();
        for policy in set.policies() {
            let text = condition_text(policy, scope_holds(policy))?;
            let condition = match self.index.get(&text) {
                Some(&i) => i,
                None => {
                    self.texts.push(text.clone());
                    self.index.insert(text, self.texts.len() - 1);
                    self.texts.len() - 1
                }
            };
            rules.push(Rule {
                shown: shown(policy.id()),
                effect: policy.effect(),
                condition,
            });
        }
        Some(rules)
    }
}

/// The distinct conditions of `rules`, in ascending order, that `keep` accepts.
fn members(rules: &[Rule], keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut members: Vec<usize> = rules
        .iter()
        .map(|r| r.condition)
        .filter(|&i| keep(i))
        .collect();
    members.sort_unstable();
    members.dedup();
    members
}

impl Combined {
    /// The combined form of a flow's requester-side and recipient-side sets, or `None`
    /// when any of their policies cannot be rebuilt as an expression. The action scope
    /// of a policy for which a side's `*_holds` says it holds for every request asked
    /// of that side is left out; `shown` gives a policy's readable id.
    pub(super) fn build(
        requester: &PolicySet,
        requester_holds: impl Fn(&Policy) -> bool,
        recipient: &PolicySet,
        recipient_holds: impl Fn(&Policy) -> bool,
        shown: impl Fn(&PolicyId) -> String,
    ) -> Option<Combined> {
        let mut conditions = Conditions::default();
        let requester_rules = conditions.add_side(requester, requester_holds, &shown)?;
        let recipient_rules = conditions.add_side(recipient, recipient_holds, &shown)?;
        let texts = conditions.texts;
        let names = |i: usize, word: &str| texts[i].contains(word);
        let per_flow = |i: usize| !names(i, "principal") && !names(i, "action");
        let flow: Vec<usize> = (0..texts.len()).filter(|&i| per_flow(i)).collect();
        let requester_own = members(&requester_rules, |i| !per_flow(i));
        let recipient_own = members(&recipient_rules, |i| !per_flow(i));
        // What the requester's request answered for a condition that does not name
        // `action` also holds for the same principal's recipient request.
        let rest = members(&recipient_rules, |i| {
            !per_flow(i) && (names(i, "action") || requester_own.binary_search(&i).is_err())
        });
        Some(Combined {
            flow: Mask::build(flow, &texts)?,
            own: [
                Mask::build(requester_own, &texts)?,
                Mask::build(recipient_own, &texts)?,
            ],
            rest: Mask::build(rest, &texts)?,
            rules: [requester_rules, recipient_rules],
            conditions: texts.len(),
        })
    }

    /// Asks the conditions shared by every request of a flow, and the requester's own
    /// ones, of the requester's `request`: Cedar's decision for it (`None` when a
    /// condition raised an error) and what the recipients' requests reuse.
    pub(super) fn ask_requester(
        &self,
        request: &Request,
        entities: &Entities,
    ) -> (Option<Verdict<'_>>, Asked) {
        let mut flow = Holding::none(self.conditions);
        if self.flow.assign(request, entities, &mut flow).is_none() {
            return (None, Asked::default());
        }
        let mut requester = flow.clone();
        let requester = self.own[Side::Requester.index()]
            .assign(request, entities, &mut requester)
            .map(|()| requester);
        let verdict = requester
            .as_ref()
            .map(|holding| self.verdict(Side::Requester, holding));
        (
            verdict,
            Asked {
                flow: Some(flow),
                requester,
            },
        )
    }

    /// Cedar's decision for a recipient's `request` in the flow `asked` came from
    /// (`None` when a condition raised an error); `is_requester` when its principal is
    /// the requester's.
    pub(super) fn ask_recipient(
        &self,
        asked: &Asked,
        is_requester: bool,
        request: &Request,
        entities: &Entities,
    ) -> Option<Verdict<'_>> {
        let holding = match (&asked.requester, is_requester) {
            (Some(requester), true) => {
                let mut holding = requester.clone();
                self.rest.assign(request, entities, &mut holding)?;
                holding
            }
            _ => {
                let mut holding = asked.flow.clone()?;
                self.own[Side::Recipient.index()].assign(request, entities, &mut holding)?;
                holding
            }
        };
        Some(self.verdict(Side::Recipient, &holding))
    }

    /// Cedar's decision for a request of `side` of which `holding` tells every
    /// condition.
    fn verdict(&self, side: Side, holding: &Holding) -> Verdict<'_> {
        let rules = &self.rules[side.index()];
        let holds = |rule: &&Rule| holding.get(rule.condition);
        let forbid = |rule: &&Rule| rule.effect == Effect::Forbid;
        let deciding: Vec<&Rule> = if rules.iter().filter(holds).any(|r| forbid(&r)) {
            rules.iter().filter(holds).filter(forbid).collect()
        } else {
            rules.iter().filter(holds).collect()
        };
        Verdict {
            allowed: !deciding.is_empty() && !deciding.iter().any(forbid),
            reasons: deciding.iter().map(|r| r.shown.as_str()).collect(),
        }
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
mod tests;
