//! The policy sets the checks compare: a file strictly validated, the domain
//! assumptions added to a set, and the oracle's reading of `read`.

use crate::check::{check_source, EmptyPolicy};
use crate::error::PolicyError;
use cedar_policy::{Policy, PolicyId, PolicySet, Schema};
use serde_json::{json, Value};
use std::path::Path;

/// The domain assumptions (`policies/assumptions.cedar`).
pub const ASSUMPTIONS_SOURCE: &str = include_str!("../../assumptions.cedar");

/// The assumptions file as shown in messages.
const ASSUMPTIONS_NAME: &str = "assumptions.cedar";

/// The text of the domain assumptions, for `--show-assumptions` and docs.
pub fn assumptions_source() -> &'static str {
    ASSUMPTIONS_SOURCE
}

/// Parses `src` and validates it strictly against `schema`, as `cosec policy check`
/// does; every problem is reported under `name`.
pub(super) fn load(name: &str, src: &str, schema: &Schema) -> Result<PolicySet, PolicyError> {
    let (pset, diagnostics) = check_source(Path::new(name), src, schema, EmptyPolicy::Refuse);
    match pset {
        Some(pset) if diagnostics.is_empty() => Ok(pset),
        _ => Err(PolicyError::InvalidPolicies {
            file: name.to_owned(),
            diagnostics,
        }),
    }
}

/// `pset` with every domain assumption added, each under an id no parsed file uses
/// (Cedar numbers parsed policies `policy0`, `policy1`, ...).
pub(super) fn with_assumptions(
    pset: &PolicySet,
    schema: &Schema,
) -> Result<PolicySet, PolicyError> {
    let assumptions = load(ASSUMPTIONS_NAME, ASSUMPTIONS_SOURCE, schema)?;
    let mut out = pset.clone();
    for p in assumptions.policies() {
        let label = p.annotation("id").unwrap_or("unnamed").to_owned();
        let renamed = p.new_id(PolicyId::new(format!("assumption:{label}")));
        out.add(renamed)
            .map_err(|e| PolicyError::cedar("assumption policy", e))?;
    }
    Ok(out)
}

/// The oracle's reading of `read`: a policy that decides `disclose` (alone or through
/// the `egress` group) decides `read` too.
///
/// CoSec's truth for a read is the oracle's answer to disclosing the object to the
/// same destination at the same time (`evaluate/read.rs`), and the oracle itself has no
/// `read` rule. Rewriting the action scope on Cedar's JSON form of each policy keeps
/// every condition exactly as written, so the variant cannot drift from the oracle.
pub fn with_read_as_egress(pset: &PolicySet) -> Result<PolicySet, PolicyError> {
    let mut out = PolicySet::new();
    for p in pset.policies() {
        let mut body = p
            .to_json()
            .map_err(|e| PolicyError::cedar("policy JSON", e))?;
        if let Some(scope) = body.get_mut("action") {
            widen_to_read(scope);
        }
        let policy = Policy::from_json(Some(p.id().clone()), body)
            .map_err(|e| PolicyError::cedar("policy from JSON", e))?;
        out.add(policy)
            .map_err(|e| PolicyError::cedar("policy set", e))?;
    }
    Ok(out)
}

fn action(id: &str) -> Value {
    json!({ "type": "Action", "id": id })
}

fn names_disclose(entity: &Value) -> bool {
    entity.get("type").and_then(Value::as_str) == Some("Action")
        && matches!(
            entity.get("id").and_then(Value::as_str),
            Some("egress" | "disclose")
        )
}

/// Adds `Action::"read"` to an action scope that covers `disclose`.
fn widen_to_read(scope: &mut Value) {
    let op = scope.get("op").and_then(Value::as_str).unwrap_or_default();
    let mut entities: Vec<Value> = match (op, scope.get("entity"), scope.get("entities")) {
        ("in" | "==", Some(one), _) => vec![one.clone()],
        ("in", None, Some(Value::Array(many))) => many.clone(),
        _ => return,
    };
    if !entities.iter().any(names_disclose) || entities.contains(&action("read")) {
        return;
    }
    entities.push(action("read"));
    *scope = json!({ "op": "in", "entities": entities });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::builtin_schema;
    use crate::schema::ORACLE_SOURCE;

    #[test]
    fn assumptions_validate_strictly() {
        let schema = builtin_schema().unwrap();
        let set = load(ASSUMPTIONS_NAME, ASSUMPTIONS_SOURCE, &schema).unwrap();
        assert!(set.policies().count() >= 7);
        assert!(set
            .policies()
            .all(|p| p.effect() == cedar_policy::Effect::Forbid));
    }

    #[test]
    fn assumptions_join_any_file_without_id_clashes() {
        let schema = builtin_schema().unwrap();
        let oracle = load("oracle.cedar", ORACLE_SOURCE, &schema).unwrap();
        let joined = with_assumptions(&oracle, &schema).unwrap();
        let n = load(ASSUMPTIONS_NAME, ASSUMPTIONS_SOURCE, &schema)
            .unwrap()
            .policies()
            .count();
        assert_eq!(joined.policies().count(), oracle.policies().count() + n);
    }

    #[test]
    fn read_variant_widens_exactly_the_egress_policies() {
        let schema = builtin_schema().unwrap();
        let oracle = load("oracle.cedar", ORACLE_SOURCE, &schema).unwrap();
        let variant = with_read_as_egress(&oracle).unwrap();
        assert_eq!(variant.policies().count(), oracle.policies().count());
        for p in variant.policies() {
            let text = p.to_string();
            let original = oracle.policy(p.id()).unwrap().to_string();
            if original.contains("Action::\"egress\"") {
                assert!(text.contains("Action::\"read\""), "{text}");
            } else {
                assert!(!text.contains("Action::\"read\""), "{text}");
            }
            // Conditions are untouched.
            let json = |p: &Policy| p.to_json().unwrap()["conditions"].clone();
            assert_eq!(json(p), json(oracle.policy(p.id()).unwrap()));
        }
    }

    #[test]
    fn widening_handles_single_and_equality_scopes() {
        let mut one = json!({"op": "==", "entity": action("disclose")});
        widen_to_read(&mut one);
        assert_eq!(one["entities"].as_array().map(Vec::len), Some(2));
        let mut receive = json!({"op": "==", "entity": action("receive")});
        let before = receive.clone();
        widen_to_read(&mut receive);
        assert_eq!(receive, before);
        let mut all = json!({"op": "All"});
        widen_to_read(&mut all);
        assert_eq!(all, json!({"op": "All"}));
    }
}
