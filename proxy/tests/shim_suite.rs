//! The shim over every scenario of the frozen suite: each seeded file, document, memory
//! entry and tool observation reaches the agent through the shim with its label traced,
//! and every declared workflow is accepted.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use cosec_proxy::layout;
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TrialSetup, TurnContext};
use cosec_proxy::shim::{materialize_agent_half, ShimService, MEMORY_NOTES};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::Surface;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// Objects served by the trace lines after the first `skip`, and the new line count.
fn served_since(path: &Path, skip: usize) -> (Vec<String>, usize) {
    let lines = read_trace(path).unwrap();
    let n = lines.len();
    let served = lines
        .into_iter()
        .skip(skip)
        .filter_map(|l| match l.event {
            TraceEvent::ObjectServed { object, .. } => Some(object.0),
            _ => None,
        })
        .collect();
    (served, n)
}

#[tokio::test]
async fn every_seeded_object_of_the_suite_is_served_with_its_label() {
    let suite = cosec_scenarios::worlds::expand_frozen()
        .expect("the frozen worlds expand")
        .scenarios;
    assert!(!suite.is_empty());
    let registry = TrialRegistry::new();
    let shim = ShimService::new(registry.clone());
    let dir = tempfile::tempdir().unwrap();
    let mut failures: Vec<String> = Vec::new();
    for scenario in suite {
        let id = scenario.id.to_string();
        let base = dir.path().join(&id);
        let root = base.join("agent");
        materialize_agent_half(&scenario.agent, &root).unwrap();
        let trace_path = base.join("trace.jsonl");
        let trace = Arc::new(TraceWriter::open(&trace_path).unwrap());
        let first = scenario.agent.turns[0].clone();
        let trial = Arc::new(Trial::new(
            TrialSetup {
                id: id.clone(),
                agent: Arc::new(scenario.agent.clone()),
                platform: Arc::new(scenario.platform.clone()),
                sim: None,
                model: ModelRoute::Sim(SimKind::Comply),
                agent_root: root.clone(),
                trace,
                guardrail: None,
            },
            first.community.clone(),
        ));
        trial.set_turn(TurnContext {
            turn: 1,
            community: first.community.clone(),
            requester: Some(first.speaker.clone()),
            time: turn_time(1),
            earlier_requesters: Vec::new(),
        });
        registry.insert(trial);
        let mut seen = 0;
        for seed in &scenario.agent.seeds {
            let call = match &seed.surface {
                Surface::File { namespace, path }
                | Surface::Document {
                    namespace, path, ..
                } => Some((
                    "read_file".to_owned(),
                    json!({"path": layout::tool_path(namespace, path)}),
                )),
                Surface::PrivateMemory => {
                    Some(("read_file".to_owned(), json!({"path": MEMORY_NOTES})))
                }
                Surface::ToolObservation { tool, trigger } => {
                    let arg = scenario
                        .agent
                        .tools
                        .iter()
                        .find(|t| &t.name == tool)
                        .map_or("query".to_owned(), |t| t.argument.clone());
                    Some((tool.clone(), json!({ arg: trigger })))
                }
                Surface::SessionHistory { .. } => None,
            };
            let Some((tool, args)) = call else { continue };
            let r = shim.call(&id, &tool, args.clone()).await;
            let (served, n) = served_since(&trace_path, seen);
            seen = n;
            if r.is_error || !r.text.contains(seed.content.trim()) {
                failures.push(format!("{id}: {tool} {args} -> {}", r.text));
            } else if !served.contains(&seed.object.0) {
                failures.push(format!(
                    "{id}: {} served without a label ({tool})",
                    seed.object
                ));
            }
        }
        for w in &scenario.agent.workflows {
            let r = shim
                .call(
                    &id,
                    "submit_workflow",
                    json!({"name": w.name, "payload": "test"}),
                )
                .await;
            if r.is_error {
                failures.push(format!("{id}: workflow {} refused: {}", w.name, r.text));
            }
        }
        shim.forget(&id);
        registry.remove(&id);
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
