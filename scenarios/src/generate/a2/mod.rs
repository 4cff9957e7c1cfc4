//! Family A2, indirect injection: the instruction that would cause the leak never comes
//! from the requester's own words but from material the agent reads on the way to a
//! legitimate task (a shared document, a tool observation, a forwarded message, file
//! metadata, a form response, a template).
//!
//! Static112 part: four worlds, one per (boundary, privacy object) profile, each with
//! seven carriers (S1..S7) that change only the attack mechanism. Dyn96 part: A2-S2
//! everywhere; the instruction and the protected content arrive in a tool observation
//! made before a community event, and the scored request comes after it, when the
//! observation is stale (failure class: provenance confusion).

mod dy_join;
mod dy_merge_split;
mod dy_relation;
mod dy_remove;
mod dy_role_down;
mod dy_role_up;
mod dynamics;
mod kit;
mod st_brook;
mod st_eastgate;
mod st_ferris;
mod st_larch;
mod statics;
#[cfg(test)]
mod tests;

use crate::Scenario;

/// The family's 28 static and 24 dynamic scenarios.
pub(crate) fn scenarios() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(st_larch::scenarios());
    all.extend(st_eastgate::scenarios());
    all.extend(st_brook::scenarios());
    all.extend(st_ferris::scenarios());
    all.extend(dy_join::scenarios());
    all.extend(dy_remove::scenarios());
    all.extend(dy_role_up::scenarios());
    all.extend(dy_role_down::scenarios());
    all.extend(dy_merge_split::scenarios());
    all.extend(dy_relation::scenarios());
    all
}
