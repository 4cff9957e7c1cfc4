//! The JSON shape of the agent and platform tiers around their event chains.
//!
//! In memory a tier holds its events (and their notices) as one list in time order. On
//! the wire, zero or one event keeps the singular key every frozen scenario has
//! (`"event": null` or one object, likewise `"event_notice"`), so those files stay
//! byte-identical; a chain of two or more is written under the plural key (`"events"`,
//! `"event_notices"`) in the same position. Reading accepts either key, never both.

use crate::agent::{
    AgentTier, CommunityInfo, EventNotice, Person, Seed, SeededTool, Turn, WorkflowInfo,
};
use crate::ids::{CommunityId, UserId};
use crate::platform::{
    Grant, Membership, ObjectLabel, PlatformTier, Relation, RoleAssignment, ScheduledEvent,
    WorkflowRoute,
};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// A tier names its event chain under both the singular and the plural key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("both `{singular}` and `{plural}` are present: write one event as `{singular}` or a chain of two or more as `{plural}`, not both")]
pub struct BothKeys {
    /// The singular key, e.g. `event`.
    pub singular: &'static str,
    /// The plural key, e.g. `events`.
    pub plural: &'static str,
}

/// Reads a present key as `Some` (so `null` is `Some(None)` and an absent key `None`).
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Joins the singular and plural forms into one list.
fn read_chain<T>(
    single: Option<Option<T>>,
    chain: Option<Vec<T>>,
    keys: BothKeys,
) -> Result<Vec<T>, BothKeys> {
    match (single, chain) {
        (Some(_), Some(_)) => Err(keys),
        (Some(one), None) => Ok(one.into_iter().collect()),
        (None, Some(all)) => Ok(all),
        (None, None) => Ok(Vec::new()),
    }
}

/// Splits one list into the singular form (zero or one item) or the plural (two or more).
fn write_chain<T>(mut items: Vec<T>) -> (Option<Option<T>>, Option<Vec<T>>) {
    if items.len() >= 2 {
        (None, Some(items))
    } else {
        (Some(items.pop()), None)
    }
}

/// The JSON object of an [`AgentTier`], field for field in file order.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentWire {
    target_user: UserId,
    people: Vec<Person>,
    communities: Vec<CommunityInfo>,
    seeds: Vec<Seed>,
    #[serde(default)]
    tools: Vec<SeededTool>,
    #[serde(default)]
    workflows: Vec<WorkflowInfo>,
    turns: Vec<Turn>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    event_notice: Option<Option<EventNotice>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event_notices: Option<Vec<EventNotice>>,
}

impl TryFrom<AgentWire> for AgentTier {
    type Error = BothKeys;

    fn try_from(w: AgentWire) -> Result<Self, BothKeys> {
        let keys = BothKeys {
            singular: "event_notice",
            plural: "event_notices",
        };
        Ok(AgentTier {
            target_user: w.target_user,
            people: w.people,
            communities: w.communities,
            seeds: w.seeds,
            tools: w.tools,
            workflows: w.workflows,
            turns: w.turns,
            event_notices: read_chain(w.event_notice, w.event_notices, keys)?,
        })
    }
}

impl From<AgentTier> for AgentWire {
    fn from(a: AgentTier) -> Self {
        let (event_notice, event_notices) = write_chain(a.event_notices);
        AgentWire {
            target_user: a.target_user,
            people: a.people,
            communities: a.communities,
            seeds: a.seeds,
            tools: a.tools,
            workflows: a.workflows,
            turns: a.turns,
            event_notice,
            event_notices,
        }
    }
}

/// The JSON object of a [`PlatformTier`], field for field in file order.
#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlatformWire {
    users: Vec<UserId>,
    communities: Vec<CommunityId>,
    memberships: Vec<Membership>,
    #[serde(default)]
    roles: Vec<RoleAssignment>,
    #[serde(default)]
    relations: Vec<Relation>,
    labels: Vec<ObjectLabel>,
    #[serde(default)]
    grants: Vec<Grant>,
    #[serde(default)]
    workflow_routes: Vec<WorkflowRoute>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    event: Option<Option<ScheduledEvent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    events: Option<Vec<ScheduledEvent>>,
}

impl TryFrom<PlatformWire> for PlatformTier {
    type Error = BothKeys;

    fn try_from(w: PlatformWire) -> Result<Self, BothKeys> {
        let keys = BothKeys {
            singular: "event",
            plural: "events",
        };
        Ok(PlatformTier {
            users: w.users,
            communities: w.communities,
            memberships: w.memberships,
            roles: w.roles,
            relations: w.relations,
            labels: w.labels,
            grants: w.grants,
            workflow_routes: w.workflow_routes,
            events: read_chain(w.event, w.events, keys)?,
        })
    }
}

impl From<PlatformTier> for PlatformWire {
    fn from(p: PlatformTier) -> Self {
        let (event, events) = write_chain(p.events);
        PlatformWire {
            users: p.users,
            communities: p.communities,
            memberships: p.memberships,
            roles: p.roles,
            relations: p.relations,
            labels: p.labels,
            grants: p.grants,
            workflow_routes: p.workflow_routes,
            event,
            events,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::platform::{CommunityEvent, PlatformTier, ScheduledEvent};
    use serde_json::{json, Value};

    fn platform(events: Vec<ScheduledEvent>) -> PlatformTier {
        PlatformTier {
            users: vec!["ann".into()],
            communities: vec!["club".into()],
            memberships: Vec::new(),
            roles: Vec::new(),
            relations: Vec::new(),
            labels: Vec::new(),
            grants: Vec::new(),
            workflow_routes: Vec::new(),
            events,
        }
    }

    fn joins(after_turn: u8) -> ScheduledEvent {
        ScheduledEvent {
            after_turn,
            change: CommunityEvent::MemberJoin {
                user: "ann".into(),
                community: "club".into(),
            },
        }
    }

    /// The position of `"key":` in serialized text (the file's field order).
    fn at(text: &str, key: &str) -> Option<usize> {
        text.find(&format!("\"{key}\":"))
    }

    #[test]
    fn zero_or_one_event_keeps_the_singular_key_in_last_place() {
        let none = serde_json::to_string(&platform(Vec::new())).unwrap();
        assert!(none.ends_with(r#","event":null}"#), "{none}");
        let one = serde_json::to_value(platform(vec![joins(3)])).unwrap();
        assert_eq!(one["event"]["after_turn"], 3);
        assert!(one.get("events").is_none());
    }

    #[test]
    fn a_chain_uses_the_plural_key_and_reads_back() {
        let tier = platform(vec![joins(2), joins(5)]);
        let text = serde_json::to_string(&tier).unwrap();
        assert!(at(&text, "workflow_routes") < at(&text, "events"), "{text}");
        assert_eq!(at(&text, "event"), None);
        let v: Value = serde_json::from_str(&text).unwrap();
        let back: PlatformTier = serde_json::from_value(v).unwrap();
        assert_eq!(back, tier);
    }

    #[test]
    fn a_missing_key_or_a_plural_list_of_one_read_as_a_list() {
        let mut v = serde_json::to_value(platform(Vec::new())).unwrap();
        if let Some(o) = v.as_object_mut() {
            o.remove("event");
        }
        let read: PlatformTier = serde_json::from_value(v.clone()).unwrap();
        assert!(read.events.is_empty());
        v["events"] = json!([{"after_turn": 4, "change": {"kind": "member_join", "user": "ann", "community": "club"}}]);
        let read: PlatformTier = serde_json::from_value(v).unwrap();
        assert_eq!(read.events, vec![joins(4)]);
    }

    #[test]
    fn both_keys_are_refused_by_name() {
        let mut v = serde_json::to_value(platform(vec![joins(3)])).unwrap();
        v["events"] = json!([]);
        let err = serde_json::from_value::<PlatformTier>(v)
            .unwrap_err()
            .to_string();
        assert!(err.contains("both `event` and `events`"), "{err}");
    }

    #[test]
    fn an_unknown_key_is_still_refused() {
        let mut v = serde_json::to_value(platform(Vec::new())).unwrap();
        v["evnts"] = json!([]);
        assert!(serde_json::from_value::<PlatformTier>(v).is_err());
    }
}
