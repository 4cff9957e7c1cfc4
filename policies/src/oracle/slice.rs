//! The policy set cut down, per action, to the policies whose action scope can match it.
//!
//! Cedar evaluates every policy of the set on every request, and most of that cost is
//! rebuilding each policy's condition. A policy whose action scope does not match the
//! request's action is false whatever the rest says (the scope is a conjunction, and
//! neither a principal nor an action scope constraint can raise an error), so it never
//! shows up in a decision, its reasons or its errors: leaving it out changes nothing.
//! Whether a scope matches depends only on the schema's action hierarchy, the one every
//! entity set the oracle builds carries. Any doubt keeps the full set.

use cedar_policy::{ActionConstraint, Entities, EntityUid, PolicySet, Schema};
use std::collections::HashMap;

/// For every action of the schema, the policies that can apply to it, in their order
/// in the full set; empty when the set cannot be sliced safely (templates).
pub(super) fn by_action(policies: &PolicySet, schema: &Schema) -> HashMap<EntityUid, PolicySet> {
    let Ok(hierarchy) = schema.action_entities() else {
        return HashMap::new();
    };
    if policies.templates().next().is_some() || policies.policies().any(|p| !p.is_static()) {
        return HashMap::new();
    }
    let mut slices = HashMap::new();
    for action in schema.actions() {
        let mut slice = PolicySet::new();
        for policy in policies.policies() {
            if may_match(&policy.action_constraint(), action, &hierarchy)
                && slice.add(policy.clone()).is_err()
            {
                return HashMap::new();
            }
        }
        slices.insert(action.clone(), slice);
    }
    slices
}

/// Whether `action` can satisfy the scope constraint: `action in X` holds when the
/// action is X or X is one of its ancestors.
fn may_match(constraint: &ActionConstraint, action: &EntityUid, hierarchy: &Entities) -> bool {
    let within = |group: &EntityUid| {
        group == action
            || hierarchy
                .ancestors(action)
                .is_none_or(|mut ancestors| ancestors.any(|a| a == group))
    };
    match constraint {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(only) => only == action,
        ActionConstraint::In(groups) => groups.iter().any(within),
    }
}

/// Whether `action` surely satisfies the scope constraint, so that a request for it
/// can skip evaluating the scope: unlike [`may_match`], an action whose ancestors the
/// hierarchy does not list only matches itself or an `Any` scope.
pub(super) fn surely_matches(
    constraint: &ActionConstraint,
    action: &EntityUid,
    hierarchy: &Entities,
) -> bool {
    let within = |group: &EntityUid| {
        group == action
            || hierarchy
                .ancestors(action)
                .is_some_and(|mut ancestors| ancestors.any(|a| a == group))
    };
    match constraint {
        ActionConstraint::Any => true,
        ActionConstraint::Eq(only) => only == action,
        ActionConstraint::In(groups) => groups.iter().any(within),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_source;
    use crate::schema::{action_uid, parse_schema, receive_uid, SCHEMA_SOURCE};
    use cosec_scenarios::Action;
    use std::path::Path;

    fn sliced(src: &str) -> HashMap<EntityUid, PolicySet> {
        let schema = parse_schema("schema", SCHEMA_SOURCE).unwrap();
        let (pset, diagnostics) = check_source(Path::new("t.cedar"), src, &schema);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        by_action(&pset.unwrap(), &schema)
    }

    fn ids(set: &PolicySet) -> Vec<String> {
        set.policies().map(|p| p.id().to_string()).collect()
    }

    #[test]
    fn a_group_scope_matches_its_member_actions_and_an_exact_scope_only_itself() {
        let slices = sliced(
            r#"
            @id("any") permit (principal, action, resource);
            @id("egress") permit (principal, action in [Action::"egress"], resource);
            @id("receive") forbid (principal, action == Action::"receive", resource);
            @id("send-or-receive") permit (principal,
                action in [Action::"send", Action::"receive"], resource);
            "#,
        );
        let disclose = &slices[&action_uid(Action::Disclose).unwrap()];
        assert_eq!(ids(disclose), ["policy0", "policy1"]);
        let send = &slices[&action_uid(Action::Send).unwrap()];
        assert_eq!(ids(send), ["policy0", "policy1", "policy3"]);
        let receive = &slices[&receive_uid().unwrap()];
        assert_eq!(ids(receive), ["policy0", "policy2", "policy3"]);
    }

    #[test]
    fn a_scope_surely_matches_only_through_a_known_hierarchy() {
        let schema = parse_schema("schema", SCHEMA_SOURCE).unwrap();
        let hierarchy = schema.action_entities().unwrap();
        let send = action_uid(Action::Send).unwrap();
        let receive = receive_uid().unwrap();
        let egress: EntityUid = r#"Action::"egress""#.parse().unwrap();
        let in_egress = ActionConstraint::In(vec![egress.clone()]);
        assert!(surely_matches(&in_egress, &send, &hierarchy));
        assert!(!surely_matches(&in_egress, &receive, &hierarchy));
        assert!(surely_matches(
            &ActionConstraint::Eq(receive.clone()),
            &receive,
            &hierarchy
        ));
        assert!(!surely_matches(
            &ActionConstraint::Eq(send.clone()),
            &receive,
            &hierarchy
        ));
        assert!(surely_matches(&ActionConstraint::Any, &receive, &hierarchy));
        // An action the hierarchy does not know may belong to any group as far as
        // slicing can tell, but surely matches only itself.
        let unknown: EntityUid = r#"Action::"not-in-schema""#.parse().unwrap();
        assert!(may_match(&in_egress, &unknown, &hierarchy));
        assert!(!surely_matches(&in_egress, &unknown, &hierarchy));
    }

    #[test]
    fn a_set_with_templates_is_not_sliced() {
        let slices = sliced(
            r#"
            permit (principal == ?principal, action == Action::"receive", resource);
            permit (principal, action == Action::"send", resource);
            "#,
        );
        assert!(slices.is_empty());
    }
}
