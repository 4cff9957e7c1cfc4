//! The scenario as a trial played it: where a participant's text was rewritten
//! (`--attacker`, `--speaker-mode model`), the trace's rewrite events replace the seed
//! in the turns, the planted seeds and the attacker spans, so that what the attacker
//! wrote is never counted as the agent's disclosure. Read from the trace, so a trial is
//! verified again from its folder alone.

use crate::attack::RewriteCounts;
use cosec_proxy::trace::{TraceEvent, TraceLine};
use cosec_scenarios::verifier::SpanLocation;
use cosec_scenarios::Scenario;
use std::borrow::Cow;

/// The scenario with the trial's rewrites applied (the scenario itself when it had none).
pub fn played<'a>(s: &'a Scenario, trace: &[TraceLine]) -> Cow<'a, Scenario> {
    let mut out: Option<Scenario> = None;
    for line in trace {
        let TraceEvent::Rewrite {
            site, seed, text, ..
        } = &line.event
        else {
            continue;
        };
        if seed == text {
            continue;
        }
        let p = out.get_or_insert_with(|| s.clone());
        match site {
            SpanLocation::Turn { index } => {
                if let Some(turn) = p.agent.turns.iter_mut().find(|t| t.index == *index) {
                    turn.text.clone_from(text);
                }
                let spans: Vec<usize> = p
                    .verifier
                    .attacker_spans
                    .iter()
                    .enumerate()
                    .filter(|(_, span)| span.location == *site)
                    .map(|(i, _)| i)
                    .collect();
                if spans.is_empty() {
                    // A benign participant's rewrite is theirs, not the agent's, too.
                    p.verifier
                        .attacker_spans
                        .push(cosec_scenarios::verifier::AttackerSpan {
                            location: site.clone(),
                            text: text.clone(),
                        });
                }
                for i in spans {
                    if let Some(span) = p.verifier.attacker_spans.get_mut(i) {
                        span.text.clone_from(text);
                    }
                }
            }
            SpanLocation::Seed { object } => {
                if let Some(x) = p.agent.seeds.iter_mut().find(|x| &x.object == object) {
                    x.content = x.content.replacen(seed.as_str(), text, 1);
                }
                for span in p
                    .verifier
                    .attacker_spans
                    .iter_mut()
                    .filter(|span| span.location == *site && span.text == *seed)
                {
                    span.text.clone_from(text);
                }
            }
        }
    }
    out.map_or(Cow::Borrowed(s), Cow::Owned)
}

/// The trial's rewrites, counted; `None` when no participant was rewritten.
pub fn rewrite_counts(trace: &[TraceLine]) -> Option<RewriteCounts> {
    let mut counts: Option<RewriteCounts> = None;
    for line in trace {
        let TraceEvent::Rewrite {
            seed,
            text,
            rejected,
            ..
        } = &line.event
        else {
            continue;
        };
        let c = counts.get_or_insert_with(RewriteCounts::default);
        match rejected {
            Some(r) => *c.rejected.entry(r.reason.clone()).or_insert(0) += 1,
            None if seed != text => c.applied += 1,
            None => {}
        }
    }
    counts
}
