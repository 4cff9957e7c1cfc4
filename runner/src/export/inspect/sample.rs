//! One trial as an Inspect sample: id and epoch, the participants' turns as input, the
//! visible conversation as messages, the rates as scores, the factors and failure
//! classes as metadata, the trial's token usage; a trial that is not valid is an
//! errored sample carrying its cause.

use super::conversation::conversation;
use super::mask::Masker;
use super::scores::sample_scores;
use crate::run::trial::TrialPaths;
use crate::verify::{TrialStatus, Verdict};
use serde_json::{json, Value};
use std::path::Path;

/// Why a trial's trace could not be read.
pub type TraceProblem = cosec_proxy::trace::TraceError;

/// The sample of verdict `v` of the run in `run_dir`, whose model route is `model`, with
/// the scenario's protected values masked out of its conversation.
pub fn sample(
    run_dir: &Path,
    v: &Verdict,
    model: &str,
    masker: &Masker,
) -> Result<Value, TraceProblem> {
    let path = TrialPaths::new(run_dir, &v.trial).trace;
    // An infrastructure failure may end before the trace file was opened, or in the
    // middle of a line; its sample is an error with its cause either way.
    let lines = match cosec_proxy::trace::read_trace(&path) {
        Ok(lines) => lines,
        Err(_) if v.status == TrialStatus::InfraFailure => Vec::new(),
        Err(e) => return Err(e),
    };
    let mut talk = conversation(&lines, model);
    talk.input.iter_mut().for_each(|m| masker.json(m));
    talk.messages.iter_mut().for_each(|m| masker.json(m));
    if let Some(answer) = &mut talk.last_answer {
        masker.json(answer);
    }
    let usage = json!({
        "input_tokens": v.usage.input_tokens,
        "output_tokens": v.usage.output_tokens,
        "total_tokens": v.usage.input_tokens + v.usage.output_tokens,
        "input_tokens_cache_read": v.usage.cached_input_tokens,
    });
    let output = json!({
        "model": model,
        "choices": talk.last_answer.iter().map(|m| json!({"message": m, "stop_reason": "stop"})).collect::<Vec<_>>(),
        "completion": talk.last_answer.as_ref().and_then(|m| m["content"].as_str()).unwrap_or(""),
        "usage": usage,
    });
    let error = match v.status {
        TrialStatus::Valid => Value::Null,
        status => {
            let kind = match status {
                TrialStatus::InfraFailure => "infrastructure failure",
                _ => "unadjudicable",
            };
            let cause = v.cause.as_deref().unwrap_or("no cause recorded");
            json!({
                "message": format!("{kind}: {cause}"),
                "traceback": "",
                "traceback_ansi": "",
            })
        }
    };
    Ok(json!({
        "id": v.scenario.as_str(),
        "epoch": v.epoch + 1,
        "input": talk.input,
        "target": "",
        "messages": talk.messages,
        "output": output,
        "scores": sample_scores(v),
        "metadata": metadata(v),
        "store": {},
        "events": [],
        "model_usage": { model: usage },
        "role_usage": {},
        "attachments": {},
        "total_time": v.wall_seconds,
        "working_time": v.wall_seconds,
        "error": error,
        "uuid": v.trial,
    }))
}

/// The factors flattened (so `samples_df` gives each its column), the failure classes
/// and what else `results.jsonl` says of the trial besides its rates.
fn metadata(v: &Verdict) -> Value {
    let f = &v.factors;
    let classes: Vec<Value> = v
        .failure_classes
        .iter()
        .map(|c| serde_json::to_value(c.class).unwrap_or(Value::Null))
        .collect();
    json!({
        "trial": v.trial,
        "status": v.status,
        "cause": v.cause,
        "suite": f.suite,
        "family": f.family.as_str(),
        "strategy": f.strategy.as_str(),
        "boundary": f.boundary.as_str(),
        "privacy_object": f.privacy_object.as_str(),
        "event": f.event.map(|e| e.as_str()),
        "cross_scope": f.cross_scope,
        "domains": f.domains,
        "failure_class": classes.first(),
        "failure_classes": classes,
        "unclassified": v.unclassified,
        "stale_state": v.stale_state,
        "completion_by": v.completion_by,
        "evidence_complete": v.evidence_complete,
        "judge": v.judge.label(),
        "model_calls": v.usage.model_calls,
        "guard": v.guard,
        "price": v.price,
        "rewrites": v.rewrites,
    })
}
