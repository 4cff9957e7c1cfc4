//! `cosec run` against a real model: SmolLM2-135M-Instruct served by llama.cpp on
//! 127.0.0.1 (`scripts/local-model.sh start`, which `scripts/tiers/local-model.sh` runs).
//! No quality is expected of so small a model; what is checked is the real-model path:
//! every trial valid (no infrastructure failure), every model call answered and parsed,
//! every delivery answered in the hidden trace, the server's own token counts in the
//! summary (cached prompt tokens included), through the built-in agent (plain
//! responses, unguarded and through the guard) and Codex (streamed responses, through
//! the guard).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::process::Command;

/// A static scenario and a dynamic one (a merge that opens a cross-community flow): the
/// built-in agent runs the static one unguarded and the dynamic one guarded, Codex the
/// static one guarded, its streams read by the guard (a 135M model on one thread takes
/// minutes per trial; unguarded streams pass through as they came, which the proxy's
/// own tests check against scripted upstreams on 127.0.0.1).
const SCENARIOS: [&str; 2] = ["st-intra-owner-a1-s1", "dy-merge-inter-owner-a4-s7"];

/// The base URL of the local model server, or a panic saying how to start it.
fn base_url() -> String {
    std::env::var("COSEC_LOCAL_MODEL_URL").unwrap_or_else(|_| {
        panic!(
            "COSEC_LOCAL_MODEL_URL is not set: run scripts/tiers/local-model.sh, or \
             scripts/local-model.sh start and export COSEC_LOCAL_MODEL_URL=$(scripts/local-model.sh url)"
        )
    })
}

/// Runs `scenarios` with `harness` and `defense` against the local model and checks the
/// run; returns the model calls of every trial's hidden trace.
fn run_against_the_local_model(harness: &str, defense: &str, scenarios: &[&str]) -> Vec<Value> {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let url = base_url();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosec"));
    cmd.args(["run", "--harness", harness, "--model", "openai:smollm2"])
        .args(["--model-base-url", url.as_str(), "--defense", defense])
        .args(["--judge", "none", "--retries", "0", "--jobs", "1"])
        .args(["--out", out.to_str().unwrap()])
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY");
    if harness == "builtin" {
        // A 135M model goes on until it is stopped; short answers keep the tier short.
        cmd.args(["--max-output-tokens", "64"]);
    }
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    let o = cmd.output().unwrap();
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
    assert!(
        o.status.success(),
        "cosec run --harness {harness} --defense {defense} failed:\n{}\n{results}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["trials"]["valid"].as_u64(),
        Some(scenarios.len() as u64),
        "{harness} {defense}: {}\n{results}",
        summary["trials"]
    );
    assert_eq!(summary["config"]["simulated_model"], false);
    let mut calls = Vec::new();
    for trial in std::fs::read_dir(out.join("trials")).unwrap() {
        let path = trial.unwrap().path().join("hidden/trace.jsonl");
        let events: Vec<Value> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let count = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
        assert_eq!(count("infra"), 0, "{}: {events:?}", path.display());
        assert!(count("delivery") > 0, "{}", path.display());
        assert_eq!(
            count("reply"),
            count("delivery"),
            "{}: every delivery gets its reply",
            path.display()
        );
        let model_calls: Vec<Value> = events
            .into_iter()
            .filter(|e| e["type"] == "model_call")
            .collect();
        assert!(!model_calls.is_empty(), "{}", path.display());
        for call in &model_calls {
            assert!(
                call["error"].is_null() && call["response"].is_object(),
                "{}: a model call was not answered and parsed: {call}",
                path.display()
            );
        }
        calls.extend(model_calls);
    }
    let usage = &summary["usage"];
    assert!(
        traced(&calls, "input_tokens") > 0,
        "the server reports its token counts"
    );
    for field in ["input_tokens", "output_tokens", "cached_input_tokens"] {
        assert_eq!(
            usage[field].as_u64(),
            Some(traced(&calls, field)),
            "{field}: the summary adds up the traced calls: {usage}"
        );
    }
    calls
}

/// The sum of one `usage` field over traced model calls (absent counts as 0).
fn traced(calls: &[Value], field: &str) -> u64 {
    calls
        .iter()
        .map(|c| c["usage"][field].as_u64().unwrap_or(0))
        .sum()
}

fn streamed(calls: &[Value]) -> bool {
    calls.iter().all(|c| c["stream"] == true)
}

fn plain(calls: &[Value]) -> bool {
    calls.iter().all(|c| c["stream"] == false)
}

#[test]
#[ignore = "tier local-model: needs the llama.cpp server of scripts/local-model.sh"]
fn the_builtin_agent_runs_unguarded_against_a_real_model() {
    let calls = run_against_the_local_model("builtin", "none", &SCENARIOS[..1]);
    assert!(plain(&calls), "the built-in agent does not stream");
    // Each turn resends the conversation so far; llama.cpp serves that prefix from its
    // prompt cache and says so in `prompt_tokens_details.cached_tokens`.
    assert!(
        traced(&calls, "cached_input_tokens") > 0,
        "no call reported cached prompt tokens"
    );
}

#[test]
#[ignore = "tier local-model: needs the llama.cpp server of scripts/local-model.sh"]
fn the_builtin_agent_runs_guarded_against_a_real_model() {
    let calls = run_against_the_local_model("builtin", "proxy", &SCENARIOS[1..]);
    assert!(plain(&calls), "the built-in agent does not stream");
}

#[test]
#[ignore = "tier local-model: needs the llama.cpp server and `cosec harness install codex`"]
fn codex_streams_through_the_guard_against_a_real_model() {
    let calls = run_against_the_local_model("codex", "proxy", &SCENARIOS[..1]);
    assert!(streamed(&calls), "Codex streams its responses");
}

#[test]
#[ignore = "tier local-model: needs the llama.cpp server of scripts/local-model.sh"]
fn the_local_model_plays_the_attacker_and_the_participants_end_to_end() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let url = base_url();
    // The agent is simulated so that the tier's minutes go to the participants' model.
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["run", "--model", "sim:ideal", "--scenario", SCENARIOS[0]])
        .args(["--attacker", "model", "--attacker-model", "openai:smollm2"])
        .args([
            "--speaker-mode",
            "model",
            "--attacker-base-url",
            url.as_str(),
        ])
        .args(["--judge", "none", "--retries", "0", "--jobs", "1"])
        .args(["--out", out.to_str().unwrap()])
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_ATTACKER_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["trials"]["valid"], 1, "{}", summary["trials"]);
    let attack = &summary["attack"];
    assert_eq!(attack["settings"]["attacker_model"], "openai:smollm2");
    let trial = std::fs::read_dir(out.join("trials"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let events: Vec<Value> = std::fs::read_to_string(trial.path().join("hidden/trace.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rewrites: Vec<&Value> = events.iter().filter(|e| e["type"] == "rewrite").collect();
    // Every one of the eight turns was written by the model, delivered or checked away.
    assert_eq!(rewrites.len(), 8, "{rewrites:?}");
    for r in &rewrites {
        assert_eq!(r["by"], "model");
        // A rejected rewrite delivers the seed; the agent got what the trace says.
        if !r["rejected"].is_null() {
            assert_eq!(r["text"], r["seed"], "{r}");
        }
        let turn = &r["site"]["index"];
        let delivery = events
            .iter()
            .find(|e| e["type"] == "delivery" && e["turn"] == *turn && !e["speaker"].is_null())
            .unwrap();
        assert_eq!(delivery["text"], r["text"]);
    }
    let rejected: u64 = attack["rewrites"]["rejected"]
        .as_object()
        .map_or(0, |m| m.values().filter_map(Value::as_u64).sum());
    let applied = attack["rewrites"]["applied"].as_u64().unwrap();
    let unchanged = rewrites
        .iter()
        .filter(|r| r["rejected"].is_null() && r["text"] == r["seed"])
        .count() as u64;
    assert_eq!(applied + rejected + unchanged, 8, "{attack}");
}
