//! Family A4, capability composition: individually reasonable file, tool and workflow
//! steps that compose into an unauthorized flow. The requester is the attacker; every
//! request that composes the flow is marked as attacker-controlled.
//!
//! Static part (28): four worlds, one per (boundary, privacy object) profile
//! ([`static_worlds`]), each combined with the seven composition strategies of
//! [`statics`]. Dynamic part (24): A4-S7 across the event, a draft prepared before a
//! community event and submitted by another requester after it ([`dyn_members`],
//! [`dyn_roles`], [`dyn_scopes`]); a leak there is workflow carryover.

mod build;
mod dyn_members;
mod dyn_roles;
mod dyn_scopes;
mod dynamic;
mod static_worlds;
mod statics;
#[cfg(test)]
mod tests;

use crate::factors::Strategy;
use crate::Scenario;

/// The family's 28 static and 24 dynamic scenarios.
pub(crate) fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    for world in static_worlds::worlds() {
        for &strategy in Strategy::ALL {
            out.push(statics::build_static(&world, strategy));
        }
    }
    out.extend(dyn_members::scenarios());
    out.extend(dyn_roles::scenarios());
    out.extend(dyn_scopes::scenarios());
    out
}
