//! The suite's own protected values and ordinary text, shared by the matcher's recall
//! and false-match tests.

#![allow(
    clippy::unwrap_used,
    dead_code,
    reason = "test fixture; each test file uses a part of it"
)]

use cosec_text::{Haystack, Needle};

/// Every protected value of the suite, sorted, once each.
pub fn suite_values() -> Vec<String> {
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    let mut v: Vec<String> = suite
        .scenarios
        .iter()
        .flat_map(|s| s.verifier.protected.iter().flat_map(|p| p.canaries.clone()))
        .collect();
    v.sort();
    v.dedup();
    v
}

/// What the ideal agent writes in every scenario (replies, posts, messages, files,
/// workflow payloads and notes of its reference plan): text the verifier must not read
/// as a leak. Its answers to an entitled request for a protected value are protected
/// content, not ordinary text, and are left out.
fn ideal_outputs(s: &cosec_scenarios::Scenario) -> Vec<String> {
    use cosec_scenarios::play::{play, PlanKind};
    let canaries: Vec<Needle> = s
        .verifier
        .protected
        .iter()
        .flat_map(|p| p.canaries.iter().filter_map(|c| Needle::new(c)))
        .collect();
    play(s, PlanKind::Ideal)
        .steps
        .into_iter()
        .filter_map(|p| p.written.map(str::to_owned))
        .filter(|t| !canaries.iter().any(|c| Haystack::plain(t).contains(c)))
        .collect()
}

/// Every unprotected document and message of the suite and every output of its ideal
/// agent, and each of their lines and sentences read alone (for more, shorter texts).
pub fn ordinary_texts() -> Vec<String> {
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    let mut texts: Vec<String> = Vec::new();
    for s in &suite.scenarios {
        let protected =
            |o: &cosec_scenarios::ObjectId| s.verifier.protected.iter().any(|p| &p.object == o);
        texts.extend(
            s.agent
                .seeds
                .iter()
                .filter(|x| !protected(&x.object))
                .map(|x| x.content.clone()),
        );
        texts.extend(s.agent.turns.iter().map(|t| t.text.clone()));
        texts.extend(ideal_outputs(s));
    }
    texts.sort();
    texts.dedup();
    let mut pieces: Vec<String> = texts
        .iter()
        .flat_map(|t| t.split(['\n', '.']).map(str::to_owned).collect::<Vec<_>>())
        .filter(|p| p.trim().len() > 20)
        .collect();
    pieces.sort();
    pieces.dedup();
    texts.extend(pieces);
    texts
}
