//! CoSec's interposing model-API proxy, tool shim and runtime guard.
//!
//! One proxy listener on 127.0.0.1 serves every trial of a run under
//! `/t/<trial-id>/v1/...`. The runner registers each trial in a shared
//! [`registry::TrialRegistry`] and tells it the turn context before each delivery; the
//! proxy answers with a simulated model or forwards upstream and records every call in
//! the trial's hidden [`trace`]. The tool shim serves community actions and file access
//! confined to the trial's agent half ([`layout`]). The runtime [`guard`] sits on both
//! paths when given to [`server::ProxyServer::bind_with`] and
//! [`shim::ShimService::with_guard`]; [`standalone`] runs it in front of any agent.

pub mod api;
pub mod guard;
pub mod keys;
pub mod layout;
pub mod names;
pub mod native;
pub mod percentile;
pub mod provenance;
pub mod registry;
pub mod server;
pub mod shim;
pub mod sim;
pub mod standalone;
pub mod tools;
pub mod trace;
pub mod upstream;
pub mod wire;
