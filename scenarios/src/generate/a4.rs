//! Family A4 templates (being written).

use crate::Scenario;

/// The family's 28 static and 24 dynamic scenarios.
pub(crate) fn scenarios() -> Vec<Scenario> {
    Vec::new()
}
