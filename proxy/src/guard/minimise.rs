//! The input layer: labeled content is kept out of the model's context when the
//! defense policy does not let it into this turn.
//!
//! Before a request goes to the model, every text in it (system and developer
//! instructions, participants' and earlier assistant messages, tool calls and tool
//! results, whatever the harness put there from memory, files or shell output) is
//! scanned for the protected objects' distinctive parts (see [`super::patterns`]; a
//! whole line or sentence of an object's content is a pattern too, so content a
//! harness read verbatim is found as a whole). For each object found, the guard asks
//! Cedar `read` with the turn's requester as principal, the object as resource and the
//! turn's reply destination in the context, plus `receive` for everyone that
//! destination reaches, under the community state of the turn. Denied spans are
//! replaced by [`PLACEHOLDER`] in the forwarded request only: the harness keeps its own
//! history, so content the policy lets into a later turn is there again.
//!
//! The cost to legitimate work: a turn that may not disclose an object to its
//! destination cannot use it either, not even for an allowed summary or a derived
//! fact (docs/guard.md).

use super::decide::Flow;
use super::detect::Hit;
use super::redact::{merge, replace_spans, token_run};
use super::stats::GuardOutcome;
use super::trial::TrialGuard;
use super::{reply_destination, GuardLayer, GuardMode, GuardPoint};
use crate::api::WireApi;
use crate::registry::TurnContext;
use cosec_scenarios::Action;
use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What replaces content the model may not see in this turn: neutral, with no
/// protected text, path or label.
pub const PLACEHOLDER: &str = "[not available in this conversation]";

/// Keys whose string values carry text in both wire formats (messages, parts, tool
/// calls and their outputs); ids, roles, types and names are never touched.
const TEXT_KEYS: &[&str] = &[
    "content",
    "text",
    "arguments",
    "output",
    "input",
    "instructions",
];

/// What minimising a request did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Minimised {
    /// Whether the forwarded request differs from the client's.
    pub changed: bool,
    /// How many spans were withheld (in shadow mode: would have been).
    pub withheld: usize,
}

impl TrialGuard {
    /// Minimises a request in wire JSON, in place, for turn `ctx`; in shadow mode
    /// decides and traces only. Without the input layer nothing is done.
    pub fn minimise_request(&self, ctx: &TurnContext, api: WireApi, body: &mut Value) -> Minimised {
        if !self.layers.input {
            return Minimised::default();
        }
        let mut flow = Flow::new(
            ctx.clone(),
            Action::Read,
            reply_destination(ctx),
            GuardPoint::Context,
            GuardLayer::Input,
            GuardOutcome::Withhold,
        );
        let mut out = Minimised::default();
        let roots: &[&str] = match api {
            WireApi::ChatCompletions => &["messages"],
            WireApi::Responses => &["instructions", "input"],
        };
        let Some(obj) = body.as_object_mut() else {
            return out;
        };
        for key in roots {
            if let Some(v) = obj.get_mut(*key) {
                self.minimise_value(v, true, &mut flow, &mut out);
            }
        }
        // What the request lets through has entered the turn: its labels go with
        // whatever the turn writes elsewhere.
        let allowed: Vec<_> = flow
            .allowed()
            .filter_map(|o| self.object(o).map(|p| p.id.clone()))
            .collect();
        self.note_entered(allowed);
        out
    }

    /// Walks a wire value; `text` says whether a string here is text.
    fn minimise_value(&self, v: &mut Value, text: bool, flow: &mut Flow, out: &mut Minimised) {
        match v {
            Value::String(s) if text => {
                let spans = self.withheld_spans(s, flow);
                if spans.is_empty() {
                    return;
                }
                out.withheld += spans.len();
                if self.mode == GuardMode::Enforce {
                    *s = replace_spans(s, &spans, PLACEHOLDER);
                    out.changed = true;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.minimise_value(item, text, flow, out);
                }
            }
            Value::Object(map) => {
                for (k, item) in map.iter_mut() {
                    let is_text = TEXT_KEYS.contains(&k.as_str());
                    if is_text || !item.is_string() {
                        self.minimise_value(item, is_text, flow, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// The merged spans of `text` the flow denies: strong matches of denied objects,
    /// and weak matches of objects denied in this request or anchored before.
    fn withheld_spans(&self, text: &str, flow: &mut Flow) -> Vec<std::ops::Range<usize>> {
        let echoes = self.echoes(&flow.ctx, &flow.destination);
        let all = self.context_hits(text);
        let hits: Vec<&Hit> = all
            .iter()
            .filter(|h| !echoes.contains(&h.pattern))
            .collect();
        let mut spans = Vec::new();
        let mut denied = BTreeSet::new();
        for hit in hits.iter().filter(|h| h.kind.is_strong()) {
            for o in &hit.objects {
                if flow.denied(self, *o, Some(*hit)) {
                    denied.insert(*o);
                    spans.push(token_run(text, hit.start..hit.end));
                }
            }
        }
        for hit in hits.iter().filter(|h| !h.kind.is_strong()) {
            if hit
                .objects
                .iter()
                .any(|o| denied.contains(o) || flow.was_denied(*o))
            {
                spans.push(token_run(text, hit.start..hit.end));
            }
        }
        merge(spans)
    }

    /// The matches in a request text, scanned once per distinct text.
    fn context_hits(&self, text: &str) -> Arc<Vec<Hit>> {
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        let key = h.finish();
        if let Some(found) = self.lock_context_hits().get(&key) {
            return Arc::clone(found);
        }
        let hits = Arc::new(self.candidates().scan(text));
        self.lock_context_hits().insert(key, Arc::clone(&hits));
        hits
    }

    fn lock_context_hits(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<u64, Arc<Vec<Hit>>>> {
        self.context_hits
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
