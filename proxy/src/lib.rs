//! CoSec's interposing model-API proxy, tool shim and (later) runtime guard.
//!
//! One proxy listener on 127.0.0.1 serves every trial of a run under
//! `/t/<trial-id>/v1/...`. The runner registers each trial in a shared
//! [`registry::TrialRegistry`] and tells it the turn context before each delivery; the
//! proxy answers with a simulated model or forwards upstream and records every call in
//! the trial's hidden [`trace`]. The tool shim serves community actions and file access
//! confined to the trial's agent half ([`layout`]).

pub mod api;
pub mod guard;
pub mod layout;
pub mod registry;
pub mod server;
pub mod shim;
pub mod sim;
pub mod tools;
pub mod trace;
pub mod upstream;
pub mod wire;
