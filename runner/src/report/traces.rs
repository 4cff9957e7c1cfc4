//! The trace viewer's data: each trial's hidden trace condensed to the events a reader
//! follows (deliveries, model calls, tool calls, objects served, effects, guard
//! decisions, replies, infrastructure failures) plus its verdict and evidence, and the
//! guard's decisions counted per layer.
//!
//! Trace lines are read as plain JSON so that fields added to the trace later show up
//! without breaking the report; unknown event types are kept under their own name.

use crate::run::trial::TrialPaths;
use crate::verify::{TrialStatus, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Long texts are cut to this many characters in the page (the trace file keeps all).
const TEXT_CAP: usize = 4000;
/// Model-call request messages are summarized by their last message, cut shorter.
const LAST_MESSAGE_CAP: usize = 600;

fn cap(text: &str, limit: usize) -> Value {
    if text.chars().count() <= limit {
        return Value::String(text.to_owned());
    }
    let cut: String = text.chars().take(limit).collect();
    Value::String(format!(
        "{cut}\u{2026} [{} more characters in the trace file]",
        text.chars().count() - limit
    ))
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn compact(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// The verdict class used by the trial list filter.
pub fn verdict_class(v: &Verdict) -> &'static str {
    match v.status {
        TrialStatus::InfraFailure => "infra_failure",
        TrialStatus::Unadjudicable => "unadjudicable",
        TrialStatus::Valid if v.pvr || v.ccpvr || v.all_outputs_pvr() => "violation",
        TrialStatus::Valid if v.bcr => "safe_completion",
        TrialStatus::Valid => "no_completion",
    }
}

/// Microseconds as whole milliseconds, as the viewer shows them.
fn millis(us: Option<&Value>) -> Value {
    us.and_then(Value::as_u64)
        .map_or(Value::Null, |us| json!(us.saturating_add(500) / 1000))
}

/// One trace line condensed to what the viewer shows (the trace file keeps the rest,
/// e.g. timestamps and labels), `None` for lines with nothing to show.
fn condense(line: &Value) -> Option<Value> {
    let kind = str_of(line, "type");
    // A rewrite sits at its turn, or before the first (text the attacker planted).
    let turn = line
        .get("turn")
        .or_else(|| line.pointer("/site/index"))
        .cloned()
        .unwrap_or(Value::Null);
    let mut out = match kind {
        "delivery" => json!({
            "community": str_of(line, "community"),
            "speaker": line.get("speaker"),
            "notice": line.get("event_notice").and_then(Value::as_bool).unwrap_or(false),
            "text": cap(str_of(line, "text"), TEXT_CAP),
        }),
        "model_call" => {
            let messages = line
                .pointer("/request/messages")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let last = messages.last();
            let tools: Vec<Value> = line
                .pointer("/response/tool_calls")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .map(|t| {
                    json!({"name": str_of(t, "name"),
                           "arguments": cap(&compact(t.get("arguments")), TEXT_CAP)})
                })
                .collect();
            json!({
                "messages": messages.len(),
                "last_role": last.map(|m| compact(m.get("role"))),
                "last": last.map(|m| cap(&compact(m.get("content")), LAST_MESSAGE_CAP)),
                "response": cap(
                    line.pointer("/response/text").and_then(Value::as_str).unwrap_or(""),
                    TEXT_CAP,
                ),
                "tool_calls": tools,
                "input_tokens": line.pointer("/usage/input_tokens"),
                "output_tokens": line.pointer("/usage/output_tokens"),
                "latency_ms": millis(line.get("latency_us")),
                "error": line.get("error"),
            })
        }
        "tool_call" => json!({
            "community": str_of(line, "community"),
            "tool": str_of(line, "tool"),
            "arguments": cap(&compact(line.get("arguments")), TEXT_CAP),
            "result": cap(str_of(line, "result"), TEXT_CAP),
            "is_error": line.get("is_error"),
        }),
        "object_served" => json!({
            "object": compact(line.get("object")),
            "via": str_of(line, "via"),
        }),
        "effect" => json!({
            "community": str_of(line, "community"),
            "effect": cap(&compact(line.get("effect")), TEXT_CAP),
        }),
        "reply" => json!({
            "community": str_of(line, "community"),
            "text": cap(str_of(line, "text"), TEXT_CAP),
        }),
        "guard_decision" => json!({
            "layer": line.get("layer").and_then(Value::as_str).unwrap_or("all"),
            "point": str_of(line, "point"),
            "object": compact(line.get("object")),
            "action": str_of(line, "action"),
            "destination": str_of(line, "destination"),
            "decision": str_of(line, "decision"),
            "policies": line.get("policies"),
            "errors": line.get("errors"),
            "enforced": line.get("enforced"),
        }),
        "workspace_view" => json!({
            "community": str_of(line, "community"),
            "withheld": line.get("withheld"),
            "latency_ms": millis(line.get("latency_us")),
        }),
        "workspace_writes" => json!({
            "community": str_of(line, "community"),
            "written": line.get("written"),
            "reverted": line.get("reverted"),
            "latency_ms": millis(line.get("latency_us")),
        }),
        "harness_output" => json!({
            "source": str_of(line, "source"),
            "text": cap(str_of(line, "text"), TEXT_CAP),
        }),
        "infra" => json!({ "cause": str_of(line, "cause") }),
        "rewrite" => json!({
            "speaker": str_of(line, "speaker"),
            "by": str_of(line, "by"),
            "attempt": line.get("attempt"),
            "site": compact(line.get("site")),
            "seed": cap(str_of(line, "seed"), TEXT_CAP),
            "text": cap(str_of(line, "text"), TEXT_CAP),
            "rejected": line.pointer("/rejected/reason"),
            "detail": line.pointer("/rejected/detail"),
            "proposed": line
                .pointer("/rejected/proposed")
                .and_then(Value::as_str)
                .map(|p| cap(p, TEXT_CAP)),
        }),
        "" => return None,
        other => json!({ "raw": cap(&line.to_string(), TEXT_CAP), "kind": other }),
    };
    if let Value::Object(map) = &mut out {
        map.insert("type".to_owned(), Value::String(kind.to_owned()));
        map.insert("turn".to_owned(), turn);
    }
    Some(out)
}

/// The verdict part shown above a trace: outcome, evidence and what to highlight.
fn verdict_json(v: &Verdict) -> Value {
    let violations: Vec<Value> = v
        .violations
        .iter()
        .map(|x| {
            json!({
                "carrier": x.carrier.as_str(),
                "effect": x.effect,
                "destination": x.destination.to_string(),
                "turn": x.turn,
                "scored": x.scored,
                "audience": x.audience,
                "canary": x.canary,
                "object": x.object.0,
                "cross_community": x.cross_community,
                "after_event": x.after_event,
            })
        })
        .collect();
    json!({
        "class": verdict_class(v),
        "status": v.status,
        "cause": v.cause,
        "pvr": v.pvr, "pvr_all": v.all_outputs_pvr(), "ccpvr": v.ccpvr, "bcr": v.bcr, "stcr": v.stcr,
        "stale_state": v.stale_state,
        "violations": violations,
        "failure_class": v.failure_class,
        "goal_failures": v.goal_failures,
        "evidence_gaps": v.evidence_gaps,
        "judge": v.judge,
    })
}

/// What one trial contributes to the page.
pub struct TrialData {
    /// The verdict part shown above the trace.
    pub verdict: Value,
    /// The condensed trace events, in order.
    pub events: Vec<Value>,
    /// Why (part of) the trace could not be read.
    pub problems: Vec<String>,
    /// Guard decisions by layer: `[decisions, allow, withhold or redact, block, restore,
    /// shadow-only]`.
    pub guard_by_layer: BTreeMap<String, [u64; 6]>,
}

/// Reads a trial's trace (a missing or unreadable trace becomes a note in the viewer).
pub fn trial_data(run_dir: &Path, v: &Verdict) -> TrialData {
    let path = TrialPaths::new(run_dir, &v.trial).trace;
    let mut events = Vec::new();
    let mut problems = Vec::new();
    let mut guard_by_layer: BTreeMap<String, [u64; 6]> = BTreeMap::new();
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            for (i, line) in text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
            {
                match serde_json::from_str::<Value>(line) {
                    Ok(value) => {
                        if let Some(event) = condense(&value) {
                            if str_of(&event, "type") == "guard_decision" {
                                count_guard(&mut guard_by_layer, &event);
                            }
                            events.push(event);
                        }
                    }
                    Err(e) => problems.push(format!("{}:{}: {e}", path.display(), i + 1)),
                }
            }
        }
        Err(e) => problems.push(format!("{}: {e}", path.display())),
    }
    TrialData {
        verdict: verdict_json(v),
        events,
        problems,
        guard_by_layer,
    }
}

fn count_guard(by_layer: &mut BTreeMap<String, [u64; 6]>, event: &Value) {
    let counts = by_layer
        .entry(str_of(event, "layer").to_owned())
        .or_insert([0; 6]);
    counts[0] += 1;
    let enforced = event
        .get("enforced")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let slot = match (str_of(event, "decision"), enforced) {
        ("allow", _) => 1,
        (_, false) => 5,
        ("redact" | "withhold", true) => 2,
        ("block", true) => 3,
        ("restore", true) => 4,
        _ => return,
    };
    counts[slot] += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_decision_without_a_layer_counts_under_all() {
        let line = json!({"ms": 3, "type": "guard_decision", "turn": 2, "point": "response",
            "object": "o1", "requester": null, "action": "disclose", "destination": "community:c",
            "decision": "redact", "policies": ["p"], "errors": [], "enforced": true, "latency_us": 9});
        let event = condense(&line).unwrap();
        assert_eq!(event["layer"], "all");
        let mut by = BTreeMap::new();
        count_guard(&mut by, &event);
        let mut shadow = line.clone();
        shadow["enforced"] = json!(false);
        shadow["layer"] = json!("input");
        count_guard(&mut by, &condense(&shadow).unwrap());
        assert_eq!(by["all"], [1, 0, 1, 0, 0, 0]);
        assert_eq!(by["input"], [1, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn long_texts_are_cut_with_a_count_of_the_rest() {
        let text = "x".repeat(TEXT_CAP + 5);
        let v = cap(&text, TEXT_CAP);
        assert!(v
            .as_str()
            .unwrap()
            .ends_with("[5 more characters in the trace file]"));
    }
}
