//! The embedded Cedar schema and oracle policy, schema loading, and the entity ids
//! every other module (and the guard) uses to name things in Cedar.

use crate::error::PolicyError;
use cedar_policy::{EntityId, EntityTypeName, EntityUid, Schema};
use cosec_scenarios::agent::Namespace;
use cosec_scenarios::{Action, CommunityId, Destination, ObjectId, RoleName, UserId};
use std::str::FromStr;
use std::sync::OnceLock;

/// The built-in Cedar schema (human-readable format), the default for `--schema`.
pub const SCHEMA_SOURCE: &str = include_str!("../cosec.cedarschema");

/// The hidden oracle policy.
pub const ORACLE_SOURCE: &str = include_str!("../oracle.cedar");

/// File name reported in diagnostics about the built-in oracle policy.
pub const ORACLE_FILE_NAME: &str = "oracle.cedar";

/// Cedar entity type of people.
pub const USER_TYPE: &str = "User";
/// Cedar entity type of communities, merged/split communities and partnership spaces.
pub const COMMUNITY_TYPE: &str = "Community";
/// Cedar entity type of per-community roles.
pub const ROLE_TYPE: &str = "Role";
/// Cedar entity type of labeled data objects.
pub const OBJECT_TYPE: &str = "DataObject";
/// Cedar entity type of delivery destinations.
pub const DESTINATION_TYPE: &str = "Destination";
/// Cedar entity type of actions.
const ACTION_TYPE: &str = "Action";
/// Cedar action asked for every recipient of a flow.
pub const RECEIVE_ACTION: &str = "receive";

/// Parses a Cedar schema in the human-readable format; `name` only labels errors.
pub fn parse_schema(name: &str, src: &str) -> Result<Schema, PolicyError> {
    // Schema warnings (shadowed names and the like) do not make a schema unusable.
    Schema::from_cedarschema_str(src)
        .map(|(schema, _warnings)| schema)
        .map_err(|e| PolicyError::Schema {
            name: name.to_owned(),
            message: render_with_help(&e),
        })
}

/// The error text followed by Cedar's help line, if it has one.
pub(crate) fn render_with_help(e: &(impl miette::Diagnostic + std::fmt::Display)) -> String {
    match e.help() {
        Some(help) => format!("{e} (help: {help})"),
        None => e.to_string(),
    }
}

fn uid(type_name: &str, id: &str) -> Result<EntityUid, PolicyError> {
    Ok(EntityUid::from_type_name_and_id(
        parsed_type(type_name)?,
        EntityId::new(id),
    ))
}

/// Parses an entity type name once: the guard names entities on its per-hit path, and
/// Cedar's parser is far slower than a clone.
fn parsed_type(type_name: &str) -> Result<EntityTypeName, PolicyError> {
    type Slot = OnceLock<Result<EntityTypeName, String>>;
    static USER: Slot = OnceLock::new();
    static COMMUNITY: Slot = OnceLock::new();
    static ROLE: Slot = OnceLock::new();
    static OBJECT: Slot = OnceLock::new();
    static DESTINATION: Slot = OnceLock::new();
    static ACTION: Slot = OnceLock::new();
    let slot = match type_name {
        USER_TYPE => &USER,
        COMMUNITY_TYPE => &COMMUNITY,
        ROLE_TYPE => &ROLE,
        OBJECT_TYPE => &OBJECT,
        DESTINATION_TYPE => &DESTINATION,
        ACTION_TYPE => &ACTION,
        _ => return parse_type(type_name).map_err(|e| PolicyError::cedar("entity type name", e)),
    };
    slot.get_or_init(|| parse_type(type_name))
        .clone()
        .map_err(|e| PolicyError::cedar("entity type name", e))
}

/// Cedar's parse of a type name, with its error text.
fn parse_type(type_name: &str) -> Result<EntityTypeName, String> {
    EntityTypeName::from_str(type_name).map_err(|e| e.to_string())
}

/// The Cedar uid of a person.
pub fn user_uid(user: &UserId) -> Result<EntityUid, PolicyError> {
    uid(USER_TYPE, user.as_str())
}

/// The Cedar uid of a community-like scope.
pub fn community_uid(community: &CommunityId) -> Result<EntityUid, PolicyError> {
    uid(COMMUNITY_TYPE, community.as_str())
}

/// The Cedar uid of a role in a community.
///
/// The id is the JSON array `[community, role]`, so that no pair of ids can collide
/// whatever characters they contain.
pub fn role_uid(community: &CommunityId, role: &RoleName) -> Result<EntityUid, PolicyError> {
    let id = serde_json::to_string(&[community.as_str(), role.as_str()])
        .map_err(|e| PolicyError::cedar("role id", e))?;
    uid(ROLE_TYPE, &id)
}

/// The Cedar uid of a data object.
pub fn object_uid(object: &ObjectId) -> Result<EntityUid, PolicyError> {
    uid(OBJECT_TYPE, object.as_str())
}

/// The Cedar uid of an action (`disclose`, `write`, `share`, `send`).
pub fn action_uid(action: Action) -> Result<EntityUid, PolicyError> {
    uid(ACTION_TYPE, action.as_str())
}

/// The Cedar uid of the recipient-side `receive` action.
pub fn receive_uid() -> Result<EntityUid, PolicyError> {
    uid(ACTION_TYPE, RECEIVE_ACTION)
}

/// The Cedar uid of a destination: `community:<id>`, `workspace:<id>`, `shared`,
/// `memory`, `person:<id>` or `workflow:<name>`. The prefix fixes the kind, so the
/// ids are unambiguous and still readable in traces.
pub fn destination_uid(destination: &Destination) -> Result<EntityUid, PolicyError> {
    uid(DESTINATION_TYPE, &destination_key(destination))
}

/// The entity id text of a destination (see [`destination_uid`]).
pub fn destination_key(destination: &Destination) -> String {
    match destination {
        Destination::Community { community } => format!("community:{community}"),
        Destination::Namespace { namespace } => match namespace {
            Namespace::Community { community } => format!("workspace:{community}"),
            Namespace::Shared => "shared".to_owned(),
            Namespace::Memory => "memory".to_owned(),
        },
        Destination::Person { user } => format!("person:{user}"),
        Destination::Workflow { name } => format!("workflow:{name}"),
    }
}
