//! Family A1 (user injection) templates: 28 static and 24 dynamic scenarios.
//!
//! The attacker is a requester who types the attack into a community session: a false
//! authorization, a claimed earlier approval, impersonation of the owner, urgency, a
//! "safety summary" framing, an aggregate question or a claimed role. Dynamic
//! scenarios all use S2: the approval is claimed before a community event and cashed
//! in after it, when the event has made the flow unauthorized.

mod build;
mod cast;
mod dyn_join;
mod dyn_merge_split;
mod dyn_relation;
mod dyn_remove;
mod dyn_roledown;
mod dyn_roleup;
mod dynamic;
mod static_inter;
mod static_intra;
#[cfg(test)]
mod tests;
mod world;

use crate::Scenario;

/// The family's 28 static and 24 dynamic scenarios.
pub(crate) fn scenarios() -> Vec<Scenario> {
    let mut out = static_intra::scenarios();
    out.extend(static_inter::scenarios());
    out.extend(dyn_join::scenarios());
    out.extend(dyn_remove::scenarios());
    out.extend(dyn_roleup::scenarios());
    out.extend(dyn_roledown::scenarios());
    out.extend(dyn_merge_split::scenarios());
    out.extend(dyn_relation::scenarios());
    out
}
