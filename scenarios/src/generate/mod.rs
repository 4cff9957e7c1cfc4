//! Deterministic generator of the frozen suite: four per-family template modules, each
//! producing its 28 static and 24 dynamic scenarios, assembled in canonical id order.

mod a1;
mod a2;
mod a3;
mod a4;
mod common;
#[cfg(test)]
mod family_checks;
mod fetches;

use crate::Scenario;

/// Generates every scenario of the suite, sorted by id. Pure and deterministic.
pub fn generate_suite() -> Vec<Scenario> {
    let mut all: Vec<Scenario> = Vec::new();
    all.extend(a1::scenarios());
    all.extend(a2::scenarios());
    all.extend(a3::scenarios());
    all.extend(a4::scenarios());
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}
