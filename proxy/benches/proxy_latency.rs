//! What the proxy adds to one model call: the same Chat Completions request answered by
//! the simulated model through the proxy listener (HTTP on 127.0.0.1, parse, answer,
//! render, trace) versus in-process (parse, answer, render), measured in the same run.
//!
//! Run: `cargo bench -p cosec-proxy --bench proxy_latency` (optionally `-- N` requests).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_proxy::api::WireApi;
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TrialSetup, TurnContext};
use cosec_proxy::server::{ProxyServer, DEFAULT_ADDR};
use cosec_proxy::shim::tool_defs_for;
use cosec_proxy::sim::{respond, SimBackend};
use cosec_proxy::trace::TraceWriter;
use cosec_proxy::wire::{parse_request, render_json, ResponseMeta};
use cosec_scenarios::ids::turn_time;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

fn percentile(sorted: &[f64], p: u32) -> f64 {
    cosec_proxy::percentile::nearest_rank(sorted, p).unwrap_or(0.0)
}

fn main() {
    let n: usize = std::env::args()
        .filter_map(|a| a.parse().ok())
        .next()
        .unwrap_or(3000);
    let scenario = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios
        .into_iter()
        .find(|s| s.id.as_str() == "st-inter-third-a4-s1")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = Arc::new(TraceWriter::open(&dir.path().join("trace.jsonl")).unwrap());
    let turn = &scenario.agent.turns[0];
    let trial = Arc::new(Trial::new(
        TrialSetup {
            id: "bench".into(),
            agent: Arc::new(scenario.agent.clone()),
            platform: Arc::new(scenario.platform.clone()),
            sim: Some(Arc::new(cosec_proxy::registry::SimScript::of(&scenario))),
            model: ModelRoute::Sim(SimKind::Comply),
            agent_root: dir.path().join("agent"),
            trace,
            guardrail: None,
        },
        turn.community.clone(),
    ));
    let ctx = TurnContext {
        turn: 1,
        community: turn.community.clone(),
        requester: Some(turn.speaker.clone()),
        time: turn_time(1),
        earlier_requesters: Vec::new(),
    };
    trial.set_turn(ctx.clone());
    let tools: Vec<Value> = tool_defs_for(&scenario.agent)
        .iter()
        .map(|d| json!({"type": "function", "function": {"name": d.name, "description": d.description, "parameters": d.parameters}}))
        .collect();
    let body = json!({
        "model": "sim:comply",
        "messages": [
            {"role": "system", "content": "You are the personal AI agent of Mira.".repeat(20)},
            {"role": "user", "content": turn.text},
        ],
        "tools": tools,
        "stream": false,
    });
    let body_bytes = serde_json::to_vec(&body).unwrap();

    // In-process baseline: the work the proxy must do anyway, without HTTP or tracing.
    let meta = ResponseMeta {
        id: "r".into(),
        model: "sim:comply".into(),
        created: 0,
    };
    let script = cosec_proxy::registry::SimScript::of(&scenario);
    let mut inproc = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let v: Value = serde_json::from_slice(&body_bytes).unwrap();
        let parsed = parse_request(WireApi::ChatCompletions, v).unwrap();
        let r = respond(
            SimKind::Comply,
            &script,
            &scenario.agent,
            dir.path(),
            &ctx,
            &parsed.request,
        );
        let out = serde_json::to_vec(&render_json(WireApi::ChatCompletions, &r, &meta)).unwrap();
        std::hint::black_box(out);
        inproc.push(t.elapsed().as_secs_f64() * 1e6);
    }

    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut proxied = rt.block_on(async {
        let registry = TrialRegistry::new();
        registry.insert(Arc::clone(&trial));
        let server = ProxyServer::bind(DEFAULT_ADDR, registry, Arc::new(SimBackend))
            .await
            .unwrap();
        let url = format!("{}/chat/completions", server.base_url("bench"));
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        for _ in 0..100 {
            http.post(&url)
                .body(body_bytes.clone())
                .send()
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
        }
        let mut samples = Vec::with_capacity(n);
        for _ in 0..n {
            let t = Instant::now();
            let resp = http
                .post(&url)
                .header("content-type", "application/json")
                .body(body_bytes.clone())
                .send()
                .await
                .unwrap();
            assert!(resp.status().is_success());
            std::hint::black_box(resp.bytes().await.unwrap());
            samples.push(t.elapsed().as_secs_f64() * 1e6);
        }
        server.shutdown().await;
        samples
    });
    inproc.sort_by(f64::total_cmp);
    proxied.sort_by(f64::total_cmp);
    let (i50, i99) = (percentile(&inproc, 50), percentile(&inproc, 99));
    let (p50, p99) = (percentile(&proxied, 50), percentile(&proxied, 99));
    println!(
        "requests: {n} sequential, request body {} bytes",
        body_bytes.len()
    );
    println!("| path | p50 (us) | p99 (us) |");
    println!("|---|---|---|");
    println!("| simulated model in-process | {i50:.1} | {i99:.1} |");
    println!("| through the proxy (HTTP on 127.0.0.1 + trace) | {p50:.1} | {p99:.1} |");
    println!(
        "| added by the proxy | {:.1} | {:.1} |",
        p50 - i50,
        p99 - i99
    );
}
