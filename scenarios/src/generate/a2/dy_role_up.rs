//! (being written)

use crate::Scenario;

/// Scenarios of this module.
pub(super) fn scenarios() -> Vec<Scenario> {
    Vec::new()
}
