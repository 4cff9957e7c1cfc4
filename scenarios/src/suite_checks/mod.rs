//! Checks of the frozen suite's design, run on the scenarios expanded from
//! `scenarios/worlds/`: each family's factor cells, unique scripts, structure, an
//! independent reading of the oracle rule, and the family's own attack rules. They keep
//! an edit of a world file from quietly breaking the suite's design.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod a1;
mod a2;
mod a3;
mod a4;
mod common;

use crate::factors::Family;
use crate::Scenario;

/// The frozen suite's scenarios of one family.
fn scenarios_of(family: Family) -> Vec<Scenario> {
    let expansion = match crate::worlds::expand_frozen() {
        Ok(expansion) => expansion,
        Err(e) => panic!("the frozen worlds do not expand: {e}"),
    };
    expansion
        .scenarios
        .into_iter()
        .filter(|s| s.factors.family == family)
        .collect()
}
