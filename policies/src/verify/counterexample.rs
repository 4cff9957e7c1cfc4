//! A counterexample as the researcher sees it: the request, the entity store in
//! Cedar's JSON form, the concrete decisions that confirm it, and the situation in
//! plain words.

use cedar_policy::{Authorizer, Decision, Entities, PolicySet, Request};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A synthesised request and entity store on which a property fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counterexample {
    /// The principal, e.g. `User::"A"`.
    pub principal: String,
    /// The action's id, e.g. `disclose`.
    pub action: String,
    /// The resource, e.g. `DataObject::""`.
    pub resource: String,
    /// The request context in Cedar's JSON form.
    pub context: Value,
    /// The entity store in Cedar's JSON entity format.
    pub entities: Value,
    /// Each compared policy set's concrete decision on it.
    pub replay: Vec<Replay>,
    /// The situation in plain words, one line per fact.
    pub words: Vec<String>,
}

/// One policy set's concrete decision on a counterexample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replay {
    /// Which set (a file name, `oracle`, ...).
    pub policies: String,
    /// Whether Cedar's concrete authorizer allows the request.
    pub allowed: bool,
    /// The `@id`s of the policies that decided.
    pub reasons: Vec<String>,
    /// Evaluation errors, if any.
    pub errors: Vec<String>,
}

/// Asks Cedar's concrete authorizer each of `sets` about `request` over `entities`.
pub(super) fn replay(
    request: &Request,
    entities: &Entities,
    sets: &[(&str, &PolicySet)],
) -> Vec<Replay> {
    let authorizer = Authorizer::new();
    sets.iter()
        .map(|(name, pset)| {
            let response = authorizer.is_authorized(request, pset, entities);
            let mut reasons: Vec<String> = response
                .diagnostics()
                .reason()
                .map(|id| crate::check::display_id(pset, id))
                .collect();
            reasons.sort();
            Replay {
                policies: (*name).to_owned(),
                allowed: response.decision() == Decision::Allow,
                reasons,
                errors: response
                    .diagnostics()
                    .errors()
                    .map(|e| e.to_string())
                    .collect(),
            }
        })
        .collect()
}

/// Builds the counterexample record of a solver model already replayed.
pub(super) fn record(
    request: &Request,
    entities: &Entities,
    replay: Vec<Replay>,
) -> Result<Counterexample, String> {
    let uid = |u: Option<&cedar_policy::EntityUid>| u.map(ToString::to_string).unwrap_or_default();
    let action = request
        .action()
        .map(|a| a.id().unescaped().to_owned())
        .unwrap_or_default();
    let context = match request.context() {
        Some(c) => c.to_json_value().map_err(|e| e.to_string())?,
        None => Value::Null,
    };
    let entities = entities.to_json_value().map_err(|e| e.to_string())?;
    let mut cex = Counterexample {
        principal: uid(request.principal()),
        action,
        resource: uid(request.resource()),
        context,
        entities,
        replay,
        words: Vec::new(),
    };
    cex.words = describe(&cex);
    Ok(cex)
}

/// An entity reference in Cedar JSON (`{"__entity": {type, id}}` or `{type, id}`) as
/// `Type::"id"`.
pub(super) fn entity_ref(v: &Value) -> Option<String> {
    let inner = v.get("__entity").unwrap_or(v);
    let ty = inner.get("type")?.as_str()?;
    let id = inner.get("id")?.as_str()?;
    Some(format!("{ty}::{}", Value::from(id)))
}

/// The entity store of a counterexample, by uid.
pub(super) struct Store<'a> {
    entities: BTreeMap<String, &'a Value>,
}

impl<'a> Store<'a> {
    /// Indexes Cedar's JSON entity list.
    pub(super) fn new(entities: &'a Value) -> Self {
        let entities = entities
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|e| Some((entity_ref(e.get("uid")?)?, e)))
                    .collect()
            })
            .unwrap_or_default();
        Store { entities }
    }

    /// The uids of one entity type, in order.
    pub(super) fn of_type(&self, ty: &str) -> Vec<String> {
        let prefix = format!("{ty}::");
        self.entities
            .keys()
            .filter(|k| k.starts_with(&prefix))
            .cloned()
            .collect()
    }

    /// An attribute of an entity.
    pub(super) fn attr(&self, uid: &str, name: &str) -> Option<&'a Value> {
        self.entities.get(uid)?.get("attrs")?.get(name)
    }

    /// An entity-valued attribute.
    pub(super) fn attr_ref(&self, uid: &str, name: &str) -> Option<String> {
        self.attr(uid, name).and_then(entity_ref)
    }

    /// A set-of-entities attribute (empty when absent).
    pub(super) fn attr_refs(&self, uid: &str, name: &str) -> Vec<String> {
        self.attr(uid, name)
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(entity_ref).collect())
            .unwrap_or_default()
    }

    /// A boolean attribute (false when absent).
    pub(super) fn flag(&self, uid: &str, name: &str) -> bool {
        self.attr(uid, name)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// A string attribute (empty when absent).
    pub(super) fn text(&self, uid: &str, name: &str) -> String {
        self.attr(uid, name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    /// Direct parents of an entity.
    pub(super) fn parents(&self, uid: &str) -> Vec<String> {
        self.entities
            .get(uid)
            .and_then(|e| e.get("parents"))
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(entity_ref).collect())
            .unwrap_or_default()
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nobody/nothing".to_owned()
    } else {
        items.join(", ")
    }
}

/// The situation of a counterexample in plain words.
pub(super) fn describe(cex: &Counterexample) -> Vec<String> {
    let store = Store::new(&cex.entities);
    let ctx = |k: &str| cex.context.get(k).and_then(entity_ref).unwrap_or_default();
    let destination = ctx("destination");
    let requester = ctx("requester");
    let time = cex
        .context
        .get("time")
        .and_then(Value::as_i64)
        .unwrap_or_default();
    let object = &cex.resource;
    let mut words = Vec::new();
    words.push(if cex.action == "receive" {
        format!(
            "request: {} would receive {object} delivered to {destination}, which {requester} asked for, at time {time}",
            cex.principal
        )
    } else {
        format!(
            "request: {} (requester {requester}) asks to {} {object} to {destination}, at time {time}",
            cex.principal, cex.action
        )
    });
    let sensitivity: Vec<String> = store
        .attr(object, "sensitivity")
        .and_then(Value::as_array)
        .map(|l| {
            l.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut label = format!(
        "object {object}: owner {}, source {}, audience \"{}\", sensitivity [{}], {}; meant at creation for {}; grants in force to {}",
        store.attr_ref(object, "owner").unwrap_or_default(),
        store.attr_ref(object, "source").unwrap_or_default(),
        store.text(object, "audience"),
        sensitivity.join(", "),
        if store.flag(object, "public") { "public" } else { "not public" },
        list(&store.attr_refs(object, "intended")),
        list(&store.attr_refs(object, "grantees")),
    );
    if let Some(role) = store.attr_ref(object, "required_role") {
        label.push_str(&format!(
            "; role-gated to {role} (\"{}\" of {})",
            store.text(&role, "name"),
            store.attr_ref(&role, "community").unwrap_or_default()
        ));
    }
    words.push(label);
    let mut dest = format!(
        "destination {destination}: kind \"{}\", delivers to \"{}\"",
        store.text(&destination, "kind"),
        store.text(&destination, "delivers_to")
    );
    if let Some(c) = store.attr_ref(&destination, "community") {
        dest.push_str(&format!(", in community {c}"));
    }
    if let Some(p) = store.attr_ref(&destination, "person") {
        dest.push_str(&format!(", to person {p}"));
    }
    words.push(dest);
    for user in store.of_type("User") {
        let parents = store.parents(&user);
        let communities: Vec<String> = parents
            .iter()
            .filter(|p| p.starts_with("Community::"))
            .cloned()
            .collect();
        let roles: Vec<String> = parents
            .iter()
            .filter(|p| p.starts_with("Role::"))
            .map(|r| {
                format!(
                    "{r} (\"{}\" of {})",
                    store.text(r, "name"),
                    store.attr_ref(r, "community").unwrap_or_default()
                )
            })
            .collect();
        words.push(format!(
            "{user}: member of {}; holds roles {}",
            list(&communities),
            list(&roles)
        ));
    }
    for community in store.of_type("Community") {
        let mut line = format!(
            "{community}: {}",
            if store.flag(&community, "active") {
                "active"
            } else {
                "closed or not yet created"
            }
        );
        for (attr, what) in [
            ("partners", "partnership of"),
            ("merged_from", "merged from"),
            ("split_from", "split from"),
        ] {
            let refs = store.attr_refs(&community, attr);
            if !refs.is_empty() {
                line.push_str(&format!("; {what} {}", refs.join(", ")));
            }
        }
        words.push(line);
    }
    for r in &cex.replay {
        let mut line = format!(
            "{}: {}",
            r.policies,
            if r.allowed { "ALLOWS" } else { "denies" }
        );
        if r.reasons.is_empty() {
            line.push_str(" (no permit applies)");
        } else {
            line.push_str(&format!(" (by {})", r.reasons.join(", ")));
        }
        if !r.errors.is_empty() {
            line.push_str(&format!("; errors: {}", r.errors.join("; ")));
        }
        words.push(line);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Counterexample {
        let ent = |ty: &str, id: &str| json!({"__entity": {"type": ty, "id": id}});
        Counterexample {
            principal: "User::\"A\"".into(),
            action: "disclose".into(),
            resource: "DataObject::\"\"".into(),
            context: json!({"destination": ent("Destination", "d"), "requester": ent("User", "A"), "time": 5}),
            entities: json!([
                {"uid": {"type": "User", "id": "A"}, "attrs": {}, "parents": [{"type": "Community", "id": "c"}]},
                {"uid": {"type": "User", "id": "B"}, "attrs": {}, "parents": []},
                {"uid": {"type": "Community", "id": "c"}, "attrs": {"active": true, "partners": [], "merged_from": [], "split_from": [], "partnership": false}, "parents": []},
                {"uid": {"type": "DataObject", "id": ""}, "attrs": {
                    "owner": ent("User", "B"), "source": ent("Community", "c"), "created_at": 1,
                    "sensitivity": ["health"], "audience": "users", "public": false,
                    "intended": [ent("User", "A"), ent("User", "B")], "grantees": []}, "parents": []},
                {"uid": {"type": "Destination", "id": "d"}, "attrs": {"kind": "community", "delivers_to": "community", "community": ent("Community", "c")}, "parents": []}
            ]),
            replay: vec![
                Replay {
                    policies: "loose.cedar".into(),
                    allowed: true,
                    reasons: vec!["loose-rule".into()],
                    errors: vec![],
                },
                Replay {
                    policies: "oracle".into(),
                    allowed: false,
                    reasons: vec![],
                    errors: vec![],
                },
            ],
            words: vec![],
        }
    }

    #[test]
    fn describes_who_what_where_and_the_decisions() {
        let words = describe(&sample()).join("\n");
        assert!(words.contains("User::\"A\" (requester User::\"A\") asks to disclose DataObject::\"\" to Destination::\"d\""), "{words}");
        assert!(words.contains("owner User::\"B\", source Community::\"c\", audience \"users\", sensitivity [health]"), "{words}");
        assert!(
            words.contains("meant at creation for User::\"A\", User::\"B\""),
            "{words}"
        );
        assert!(words.contains("in community Community::\"c\""), "{words}");
        assert!(
            words.contains("User::\"A\": member of Community::\"c\""),
            "{words}"
        );
        assert!(
            words.contains("User::\"B\": member of nobody/nothing"),
            "{words}"
        );
        assert!(
            words.contains("loose.cedar: ALLOWS (by loose-rule)"),
            "{words}"
        );
        assert!(
            words.contains("oracle: denies (no permit applies)"),
            "{words}"
        );
    }

    #[test]
    fn entity_references_read_both_json_forms() {
        assert_eq!(
            entity_ref(&json!({"type": "User", "id": ""})).unwrap(),
            "User::\"\""
        );
        assert_eq!(
            entity_ref(&json!({"__entity": {"type": "User", "id": "a\"b"}})).unwrap(),
            "User::\"a\\\"b\""
        );
    }
}
