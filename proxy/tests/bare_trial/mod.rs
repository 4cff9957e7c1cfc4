//! A trial with an empty scenario, for tests of the proxy's routing and forwarding,
//! where the agent and platform tiers play no part.

#![allow(clippy::unwrap_used)]

use cosec_proxy::api::{ModelRequest, ModelResponse};
use cosec_proxy::registry::{ModelRoute, Trial, TrialSetup, TurnContext};
use cosec_proxy::server::ModelBackend;
use cosec_proxy::trace::TraceWriter;
use cosec_scenarios::{AgentTier, CommunityId, PlatformTier};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// A trial `id` answered by `model`, rooted in `dir`, traced to `trace`, in the
/// community `club`.
pub fn bare_trial(id: &str, model: ModelRoute, dir: &Path, trace: TraceWriter) -> Arc<Trial> {
    let agent: AgentTier = serde_json::from_value(
        json!({"target_user": "u", "people": [], "communities": [], "seeds": [], "turns": []}),
    )
    .unwrap();
    let platform: PlatformTier = serde_json::from_value(
        json!({"users": [], "communities": [], "memberships": [], "labels": []}),
    )
    .unwrap();
    Arc::new(Trial::new(
        TrialSetup {
            id: id.into(),
            agent: Arc::new(agent),
            platform: Arc::new(platform),
            sim: None,
            model,
            agent_root: dir.to_owned(),
            trace: Arc::new(trace),
            guardrail: None,
        },
        CommunityId("club".into()),
    ))
}

/// The simulated-model backend of a proxy whose trials all route upstream: never asked.
#[allow(dead_code)] // tests that answer with the simulated model do not need it
pub struct NoSim;

impl ModelBackend for NoSim {
    fn respond(
        &self,
        _: &Trial,
        _: &TurnContext,
        _: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        Err("not a simulated trial".into())
    }
}
