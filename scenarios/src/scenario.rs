//! A whole scenario: its factors and its three tiers, kept as separate types.

use crate::agent::AgentTier;
use crate::factors::Factors;
use crate::ids::ScenarioId;
use crate::platform::PlatformTier;
use crate::verifier::VerifierTier;
use serde::{Deserialize, Serialize};

/// Version of the scenario file format; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// One scenario of the suite (or a custom scenario outside it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Format version; must equal [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Stable id encoding the factors.
    pub id: ScenarioId,
    /// One-line human title.
    pub title: String,
    /// Factor levels (verifier-only: never shown to an agent).
    pub factors: Factors,
    /// What the agent may see.
    pub agent: AgentTier,
    /// What the platform (and the guard) knows.
    pub platform: PlatformTier,
    /// What only the verifier knows.
    pub verifier: VerifierTier,
}
