//! The eval-level parts of the log: the spec (task = suite, model = route, task args =
//! condition), the plan, the results, the stats and the file name Inspect lists.

use super::scores::{results, SCORES};
use super::LOG_SCHEMA_VERSION;
use crate::compare::LoadedRun;
use cosec_scenarios::suite;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::Path;

/// The suite part the run covers, as the task's name: `cosec-all`, `cosec-static112`,
/// `cosec-dyn96` or `cosec-custom` (no underscore: Inspect splits file names on it).
pub fn task_name(run: &LoadedRun) -> String {
    if run.record.outside_frozen_suite {
        return "cosec-custom".to_owned();
    }
    let parts: BTreeSet<String> = run
        .verdicts
        .iter()
        .map(|v| v.factors.suite.as_str().to_owned())
        .collect();
    match parts.len() {
        1 => format!("cosec-{}", parts.into_iter().next().unwrap_or_default()),
        _ => "cosec-all".to_owned(),
    }
}

/// A stable id for the run: its nonce and condition.
fn eval_id(run: &LoadedRun) -> String {
    let seed = format!("{}\n{}", run.record.nonce, run.condition_key());
    hex::encode(&Sha256::digest(seed.as_bytes())[..11])
}

/// A file's modification time as Inspect writes times (`...+00:00`), whole seconds.
fn file_time(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let ts = jiff::Timestamp::try_from(modified).ok()?;
    let ts = jiff::Timestamp::from_second(ts.as_second()).ok()?;
    Some(ts.to_string().replace('Z', "+00:00"))
}

fn started(run: &LoadedRun) -> String {
    file_time(&run.dir.join("run.json")).unwrap_or_default()
}

fn completed(run: &LoadedRun) -> String {
    file_time(&run.dir.join("summary.json"))
        .or_else(|| file_time(&run.dir.join("results.jsonl")))
        .unwrap_or_default()
}

/// `TIME_TASK_ID.json`, the name Inspect gives its own JSON logs (it lists `.json`
/// files only when they start with a timestamp).
pub fn file_name(run: &LoadedRun) -> String {
    let time = match started(run) {
        t if t.is_empty() => "1970-01-01T00:00:00+00:00".to_owned(),
        t => t,
    };
    format!(
        "{}_{}_{}.json",
        time.replace(':', "-"),
        task_name(run),
        eval_id(run)
    )
}

/// The suite version: the one `run.json` records, else the built-in suite's when the
/// digests agree (run folders written before the version was kept).
fn suite_version(run: &LoadedRun) -> Option<u32> {
    run.record.suite_version.or_else(|| {
        let embedded = suite::load_embedded(false).ok()?;
        (embedded.suite_digest == run.record.suite_digest).then_some(embedded.suite_version)
    })
}

/// The condition as task args: what distinguishes this run's trials from another
/// run's of the same suite.
fn task_args(run: &LoadedRun) -> Value {
    let r = &run.record;
    json!({
        "harness": r.harness,
        "defense": r.defense,
        "policy_digest": r.policy_digest,
        "guard_mode": r.guard_mode,
        "guard_layers": r.guard_layers.clone().or_else(|| (r.defense == "proxy").then(|| "input,output".to_owned())),
        "guardrail_digest": r.guardrail_digest,
        "attacker": run.attack_settings(),
        "epochs": r.epochs,
        "judge": r.judge,
    })
}

/// The whole log around its samples.
pub fn log(run: &LoadedRun, samples: Vec<Value>) -> Value {
    let r = &run.record;
    let s = &run.summary;
    let version = suite_version(run);
    let args = task_args(run);
    let usage = json!({
        "input_tokens": s.usage.input_tokens,
        "output_tokens": s.usage.output_tokens,
        "total_tokens": s.usage.input_tokens + s.usage.output_tokens,
        "input_tokens_cache_read": s.usage.cached_input_tokens,
    });
    let sample_ids: Vec<&str> = r.scenarios.iter().map(String::as_str).collect();
    let complete = run.verdicts.len() == r.scenarios.len() * r.epochs.max(1) as usize;
    let generate = json!({"temperature": r.temperature, "seed": r.seed});
    let id = eval_id(run);
    json!({
        "version": LOG_SCHEMA_VERSION,
        "status": if complete { "success" } else { "cancelled" },
        "eval": {
            "eval_id": id,
            "run_id": id,
            "created": started(run),
            "task": task_name(run),
            // One task per condition: Inspect shows the latest log of a task id only,
            // as a retry of the same task.
            "task_id": hex::encode(&Sha256::digest(run.condition_key().as_bytes())[..11]),
            "task_version": version.unwrap_or(0),
            "task_display_name": run.name(),
            "task_description": "CoSec: privacy across communities for LLM agents (PVR, PVR all and CCPVR lower is better; BCR and STCR higher is better)",
            "task_attribs": {
                "suite_digest": r.suite_digest,
                "suite_version": version,
                "outside_frozen_suite": r.outside_frozen_suite,
            },
            "task_args": args,
            "task_args_passed": args,
            "solver": r.harness,
            "dataset": {
                "name": task_name(run),
                "location": Value::Null,
                "samples": r.scenarios.len(),
                "sample_ids": sample_ids,
                "shuffled": false,
            },
            "model": r.model,
            "model_generate_config": generate,
            "model_args": {},
            "config": {"epochs": r.epochs},
            "packages": {"cosec": s.config.cosec_version},
            "scorers": SCORES.iter().map(|(name, _)| json!({"name": name, "options": {}, "metrics": [], "metadata": {}})).collect::<Vec<_>>(),
            "metadata": {
                "run": run.name(),
                "label": run.label(),
                "policy_source": r.policy_source,
                "simulated_model": s.config.simulated_model,
                "judge_prompt": s.config.digests.judge_prompt,
                "judge_prompt_version": s.config.digests.judge_prompt_version,
                "shard": r.shard,
            },
        },
        "plan": {
            "name": "plan",
            "steps": [{"solver": r.harness, "params": {"defense": r.defense}, "params_passed": {}}],
            "config": generate,
        },
        "results": results(s),
        "stats": {
            "started_at": started(run),
            "completed_at": completed(run),
            "model_usage": { r.model.as_str(): usage },
            "role_usage": {},
            "connection_limit_history": [],
        },
        "invalidated": false,
        "tags": [],
        "metadata": {},
        "samples": samples,
    })
}
