//! CoSec Cedar schema, hidden oracle policy, translation of the community state `E_t`
//! into Cedar entities, the oracle decision `Auth_t(u, a, d, l)`, and strict checking
//! of policy files.
//!
//! The schema carries facts only; every rule (who may hold an object, owner consent,
//! live destinations, revocation on narrowing) is a Cedar policy.

pub mod ask;
mod check;
mod diagnostic;
mod entities;
mod error;
pub mod evaluate;
mod nesting;
mod oracle;
mod schema;
pub mod verify;

pub use ask::{oracle_action, AuthRequest, Outlet, TurnContext};
pub use check::{check_policy_files, CheckReport, EmptyPolicy};
pub use diagnostic::{Diagnostic, Severity};
pub use entities::entities;
pub use error::PolicyError;
pub use evaluate::{
    default_defense, evaluate_policy, guarded_legit_flows, Authorizer, PolicyCase,
    PolicyTestReport, DEFAULT_DEFENSE_FILE_NAME, DEFAULT_DEFENSE_SOURCE,
};
pub use nesting::{MAX_ARITHMETIC, MAX_CONDITIONALS, MAX_NESTING};
pub use oracle::{Decision, Oracle, PreparedState, Question};
pub use schema::{
    action_uid, community_uid, destination_key, destination_uid, object_uid, parse_schema,
    receive_uid, role_uid, user_uid, ORACLE_FILE_NAME, SCHEMA_SOURCE,
};
