//! Typed identifiers and the logical clock shared by every tier.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// Borrows the identifier as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }
    };
}

string_id!(
    /// A scenario's stable id, e.g. `st-inter-third-a4-s1` or `dy-merge-inter-owner-a4-s7`.
    ScenarioId
);
string_id!(
    /// A person (the target user, community members, outsiders).
    UserId
);
string_id!(
    /// A community, a merged or split community, or a partnership space.
    CommunityId
);
string_id!(
    /// A labeled data object (file, memory entry, message, document, tool observation).
    ObjectId
);
string_id!(
    /// A role inside a community (e.g. `moderator`, `treasurer`).
    RoleName
);

/// Logical time in minutes since the scenario's epoch; seeds live before the first turn.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    Default,
    JsonSchema,
)]
#[serde(transparent)]
pub struct Time(pub u32);

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}", self.0)
    }
}

/// Number of scripted participant turns in every scenario of the frozen suite.
pub const TURN_COUNT: u8 = 8;

/// Most scripted participant turns a custom scenario may have; event and output times
/// stay far below the clock's range at this length.
pub const MAX_TURN_COUNT: u8 = 64;

/// Time of the first turn; every seeded object is created before it.
pub const FIRST_TURN_TIME: Time = Time(1000);

/// Minutes between two consecutive turns.
pub const TURN_SPACING: u32 = 10;

/// The logical time at which turn `index` (1-based) is delivered.
pub fn turn_time(index: u8) -> Time {
    Time(FIRST_TURN_TIME.0 + TURN_SPACING * u32::from(index.saturating_sub(1)))
}

/// The logical time of an event delivered after turn `after_turn` and before the next one.
pub fn event_time(after_turn: u8) -> Time {
    Time(turn_time(after_turn).0 + TURN_SPACING / 2)
}
