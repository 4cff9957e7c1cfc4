//! CoSec scenario model.
//!
//! A scenario is three tiers kept as separate types (docs/design.md, "The three tiers
//! of a scenario"): [`AgentTier`] (what an agent may see), [`PlatformTier`] (what a real platform knows
//! and the guard may use) and [`VerifierTier`] (what only the verifier reads). The
//! community state `E_t` ([`CommunityState`]) is derived from the platform tier and
//! changed by a pure, deterministic [`CommunityState::apply`]. The frozen suite of 208
//! scenarios is expanded from the world files under `scenarios/worlds/` by [`worlds`]
//! and loaded, with its manifest checked, by [`suite`].

// Library code reads text and files it did not write: an index out of range must be a
// handled case (`get`), never a panic. Tests may index what they just built.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

pub mod agent;
mod artifact;
pub mod factors;
pub mod ids;
pub mod matching;
pub mod platform;
pub mod play;
pub mod scenario;
pub mod search;
pub mod state;
pub mod structure;
pub mod suite;
#[cfg(test)]
mod suite_checks;
pub mod validate;
pub mod verifier;
pub mod wire;
pub mod worlds;

pub use agent::{AgentTier, Namespace, Seed, Surface, Turn};
pub use factors::{
    Boundary, EventKind, Factors, FailureClass, Family, PrivacyObject, Sensitivity, Strategy, Suite,
};
pub use ids::{CommunityId, ObjectId, RoleName, ScenarioId, Time, UserId};
pub use platform::{CommunityEvent, Destination, ObjectLabel, PlatformTier};
pub use scenario::{Scenario, SCHEMA_VERSION};
pub use state::{CommunityState, Reach, StateError};
pub use verifier::{Action, Flow, VerifierTier};
